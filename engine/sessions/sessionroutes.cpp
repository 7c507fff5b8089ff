#include "sessionroutes.h"

#include "sessionactivity.h"
#include "sessionjson.h"
#include "sessionmanager.h"

#include "http/httpserver.h"
#include "tunnel/rpcdispatcher.h"

#include <QDir>
#include <QJsonArray>
#include <QPointer>

namespace isolation {

namespace {

// A session error as the LocalAPI and the tunnel's calls answer it: the status and the error body
// (409 for what the caller resolves: moved on, a conflict with its files, not paired).
std::pair<int, QJsonObject> errorAnswer(const SessionError &e)
{
    int status = 500;
    QString code = sessionErrorCodeName(e);
    switch (e.code) {
    case SessionError::Code::MovedOn:
    case SessionError::Code::Conflict:
    case SessionError::Code::NotPaired:
    case SessionError::Code::WorktreeMissing:
    case SessionError::Code::Cancelled:
        status = 409;
        break;
    case SessionError::Code::NotFound:
        status = 404;
        break;
    case SessionError::Code::Invalid:
        status = 422;
        break;
    case SessionError::Code::Unavailable:
        status = 503;
        break;
    case SessionError::Code::Storage:
        status = e.fault == StorageFault::NoSpace ? 507 : 500;
        break;
    case SessionError::Code::Failed:
        code = QStringLiteral("internal");
        break;
    }
    QJsonObject error {{QStringLiteral("code"), code}, {QStringLiteral("message"), e.message}};
    if (e.code == SessionError::Code::Conflict)
        error.insert(QStringLiteral("conflicts"), toJson(e.conflicts));
    return {status, QJsonObject {{QStringLiteral("error"), error}}};
}

HttpResponse failure(const SessionError &e)
{
    const auto [status, body] = errorAnswer(e);
    return HttpResponse::json(status, body);
}

// What a save request asks for: `files` (worktree-relative paths; absent: everything that
// changed) and `message` (a string, when given). The reason it is malformed, or empty.
struct SaveAsked
{
    QStringList files;
    QString message;
    QString malformed;
};

SaveAsked saveAsked(const QJsonObject &o)
{
    SaveAsked asked;
    const QJsonValue given = o.value(QStringLiteral("files"));
    const QJsonValue message = o.value(QStringLiteral("message"));
    if (!given.isUndefined() && !given.isArray()) {
        asked.malformed = QStringLiteral("files must be a list of worktree-relative paths");
        return asked;
    }
    for (const QJsonValue v : given.toArray()) {
        const QString path = v.toString();
        if (!v.isString() || path.isEmpty()) {
            asked.malformed = QStringLiteral("files must be a list of worktree-relative paths, none empty");
            return asked;
        }
        if (path.startsWith(u'/') || QDir::cleanPath(path) == QLatin1String("..")
            || QDir::cleanPath(path).startsWith(QLatin1String("../"))) {
            asked.malformed = QStringLiteral("%1 is not inside the session's worktree: files are worktree-relative paths")
                                  .arg(path);
            return asked;
        }
        asked.files.append(path);
    }
    if (!message.isUndefined() && !message.isString()) {
        asked.malformed = QStringLiteral("message must be a string");
        return asked;
    }
    asked.message = message.toString();
    return asked;
}

HttpResponse badRequest(const QString &why)
{
    return HttpResponse::error(400, QStringLiteral("bad_request"), why);
}

HttpResponse notRunning()
{
    return HttpResponse::error(503, QStringLiteral("unavailable"), QStringLiteral("The engine is not running"));
}

// The request's JSON body, or the answer to give instead.
bool body(const HttpRequest &request, HttpReply &reply, QJsonObject *out)
{
    QString why;
    if (request.jsonBody(out, &why))
        return true;
    reply.send(badRequest(why));
    return false;
}

using Sessions = std::function<SessionManager *()>;

// The session named by the path, or null after answering 404 (or 503 while the engine is stopped).
Session *findSession(const Sessions &sessions, const HttpRequest &request, const HttpReply &reply)
{
    SessionManager *m = sessions();
    if (!m) {
        reply.send(notRunning());
        return nullptr;
    }
    Session *s = m->session(request.params.value(QStringLiteral("id")));
    if (!s)
        reply.send(HttpResponse::error(404, QStringLiteral("not_found"),
            QStringLiteral("No session %1").arg(request.params.value(QStringLiteral("id")))));
    return s;
}

// GET and POST /v1/sessions, GET /v1/sessions/{id}: the sessions, and a new one.
void addSessionList(HttpServer &http, const Sessions &sessions)
{
    http.route("GET", QStringLiteral("/v1/sessions"), [sessions](const HttpRequest &, HttpReply reply) {
        SessionManager *m = sessions();
        QJsonArray list;
        for (Session *s : m ? m->sessions() : QList<Session *>())
            list.append(toJson(*s));
        reply.send(HttpResponse::json(200, QJsonObject {{QStringLiteral("sessions"), list}}));
    });
    http.route("POST", QStringLiteral("/v1/sessions"), [sessions](const HttpRequest &request, HttpReply reply) {
        QJsonObject o;
        if (!body(request, reply, &o))
            return;
        const QString workspace = o.value(QStringLiteral("workspace")).toString();
        if (workspace.isEmpty()) {
            reply.send(badRequest(QStringLiteral("give the workspace (its name or id)")));
            return;
        }
        SessionManager *m = sessions();
        if (!m) {
            reply.send(notRunning());
            return;
        }
        // The caller may name the session (so it can follow its progress from the first event).
        const QJsonValue id = o.value(QStringLiteral("session"));
        if (!id.isUndefined() && !id.isString()) {
            reply.send(badRequest(QStringLiteral("session must be a string")));
            return;
        }
        const Door door = doorOfClient(request.header("user-agent"));
        m->create(
            workspace,
            [reply, door, log = m->activity()](Result<Session *, SessionError> r) {
                if (r)
                    recordSession(log, QStringLiteral("created"), r.value()->id(), r.value()->workspaceName(), door);
                reply.send(r ? HttpResponse::json(201, toJson(*r.value())) : failure(r.error()));
            },
            id.toString());
    });
    http.route("GET", QStringLiteral("/v1/sessions/{id}"), [sessions](const HttpRequest &request, HttpReply reply) {
        if (Session *s = findSession(sessions, request, reply))
            reply.send(HttpResponse::json(200, toJson(*s)));
    });
}

// A session's save and sync.
void addSessionOperations(HttpServer &http, const Sessions &sessions)
{
    http.route(
        "POST", QStringLiteral("/v1/sessions/{id}/save"), [sessions](const HttpRequest &request, HttpReply reply) {
            QJsonObject o;
            if (!body(request, reply, &o))
                return;
            const SaveAsked asked = saveAsked(o);
            if (!asked.malformed.isEmpty()) {
                reply.send(badRequest(asked.malformed));
                return;
            }
            Session *s = findSession(sessions, request, reply);
            if (!s)
                return;
            const QString id = s->id();
            const Door door = doorOfClient(request.header("user-agent"));
            s->save(asked.files, asked.message,
                [reply, id, door, session = QPointer<Session>(s), log = sessions()->activity()](
                    Result<SaveReport, SessionError> r) {
                    if (session)
                        recordSave(log, *session, door, r);
                    if (!r) {
                        reply.send(failure(r.error()));
                        return;
                    }
                    QJsonObject answer = toJson(r.value());
                    answer.insert(QStringLiteral("session"), id);
                    reply.send(HttpResponse::json(200, answer));
                });
        });
    http.route(
        "POST", QStringLiteral("/v1/sessions/{id}/sync"), [sessions](const HttpRequest &request, HttpReply reply) {
            QJsonObject o;
            if (!body(request, reply, &o))
                return;
            if (const QJsonValue resolve = o.value(QStringLiteral("resolve")); !resolve.isUndefined() && !resolve.isBool()) {
                reply.send(badRequest(QStringLiteral("resolve must be true or false")));
                return;
            }
            Session *s = findSession(sessions, request, reply);
            if (!s)
                return;
            const ConflictMode mode
                = o.value(QStringLiteral("resolve")).toBool() ? ConflictMode::Resolve : ConflictMode::Stop;
            const Door door = doorOfClient(request.header("user-agent"));
            s->sync(mode,
                [reply, door, session = QPointer<Session>(s), log = sessions()->activity()](
                    Result<SyncReport, SessionError> r) {
                    if (session)
                        recordSync(log, *session, door, r);
                    reply.send(r ? HttpResponse::json(200, toJson(r.value())) : failure(r.error()));
                });
        });
    // The running save or sync asked to stop and undo what it did; its own request then ends 409
    // cancelled.
    http.route(
        "POST", QStringLiteral("/v1/sessions/{id}/cancel"), [sessions](const HttpRequest &request, HttpReply reply) {
            Session *s = findSession(sessions, request, reply);
            if (!s)
                return;
            const QString operation = s->progress().operation;
            if (auto r = s->cancel(); !r) {
                reply.send(HttpResponse::json(409,
                    QJsonObject {{QStringLiteral("error"),
                        QJsonObject {{QStringLiteral("code"), QStringLiteral("not_cancellable")},
                            {QStringLiteral("message"), r.error().message}}}}));
                return;
            }
            reply.send(HttpResponse::json(202,
                QJsonObject {{QStringLiteral("session"), s->id()}, {QStringLiteral("operation"), operation},
                    {QStringLiteral("cancelling"), true}}));
        });
}

// A session's changes, one file's diff, and its worktree restored.
void addSessionReads(HttpServer &http, const Sessions &sessions)
{
    http.route(
        "GET", QStringLiteral("/v1/sessions/{id}/changes"), [sessions](const HttpRequest &request, HttpReply reply) {
            Session *s = findSession(sessions, request, reply);
            if (!s)
                return;
            const QString refresh = request.query.queryItemValue(QStringLiteral("refresh"));
            s->changes(refresh == QLatin1String("1") || refresh == QLatin1String("true"),
                [reply](Result<ChangesReport, SessionError> r) {
                    reply.send(r ? HttpResponse::json(200, toJson(r.value())) : failure(r.error()));
                });
        });
    // The session branch checked out again into a worktree deleted from the disk.
    http.route(
        "POST", QStringLiteral("/v1/sessions/{id}/restore"), [sessions](const HttpRequest &request, HttpReply reply) {
            Session *s = findSession(sessions, request, reply);
            if (!s)
                return;
            const QString id = s->id();
            const QString workTree = s->workTree();
            s->restoreWorkTree([reply, id, workTree](Result<void, SessionError> r) {
                reply.send(r ? HttpResponse::json(200,
                                   QJsonObject {{QStringLiteral("session"), id}, {QStringLiteral("worktree"), workTree}})
                             : failure(r.error()));
            });
        });
    // One file's diff against the session branch, for a preview: {"path","text","binary","truncated"}.
    http.route(
        "GET", QStringLiteral("/v1/sessions/{id}/diff"), [sessions](const HttpRequest &request, HttpReply reply) {
            const QString path = request.query.queryItemValue(QStringLiteral("path"), QUrl::FullyDecoded);
            // Worktree-relative only: nothing absolute, nothing that climbs out.
            const QStringList parts = path.split(QLatin1Char('/'));
            if (path.isEmpty() || path.startsWith(QLatin1Char('/')) || parts.contains(QStringLiteral(".."))) {
                reply.send(HttpResponse::error(400, QStringLiteral("bad_request"),
                    QStringLiteral("path must be a file inside the session's workspace")));
                return;
            }
            Session *s = findSession(sessions, request, reply);
            if (!s)
                return;
            s->diff(path, [reply, path](Result<FileDiff, SessionError> r) {
                if (!r) {
                    reply.send(failure(r.error()));
                    return;
                }
                reply.send(HttpResponse::json(200,
                    QJsonObject {{QStringLiteral("path"), path}, {QStringLiteral("text"), r.value().text},
                        {QStringLiteral("binary"), r.value().binary},
                        {QStringLiteral("truncated"), r.value().truncated}}));
            });
        });
}

// The member's workspaces, and their bundle and tree exports.
void addWorkspaces(HttpServer &http, const Sessions &sessions)
{
    http.route("GET", QStringLiteral("/v1/workspaces"), [sessions](const HttpRequest &, HttpReply reply) {
        SessionManager *m = sessions();
        if (!m) {
            reply.send(notRunning());
            return;
        }
        QPointer<SessionManager> manager(m);
        m->listWorkspaces([reply, manager](Result<QList<StoreClient::Workspace>, SessionError> r) {
            if (!r) {
                reply.send(failure(r.error()));
                return;
            }
            QJsonArray list;
            for (const StoreClient::Workspace &w : r.value()) {
                list.append(QJsonObject {{QStringLiteral("id"), w.id}, {QStringLiteral("name"), w.name},
                    {QStringLiteral("createdAt"), w.createdAt},
                    {QStringLiteral("cached"), manager && !manager->cachedWorkspaceId(w.id).isEmpty()}});
            }
            reply.send(HttpResponse::json(200, QJsonObject {{QStringLiteral("workspaces"), list}}));
        });
    });
    for (const auto &[verb, exportKind] : {std::pair {QStringLiteral("bundle"), WorkspaceExport::Kind::Bundle},
             std::pair {QStringLiteral("export"), WorkspaceExport::Kind::Tree}}) {
        const WorkspaceExport::Kind kind = exportKind; // clang before 16 cannot capture a structured binding
        http.route("POST", QStringLiteral("/v1/workspaces/{w}/") + verb,
            [sessions, kind](const HttpRequest &request, HttpReply reply) {
                QJsonObject o;
                if (!body(request, reply, &o))
                    return;
                const QString path = o.value(QStringLiteral("path")).toString();
                if (path.isEmpty() || !QDir::isAbsolutePath(path)) {
                    reply.send(badRequest(QStringLiteral("give the absolute path of the file to write")));
                    return;
                }
                SessionManager *m = sessions();
                if (!m) {
                    reply.send(notRunning());
                    return;
                }
                m->exportWorkspace(kind, request.params.value(QStringLiteral("w")), path,
                    [reply](Result<ExportReport, SessionError> r) {
                        reply.send(r ? HttpResponse::json(200, r.value().toJson()) : failure(r.error()));
                    });
            });
    }
    // The exports of the workspace under way, cancelled: each request ends 409 cancelled, no file.
    http.route(
        "POST", QStringLiteral("/v1/workspaces/{w}/cancel"), [sessions](const HttpRequest &request, HttpReply reply) {
            SessionManager *m = sessions();
            if (!m) {
                reply.send(notRunning());
                return;
            }
            const QString workspace = request.params.value(QStringLiteral("w"));
            const int cancelled = m->cancelExports(workspace);
            if (cancelled == 0) {
                reply.send(HttpResponse::json(409,
                    QJsonObject {{QStringLiteral("error"),
                        QJsonObject {{QStringLiteral("code"), QStringLiteral("not_cancellable")},
                            {QStringLiteral("message"),
                                QStringLiteral(
                                    "No export of %1 can be cancelled: none runs, or it is putting its file in place")
                                    .arg(workspace)}}}}));
                return;
            }
            reply.send(HttpResponse::json(202,
                QJsonObject {{QStringLiteral("workspace"), workspace}, {QStringLiteral("cancelling"), cancelled}}));
        });
}

// The warm cache: its state, evicting one workspace, clearing it.
void addCache(HttpServer &http, const Sessions &sessions)
{
    http.route("GET", QStringLiteral("/v1/cache"), [sessions](const HttpRequest &, HttpReply reply) {
        SessionManager *m = sessions();
        if (!m) {
            reply.send(notRunning());
            return;
        }
        reply.send(HttpResponse::json(200, SessionRoutes::cacheStatus(*m)));
    });
    http.route("POST", QStringLiteral("/v1/cache/evict"), [sessions](const HttpRequest &request, HttpReply reply) {
        QJsonObject o;
        if (!body(request, reply, &o))
            return;
        SessionManager *m = sessions();
        if (!m) {
            reply.send(notRunning());
            return;
        }
        const QString given = o.value(QStringLiteral("workspace")).toString();
        const QString id = m->cachedWorkspaceId(given);
        if (given.isEmpty() || id.isEmpty()) {
            reply.send(HttpResponse::error(
                404, QStringLiteral("not_found"), QStringLiteral("Workspace %1 is not in the cache").arg(given)));
            return;
        }
        if (auto s = m->cache().evict(id); !s) {
            reply.send(s.error().code == Error::Code::Unavailable
                    ? HttpResponse::error(409, QStringLiteral("in_use"), s.error().message)
                    : HttpResponse::error(s.error().code == Error::Code::NotFound ? 404 : 500,
                        s.error().code == Error::Code::NotFound ? QStringLiteral("not_found")
                                                                : QStringLiteral("internal"),
                        s.error().message));
            return;
        }
        reply.send(HttpResponse::json(200, QJsonObject {{QStringLiteral("evicted"), id}}));
    });
    http.route("POST", QStringLiteral("/v1/cache/clear"), [sessions](const HttpRequest &, HttpReply reply) {
        SessionManager *m = sessions();
        if (!m) {
            reply.send(notRunning());
            return;
        }
        QStringList before;
        for (const CacheEntry &e : m->cache().list())
            before.append(e.workspaceId);
        const QStringList kept = m->cache().clear();
        for (const QString &k : kept)
            before.removeAll(k);
        reply.send(HttpResponse::json(200,
            QJsonObject {{QStringLiteral("evicted"), QJsonArray::fromStringList(before)},
                {QStringLiteral("kept"), QJsonArray::fromStringList(kept)}}));
    });
}

} // namespace

QJsonObject SessionRoutes::cacheStatus(SessionManager &m)
{
    QJsonArray list;
    qint64 spareBytes = 0;
    for (const CacheEntry &e : m.cache().list()) {
        QJsonObject o = toJson(e);
        if (const auto spare = m.spares() ? m.spares()->spare(e.workspaceId) : std::nullopt) {
            o.insert(QStringLiteral("spare"), toJson(*spare));
            spareBytes += spare->bytes;
        }
        list.append(o);
    }
    QJsonObject answer {{QStringLiteral("workspaces"), list}, {QStringLiteral("bytes"), m.cache().totalBytes()},
        {QStringLiteral("maxBytes"), m.cache().maxBytes()}, {QStringLiteral("directory"), m.cache().directory()},
        {QStringLiteral("spareSessions"), m.spares() != nullptr}};
    if (m.spares()) {
        answer.insert(QStringLiteral("spareBytes"), spareBytes);
        answer.insert(QStringLiteral("spareDirectory"), m.spares()->directory());
    }
    return answer;
}

void SessionRoutes::add(HttpServer &http, std::function<SessionManager *()> sessions)
{
    addSessionList(http, sessions);
    addSessionOperations(http, sessions);
    addSessionReads(http, sessions);
    addWorkspaces(http, sessions);
    addCache(http, sessions);
}

void SessionRoutes::addCalls(RpcDispatcher &rpc, std::function<SessionManager *()> sessions)
{
    using Answer = RpcDispatcher::Answer;
    // The session the params name, or null after answering 400, 404 or 503.
    const auto find = [sessions](const QJsonObject &p, const RpcDispatcher::AnswerReply &reply) -> Session * {
        const QString id = p.value(QStringLiteral("session")).toString();
        SessionManager *m = sessions();
        if (id.isEmpty())
            reply(RpcDispatcher::refusal(400, QStringLiteral("bad_request"), QStringLiteral("give the session")));
        else if (!m)
            reply(RpcDispatcher::refusal(503, QStringLiteral("unavailable"), QStringLiteral("the engine is stopping")));
        else if (Session *s = m->session(id))
            return s;
        else
            reply(RpcDispatcher::refusal(404, QStringLiteral("not_found"), QStringLiteral("No session %1").arg(id)));
        return nullptr;
    };
    const auto answer = [](const RpcDispatcher::AnswerReply &reply) {
        return [reply](const auto &r) {
            if (r) {
                reply(Answer {200, toJson(r.value())});
                return;
            }
            const auto [status, body] = errorAnswer(r.error());
            reply(Answer {status, body});
        };
    };
    rpc.addAnswering(QStringLiteral("session.save"), [find, sessions](const QJsonObject &p, RpcDispatcher::AnswerReply reply) {
        const SaveAsked asked = saveAsked(p);
        if (!asked.malformed.isEmpty()) {
            reply(RpcDispatcher::refusal(400, QStringLiteral("bad_request"), asked.malformed));
            return;
        }
        Session *s = find(p, reply);
        if (!s)
            return;
        const QString id = s->id();
        s->save(asked.files, asked.message.isEmpty() ? QStringLiteral("Saved from the cloud") : asked.message,
            [reply, id, session = QPointer<Session>(s), log = sessions()->activity()](Result<SaveReport, SessionError> r) {
                if (session)
                    recordSave(log, *session, Door::Cloud, r);
                if (!r) {
                    const auto [status, body] = errorAnswer(r.error());
                    reply(Answer {status, body});
                    return;
                }
                QJsonObject o = toJson(r.value());
                o.insert(QStringLiteral("session"), id);
                reply(Answer {200, o});
            });
    });
    rpc.addAnswering(QStringLiteral("session.sync"), [find, answer, sessions](const QJsonObject &p, RpcDispatcher::AnswerReply reply) {
        Session *s = find(p, reply);
        if (!s)
            return;
        s->sync(p.value(QStringLiteral("resolve")).toBool() ? ConflictMode::Resolve : ConflictMode::Stop,
            [done = answer(reply), session = QPointer<Session>(s), log = sessions()->activity()](
                Result<SyncReport, SessionError> r) {
                if (session)
                    recordSync(log, *session, Door::Cloud, r);
                done(r);
            });
    });
    rpc.addAnswering(QStringLiteral("session.changes"), [find, answer](const QJsonObject &p, RpcDispatcher::AnswerReply reply) {
        if (Session *s = find(p, reply))
            s->changes(p.value(QStringLiteral("refresh")).toBool(), answer(reply));
    });
}

} // namespace isolation
