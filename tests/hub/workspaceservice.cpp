#include "workspaceservice.h"

#include "actionlog.h"
#include "hubstate.h"
#include "segmentupload.h"
#include "serverservice.h"
#include "store/sessiondeclaration.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonObject>
#include <QLoggingCategory>

Q_DECLARE_LOGGING_CATEGORY(lcHub)

namespace isolation::hub {

namespace {

QJsonObject describe(const WorkspaceRecord &w)
{
    return {{QStringLiteral("id"), w.id}, {QStringLiteral("name"), w.name}, {QStringLiteral("member"), w.memberId},
        {QStringLiteral("createdAt"), w.createdAt.toString(Qt::ISODate)}};
}

HttpResponse internalError(const QString &why)
{
    qCWarning(lcHub) << "workspace store:" << why;
    return HttpResponse::error(500, QStringLiteral("internal"), QStringLiteral("the hub could not use its store"));
}

HttpResponse noSuchSegment()
{
    return HttpResponse::error(404, QStringLiteral("not_found"), QStringLiteral("no such segment"));
}

} // namespace

WorkspaceService::WorkspaceService(
    HubState &state, ActionLog &log, ServerService &servers, const Clock &clock, const QString &root, Options options)
    : m_state(state)
    , m_log(log)
    , m_servers(servers)
    , m_clock(clock)
    , m_options(options)
    , m_store(root)
    , m_sessions(QFileInfo(root).dir().filePath(QStringLiteral("sessions.json")))
    , m_tokens(state, m_sessions, options.tokenLifetimeSeconds)
{ }

Status WorkspaceService::load()
{
    if (auto loaded = m_store.load(); !loaded)
        return loaded;
    return m_sessions.load();
}

Status WorkspaceService::launchSession(const QString &serverId, const QString &sessionId, const QString &workspace)
{
    const ServerRecord *server = m_state.server(serverId);
    if (!server)
        return Error::notFound(QStringLiteral("no server %1").arg(serverId));
    QString id;
    for (const WorkspaceRecord &w : m_store.workspaces()) {
        if (w.memberId != server->memberId)
            continue;
        if (w.id == workspace) {
            id = w.id;
            break;
        }
        if (w.name == workspace)
            id = id.isEmpty() ? w.id : QStringLiteral("-"); // two of that name: the server will say so
    }
    if (id.isEmpty() || id == QLatin1String("-"))
        return {}; // no bearer can name it either; the server's own lookup gives the error
    auto launched = m_sessions.launch(sessionId, serverId, id);
    if (launched)
        m_log.record(QStringLiteral("session.launched"), {{QStringLiteral("session"), sessionId},
                                                              {QStringLiteral("server"), serverId},
                                                              {QStringLiteral("workspace"), id}});
    return launched;
}

void WorkspaceService::registerRoutes(HttpServer &app, std::function<bool(const HttpRequest &)> isAdmin)
{
    using namespace std::placeholders;
    const QString segment = QStringLiteral("/v1/workspaces/{id}/segments/{name}");
    app.route("GET", QStringLiteral("/v1/workspaces"), std::bind(&WorkspaceService::listForServer, this, _1, _2));
    app.route(
        "POST", QStringLiteral("/v1/workspaces/{id}/token"), std::bind(&WorkspaceService::mintToken, this, _1, _2));
    app.route("DELETE", QStringLiteral("/v1/servers/self/sessions/{session}"),
        std::bind(&WorkspaceService::endSession, this, _1, _2));
    app.route(
        "GET", QStringLiteral("/v1/workspaces/{id}/manifest"), std::bind(&WorkspaceService::getManifest, this, _1, _2));
    app.route(
        "PUT", QStringLiteral("/v1/workspaces/{id}/manifest"), std::bind(&WorkspaceService::putManifest, this, _1, _2));
    app.route("GET", segment, std::bind(&WorkspaceService::getSegment, this, _1, _2));
    app.route("HEAD", segment, std::bind(&WorkspaceService::getSegment, this, _1, _2));
    app.streamRoute("PUT", segment, std::bind(&WorkspaceService::putSegment, this, _1));
    app.route("DELETE", segment, std::bind(&WorkspaceService::deleteSegment, this, _1, _2));

    app.route("POST", QStringLiteral("/v1/admin/workspaces"), [this, isAdmin](const HttpRequest &r, HttpReply reply) {
        if (isAdmin(r))
            adminCreate(r, reply);
        else
            reply.send(
                HttpResponse::error(401, QStringLiteral("unauthorized"), QStringLiteral("admin token required")));
    });
    app.route("GET", QStringLiteral("/v1/admin/workspaces"), [this, isAdmin](const HttpRequest &r, HttpReply reply) {
        if (isAdmin(r))
            adminList(r, reply);
        else
            reply.send(
                HttpResponse::error(401, QStringLiteral("unauthorized"), QStringLiteral("admin token required")));
    });
}

Result<const WorkspaceRecord *, HttpResponse> WorkspaceService::authorize(const HttpRequest &request)
{
    const QString id = request.params.value(QStringLiteral("id"));
    auto server = m_tokens.check(request, id);
    if (!server)
        return server.error();
    const WorkspaceRecord *workspace = m_store.workspace(id);
    if (!workspace)
        return HttpResponse::error(404, QStringLiteral("not_found"), QStringLiteral("no such workspace"));
    return workspace;
}

void WorkspaceService::listForServer(const HttpRequest &request, HttpReply reply)
{
    auto server = m_servers.authenticate(request);
    if (!server) {
        reply.send(server.error());
        return;
    }
    QJsonArray list;
    for (const WorkspaceRecord &w : m_store.workspaces()) {
        if (w.memberId == server.value()->memberId)
            list.append(QJsonObject {{QStringLiteral("id"), w.id}, {QStringLiteral("name"), w.name},
                {QStringLiteral("createdAt"), w.createdAt.toString(Qt::ISODate)}});
    }
    reply.send(HttpResponse::json(200, QJsonObject {{QStringLiteral("workspaces"), list}}));
}

void WorkspaceService::mintToken(const HttpRequest &request, HttpReply reply)
{
    auto server = m_servers.authenticate(request);
    if (!server) {
        reply.send(server.error());
        return;
    }
    const QString id = request.params.value(QStringLiteral("id"));
    const WorkspaceRecord *workspace = m_store.workspace(id);
    if (!workspace) {
        reply.send(HttpResponse::error(404, QStringLiteral("not_found"), QStringLiteral("no such workspace")));
        return;
    }
    if (workspace->memberId != server.value()->memberId) {
        reply.send(HttpResponse::error(
            403, QStringLiteral("forbidden"), QStringLiteral("this workspace belongs to another member")));
        return;
    }
    // Least privilege: a bearer for a session this server runs on this workspace, never for the
    // server as such (docs/protocol.md, "Workspace bearers").
    QJsonObject body;
    QString why;
    if (!request.jsonBody(&body, &why)) {
        reply.send(HttpResponse::error(400, QStringLiteral("bad_request"), why));
        return;
    }
    const QString session = body.value(QStringLiteral("session")).toString();
    if (session.isEmpty()) {
        reply.send(HttpResponse::error(403, QStringLiteral("no_session"),
            QStringLiteral("a workspace bearer is for a session of this server that uses the workspace: name it "
                           "({\"session\": id})")));
        return;
    }
    if (!WorkspaceSessions::isSessionId(session)) {
        reply.send(HttpResponse::error(
            400, QStringLiteral("bad_request"), QStringLiteral("a session id is s and 12 lowercase hex digits")));
        return;
    }
    // Every request carries a proof by the server's own key, so that the credential alone (leaked,
    // say) gets no bearer: not for a session it declares, not for one the hub knows.
    {
        const ServerRecord &s = *server.value();
        auto proven = SessionDeclaration::verify(
            body.value(QStringLiteral("proof")).toObject(), s.ed25519Public, s.id, session, id, m_clock.unixSeconds());
        if (!proven) {
            m_log.record(QStringLiteral("session.proof_refused"),
                {{QStringLiteral("session"), session}, {QStringLiteral("server"), s.id},
                    {QStringLiteral("workspace"), id}, {QStringLiteral("why"), proven.error().message}});
            reply.send(HttpResponse::error(403, QStringLiteral("session_proof"), proven.error().message));
            return;
        }
    }
    bool declared = false;
    if (auto used = m_sessions.use(session, server.value()->id, id, &declared); !used) {
        reply.send(used.error().code == Error::Code::InvalidInput
                ? HttpResponse::error(403, QStringLiteral("no_session"),
                      QStringLiteral("no session of this server uses this workspace: %1").arg(used.error().message))
                : internalError(used.error().message));
        return;
    }
    if (declared)
        m_log.record(QStringLiteral("session.declared"), {{QStringLiteral("session"), session},
                                                              {QStringLiteral("server"), server.value()->id},
                                                              {QStringLiteral("workspace"), id}});
    const WorkspaceTokens::Minted minted = m_tokens.mint(server.value()->id, id, session);
    m_log.record(QStringLiteral("workspace.token"),
        {{QStringLiteral("workspace"), id}, {QStringLiteral("server"), server.value()->id},
            {QStringLiteral("session"), session}, {QStringLiteral("expiresAt"), minted.expiresAt.toString(Qt::ISODate)}});
    HttpResponse answer = HttpResponse::json(200,
        QJsonObject {{QStringLiteral("token"), QString::fromLatin1(minted.token)}, {QStringLiteral("workspace"), id},
            {QStringLiteral("expiresAt"), minted.expiresAt.toString(Qt::ISODate)},
            {QStringLiteral("expiresIn"), minted.expiresIn}});
    answer.setHeader("Cache-Control", "no-store");
    reply.send(answer);
}

void WorkspaceService::endSession(const HttpRequest &request, HttpReply reply)
{
    auto server = m_servers.authenticate(request);
    if (!server) {
        reply.send(server.error());
        return;
    }
    const QString session = request.params.value(QStringLiteral("session"));
    if (auto ended = m_sessions.end(session, server.value()->id); !ended) {
        reply.send(ended.error().code == Error::Code::NotFound
                ? HttpResponse::error(404, QStringLiteral("not_found"), ended.error().message)
                : internalError(ended.error().message));
        return;
    }
    m_log.record(QStringLiteral("session.ended"),
        {{QStringLiteral("session"), session}, {QStringLiteral("server"), server.value()->id}});
    reply.send(HttpResponse {204, {}, {}});
}

void WorkspaceService::getManifest(const HttpRequest &request, HttpReply reply)
{
    auto workspace = authorize(request);
    if (!workspace) {
        reply.send(workspace.error());
        return;
    }
    auto stored = m_store.manifest(workspace.value()->id);
    if (!stored) {
        reply.send(internalError(stored.error().message));
        return;
    }
    if (!stored.value()) {
        reply.send(HttpResponse::error(
            404, QStringLiteral("no_manifest"), QStringLiteral("the workspace has no manifest yet")));
        return;
    }
    const ObjectStore::StoredManifest &m = *stored.value();
    const QByteArray ifNoneMatch = request.header("if-none-match");
    HttpResponse answer;
    if (!ifNoneMatch.isEmpty() && (ifNoneMatch.trimmed() == "*" || ObjectStore::etagListMatches(ifNoneMatch, m.etag))) {
        answer.status = 304;
    } else {
        answer.body = m.bytes;
        answer.setHeader("Content-Type", "application/octet-stream");
    }
    answer.setHeader("ETag", m.etag);
    answer.setHeader("Cache-Control", "no-store");
    reply.send(answer);
}

void WorkspaceService::putManifest(const HttpRequest &request, HttpReply reply)
{
    auto workspace = authorize(request);
    if (!workspace) {
        reply.send(workspace.error());
        return;
    }
    const QString id = workspace.value()->id;
    const QByteArray ifMatch = request.header("if-match");
    const QByteArray ifNoneMatch = request.header("if-none-match").trimmed();
    if (ifMatch.isEmpty() && ifNoneMatch.isEmpty()) {
        reply.send(HttpResponse::error(428, QStringLiteral("precondition_required"),
            QStringLiteral("a manifest is written with If-Match: <etag>, or If-None-Match: * to create it")));
        return;
    }
    if (!ifNoneMatch.isEmpty() && ifNoneMatch != "*") {
        reply.send(HttpResponse::error(
            400, QStringLiteral("bad_request"), QStringLiteral("If-None-Match on a PUT must be *")));
        return;
    }
    if (request.body.size() > m_options.maxManifestBytes) {
        reply.send(HttpResponse::error(413, QStringLiteral("too_large"),
            QStringLiteral("a manifest is at most %1 bytes").arg(m_options.maxManifestBytes)));
        return;
    }
    auto cas = m_store.putManifest(id, request.body, ifMatch, ifNoneMatch == "*");
    if (!cas) {
        reply.send(internalError(cas.error().message));
        return;
    }
    if (!cas.value().stored) {
        m_log.record(QStringLiteral("manifest.refused"), {{QStringLiteral("workspace"), id}});
        HttpResponse refused = HttpResponse::error(412, QStringLiteral("precondition_failed"),
            cas.value().etag.isEmpty() ? QStringLiteral("the workspace has no manifest yet")
                                       : QStringLiteral("the manifest changed since you read it"));
        reply.send(refused);
        return;
    }
    m_log.record(QStringLiteral("manifest.stored"),
        {{QStringLiteral("workspace"), id}, {QStringLiteral("etag"), QString::fromLatin1(cas.value().etag)},
            {QStringLiteral("created"), cas.value().created}, {QStringLiteral("bytes"), request.body.size()}});
    HttpResponse answer = HttpResponse::json(
        cas.value().created ? 201 : 200, QJsonObject {{QStringLiteral("etag"), QString::fromLatin1(cas.value().etag)}});
    answer.setHeader("ETag", cas.value().etag);
    reply.send(answer);
}

void WorkspaceService::getSegment(const HttpRequest &request, HttpReply reply)
{
    auto workspace = authorize(request);
    if (!workspace) {
        reply.send(workspace.error());
        return;
    }
    const QString name = request.params.value(QStringLiteral("name"));
    if (!ObjectStore::isSegmentName(name)) {
        reply.send(noSuchSegment());
        return;
    }
    auto file = std::make_unique<QFile>(m_store.segmentPath(workspace.value()->id, name));
    if (!file->open(QIODevice::ReadOnly)) {
        reply.send(file->exists() ? internalError(file->errorString()) : noSuchSegment());
        return;
    }
    const qint64 size = file->size();
    reply.sendDevice(200,
        {{"Content-Type", "application/octet-stream"}, {"ETag", '"' + name.toLatin1() + '"'},
            {"Cache-Control", "no-store"}},
        std::move(file), size);
}

Result<std::unique_ptr<HttpBodySink>, HttpResponse> WorkspaceService::putSegment(const HttpRequest &head)
{
    auto workspace = authorize(head);
    if (!workspace)
        return workspace.error();
    const QString name = head.params.value(QStringLiteral("name"));
    if (!ObjectStore::isSegmentName(name))
        return HttpResponse::error(400, QStringLiteral("bad_request"),
            QStringLiteral("a segment's name is the SHA-256 of its bytes in lowercase hex"));
    bool known = false;
    const qint64 length = head.header("content-length").toLongLong(&known);
    if (known && length > m_options.maxSegmentBytes)
        return HttpResponse::error(413, QStringLiteral("too_large"),
            QStringLiteral("a segment is at most %1 bytes").arg(m_options.maxSegmentBytes));
    const QString id = workspace.value()->id;
    auto upload
        = std::make_unique<SegmentUpload>(m_log, id, name, m_store.segmentPath(id, name), m_options.maxSegmentBytes);
    if (auto s = upload->open(); !s)
        return internalError(s.error().message);
    return std::unique_ptr<HttpBodySink>(std::move(upload));
}

void WorkspaceService::deleteSegment(const HttpRequest &request, HttpReply reply)
{
    auto workspace = authorize(request);
    if (!workspace) {
        reply.send(workspace.error());
        return;
    }
    const QString name = request.params.value(QStringLiteral("name"));
    if (!ObjectStore::isSegmentName(name)) {
        reply.send(noSuchSegment());
        return;
    }
    if (auto s = m_store.deleteSegment(workspace.value()->id, name); !s) {
        reply.send(s.error().code == Error::Code::NotFound ? noSuchSegment() : internalError(s.error().message));
        return;
    }
    m_log.record(QStringLiteral("segment.deleted"),
        {{QStringLiteral("workspace"), workspace.value()->id}, {QStringLiteral("segment"), name}});
    reply.send(HttpResponse {204, {}, {}});
}

void WorkspaceService::adminCreate(const HttpRequest &request, HttpReply reply)
{
    QJsonObject body;
    QString why;
    if (!request.jsonBody(&body, &why)) {
        reply.send(HttpResponse::error(400, QStringLiteral("bad_request"), why));
        return;
    }
    auto created = create(body.value(QStringLiteral("name")).toString());
    if (!created) {
        reply.send(created.error().code == Error::Code::InvalidInput
                ? HttpResponse::error(400, QStringLiteral("bad_request"), created.error().message)
                : internalError(created.error().message));
        return;
    }
    reply.send(HttpResponse::json(201, describe(created.value())));
}

Result<WorkspaceRecord> WorkspaceService::create(const QString &name)
{
    auto created = m_store.createWorkspace(name, m_state.member().id);
    if (created)
        m_log.record(QStringLiteral("workspace.created"),
            {{QStringLiteral("workspace"), created.value().id}, {QStringLiteral("name"), created.value().name}});
    return created;
}

void WorkspaceService::adminList(const HttpRequest &, HttpReply reply)
{
    QJsonArray list;
    for (const WorkspaceRecord &w : m_store.workspaces()) {
        const ObjectStore::Usage usage = m_store.usage(w.id);
        QJsonObject o = describe(w);
        o.insert(QStringLiteral("segments"), usage.segments);
        o.insert(QStringLiteral("bytes"), usage.bytes);
        o.insert(QStringLiteral("manifest"),
            usage.manifestEtag.isEmpty() ? QJsonValue() : QJsonValue(QString::fromLatin1(usage.manifestEtag)));
        list.append(o);
    }
    reply.send(HttpResponse::json(200, QJsonObject {{QStringLiteral("workspaces"), list}}));
}

} // namespace isolation::hub
