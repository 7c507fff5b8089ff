// isolation-standin-execd: the OFFLINE STAND-IN for OpenSandbox's execd (not execd).
//   isolation-standin-execd [--port N] -- ENTRYPOINT...   serve execd on N (44772), run the entry process
//   isolation-standin-execd --echo-websocket PORT         a WebSocket echo server, a peer for proxy tests
//   isolation-standin-execd --echo-http PORT              a web application that reports what reached it
// EXECD_ACCESS_TOKEN in the environment: every request must carry it (X-EXECD-ACCESS-TOKEN).
#include "standinechohttp.h"
#include "standinexecd.h"

#include "core/signalwatcher.h"

#include <QCoreApplication>
#include <QProcess>
#include <QWebSocket>
#include <QWebSocketServer>

#include <cstdio>

namespace {

int echoServer(quint16 port)
{
    auto *server = new QWebSocketServer(QStringLiteral("standin-echo"), QWebSocketServer::NonSecureMode, qApp);
    if (!server->listen(QHostAddress::Any, port)) {
        std::fprintf(stderr, "isolation-standin-execd: cannot listen on %u\n", port);
        return 1;
    }
    QObject::connect(server, &QWebSocketServer::newConnection, server, [server] {
        while (QWebSocket *socket = server->nextPendingConnection()) {
            QObject::connect(socket, &QWebSocket::textMessageReceived, socket,
                [socket](const QString &m) { socket->sendTextMessage(QStringLiteral("echo: ") + m); });
            QObject::connect(socket, &QWebSocket::disconnected, socket, &QObject::deleteLater);
        }
    });
    return QCoreApplication::exec();
}

} // namespace

int main(int argc, char *argv[])
{
    QCoreApplication app(argc, argv);
    QStringList args = QCoreApplication::arguments().mid(1);
    isolation::SignalWatcher signals; // PID 1 in its sandbox: stop promptly on SIGTERM
    QObject::connect(&signals, &isolation::SignalWatcher::terminationRequested, &app, &QCoreApplication::quit);
    if (args.value(0) == QLatin1String("--echo-websocket"))
        return echoServer(quint16(args.value(1).toUInt()));
    if (args.value(0) == QLatin1String("--echo-http")) {
        isolation::standin::StandinEchoHttp echo;
        if (auto p = echo.listen(quint16(args.value(1).toUInt())); !p) {
            std::fprintf(stderr, "isolation-standin-execd: %s\n", qPrintable(p.error().message));
            return 1;
        }
        return QCoreApplication::exec();
    }
    // As the real execd does, the environment (the token in it too) goes on to every process it
    // starts: a sandbox can read its own token, which is why each sandbox has its own.
    const QByteArray token = qgetenv("EXECD_ACCESS_TOKEN");

    quint16 port = 44772;
    if (args.value(0) == QLatin1String("--port")) {
        port = quint16(args.value(1).toUInt());
        args = args.mid(2);
    }
    if (args.value(0) == QLatin1String("--"))
        args.removeFirst();
    isolation::standin::StandinExecd execd;
    execd.setAccessToken(token);
    if (auto p = execd.listen(port); !p) {
        std::fprintf(stderr, "isolation-standin-execd: %s\n", qPrintable(p.error().message));
        return 1;
    }
    std::printf("isolation-standin-execd (offline stand-in, not execd) listening on %u\n", port);
    std::fflush(stdout);
    QProcess entry;
    if (!args.isEmpty()) {
        entry.setProcessChannelMode(QProcess::ForwardedChannels);
        entry.start(args.first(), args.mid(1));
    }
    const int rc = QCoreApplication::exec();
    if (entry.state() != QProcess::NotRunning) {
        entry.kill();
        entry.waitForFinished(2000);
    }
    return rc;
}
