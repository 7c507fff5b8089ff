// isolation-hub: a local hub speaking the cloud's protocol, for tests and for trying the
// product on one machine. `serve` runs it; other verbs administer the running hub.
#include "adminclient.h"
#include "adminverbs.h"
#include "hubserver.h"

#include "core/eventdispatcher.h"
#include "core/logging.h"
#include "core/signalwatcher.h"
#include "core/version.h"
#include "crypto/opensslinit.h"

#include <QCommandLineParser>
#include <QCoreApplication>
#include <QDir>
#include <QJsonDocument>
#include <QJsonObject>
#include <QUrl>

#include <cstdio>

using namespace isolation;

namespace {

const char *kHelp
    = "Usage:\n"
      "  isolation-hub serve --data DIR [--listen HOST:PORT] [--preview HOST:PORT] [--public-host NAME]\n"
      "  isolation-hub --data DIR COMMAND [options]\n"
      "\n"
      "A local hub that speaks the Isolation cloud's protocol (docs/protocol.md): the peer of the\n"
      "integration tests and the default cloud for trying the product on one machine.\n"
      "\n"
      "serve     Run the hub. The app origin (API, pages) listens on --listen (default\n"
      "          127.0.0.1:8470), the preview origin (views) on --preview (default 127.0.0.1:8471).\n"
      "          Port 0 picks a free port. Writes DIR/admin.json (mode 0600) with the admin token.\n"
      "          Each origin answers only the host names it serves, others get 421 (DNS rebinding):\n"
      "          the app origin 127.0.0.1, localhost and [::1] on loopback, else the --listen\n"
      "          address (every local address for 0.0.0.0) and each --public-host NAME; the preview\n"
      "          origin <view>.preview.localhost. Forms and other changes must come from the hub's\n"
      "          own pages (Origin / Sec-Fetch-Site), else 403.\n"
      "          On loopback the member pages sign their one member in on the first visit. With a\n"
      "          --listen that is not loopback they want the sign-in token printed at first start\n"
      "          (only its SHA-256 is kept, in DIR/signin.json; delete that file for a new token).\n"
      "          Testing options: --code-lifetime S (pairing codes, default 600),\n"
      "          --poll-interval S (device-code polling, default 5), --heartbeat-interval S (default 15),\n"
      "          --workspace-token-lifetime S (workspace bearers, default 900).\n"
      "\n"
      "Admin commands (talk to the running hub with the token in DIR/admin.json):\n"
      "%s"
      "\n"
      "Options:\n"
      "  -h, --help        Show this help.\n"
      "  -v, --version     Show the version.\n"
      "\n"
      "Exit codes: 0 success, 1 failure, 2 bad command line.\n";

void print(const QString &text)
{
    const QByteArray bytes = text.toUtf8() + '\n';
    std::fwrite(bytes.constData(), 1, size_t(bytes.size()), stdout);
    std::fflush(stdout);
}

int fail(const QString &text, int code = 1)
{
    std::fprintf(stderr, "isolation-hub: %s\n", qPrintable(text));
    return code;
}

bool parseHostPort(const QString &text, QHostAddress *address, quint16 *port)
{
    const qsizetype colon = text.lastIndexOf(QLatin1Char(':'));
    if (colon <= 0)
        return false;
    QString host = text.left(colon);
    if (host.startsWith(QLatin1Char('[')) && host.endsWith(QLatin1Char(']')))
        host = host.mid(1, host.size() - 2);
    if (host == QLatin1String("localhost"))
        host = QStringLiteral("127.0.0.1");
    bool ok = false;
    const uint p = text.mid(colon + 1).toUInt(&ok);
    if (!ok || p > 65535 || !address->setAddress(host))
        return false;
    *port = quint16(p);
    return true;
}

int serve(const QString &dataDir, const QStringList &args)
{
    QCommandLineParser parser;
    parser.addOption({QStringLiteral("listen"), QStringLiteral("App origin address."), QStringLiteral("host:port"),
        QStringLiteral("127.0.0.1:8470")});
    parser.addOption({QStringLiteral("preview"), QStringLiteral("Preview origin address."), QStringLiteral("host:port"),
        QStringLiteral("127.0.0.1:8471")});
    parser.addOption({QStringLiteral("data"), QStringLiteral("Data directory."), QStringLiteral("dir")});
    parser.addOption({QStringLiteral("public-host"), QStringLiteral("Another host name of the app origin."),
        QStringLiteral("name")});
    parser.addOption({QStringLiteral("code-lifetime"), QStringLiteral("Pairing code lifetime."),
        QStringLiteral("seconds"), QStringLiteral("600")});
    parser.addOption({QStringLiteral("poll-interval"), QStringLiteral("Device-code poll interval."),
        QStringLiteral("seconds"), QStringLiteral("5")});
    parser.addOption({QStringLiteral("heartbeat-interval"), QStringLiteral("Heartbeat interval."),
        QStringLiteral("seconds"), QStringLiteral("15")});
    parser.addOption({QStringLiteral("workspace-token-lifetime"), QStringLiteral("Workspace token lifetime."),
        QStringLiteral("seconds"), QStringLiteral("900")});
    if (!parser.parse(args))
        return fail(parser.errorText(), 2);
    const QString dir = parser.isSet(QStringLiteral("data")) ? parser.value(QStringLiteral("data")) : dataDir;
    if (dir.isEmpty())
        return fail(QStringLiteral("serve needs --data DIR"), 2);

    hub::HubServer::Options options;
    options.dataDir = QDir(dir).absolutePath();
    if (!parseHostPort(parser.value(QStringLiteral("listen")), &options.listenAddress, &options.listenPort))
        return fail(QStringLiteral("--listen wants HOST:PORT"), 2);
    if (!parseHostPort(parser.value(QStringLiteral("preview")), &options.previewAddress, &options.previewPort))
        return fail(QStringLiteral("--preview wants HOST:PORT"), 2);
    for (const QString &name : parser.values(QStringLiteral("public-host"))) {
        QUrl check;
        check.setHost(name, QUrl::StrictMode);
        if (name.isEmpty() || !check.isValid() || name.contains(QLatin1Char(':')))
            return fail(QStringLiteral("--public-host wants a host name without a port"), 2);
        options.publicHosts << name;
    }

    auto seconds = [&parser](const char *name, int *out) {
        bool ok = false;
        const int v = parser.value(QLatin1String(name)).toInt(&ok);
        if (!ok || v < 1 || v > 86400)
            return false;
        *out = v;
        return true;
    };
    if (!seconds("code-lifetime", &options.codeLifetimeSeconds)
        || !seconds("poll-interval", &options.pollIntervalSeconds)
        || !seconds("heartbeat-interval", &options.heartbeatIntervalSeconds)
        || !seconds("workspace-token-lifetime", &options.workspaceTokenLifetimeSeconds))
        return fail(QStringLiteral("--code-lifetime, --poll-interval, --heartbeat-interval and "
                                   "--workspace-token-lifetime want 1..86400 seconds"),
            2);

    if (!QDir().mkpath(options.dataDir))
        return fail(QStringLiteral("cannot create %1").arg(options.dataDir));
    logging::install(options.dataDir + QStringLiteral("/hub.log"));
    hub::HubServer server(options);
    // Watch for signals before anything can see the hub running, so a quick SIGTERM is clean too.
    SignalWatcher signals;
    QObject::connect(&signals, &SignalWatcher::terminationRequested, qApp, [&server] {
        server.stop();
        QCoreApplication::quit();
    });
    if (auto s = server.start(); !s)
        return fail(s.error().message);
    print(QStringLiteral("isolation-hub %1").arg(QStringLiteral(ISOLATION_VERSION)));
    print(QStringLiteral("app origin:     %1/").arg(server.appUrl().toString()));
    print(QStringLiteral("preview origin: %1/  (views at http://<view>.preview.localhost:%2/)")
              .arg(server.previewUrl().toString())
              .arg(server.previewUrl().port()));
    // Printed once, when it is made; the data directory keeps only its hash.
    if (!server.newSignInToken().isEmpty())
        print(QStringLiteral("sign-in token:  %1  (the member pages want it; shown only now)")
                  .arg(QString::fromLatin1(server.newSignInToken())));
    else if (server.signInRequired())
        print(QStringLiteral("sign-in token:  the one printed at first start (delete %1/signin.json for a new one)")
                  .arg(options.dataDir));
    print(QStringLiteral("admin token:    %1").arg(server.adminFile()));

    const int rc = QCoreApplication::exec();
    logging::uninstall();
    return rc;
}

} // namespace

