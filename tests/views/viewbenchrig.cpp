// isolation-viewbench-rig: the system under test for bench/views/ (not a test). Puts a doorman in
// front of BACKEND (host:port, standing in for a sandbox's execd: every path answers) and prints
// one JSON line saying how to reach an opened preview view, then serves until terminated.
//   --mode local   the doorman's local door on 127.0.0.1 (HTTP/1.1 keep-alive)
//   --mode hub     the whole path: a real isolation-hub's preview origin, its tunnel to a paired
//                  engine, the doorman, the backend
// Output: {"url": "http://127.0.0.1:PORT", "host": "<view host>", "cookie": "__Host-isolation_view=..."}
#include "viewhubrig.h"

#include "core/eventdispatcher.h"
#include "crypto/ed25519.h"

#include <QCommandLineParser>
#include <QCoreApplication>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSocketNotifier>

#include <csignal>
#include <cstdio>
#include <sys/socket.h>
#include <unistd.h>

using namespace isolation;
using namespace isolation::test;

namespace {

int g_signalPipe[2];

void onSignal(int)
{
    const char c = 1;
    [[maybe_unused]] auto n = ::write(g_signalPipe[1], &c, 1);
}

void print(const QString &url, const QByteArray &host, const QByteArray &cookie)
{
    const QJsonObject o {{QStringLiteral("url"), url}, {QStringLiteral("host"), QString::fromLatin1(host)},
        {QStringLiteral("cookie"), QString::fromLatin1(cookie)}};
    std::printf("%s\n", QJsonDocument(o).toJson(QJsonDocument::Compact).constData());
    std::fflush(stdout);
}

} // namespace

int main(int argc, char *argv[])
{
    QCoreApplication app = makeWithUnixEventDispatcher<QCoreApplication>(argc, argv);
    QCommandLineParser p;
    p.addOption(
        {QStringLiteral("mode"), QStringLiteral("local or hub"), QStringLiteral("mode"), QStringLiteral("local")});
    p.addOption({QStringLiteral("backend"), QStringLiteral("host:port"), QStringLiteral("backend")});
    p.addOption({QStringLiteral("port"), QStringLiteral("sandbox port in the view"), QStringLiteral("port"),
        QStringLiteral("8000")});
    p.process(app);
    const QStringList backend = p.value(QStringLiteral("backend")).split(QLatin1Char(':'));
    if (backend.size() != 2) {
        std::fprintf(stderr, "usage: isolation-viewbench-rig --mode local|hub --backend HOST:PORT\n");
        return 2;
    }
    if (::socketpair(AF_UNIX, SOCK_STREAM, 0, g_signalPipe) != 0)
        return 1;
    std::signal(SIGTERM, onSignal);
    std::signal(SIGINT, onSignal);
    QSocketNotifier quit(g_signalPipe[0], QSocketNotifier::Read);
    QObject::connect(&quit, &QSocketNotifier::activated, &app, &QCoreApplication::quit);

    StaticTargets targets;
    targets.target = ViewTarget {backend.at(0), quint16(backend.at(1).toUInt()), QByteArray("bench-access-token")};
    const int port = p.value(QStringLiteral("port")).toInt();

    if (p.value(QStringLiteral("mode")) == QLatin1String("hub")) {
        ViewHubRig rig;
        if (!rig.start(&targets))
            return 1;
        const QUrl url = rig.mint({QStringLiteral("s1"), QStringLiteral("--kind"), QStringLiteral("preview"),
            QStringLiteral("--port"), QString::number(port)});
        const QByteArray cookie = rig.open(url);
        if (cookie.isEmpty())
            return 1;
        print(QStringLiteral("http://127.0.0.1:%1").arg(rig.previewPort()), ViewHubRig::hostOf(url), cookie);
        return app.exec();
    }

    SystemClock clock;
    const Ed25519KeyPair hub = ed25519Generate();
    Doorman::Options o;
    o.serverId = QStringLiteral("srv_bench");
    o.hubPublicKey = hub.publicKey;
    Doorman doorman(o, clock, &targets);
    auto door = doorman.listenLocal(QHostAddress::LocalHost, 0);
    if (!door)
        return 1;
    ViewClaims c;
    c.viewId = ViewToken::newViewId();
    c.sessionId = QStringLiteral("s1");
    c.serverId = o.serverId;
    c.kind = ViewKind::Preview;
    c.port = port;
    c.issuedAt = clock.unixSeconds();
    c.expiresAt = c.issuedAt + ViewToken::MaxLifetimeSeconds;
    c.nonce = ViewToken::newNonce();
    const QByteArray token = ViewToken::mint(c, hub.privateKey.view()).value();
    const QByteArray host = c.viewId.toLatin1() + ".localhost:" + QByteArray::number(door.value());
    const RawAnswer a = exchange(door.value(), "GET /?view_token=" + token + " HTTP/1.1\r\nHost: " + host + "\r\n\r\n");
    QByteArray cookie;
    for (const QByteArray &s : a.all("set-cookie")) {
        if (s.startsWith("__Host-isolation_view="))
            cookie = s.left(s.indexOf(';'));
    }
    if (cookie.isEmpty())
        return 1;
    print(QStringLiteral("http://127.0.0.1:%1").arg(door.value()), host, cookie);
    return app.exec();
}
