#include "tunnelregistry.h"

#include <QJsonDocument>
#include <QLoggingCategory>
#include <QTcpSocket>
#include <QWebSocket>
#include <QWebSocketServer>

Q_DECLARE_LOGGING_CATEGORY(lcHubTunnel)

namespace isolation::hub {

namespace {

QString peerKey(const QHostAddress &address, quint16 port)
{
    return address.toString() + QLatin1Char('|') + QString::number(port);
}

} // namespace

TunnelRegistry::TunnelRegistry(QObject *parent)
    : QObject(parent)
    , m_server(new QWebSocketServer(QStringLiteral("isolation-hub"), QWebSocketServer::NonSecureMode, this))
{
    connect(m_server, &QWebSocketServer::newConnection, this, &TunnelRegistry::onNewConnection);
}

TunnelRegistry::~TunnelRegistry()
{
    const auto tunnels = std::exchange(m_tunnels, {});
    for (HubTunnel *tunnel : tunnels) {
        tunnel->close(QStringLiteral("the hub is stopping"));
        delete tunnel;
    }
}

bool TunnelRegistry::handleUpgrade(
    const HttpRequest &request, QIODevice *device, const QByteArray &head, const QByteArray &rest)
{
    auto *socket = qobject_cast<QTcpSocket *>(device);
    if (!socket || request.path != QLatin1String("/v1/tunnel") || request.method != "GET"
        || request.header("upgrade").toLower() != "websocket")
        return false;
    // The socket belongs to us now, whatever happens next.
    socket->setParent(this);
    if (!m_verifier) {
        refuse(socket, QStringLiteral("this hub has no registered servers"));
        return true;
    }
    auto verdict = m_verifier(request);
    if (!verdict) {
        qCInfo(lcHubTunnel) << "tunnel refused from" << request.peer.toString() << ":" << verdict.error().message;
        refuse(socket, QStringLiteral("invalid server credential or signature"));
        return true;
    }
    const QString key = peerKey(socket->peerAddress(), socket->peerPort());
    m_pending.insert(key, verdict.value());
    connect(socket, &QTcpSocket::disconnected, this, [this, key, socket] {
        // Still pending: the WebSocket handshake never completed, so nobody else owns it.
        if (m_pending.remove(key) > 0)
            socket->deleteLater();
    });
    // QWebSocketServer reads the handshake from the socket itself: give back what HttpServer
    // already consumed, last byte first.
    const QByteArray consumed = head + rest;
    for (qsizetype i = consumed.size() - 1; i >= 0; --i)
        socket->ungetChar(consumed.at(i));
    m_server->handleConnection(socket);
    return true;
}

void TunnelRegistry::refuse(QTcpSocket *socket, const QString &message)
{
    const QByteArray body = QJsonDocument(QJsonObject {{QStringLiteral("error"),
                                              QJsonObject {{QStringLiteral("code"), QStringLiteral("unauthorized")},
                                                  {QStringLiteral("message"), message}}}})
                                .toJson(QJsonDocument::Compact);
    socket->write("HTTP/1.1 401 Unauthorized\r\nContent-Type: application/json\r\nContent-Length: "
        + QByteArray::number(body.size()) + "\r\nConnection: close\r\n\r\n" + body);
    connect(socket, &QTcpSocket::disconnected, socket, &QObject::deleteLater);
    socket->disconnectFromHost();
}

void TunnelRegistry::onNewConnection()
{
    while (QWebSocket *ws = m_server->nextPendingConnection()) {
        const QString serverId = m_pending.take(peerKey(ws->peerAddress(), ws->peerPort()));
        if (serverId.isEmpty()) {
            ws->abort();
            ws->deleteLater();
            continue;
        }
        if (HubTunnel *old = m_tunnels.take(serverId)) {
            old->close(QStringLiteral("replaced by a new tunnel from %1").arg(serverId));
            old->deleteLater();
        }
        auto *tunnel = new HubTunnel(serverId, ws, m_settings, this);
        m_tunnels.insert(serverId, tunnel);
        connect(tunnel, &HubTunnel::closed, this, [this, serverId, tunnel] {
            if (m_tunnels.value(serverId) == tunnel) {
                m_tunnels.remove(serverId);
                tunnel->deleteLater();
                Q_EMIT tunnelDown(serverId);
            }
        });
        qCInfo(lcHubTunnel) << "tunnel up from" << serverId;
        Q_EMIT tunnelUp(serverId);
    }
}

void TunnelRegistry::call(const QString &serverId, const QString &method, const QJsonObject &params,
    std::chrono::milliseconds timeout, CallCallback done)
{
    HubTunnel *tunnel = m_tunnels.value(serverId);
    if (!tunnel || !tunnel->isOpen()) {
        done(CallError::notConnected(QStringLiteral("server %1 is not connected").arg(serverId)));
        return;
    }
    tunnel->call(method, params, timeout, std::move(done));
}

void TunnelRegistry::closeAll(const QString &reason)
{
    const auto tunnels = std::exchange(m_tunnels, {});
    for (HubTunnel *tunnel : tunnels) {
        tunnel->close(reason);
        delete tunnel;
    }
    for (auto it = tunnels.begin(); it != tunnels.end(); ++it)
        Q_EMIT tunnelDown(it.key());
}

void TunnelRegistry::close(const QString &serverId, const QString &reason)
{
    HubTunnel *tunnel = m_tunnels.take(serverId);
    if (!tunnel)
        return;
    tunnel->close(reason);
    delete tunnel;
    Q_EMIT tunnelDown(serverId);
}

void TunnelRegistry::answer(const HttpReply &reply, const CallResult &result)
{
    if (result) {
        reply.send(HttpResponse::json(200, QJsonObject {{QStringLiteral("result"), result.value()}}));
        return;
    }
    const CallError &e = result.error();
    switch (e.code) {
    case CallError::Code::NotConnected:
        reply.send(HttpResponse::error(503, QStringLiteral("server_offline"), e.message));
        return;
    case CallError::Code::Timeout:
        reply.send(HttpResponse::error(504, QStringLiteral("timeout"), e.message));
        return;
    case CallError::Code::Lost:
        reply.send(HttpResponse::error(502, QStringLiteral("tunnel_lost"), e.message));
        return;
    case CallError::Code::Remote:
        reply.send(HttpResponse::error(e.status >= 400 && e.status < 600 ? e.status : 502,
            e.errorCode.isEmpty() ? QStringLiteral("remote_error") : e.errorCode, e.message));
        return;
    }
}

} // namespace isolation::hub