int main(int argc, char *argv[])
{
    // Before any thread may use OpenSSL (opensslinit.h says why it is never torn down).
    if (!initOpenSslForProcess())
        std::fprintf(stderr, "isolation-hub: warning: OpenSSL could not be initialised\n");
    QCoreApplication app = makeWithUnixEventDispatcher<QCoreApplication>(argc, argv);
    QCoreApplication::setApplicationName(QStringLiteral("isolation-hub"));
    QCoreApplication::setApplicationVersion(QStringLiteral(ISOLATION_VERSION));

    QStringList args = QCoreApplication::arguments();
    const QString program = args.takeFirst();
    QString dataDir;
    // Global options come before the verb: --data DIR, --help, --version.
    while (!args.isEmpty() && args.first().startsWith(QLatin1Char('-'))) {
        const QString opt = args.takeFirst();
        if (opt == QLatin1String("--help") || opt == QLatin1String("-h")) {
            std::printf(kHelp, hub::adminVerbsHelp());
            return 0;
        }
        if (opt == QLatin1String("--version") || opt == QLatin1String("-v")) {
            print(QStringLiteral("isolation-hub %1").arg(QStringLiteral(ISOLATION_VERSION)));
            return 0;
        }
        if (opt == QLatin1String("--data") && !args.isEmpty()) {
            dataDir = args.takeFirst();
            continue;
        }
        if (opt.startsWith(QLatin1String("--data="))) {
            dataDir = opt.mid(7);
            continue;
        }
        return fail(QStringLiteral("unknown option %1 (see --help)").arg(opt), 2);
    }
    if (args.isEmpty())
        return fail(QStringLiteral("missing command (see --help)"), 2);
    const QString verb = args.first();
    args.first() = program + QLatin1Char(' ') + verb;
    if (verb == QLatin1String("serve"))
        return serve(dataDir, args);

    if (dataDir.isEmpty())
        return fail(QStringLiteral("admin commands need --data DIR before the command"), 2);
    auto client = hub::AdminClient::open(dataDir);
    if (!client)
        return fail(client.error().message);
    const int rc = hub::runAdminVerb(client.value(), verb, args);
    return rc >= 0 ? rc : fail(QStringLiteral("unknown command '%1' (see --help)").arg(verb), 2);
}
