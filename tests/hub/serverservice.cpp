#include "serverservice.h"

#include "actionlog.h"
#include "hubstate.h"

#include <QJsonArray>

namespace isolation::hub {

ServerService::ServerService(HubState &state, ActionLog &log, int heartbeatIntervalSeconds, QObject *parent)
    : QObject(parent)
    , m_state(state)
    , m_log(log)
    , m_interval(heartbeatIntervalSeconds)
{
    // Servers known online when the hub stopped are judged afresh from their last heartbeat.
    for (const ServerRecord &s : m_state.servers()) {
        if (online(s))
            m_online.insert(s.id);
    }
    connect(&m_watch, &QTimer::timeout, this, &ServerService::checkOnline);
    m_watch.start(1000);
}

bool ServerService::online(const ServerRecord &server) const
{
    return !server.revoked && server.lastHeartbeat.isValid()
        && server.lastHeartbeat.msecsTo(QDateTime::currentDateTimeUtc()) < qint64(3) * m_interval * 1000;
}

void ServerService::checkOnline()
{
    for (const ServerRecord &s : m_state.servers()) {
        const bool now = online(s);
        if (now == m_online.contains(s.id))
            continue;
        if (now) {
            m_online.insert(s.id);
            m_log.record(QStringLiteral("server.online"), {{QStringLiteral("server"), s.id}});
        } else {
            m_online.remove(s.id);
            m_log.record(QStringLiteral("server.offline"), {{QStringLiteral("server"), s.id}});
        }
    }
}

Result<ServerRecord *, HttpResponse> ServerService::authenticate(const HttpRequest &request)
{
    const QByteArray credential = request.bearerToken();
    if (credential.isEmpty())
        return HttpResponse::error(
            401, QStringLiteral("unauthorized"), QStringLiteral("a server credential is required"));
    ServerRecord *server = m_state.serverByCredential(credential);
    if (!server)
        return HttpResponse::error(
            401, QStringLiteral("unknown_server"), QStringLiteral("this credential belongs to no server"));
    if (server->revoked)
        return HttpResponse::error(
            401, QStringLiteral("revoked"), QStringLiteral("this server was unpaired (%1)").arg(server->revokedWhy));
    return server;
}

Status ServerService::revoke(const QString &serverId, const QString &why)
{
    ServerRecord *server = m_state.server(serverId);
    if (!server)
        return Error::notFound(QStringLiteral("no server %1").arg(serverId));
    if (server->revoked)
        return {};
    server->revoked = true;
    server->revokedWhy = why;
    if (auto s = m_state.save(); !s)
        return s;
    m_log.record(
        QStringLiteral("server.revoked"), {{QStringLiteral("server"), serverId}, {QStringLiteral("why"), why}});
    Q_EMIT serverRevoked(serverId);
    return {};
}

QJsonObject ServerService::describe(const ServerRecord &s) const
{
    return QJsonObject {
        {QStringLiteral("id"), s.id},
        {QStringLiteral("name"), s.name},
        {QStringLiteral("hostName"), s.hostName},
        {QStringLiteral("member"), s.memberId},
        {QStringLiteral("version"), s.version},
        {QStringLiteral("createdAt"), s.createdAt.toString(Qt::ISODate)},
        {QStringLiteral("revoked"), s.revoked},
        {QStringLiteral("online"), online(s)},
        {QStringLiteral("lastHeartbeat"), s.lastHeartbeat.toString(Qt::ISODateWithMs)},
        {QStringLiteral("report"), s.lastReport},
    };
}

void ServerService::registerRoutes(HttpServer &app, std::function<bool(const HttpRequest &)> isAdmin)
{
    app.route("POST", QStringLiteral("/v1/heartbeat"), [this](const HttpRequest &request, HttpReply reply) {
        auto server = authenticate(request);
        if (!server) {
            reply.send(server.error());
            return;
        }
        QJsonObject report;
        QString why;
        if (!request.jsonBody(&report, &why)) {
            reply.send(HttpResponse::error(400, QStringLiteral("bad_request"), why));
            return;
        }
        ServerRecord *s = server.value();
        s->lastHeartbeat = QDateTime::currentDateTimeUtc();
        s->lastReport = report;
        s->version = report.value(QStringLiteral("version")).toString(s->version).left(50);
        s->hostName = report.value(QStringLiteral("hostName")).toString(s->hostName).left(255);
        // A heartbeat lost to a failed write is only a late heartbeat; answer it anyway.
        if (auto saved = m_state.save(); !saved)
            qWarning("heartbeat not persisted: %s", qPrintable(saved.error().message));
        checkOnline();
        reply.send(HttpResponse::json(200,
            QJsonObject {{QStringLiteral("interval"), m_interval},
                {QStringLiteral("serverTime"), QDateTime::currentDateTimeUtc().toString(Qt::ISODateWithMs)}}));
    });
    app.route("POST", QStringLiteral("/v1/servers/self/unpair"), [this](const HttpRequest &request, HttpReply reply) {
        auto server = authenticate(request);
        if (!server) {
            reply.send(server.error());
            return;
        }
        if (auto s = revoke(server.value()->id, QStringLiteral("unpaired by the server itself")); !s) {
            reply.send(HttpResponse::error(500, QStringLiteral("internal"), s.error().message));
            return;
        }
        reply.send(HttpResponse::json(200, QJsonObject {{QStringLiteral("revoked"), true}}));
    });
    app.route("GET", QStringLiteral("/v1/admin/servers"), [this, isAdmin](const HttpRequest &request, HttpReply reply) {
        if (!isAdmin(request)) {
            reply.send(
                HttpResponse::error(401, QStringLiteral("unauthorized"), QStringLiteral("admin token required")));
            return;
        }
        QJsonArray list;
        for (const ServerRecord &s : m_state.servers())
            list.append(describe(s));
        reply.send(HttpResponse::json(
            200, QJsonObject {{QStringLiteral("servers"), list}, {QStringLiteral("heartbeatInterval"), m_interval}}));
    });
    app.route("POST", QStringLiteral("/v1/admin/servers/{id}/revoke"),
        [this, isAdmin](const HttpRequest &request, HttpReply reply) {
            if (!isAdmin(request)) {
                reply.send(
                    HttpResponse::error(401, QStringLiteral("unauthorized"), QStringLiteral("admin token required")));
                return;
            }
            if (auto s = revoke(request.params.value(QStringLiteral("id")), QStringLiteral("revoked by the member"));
                !s) {
                reply.send(HttpResponse::error(s.error().code == Error::Code::NotFound ? 404 : 500,
                    s.error().code == Error::Code::NotFound ? QStringLiteral("not_found") : QStringLiteral("internal"),
                    s.error().message));
                return;
            }
            reply.send(HttpResponse::json(200, QJsonObject {{QStringLiteral("revoked"), true}}));
        });
}

} // namespace isolation::hub
