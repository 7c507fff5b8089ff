// The hub's workspace store API (docs/protocol.md, "Workspace store"): workspaces of the hub's
// member, per-workspace bearers for the sessions its paired servers run (and the end of those
// sessions), the manifest (compare-and-swap on its ETag) and content-addressed segments (streamed
// in and out), plus the admin verbs' routes.
#pragma once

#include "core/clock.h"
#include "core/result.h"
#include "http/httpserver.h"
#include "objectstore.h"
#include "workspacesessions.h"
#include "workspacetokens.h"

#include <functional>

namespace isolation::hub {

class ActionLog;
class HubState;
class ServerService;

class WorkspaceService
{
public:
    struct Options
    {
        int tokenLifetimeSeconds = 900;
        qint64 maxManifestBytes = 4 * 1024 * 1024;
        qint64 maxSegmentBytes = qint64(8) * 1024 * 1024 * 1024;
    };

    // `clock` (the proofs' time) must outlive the service.
    WorkspaceService(HubState &state, ActionLog &log, ServerService &servers, const Clock &clock, const QString &root,
        Options options);

    Status load();
    void registerRoutes(HttpServer &app, std::function<bool(const HttpRequest &)> isAdmin);
    QList<WorkspaceRecord> workspaces() const { return m_store.workspaces(); }
    // A new workspace of the hub's member (recorded in the action log).
    Result<WorkspaceRecord> create(const QString &name);
    // The hub launches or resumes session `sessionId` on `serverId` for `workspace` (an id, or the
    // name of exactly one of the server's member's workspaces): its bearers go to that server only.
    Status launchSession(const QString &serverId, const QString &sessionId, const QString &workspace);

private:
    // The workspace named in the path when the request's workspace token allows it; else the answer.
    Result<const WorkspaceRecord *, HttpResponse> authorize(const HttpRequest &request);
    void listForServer(const HttpRequest &request, HttpReply reply);
    void mintToken(const HttpRequest &request, HttpReply reply);
    void endSession(const HttpRequest &request, HttpReply reply);
    void getManifest(const HttpRequest &request, HttpReply reply);
    void putManifest(const HttpRequest &request, HttpReply reply);
    void getSegment(const HttpRequest &request, HttpReply reply);
    Result<std::unique_ptr<HttpBodySink>, HttpResponse> putSegment(const HttpRequest &head);
    void deleteSegment(const HttpRequest &request, HttpReply reply);
    void adminCreate(const HttpRequest &request, HttpReply reply);
    void adminList(const HttpRequest &request, HttpReply reply);

    HubState &m_state;
    ActionLog &m_log;
    ServerService &m_servers;
    const Clock &m_clock;
    Options m_options;
    ObjectStore m_store;
    WorkspaceSessions m_sessions; // before m_tokens, which reads it
    WorkspaceTokens m_tokens;
};

} // namespace isolation::hub
