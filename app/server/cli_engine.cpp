// isolation-server up / status.
#include "command.h"
#include "exitcodes.h"
#include "output.h"

#include "core/logging.h"
#include "core/paths.h"
#include "core/signalwatcher.h"
#include "engine.h"
#include "localapi/localapiclient.h"

#include <QCommandLineParser>
#include <QCoreApplication>
#include <QJsonDocument>

namespace isolation {

namespace {

int runUp(const QStringList &arguments)
{
    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral("Run the engine in the foreground until SIGINT or SIGTERM."));
    parser.addHelpOption();
    parser.addOption({QStringLiteral("credential-store"),
        QStringLiteral("Where credentials live: keychain (default) or file (one 0600 file in the state "
                       "directory, for headless servers)."),
        QStringLiteral("store"), QStringLiteral("keychain")});
    if (!parser.parse(arguments))
        return out::usage(parser.errorText());
    if (parser.isSet(QStringLiteral("help"))) {
        out::line(parser.helpText());
        return exitcode::Ok;
    }
    const QString store = parser.value(QStringLiteral("credential-store"));
    if (store != QLatin1String("keychain") && store != QLatin1String("file"))
        return out::usage(QStringLiteral("--credential-store must be keychain or file"));

    auto paths = Paths::resolve();
    if (!paths)
        return out::fail(paths.error().message);
    if (auto s = paths.value().ensure(); !s)
        return out::fail(s.error().message);
    logging::install(paths.value().logFile());

    EngineOptions options;
    options.credentialStore
        = store == QLatin1String("file") ? CredentialStoreKind::File : CredentialStoreKind::Keychain;
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

int runStatus(const QStringList &arguments)
{
    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral("Show the engine's state."));
    parser.addHelpOption();
    parser.addOption({QStringLiteral("json"), QStringLiteral("Print the LocalAPI's JSON.")});
    if (!parser.parse(arguments))
        return out::usage(parser.errorText());
    if (parser.isSet(QStringLiteral("help"))) {
        out::line(parser.helpText());
        return exitcode::Ok;
    }
    auto client = out::client();
    if (!client)
        return out::fail(client.error().message);
    auto status = client.value().call("GET", QStringLiteral("/v1/status"));
    if (!status)
        return out::localApiFailure(status.error());
    const QJsonObject s = status.value();
    if (parser.isSet(QStringLiteral("json"))) {
        out::json(s);
        return exitcode::Ok;
    }
    out::line(QStringLiteral("State:      %1").arg(s.value(QStringLiteral("reason")).toString()));
    out::line(QStringLiteral("Hub:        %1").arg(s.value(QStringLiteral("hub")).toString()));
    if (s.value(QStringLiteral("paired")).toBool()) {
        out::line(
            QStringLiteral("Server:     %1 (%2)")
                .arg(s.value(QStringLiteral("serverId")).toString(), s.value(QStringLiteral("serverName")).toString()));
        const QJsonObject tunnel = s.value(QStringLiteral("tunnel")).toObject();
        if (!tunnel.isEmpty())
            out::line(QStringLiteral("Tunnel:     %1").arg(tunnel.value(QStringLiteral("state")).toString()));
        const QJsonObject beat = s.value(QStringLiteral("heartbeat")).toObject();
        const QString last = beat.value(QStringLiteral("last")).toString();
        out::line(QStringLiteral("Heartbeat:  %1").arg(last.isEmpty() ? QStringLiteral("none yet") : last));
    }
    out::line(QStringLiteral("Keys in:    %1").arg(s.value(QStringLiteral("credentialStore")).toString()));
    out::line(QStringLiteral("Engine:     %1 (pid %2), version %3")
                  .arg(s.value(QStringLiteral("home")).toString())
                  .arg(s.value(QStringLiteral("pid")).toInteger())
                  .arg(s.value(QStringLiteral("version")).toString()));
    return exitcode::Ok;
}

} // namespace

QList<Command> engineCommands()
{
    return {
        {QStringLiteral("up"), QStringLiteral("up [--credential-store keychain|file]"),
            QStringLiteral("Run the engine headless until SIGINT or SIGTERM."), runUp},
        {QStringLiteral("status"), QStringLiteral("status [--json]"),
            QStringLiteral("Show whether the engine runs, its state and hub."), runStatus},
    };
}

} // namespace isolation
