// The hub's server registry in use: authenticates servers by credential, takes heartbeats and
// judges online/offline (offline after 3 missed intervals), lists servers, revokes them.
#pragma once

#include "core/result.h"
#include "http/httpserver.h"

#include <QObject>
#include <QSet>
#include <QTimer>

#include <functional>

namespace isolation::hub {

class ActionLog;
class HubState;
struct ServerRecord;

class ServerService final : public QObject
{
    Q_OBJECT
public:
    ServerService(HubState &state, ActionLog &log, int heartbeatIntervalSeconds, QObject *parent = nullptr);

    void registerRoutes(HttpServer &app, std::function<bool(const HttpRequest &)> isAdmin);

    // The paired, unrevoked server whose credential the request carries; else the HTTP answer to give.
    Result<ServerRecord *, HttpResponse> authenticate(const HttpRequest &request);
    bool online(const ServerRecord &server) const;
    int heartbeatInterval() const { return m_interval; }
    Status revoke(const QString &serverId, const QString &why);

Q_SIGNALS:
    void serverRevoked(const QString &serverId);

private:
    void checkOnline();
    QJsonObject describe(const ServerRecord &server) const;

    HubState &m_state;
    ActionLog &m_log;
    int m_interval;
    QTimer m_watch;
    QSet<QString> m_online;
};

} // namespace isolation::hub
