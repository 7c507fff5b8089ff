// SessionSandboxes as tunnel calls (session.*, sessions.list) and LocalAPI routes.
#include "sessionsandboxes.h"

#include "sessionactivity.h"
#include "sessionmanager.h"

#include "http/httpserver.h"
#include "tunnel/rpcdispatcher.h"

#include <QJsonArray>
#include <QPointer>

namespace isolation {

SessionSandboxes::Done SessionSandboxes::logged(const QString &event, const QString &sessionId, Door door, Done done) const
{
    // The workspace is read now: a finished session is gone when its answer comes.
    Session *s = sessionId.isEmpty() ? nullptr : m_sessions->session(sessionId);
    const QString workspace = s ? s->workspaceName() : QString();
    return [log = m_sessions->activity(), event, sessionId, workspace, door, done](Result<QJsonObject> r) {
        if (r) {
            const QJsonObject o = r.value();
            const QString id = sessionId.isEmpty() ? o.value(QStringLiteral("id")).toString() : sessionId;
            const QString name = workspace.isEmpty()
                ? o.value(QStringLiteral("workspace")).toObject().value(QStringLiteral("name")).toString()
                : workspace;
            QJsonObject more;
            if (o.contains(QStringLiteral("discarded")))
                more.insert(QStringLiteral("discarded"), o.value(QStringLiteral("discarded")));
            recordSession(log, event, id, name, door, more);
        }
        done(r);
    };
}

void SessionSandboxes::addCalls(RpcDispatcher &rpc)
{
    QPointer<SessionSandboxes> self(this);
    const auto gone = [] { return Error::unavailable(QStringLiteral("the engine is stopping")); };
    // The params of a launch (session.launch, or session.resume of a session this engine does not have).
    const auto launchOf = [](const QJsonObject &p) {
        const QString workspace = p.value(QStringLiteral("workspace")).toString();
        SessionSandboxes::Launch launch;
        launch.workspace = workspace;
        launch.image = p.value(QStringLiteral("image")).toString();
        launch.sessionId = p.value(QStringLiteral("session")).toString();
        launch.sealedSecrets = QByteArray::fromBase64(p.value(QStringLiteral("secrets")).toString().toLatin1(),
            QByteArray::Base64UrlEncoding | QByteArray::OmitTrailingEquals);
        launch.agent = p.value(QStringLiteral("agent")).toString();
        for (const QJsonValue v : p.value(QStringLiteral("repositories")).toArray()) {
            const QJsonObject r = v.toObject();
            SessionSandboxes::Launch::Repository repo;
            repo.url = r.value(QStringLiteral("url")).toString();
            repo.directory = r.value(QStringLiteral("directory")).toString();
            repo.branch = r.value(QStringLiteral("branch")).toString();
            repo.tokenSecret = r.value(QStringLiteral("tokenSecret")).toString();
            repo.username = r.value(QStringLiteral("username")).toString();
            repo.sshKeySecret = r.value(QStringLiteral("sshKeySecret")).toString();
            repo.sshPassphraseSecret = r.value(QStringLiteral("sshPassphraseSecret")).toString();
            const QJsonValue known = r.value(QStringLiteral("knownHosts")); // lines in one string, or a list
            if (known.isArray()) {
                for (const QJsonValue line : known.toArray())
                    repo.knownHosts += line.toString().toUtf8() + '\n';
            } else {
                repo.knownHosts = known.toString().toUtf8();
            }
            repo.insecureAcceptAnyHostKey = r.value(QStringLiteral("insecureAcceptAnyHostKey")).toBool();
            launch.repositories.append(repo);
        }
        return launch;
    };
    rpc.addAsync(QStringLiteral("session.launch"), [self, gone, launchOf](const QJsonObject &p, RpcDispatcher::Reply reply) {
        if (!self) {
            reply(gone());
            return;
        }
        if (p.value(QStringLiteral("workspace")).toString().isEmpty()) {
            reply(Error::invalidInput(QStringLiteral("give the workspace (its name or id)")));
            return;
        }
        self->launch(launchOf(p), self->logged(QStringLiteral("launched"), {}, Door::Cloud, reply));
    });
    rpc.addAsync(QStringLiteral("session.suspend"), [self, gone](const QJsonObject &p, RpcDispatcher::Reply reply) {
        const QString id = p.value(QStringLiteral("session")).toString();
        self ? self->suspend(id, self->logged(QStringLiteral("suspended"), id, Door::Cloud, reply)) : reply(gone());
    });
    // Resume here: the session's own sandbox when this engine has it; otherwise, given the
    // workspace, the session continues on this server (another computer suspended it): a launch
    // under the same session id, from what the suspend saved.
    rpc.addAsync(QStringLiteral("session.resume"), [self, gone, launchOf](const QJsonObject &p, RpcDispatcher::Reply reply) {
        if (!self) {
            reply(gone());
            return;
        }
        const QString session = p.value(QStringLiteral("session")).toString();
        if (!self->hasSession(session) && !p.value(QStringLiteral("workspace")).toString().isEmpty())
            self->launch(launchOf(p), self->logged(QStringLiteral("resumed"), {}, Door::Cloud, reply));
        else
            self->resume(session, self->logged(QStringLiteral("resumed"), session, Door::Cloud, reply));
    });
    rpc.addAsync(QStringLiteral("session.finish"), [self, gone](const QJsonObject &p, RpcDispatcher::Reply reply) {
        const QString id = p.value(QStringLiteral("session")).toString();
        self ? self->finish(id, p.value(QStringLiteral("discard")).toBool(),
                   self->logged(QStringLiteral("finished"), id, Door::Cloud, reply))
             : reply(gone());
    });
    rpc.add(QStringLiteral("session.agent"), [self, gone](const QJsonObject &p) -> Result<QJsonObject> {
        if (!self)
            return gone();
        return self->agent(p.value(QStringLiteral("session")).toString());
    });
    rpc.add(QStringLiteral("sessions.list"), [self, gone](const QJsonObject &) -> Result<QJsonObject> {
        if (!self)
            return gone();
        return self->list();
    });
}

void SessionSandboxes::addRoutes(HttpServer &http, std::function<SessionSandboxes *()> get)
{
    const auto answer = [](const HttpReply &reply, const Result<QJsonObject> &r, int okStatus) {
        if (r) {
            reply.send(HttpResponse::json(okStatus, r.value()));
            return;
        }
        switch (r.error().code) {
        case Error::Code::InvalidInput:
            reply.send(HttpResponse::error(409, QStringLiteral("refused"), r.error().message));
            break;
        case Error::Code::NotFound:
            reply.send(HttpResponse::error(404, QStringLiteral("not_found"), r.error().message));
            break;
        case Error::Code::Unavailable:
            reply.send(HttpResponse::error(503, QStringLiteral("unavailable"), r.error().message));
            break;
        case Error::Code::Cancelled:
            reply.send(HttpResponse::error(409, QStringLiteral("cancelled"), r.error().message));
            break;
        case Error::Code::Failed:
            reply.send(HttpResponse::error(500, QStringLiteral("internal"), r.error().message));
            break;
        }
    };
    // The object the request is for, or the 503/400 answer given instead.
    const auto target = [get](const HttpRequest &request, const HttpReply &reply, QJsonObject *body) {
        SessionSandboxes *s = get();
        QString why;
        if (!s)
            reply.send(HttpResponse::error(503, QStringLiteral("unavailable"), QStringLiteral("The engine is not running")));
        else if (!request.body.isEmpty() && !request.jsonBody(body, &why))
            reply.send(HttpResponse::error(400, QStringLiteral("bad_request"), why));
        else
            return s;
        return static_cast<SessionSandboxes *>(nullptr);
    };
    http.route("POST", QStringLiteral("/v1/sessions/launch"), [answer, target](const HttpRequest &request, HttpReply reply) {
        QJsonObject o;
        SessionSandboxes *s = target(request, reply, &o);
        if (!s)
            return;
        const QString workspace = o.value(QStringLiteral("workspace")).toString();
        if (workspace.isEmpty()) {
            reply.send(HttpResponse::error(400, QStringLiteral("bad_request"), QStringLiteral("give the workspace")));
            return;
        }
        const QJsonValue id = o.value(QStringLiteral("session"));
        if (!id.isUndefined() && !id.isString()) {
            reply.send(
                HttpResponse::error(400, QStringLiteral("bad_request"), QStringLiteral("session must be a string")));
            return;
        }
        SessionSandboxes::Launch launch;
        launch.workspace = workspace;
        launch.sessionId = id.toString(); // chosen by the caller, to follow its progress from the start
        launch.image = o.value(QStringLiteral("image")).toString();
        launch.agent = o.value(QStringLiteral("agent")).toString();
        s->launch(launch,
            s->logged(QStringLiteral("launched"), {}, doorOfClient(request.header("user-agent")),
                [answer, reply](Result<QJsonObject> r) { answer(reply, r, 201); }));
    });
    http.route("GET", QStringLiteral("/v1/sessions/{id}/agent"), [answer, target](const HttpRequest &request, HttpReply reply) {
        QJsonObject o;
        if (SessionSandboxes *s = target(request, reply, &o))
            answer(reply, s->agent(request.params.value(QStringLiteral("id"))), 200);
    });
    for (const QString &verb : {QStringLiteral("suspend"), QStringLiteral("resume"), QStringLiteral("finish")}) {
        http.route("POST", QStringLiteral("/v1/sessions/{id}/") + verb,
            [answer, target, verb](const HttpRequest &request, HttpReply reply) {
                QJsonObject o;
                SessionSandboxes *s = target(request, reply, &o);
                if (!s)
                    return;
                const QString id = request.params.value(QStringLiteral("id"));
                const QString event = verb == QLatin1String("resume") ? QStringLiteral("resumed") : verb + QStringLiteral("ed");
                auto done = s->logged(event, id, doorOfClient(request.header("user-agent")),
                    [answer, reply](Result<QJsonObject> r) { answer(reply, r, 200); });
                if (verb == QLatin1String("suspend"))
                    s->suspend(id, done);
                else if (verb == QLatin1String("resume"))
                    s->resume(id, done);
                else
                    s->finish(id, o.value(QStringLiteral("discard")).toBool(), done);
            });
    }
}

} // namespace isolation
