// The LocalAPI routes of sessions, the warm cache and workspaces (docs/architecture.md lists them).
// Handlers translate between HTTP/JSON and the SessionManager; long operations (session start,
// save, sync, exports) answer when done, and GET /v1/sessions/{id} shows their progress meanwhile.
#pragma once

#include <QJsonObject>

#include <functional>

namespace isolation {

class HttpServer;
class RpcDispatcher;
class SessionManager;

class SessionRoutes
{
public:
    // `sessions` gives the manager at request time (null while the engine is stopped).
    static void add(HttpServer &http, std::function<SessionManager *()> sessions);
    // The same operations as tunnel calls (docs/protocol.md, "Session calls"): session.save,
    // session.sync, session.changes, answered with the LocalAPI's statuses and bodies.
    static void addCalls(RpcDispatcher &rpc, std::function<SessionManager *()> sessions);
    // GET /v1/cache's answer (also part of GET /v1/snapshot).
    static QJsonObject cacheStatus(SessionManager &sessions);
};

} // namespace isolation
