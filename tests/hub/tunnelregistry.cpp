#include "tunnelregistry.h"

#include "net/tcpstream.h"
#include "tunnel/tunnelclient.h"
#include "websocket/websockethandshake.h"
#include "websocket/websocketlink.h"

#include <QJsonDocument>
#include <QLoggingCategory>

Q_DECLARE_LOGGING_CATEGORY(lcHubTunnel)

namespace isolation::hub {

TunnelRegistry::TunnelRegistry(QObject *parent)
    : QObject(parent)
{ }

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
    Q_UNUSED(head);
    if (request.path != QLatin1String("/v1/tunnel") || request.method != "GET"
        || !hasToken(request.header("upgrade"), "websocket"))
        return false;
    // The connection belongs to us now, whatever happens next.
    device->setParent(this);
    if (!m_verifier) {
        refuse(device, 401, "unauthorized", QStringLiteral("this hub has no registered servers"));
        return true;
    }
    auto verdict = m_verifier(request);
    if (!verdict) {
        qCInfo(lcHubTunnel) << "tunnel refused from" << request.peer.toString() << ":" << verdict.error().message;
        refuse(device, 401, "unauthorized", QStringLiteral("invalid server credential or signature"));
        return true;
    }
    const auto answer = websocket::serverAnswer(request);
    if (!answer) {
        refuse(device, 400, "bad_request", answer.error().message);
        return true;
    }
    device->write(answer.value());
    accept(verdict.value(), device, rest);
    return true;
}

void TunnelRegistry::refuse(QIODevice *device, int status, const QByteArray &code, const QString &message)
{
    const QByteArray body = QJsonDocument(
        QJsonObject {{QStringLiteral("error"),
            QJsonObject {{QStringLiteral("code"), QString::fromLatin1(code)}, {QStringLiteral("message"), message}}}})
                                .toJson(QJsonDocument::Compact);
    const QByteArray statusLine = status == 401 ? "401 Unauthorized" : "400 Bad Request";
    device->write("HTTP/1.1 " + statusLine + "\r\nContent-Type: application/json\r\nContent-Length: "
        + QByteArray::number(body.size()) + "\r\nConnection: close\r\n\r\n" + body);
    onDeviceDisconnected(device, device, [device] { device->deleteLater(); });
    disconnectDevice(device);
}

void TunnelRegistry::accept(const QString &serverId, QIODevice *device, const QByteArray &rest)
{
    if (HubTunnel *old = m_tunnels.take(serverId)) {
        old->close(QStringLiteral("replaced by a new tunnel from %1").arg(serverId));
        old->deleteLater();
    }
    auto *link = new WebSocketLink(WebSocketLink::Role::Server, device, rest, TunnelClient::MaxMessageSize);
    auto *tunnel = new HubTunnel(serverId, link, m_settings, this);
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
    tunnel->start();
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
    case CallError::Code::Remote: {
        // The engine's error object passed on whole (a conflict's files with it), its code and
        // message as the engine gave them or, when it gave none, made up here.
        QJsonObject error = e.error;
        error.insert(QStringLiteral("code"), e.errorCode.isEmpty() ? QStringLiteral("remote_error") : e.errorCode);
        error.insert(QStringLiteral("message"), e.message);
        reply.send(HttpResponse::json(
            e.status >= 400 && e.status < 600 ? e.status : 502, QJsonObject {{QStringLiteral("error"), error}}));
        return;
    }
    }
}

} // namespace isolation::hub
