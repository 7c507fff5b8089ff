// The hub's tunnels: accepts `GET /v1/tunnel` WebSocket upgrades from the app origin (verified
// by an injected verifier, 401 otherwise), keeps serverId -> live tunnel (a new tunnel for a
// server replaces its old one), and routes calls to servers.
#pragma once

#include "core/result.h"
#include "http/httprequest.h"
#include "http/httpserver.h"
#include "hubtunnel.h"

#include <QHash>
#include <QObject>

#include <functional>

class QIODevice;

namespace isolation::hub {

class TunnelRegistry final : public QObject
{
    Q_OBJECT
public:
    // Returns the server id the request proves, or an error (answered with 401).
    using Verifier = std::function<Result<QString>(const HttpRequest &request)>;

    explicit TunnelRegistry(QObject *parent = nullptr);
    ~TunnelRegistry() override;

    // Without a verifier every tunnel is refused (there is no server registry yet).
    void setVerifier(Verifier verifier) { m_verifier = std::move(verifier); }
    void setHttp2Settings(Http2Session::Settings settings) { m_settings = settings; }

    // HttpServer's upgrade handler. Takes `GET /v1/tunnel` WebSocket upgrades: answers 401 itself
    // when the verifier refuses; returns false (HttpServer answers 400) for anything else.
    bool handleUpgrade(const HttpRequest &request, QIODevice *device, const QByteArray &head, const QByteArray &rest);

    HubTunnel *tunnel(const QString &serverId) const { return m_tunnels.value(serverId); }
    QStringList servers() const { return m_tunnels.keys(); }
    // Calls `method` on a connected server; `done` runs exactly once.
    void call(const QString &serverId, const QString &method, const QJsonObject &params,
        std::chrono::milliseconds timeout, CallCallback done);
    // A call's outcome as the admin API answers it (the result, or the error with its status).
    static void answer(const HttpReply &reply, const CallResult &result);
    // Closes every tunnel (their pending calls fail with Lost).
    void closeAll(const QString &reason);
    // Closes one server's tunnel (a revoked server), if it has one.
    void close(const QString &serverId, const QString &reason);

Q_SIGNALS:
    void tunnelUp(const QString &serverId);
    void tunnelDown(const QString &serverId);

private:
    void refuse(QIODevice *device, int status, const QByteArray &code, const QString &message);
    void accept(const QString &serverId, QIODevice *device, const QByteArray &rest);

    Verifier m_verifier;
    Http2Session::Settings m_settings;
    QHash<QString, HubTunnel *> m_tunnels;
};

} // namespace isolation::hub
