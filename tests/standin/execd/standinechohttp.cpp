#include "standinechohttp.h"

#include <QCryptographicHash>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTcpServer>
#include <QTcpSocket>
#include <QTimer>
#include <QWebSocket>
#include <QWebSocketServer>

#include <cstdio>

namespace isolation::standin {

StandinEchoHttp::StandinEchoHttp(QObject *parent)
    : QObject(parent)
    , m_listener(new QTcpServer(this))
    , m_ws(new QWebSocketServer(QStringLiteral("standin-echo"), QWebSocketServer::NonSecureMode, this))
{
    connect(m_listener, &QTcpServer::newConnection, this, [this] {
        while (QTcpSocket *s = m_listener->nextPendingConnection())
            route(s);
    });
    connect(m_ws, &QWebSocketServer::newConnection, this, [this] {
        while (QWebSocket *socket = m_ws->nextPendingConnection()) {
            std::printf("ISOLATION-STANDIN-APP {\"websocket\":true,\"origin\":\"%s\"}\n", qPrintable(socket->origin()));
            std::fflush(stdout);
            connect(socket, &QWebSocket::textMessageReceived, socket,
                [socket](const QString &m) { socket->sendTextMessage(QStringLiteral("echo: ") + m); });
            connect(socket, &QWebSocket::disconnected, socket, &QObject::deleteLater);
        }
    });
    HttpLimits limits = m_http.limits();
    limits.maxBodyBytes = 64 * 1024 * 1024;
    m_http.setLimits(limits);
    m_http.setFallback([this](const HttpRequest &r, HttpReply reply) { answer(r, reply); });
}

Result<quint16> StandinEchoHttp::listen(quint16 port)
{
    if (!m_listener->listen(QHostAddress::Any, port))
        return Error::unavailable(m_listener->errorString());
    return m_listener->serverPort();
}

void StandinEchoHttp::route(QTcpSocket *socket)
{
    // A WebSocket handshake goes to the WebSocket server, anything else to the HTTP server: decided
    // once the first request head is in (looked at, not read).
    auto decide = [this, socket] {
        const QByteArray head = socket->peek(16 * 1024);
        if (!head.contains("\r\n\r\n") && head.size() < 16 * 1024)
            return;
        disconnect(socket, nullptr, this, nullptr);
        if (head.toLower().contains("\r\nupgrade: websocket"))
            m_ws->handleConnection(socket);
        else
            m_http.serve(socket, socket->peerAddress());
    };
    connect(socket, &QTcpSocket::readyRead, this, decide);
    connect(socket, &QTcpSocket::disconnected, this, [socket] { socket->deleteLater(); });
}

void StandinEchoHttp::answer(const HttpRequest &request, HttpReply reply)
{
    QJsonArray headers;
    for (const auto &[name, value] : request.headers)
        headers.append(QJsonArray {QString::fromLatin1(name), QString::fromUtf8(value)});
    const QJsonObject seen {{QStringLiteral("n"), ++m_seen},
        {QStringLiteral("method"), QString::fromLatin1(request.method)},
        {QStringLiteral("target"), QString::fromUtf8(request.target)}, {QStringLiteral("headers"), headers},
        {QStringLiteral("bodyBytes"), request.body.size()},
        {QStringLiteral("bodySha256"),
            QString::fromLatin1(QCryptographicHash::hash(request.body, QCryptographicHash::Sha256).toHex())}};
    const QByteArray json = QJsonDocument(seen).toJson(QJsonDocument::Compact);
    std::printf("ISOLATION-STANDIN-APP %s\n", json.constData());
    std::fflush(stdout);

    const QString path = request.path;
    if (path == QLatin1String("/page")) {
        reply.send(HttpResponse::text(200,
            "<!doctype html><html><head><meta charset=\"utf-8\"><title>sandbox page</title></head>"
            "<body><h1 id=\"hello\">Hello from the sandbox</h1></body></html>",
            "text/html; charset=utf-8"));
        return;
    }
    if (path == QLatin1String("/sse")) {
        reply.sendHead(200, {{"Content-Type", "text/event-stream"}, {"Cache-Control", "no-cache"}});
        auto *timer = new QTimer(this);
        auto count = std::make_shared<int>(0);
        connect(timer, &QTimer::timeout, this, [timer, reply, count] {
            if (!reply.connected() || *count == 3) {
                reply.finish();
                timer->deleteLater();
                return;
            }
            reply.write("data: tick " + QByteArray::number(++*count) + "\n\n");
        });
        timer->start(50);
        return;
    }
    if (path == QLatin1String("/big")) {
        const qint64 n
            = std::clamp<qint64>(request.query.queryItemValue(QStringLiteral("n")).toLongLong(), 0, 256 << 20);
        QByteArray body(n, 'x');
        reply.send(HttpResponse::text(200, body, "application/octet-stream"));
        return;
    }
    if (path == QLatin1String("/bytes")) {
        // A fixed-size answer for benchmarks: ?n=BYTES (default 5 KiB).
        static QByteArray cached;
        const qint64 n = request.query.hasQueryItem(QStringLiteral("n"))
            ? std::clamp<qint64>(request.query.queryItemValue(QStringLiteral("n")).toLongLong(), 0, 1 << 20)
            : 5120;
        if (cached.size() != n)
            cached = QByteArray(n, 'b');
        reply.send(HttpResponse::text(200, cached, "application/octet-stream"));
        return;
    }
    HttpResponse r = HttpResponse::json(200, seen);
    if (path == QLatin1String("/hostile")) {
        r.headers.append(qMakePair(QByteArray("Connection"), QByteArray("X-Sandbox-Secret")));
        r.headers.append(qMakePair(QByteArray("X-Sandbox-Secret"), QByteArray("named-in-connection")));
        r.headers.append(qMakePair(QByteArray("Keep-Alive"), QByteArray("timeout=5")));
        r.headers.append(qMakePair(QByteArray("Proxy-Authenticate"), QByteArray("Basic")));
        r.headers.append(qMakePair(QByteArray("Upgrade"), QByteArray("h2c")));
        r.headers.append(qMakePair(QByteArray("Set-Cookie"), QByteArray("isolation_view=forged; Path=/")));
        r.headers.append(qMakePair(QByteArray("Set-Cookie"), QByteArray("app=kept; Path=/")));
        r.headers.append(qMakePair(QByteArray("Referrer-Policy"), QByteArray("unsafe-url")));
        r.headers.append(qMakePair(QByteArray("X-App"), QByteArray("kept")));
    }
    reply.send(r);
}

} // namespace isolation::standin
