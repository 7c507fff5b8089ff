#include "launchservice.h"

#include "hubstate.h"
#include "launchsecretsealer.h"
#include "memberpages.h"
#include "tunnelregistry.h"
#include "viewservice.h"
#include "workspaceservice.h"

#include "core/base64url.h"
#include "crypto/random.h"

#include <QDateTime>
#include <QJsonArray>
#include <QUrlQuery>

#include <memory>

namespace isolation::hub {

namespace {

constexpr qint64 kSecretsLifetimeSeconds = 3600; // good for the launch, and a restart of it

QString esc(const QString &s)
{
    return s.toHtmlEscaped();
}

HttpResponse seeOther(const QString &location)
{
    HttpResponse r;
    r.status = 303;
    r.setHeader("Location", location.toUtf8());
    r.setHeader("Cache-Control", "no-store");
    r.setHeader("Referrer-Policy", "no-referrer");
    return r;
}

} // namespace

LaunchService::LaunchService(HubState &state, TunnelRegistry &tunnels, WorkspaceService &workspaces,
    ViewService &views, MemberPages &pages, std::function<QByteArray()> previewSource)
    : m_state(state)
    , m_tunnels(tunnels)
    , m_workspaces(workspaces)
    , m_views(views)
    , m_pages(pages)
    , m_previewSource(std::move(previewSource))
{ }

void LaunchService::launch(const QString &serverId, const QJsonObject &request, CallCallback done)
{
    const QJsonObject secrets = request.value(QStringLiteral("secrets")).toObject();
    const ServerRecord *server = m_state.server(serverId);
    if (!server || server->revoked) {
        done(CallError::remote(QStringLiteral("no paired server %1").arg(serverId), 404, QStringLiteral("not_found")));
        return;
    }
    const QString session = QStringLiteral("s") + QString::fromLatin1(randomBytes(6).toHex());
    // The session's workspace bearers go to this server only (docs/protocol.md, "Workspace bearers").
    if (auto recorded = m_workspaces.launchSession(serverId, session, request.value(QStringLiteral("workspace")).toString());
        !recorded) {
        done(CallError::remote(recorded.error().message, 500, QStringLiteral("internal")));
        return;
    }
    QJsonObject params {{QStringLiteral("session"), session}};
    for (const char *key : {"workspace", "image", "agent", "repositories"}) {
        if (request.contains(QLatin1String(key)))
            params.insert(QLatin1String(key), request.value(QLatin1String(key)));
    }
    if (!secrets.isEmpty()) {
        QMap<QString, QByteArray> values;
        for (auto it = secrets.begin(); it != secrets.end(); ++it)
            values.insert(it.key(), it.value().toString().toUtf8());
        auto sealed = LaunchSecretSealer::seal(server->x25519Public, serverId, session,
            QDateTime::currentSecsSinceEpoch() + kSecretsLifetimeSeconds, values);
        if (!sealed) {
            done(CallError::remote(sealed.error().message, 400, QStringLiteral("bad_request")));
            return;
        }
        params.insert(QStringLiteral("secrets"), QString::fromLatin1(sealed.value().toBase64(kBase64Url)));
    }
    // A launch may restore a large workspace and start a container.
    m_tunnels.call(serverId, QStringLiteral("session.launch"), params, std::chrono::minutes(5), std::move(done));
}

void LaunchService::resume(const QString &serverId, const QJsonObject &request, CallCallback done)
{
    QJsonObject params {{QStringLiteral("session"), request.value(QStringLiteral("session"))}};
    for (const char *key : {"workspace", "image"}) {
        if (request.contains(QLatin1String(key)))
            params.insert(QLatin1String(key), request.value(QLatin1String(key)));
    }
    const QString from = request.value(QStringLiteral("from")).toString();
    const QString session = request.value(QStringLiteral("session")).toString();
    // Resumed elsewhere from what its suspend saved: its bearers go to the new server from now on.
    if (request.contains(QStringLiteral("workspace"))) {
        if (auto moved = m_workspaces.launchSession(serverId, session, request.value(QStringLiteral("workspace")).toString());
            !moved) {
            done(CallError::remote(moved.error().message, 409, QStringLiteral("conflict")));
            return;
        }
    }
    TunnelRegistry *tunnels = &m_tunnels;
    m_tunnels.call(serverId, QStringLiteral("session.resume"), params, std::chrono::minutes(5),
        [tunnels, from, serverId, session, done](CallResult resumed) {
            if (!resumed || from.isEmpty() || from == serverId) {
                done(resumed);
                return;
            }
            // Resumed here: the copy on the server that suspended it goes (its work was saved).
            tunnels->call(from, QStringLiteral("session.finish"), QJsonObject {{QStringLiteral("session"), session}},
                std::chrono::minutes(1), [resumed, done](CallResult finished) {
                    QJsonObject result = resumed.value();
                    result.insert(QStringLiteral("retired"),
                        finished ? QJsonValue(finished.value()) : QJsonValue(finished.error().message));
                    done(result);
                });
        });
}

void LaunchService::registerRoutes(HttpServer &app, std::function<bool(const HttpRequest &)> isAdmin)
{
    // The admin calls: the token checked, the JSON body read, then the call made on that server.
    const auto adminCall = [this, isAdmin](void (LaunchService::*call)(const QString &, const QJsonObject &, CallCallback)) {
        return [this, isAdmin, call](const HttpRequest &request, HttpReply reply) {
            if (!isAdmin(request))
                return reply.send(
                    HttpResponse::error(401, QStringLiteral("unauthorized"), QStringLiteral("admin token required")));
            QJsonObject body;
            QString why;
            if (!request.jsonBody(&body, &why))
                return reply.send(HttpResponse::error(400, QStringLiteral("bad_request"), why));
            (this->*call)(request.params.value(QStringLiteral("id")), body,
                [reply](CallResult r) { TunnelRegistry::answer(reply, r); });
        };
    };
    app.route("POST", QStringLiteral("/v1/admin/servers/{id}/resume"), adminCall(&LaunchService::resume));
    app.route("POST", QStringLiteral("/v1/admin/servers/{id}/launch"), adminCall(&LaunchService::launch));
    app.route("GET", QStringLiteral("/sessions"), [this](const HttpRequest &request, HttpReply reply) { page(request, reply); });
    app.route("POST", QStringLiteral("/sessions"), [this](const HttpRequest &request, HttpReply reply) { post(request, reply); });
}

void LaunchService::page(const HttpRequest &request, HttpReply reply)
{
    auto response = std::make_shared<HttpResponse>();
    const QString csrf = QString::fromLatin1(m_pages.begin(request, *response));
    const QString notice = request.query.queryItemValue(QStringLiteral("notice"), QUrl::FullyDecoded).left(300);
    const QString problem = request.query.queryItemValue(QStringLiteral("problem"), QUrl::FullyDecoded).left(500);

    // Every online computer is asked for its sessions; the page is drawn when all have answered.
    struct Gather
    {
        QList<QPair<QString, QString>> servers; // id, name: online ones
        QHash<QString, QJsonArray> sessions;
        QHash<QString, QString> errors;
        int waiting = 0;
    };
    auto gather = std::make_shared<Gather>();
    QStringList options;
    for (const ServerRecord &s : m_state.servers()) {
        if (s.revoked)
            continue;
        const bool online = m_tunnels.tunnel(s.id) != nullptr;
        options << QStringLiteral("<option value=\"%1\"%3>%2</option>")
                       .arg(esc(s.id), esc(s.name + (online ? QString() : QStringLiteral(" (offline)"))),
                           online ? QString() : QStringLiteral(" disabled"));
        if (online)
            gather->servers.append({s.id, s.name});
    }
    QStringList workspaces;
    for (const WorkspaceRecord &w : m_workspaces.workspaces())
        workspaces << QStringLiteral("<option value=\"%1\">%2</option>").arg(esc(w.id), esc(w.name));

    auto render = [response, gather, csrf, notice, problem, options, workspaces, reply, source = m_previewSource()] {
        QString body;
        if (!notice.isEmpty())
            body += QStringLiteral("<p class=ok role=status>%1</p>").arg(esc(notice));
        if (!problem.isEmpty())
            body += QStringLiteral("<p class=bad role=alert>%1</p>").arg(esc(problem));
        const QString hidden = QStringLiteral("<input type=hidden name=csrf value=\"%1\">").arg(esc(csrf));
        if (gather->servers.isEmpty()) {
            body += QStringLiteral("<p>No paired computer is online. <a href=\"/pair\">Pair one</a>, then come back.</p>");
        } else if (workspaces.isEmpty()) {
            body += QStringLiteral("<p>No workspace yet: create one below.</p>");
        } else {
            body += QStringLiteral("<h2>Launch a session</h2><form method=post action=\"/sessions\">%1"
                                   "<input type=hidden name=action value=launch>"
                                   "<label>Workspace <select name=workspace>%2</select></label> "
                                   "<label>on <select name=server>%3</select></label> "
                                   "<button>Launch</button></form>")
                        .arg(hidden, workspaces.join(QString()), options.join(QString()));
        }
        body += QStringLiteral("<h2>Sessions</h2>");
        int shown = 0;
        for (const auto &[id, name] : std::as_const(gather->servers)) {
            if (gather->errors.contains(id)) {
                body += QStringLiteral("<p class=bad>%1: %2</p>").arg(esc(name), esc(gather->errors.value(id)));
                continue;
            }
            for (const QJsonValue v : gather->sessions.value(id)) {
                const QJsonObject s = v.toObject();
                const QString session = s.value(QStringLiteral("id")).toString();
                const QJsonObject sandboxObject = s.value(QStringLiteral("sandbox")).toObject();
                const QString sandbox = sandboxObject.value(QStringLiteral("state")).toString();
                // One form per session; the button pressed names the action (session.save,
                // session.sync, session.changes over the tunnel; a terminal, editor or agent view).
                const auto button = [&session](const char *action, const QString &label, const QString &what) {
                    return QStringLiteral("<button name=action value=%1 aria-label=\"%3 %4\">%2</button> ")
                        .arg(QLatin1String(action), label, what, esc(session));
                };
                QString buttons = button("save", QStringLiteral("Save"), QStringLiteral("Save everything that changed in"))
                    + button("sync", QStringLiteral("Sync"), QStringLiteral("Sync with main"))
                    + button("changes", QStringLiteral("Changes"), QStringLiteral("Show the changes of"));
                if (sandbox == QLatin1String("running"))
                    buttons += button("terminal", QStringLiteral("Terminal"), QStringLiteral("Open a terminal in"))
                        + button("editor", QStringLiteral("Editor"), QStringLiteral("Open the code editor in"));
                if (sandbox == QLatin1String("running") && sandboxObject.contains(QStringLiteral("agent")))
                    buttons += button("agent", QStringLiteral("Agent"), QStringLiteral("Open the agent conversation of"));
                body += QStringLiteral("<form method=post action=\"/sessions\">%1"
                                       "<input type=hidden name=server value=\"%2\">"
                                       "<input type=hidden name=session value=\"%3\">"
                                       "<p><b>%3</b> · %4 on %5 · %6 %7</p></form>")
                            .arg(hidden, esc(id), esc(session),
                                esc(s.value(QStringLiteral("workspace")).toObject().value(QStringLiteral("name")).toString()),
                                esc(name), esc(sandbox.isEmpty() ? QStringLiteral("no sandbox") : sandbox), buttons);
                ++shown;
            }
        }
        if (shown == 0)
            body += QStringLiteral("<p>None yet.</p>");
        body += QStringLiteral("<h2>New workspace</h2><form method=post action=\"/sessions\">%1"
                               "<input type=hidden name=action value=workspace>"
                               "<label>Name <input name=name maxlength=64 required></label> "
                               "<button>Create</button></form>")
                    .arg(hidden);
        HttpResponse page = MemberPages::page(200, MemberPages::html(QStringLiteral("Sessions"), body), source);
        page.headers += response->headers; // a new page session's cookie
        reply.send(page);
    };
    gather->waiting = int(gather->servers.size());
    if (gather->waiting == 0) {
        render();
        return;
    }
    for (const auto &[id, name] : std::as_const(gather->servers)) {
        m_tunnels.call(id, QStringLiteral("sessions.list"), {}, std::chrono::seconds(5),
            [gather, id = id, render](CallResult r) {
                if (r)
                    gather->sessions.insert(id, r.value().value(QStringLiteral("sessions")).toArray());
                else
                    gather->errors.insert(id, r.error().message);
                if (--gather->waiting == 0)
                    render();
            });
    }
}

void LaunchService::post(const HttpRequest &request, HttpReply reply)
{
    const QUrlQuery form(QString::fromUtf8(request.body));
    if (!m_pages.check(request, form)) {
        reply.send(MemberPages::page(403, MemberPages::html(QStringLiteral("Not allowed"),
            QStringLiteral("<p class=bad>This form expired. <a href=\"/sessions\">Start again</a>.</p>"))));
        return;
    }
    const auto value = [&form](const char *name) {
        return form.queryItemValue(QLatin1String(name), QUrl::FullyDecoded).trimmed();
    };
    const auto back = [](const char *key, const QString &text) {
        QUrlQuery q;
        q.addQueryItem(QLatin1String(key), text);
        return seeOther(QStringLiteral("/sessions?") + q.toString(QUrl::FullyEncoded));
    };
    const QString action = value("action");
    if (action == QLatin1String("workspace")) {
        auto created = m_workspaces.create(value("name"));
        reply.send(created ? back("notice", QStringLiteral("Workspace %1 created.").arg(created.value().name))
                           : back("problem", created.error().message));
        return;
    }
    if (action == QLatin1String("launch")) {
        launch(value("server"), QJsonObject {{QStringLiteral("workspace"), value("workspace")}}, [reply, back](CallResult r) {
            reply.send(r ? back("notice",
                               QStringLiteral("Session %1 launched.").arg(r.value().value(QStringLiteral("id")).toString()))
                         : back("problem", QStringLiteral("The launch failed: %1").arg(r.error().message)));
        });
        return;
    }
    if (action == QLatin1String("save") || action == QLatin1String("sync") || action == QLatin1String("changes")) {
        sessionCall(action, value("server"), value("session"), [reply, back](bool ok, const QString &text) {
            reply.send(back(ok ? "notice" : "problem", text));
        });
        return;
    }
    if (action == QLatin1String("terminal") || action == QLatin1String("editor") || action == QLatin1String("agent")) {
        auto view = m_views.create(value("server"), value("session"), *viewKindFromName(action), 0);
        auto url = view ? m_views.openUrl(view.value().value(QStringLiteral("view")).toString())
                        : Result<QUrl>(view.error());
        reply.send(url ? seeOther(url.value().toString(QUrl::FullyEncoded)) : back("problem", url.error().message));
        return;
    }
    reply.send(back("problem", QStringLiteral("unknown action")));
}

void LaunchService::sessionCall(const QString &action, const QString &serverId, const QString &session,
    std::function<void(bool ok, const QString &text)> done)
{
    QJsonObject params {{QStringLiteral("session"), session}};
    if (action == QLatin1String("save"))
        params.insert(QStringLiteral("message"), QStringLiteral("Saved from the hub"));
    if (action == QLatin1String("changes"))
        params.insert(QStringLiteral("refresh"), true);
    m_tunnels.call(serverId, QStringLiteral("session.") + action, params, std::chrono::minutes(5),
        [action, session, done](CallResult r) {
            const auto paths = [](const QJsonArray &files) {
                QStringList all;
                for (const QJsonValue v : files)
                    all << v.toObject().value(QStringLiteral("path")).toString();
                return all.size() > 10 ? (all.mid(0, 10) << QStringLiteral("…")).join(QStringLiteral(", "))
                                       : all.join(QStringLiteral(", "));
            };
            if (!r) {
                const CallError &e = r.error();
                if (e.errorCode == QLatin1String("moved_on"))
                    done(false, QStringLiteral("%1: another session saved first. Sync, then save again.").arg(session));
                else if (e.errorCode == QLatin1String("conflict"))
                    done(false,
                        QStringLiteral("%1: conflicts in %2; nothing was changed.")
                            .arg(session, paths(e.error.value(QStringLiteral("conflicts")).toArray())));
                else
                    done(false, QStringLiteral("%1 of %2 failed: %3").arg(action, session, e.message));
                return;
            }
            const QJsonObject o = r.value();
            if (action == QLatin1String("save")) {
                done(true, o.value(QStringLiteral("published")).toBool()
                        ? QStringLiteral("%1 saved: commit %2, %3 bytes uploaded.")
                              .arg(session, o.value(QStringLiteral("main")).toString().left(12))
                              .arg(o.value(QStringLiteral("segmentBytes")).toInteger())
                        : QStringLiteral("%1: nothing to save.").arg(session));
            } else if (action == QLatin1String("sync")) {
                done(true, QStringLiteral("%1 synced: %2.").arg(session, o.value(QStringLiteral("outcome")).toString()));
            } else {
                const QJsonArray files = o.value(QStringLiteral("files")).toArray();
                QString text = files.isEmpty() ? QStringLiteral("%1: no changed file").arg(session)
                                               : QStringLiteral("%1: %2 changed: %3")
                                                     .arg(session)
                                                     .arg(files.size())
                                                     .arg(paths(files));
                if (o.value(QStringLiteral("movedOn")).toBool())
                    text += QStringLiteral("; main moved on since (sync)");
                done(true, text + QLatin1Char('.'));
            }
        });
}

} // namespace isolation::hub
