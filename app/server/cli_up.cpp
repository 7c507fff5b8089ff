// isolation-server up: the engine, in the foreground, until SIGINT or SIGTERM (in the engine program).
#include "engineverbs.h"
#include "exitcodes.h"
#include "output.h"

#include "core/logging.h"
#include "core/paths.h"
#include "core/signalwatcher.h"
#include "core/translations.h"
#include "engine.h"

#include <QCommandLineParser>
#include <QCoreApplication>

namespace isolation {

int runUp(const QStringList &arguments)
{
    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral("Run the engine in the foreground until SIGINT or SIGTERM."));
    parser.addHelpOption();
    parser.addOption({QStringLiteral("credential-store"),
        QStringLiteral("Where credentials live: keychain, file (one 0600 file in the state directory, for "
                       "headless servers) or auto (the keychain when the session has one, else the file; the "
                       "systemd unit's choice). Without it: the store this computer's credentials are already "
                       "in, else the keychain."),
        QStringLiteral("store")});
    parser.addOption({QStringLiteral("metrics-listen"),
        QStringLiteral("Also serve GET /metrics (Prometheus text format) and GET /ready over HTTP on ADDRESS:PORT, "
                       "e.g. 127.0.0.1:9464, for a scraper. Off by default; they are always on the LocalAPI."),
        QStringLiteral("address:port")});
    if (!parser.parse(arguments))
        return out::usage(parser.errorText());
    if (parser.isSet(QStringLiteral("help"))) {
        out::line(parser.helpText());
        return exitcode::Ok;
    }
    std::optional<CredentialStoreKind> store;
    if (parser.isSet(QStringLiteral("credential-store"))) {
        store = credentialStoreKindFromName(parser.value(QStringLiteral("credential-store")));
        if (!store)
            return out::usage(QStringLiteral("--credential-store must be keychain, file or auto"));
    }

    auto paths = Paths::resolve();
    if (!paths)
        return out::fail(paths.error().message);
    if (auto s = paths.value().ensure(); !s)
        return out::fail(s.error().message);
    logging::install(paths.value().logFile());
    // The reasons and errors the engine hands its clients (the tray shows them) in the user's language.
    const QString language = Translations::install();
    qCInfo(lcCore) << "language" << language;

    EngineOptions options;
    options.credentialStore = store;
    options.metricsListen = parser.value(QStringLiteral("metrics-listen"));
    Engine engine(paths.value(), options);
    // Watch for signals before the socket exists: whoever sees the engine may stop it at once.
    SignalWatcher signals;
    QObject::connect(&signals, &SignalWatcher::terminationRequested, &engine, [&engine](int number) {
        qCInfo(lcCore) << "signal" << number << "received; shutting down";
        engine.shutdown(); // drains the tunnel (bounded) when there is one, then stops
    });
    if (auto s = engine.start(); !s) {
        out::error(s.error().message);
        return s.error().code == Error::Code::Unavailable ? exitcode::Refused : exitcode::Failure;
    }
    out::line(QStringLiteral("isolation-server: engine running (%1); LocalAPI on %2")
                  .arg(engine.stateReason(), engine.paths().socketPath()));
    QObject::connect(&engine, &Engine::stopped, qApp, &QCoreApplication::quit, Qt::QueuedConnection);
    const int rc = QCoreApplication::exec();
    engine.stop();
    out::line(QStringLiteral("isolation-server: stopped"));
    logging::uninstall();
    return rc;
}

} // namespace isolation
