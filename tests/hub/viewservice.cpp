#include "viewservice.h"

#include "actionlog.h"
#include "atomicfile.h"
#include "hubstate.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

namespace isolation::hub {

namespace {

QJsonObject toJson(const ViewRecord &v)
{
    return {{QStringLiteral("view"), v.id}, {QStringLiteral("server"), v.serverId},
        {QStringLiteral("session"), v.sessionId}, {QStringLiteral("kind"), viewKindName(v.kind)},
        {QStringLiteral("port"), v.port}, {QStringLiteral("createdAt"), v.createdAt}};
}

} // namespace

ViewService::ViewService(HubState &state, ActionLog &log, const Clock &clock, QString file, PreviewHost host)
    : m_state(state)
    , m_log(log)
    , m_clock(clock)
    , m_file(std::move(file))
    , m_host(std::move(host))
{ }

Status ViewService::load()
{
    QFile f(m_file);
    if (!f.exists())
        return {};
    if (!f.open(QIODevice::ReadOnly))
        return Error::failed(QStringLiteral("cannot read %1").arg(m_file));
    const QJsonArray list = QJsonDocument::fromJson(f.readAll()).object().value(QStringLiteral("views")).toArray();
    for (const QJsonValue &v : list) {
        const QJsonObject o = v.toObject();
        ViewRecord r;
        r.id = o.value(QStringLiteral("view")).toString();
        r.serverId = o.value(QStringLiteral("server")).toString();
        r.sessionId = o.value(QStringLiteral("session")).toString();
        r.kind = viewKindFromName(o.value(QStringLiteral("kind")).toString()).value_or(ViewKind::Preview);
        r.port = o.value(QStringLiteral("port")).toInt();
        r.createdAt = o.value(QStringLiteral("createdAt")).toInteger();
        if (ViewToken::isViewId(r.id))
            m_views.insert(r.id, r);
    }
    return {};
}

Status ViewService::save() const
{
    QJsonArray list;
    for (const ViewRecord &v : m_views)
        list.append(toJson(v));
    return AtomicFile::replace(m_file, QJsonDocument(QJsonObject {{QStringLiteral("views"), list}}).toJson());
}

const ViewRecord *ViewService::view(const QString &id) const
{
    auto it = m_views.constFind(id);
    return it == m_views.constEnd() ? nullptr : &*it;
}

Result<QJsonObject> ViewService::create(const QString &serverIdIn, const QString &sessionId, ViewKind kind, int port)
{
    QString serverId = serverIdIn;
    if (serverId.isEmpty()) {
        QStringList live;
        for (const ServerRecord &s : m_state.servers()) {
            if (!s.revoked)
                live << s.id;
        }
        if (live.size() != 1)
            return Error::invalidInput(QStringLiteral("name the server (%1 paired)").arg(live.size()));
        serverId = live.first();
    }
    const ServerRecord *server = m_state.server(serverId);
    if (!server || server->revoked)
        return Error::notFound(QStringLiteral("no such server: %1").arg(serverId));
    if (kind == ViewKind::Preview ? (port < 1 || port > 65535) : port != 0)
        return Error::invalidInput(QStringLiteral("a preview view needs --port 1..65535; other kinds take none"));
    ViewRecord r;
    r.id = ViewToken::newViewId();
    r.serverId = serverId;
    r.sessionId = sessionId;
    r.kind = kind;
    r.port = port;
    r.createdAt = m_clock.unixSeconds();
    m_views.insert(r.id, r);
    if (auto s = save(); !s) {
        m_views.remove(r.id);
        return s.error();
    }
    auto url = openUrl(r.id);
    if (!url) {
        m_views.remove(r.id);
        return url.error();
    }
    m_log.record(QStringLiteral("view.create"), toJson(r)); // never the token
    QJsonObject out = toJson(r);
    out.insert(QStringLiteral("url"), url.value().toString(QUrl::FullyEncoded));
    return out;
}

Result<QUrl> ViewService::openUrl(const QString &viewId, qint64 lifetimeSeconds)
{
    const ViewRecord *r = view(viewId);
    if (!r)
        return Error::notFound(QStringLiteral("no such view"));
    ViewClaims c;
    c.viewId = r->id;
    c.sessionId = r->sessionId;
    c.serverId = r->serverId;
    c.kind = r->kind;
    c.port = r->port;
    c.issuedAt = m_clock.unixSeconds();
    c.expiresAt = c.issuedAt + std::clamp<qint64>(lifetimeSeconds, 1, ViewToken::MaxLifetimeSeconds);
    c.nonce = ViewToken::newNonce();
    auto token = ViewToken::mint(c, m_state.hubPrivateKey());
    if (!token)
        return token.error();
    QUrl url(QStringLiteral("http://") + m_host(r->id) + QStringLiteral("/"));
    url.setQuery(QStringLiteral("%1=%2").arg(QLatin1String("view_token"), QString::fromLatin1(token.value())));
    return url;
}

QByteArray ViewService::pageHtml() const
{
    QString rows;
    for (const ViewRecord &v : m_views) {
        rows += QStringLiteral("<li><a href=\"/views/%1/open\" target=\"_blank\" rel=\"noreferrer\">%2 of %3</a> "
                               "(%4%5, on %6)</li>")
                    .arg(v.id, viewKindName(v.kind), v.sessionId.toHtmlEscaped(), viewKindName(v.kind),
                        v.kind == ViewKind::Preview ? QStringLiteral(" port %1").arg(v.port) : QString(),
                        v.serverId.toHtmlEscaped());
    }
    if (rows.isEmpty())
        rows = QStringLiteral("<li>No views yet: <code>isolation-hub view SESSION --kind terminal</code></li>");
    return QStringLiteral("<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\">"
                          "<meta name=\"referrer\" content=\"no-referrer\"><title>Views</title></head>"
                          "<body style=\"font:16px system-ui,sans-serif;max-width:40em;margin:3em auto\">"
                          "<h1>Views</h1><ul>%1</ul></body></html>")
        .arg(rows)
        .toUtf8();
}

void ViewService::registerRoutes(HttpServer &app, const std::function<bool(const HttpRequest &)> &isAdmin)
{
    app.route("POST", QStringLiteral("/v1/admin/views"), [this, isAdmin](const HttpRequest &request, HttpReply reply) {
        if (!isAdmin(request))
            return reply.send(
                HttpResponse::error(401, QStringLiteral("unauthorized"), QStringLiteral("admin token required")));
        QJsonObject body;
        QString why;
        if (!request.jsonBody(&body, &why))
            return reply.send(HttpResponse::error(400, QStringLiteral("bad_request"), why));
        const auto kind = viewKindFromName(body.value(QStringLiteral("kind")).toString());
        const QString session = body.value(QStringLiteral("session")).toString();
        if (!kind || session.isEmpty())
            return reply.send(HttpResponse::error(400, QStringLiteral("bad_request"),
                QStringLiteral("expected {\"session\", \"kind\": preview|terminal|files|editor|agent, \"port\"}")));
        auto created = create(body.value(QStringLiteral("server")).toString(), session, *kind,
            body.value(QStringLiteral("port")).toInt());
        if (!created) {
            const bool missing = created.error().code == Error::Code::NotFound;
            return reply.send(HttpResponse::error(missing ? 404 : 400,
                missing ? QStringLiteral("not_found") : QStringLiteral("bad_request"), created.error().message));
        }
        HttpResponse r = HttpResponse::json(201, created.value());
        r.setHeader("Cache-Control", "no-store");
        reply.send(r);
    });
    app.route("GET", QStringLiteral("/v1/admin/views"), [this, isAdmin](const HttpRequest &request, HttpReply reply) {
        if (!isAdmin(request))
            return reply.send(
                HttpResponse::error(401, QStringLiteral("unauthorized"), QStringLiteral("admin token required")));
        QJsonArray list;
        for (const ViewRecord &v : m_views)
            list.append(toJson(v));
        reply.send(HttpResponse::json(200, QJsonObject {{QStringLiteral("views"), list}}));
    });
    // The member's page: each link mints a fresh token when followed (tokens are single use).
    app.route("GET", QStringLiteral("/views"), [this](const HttpRequest &, HttpReply reply) {
        HttpResponse r = HttpResponse::text(200, pageHtml(), "text/html; charset=utf-8");
        r.setHeader("Referrer-Policy", "no-referrer");
        reply.send(r);
    });
    app.route("GET", QStringLiteral("/views/{id}/open"), [this](const HttpRequest &request, HttpReply reply) {
        auto url = openUrl(request.params.value(QStringLiteral("id")));
        if (!url)
            return reply.send(HttpResponse::error(404, QStringLiteral("not_found"), QStringLiteral("no such view")));
        HttpResponse r;
        r.status = 303;
        r.setHeader("Location", url.value().toString(QUrl::FullyEncoded).toUtf8());
        r.setHeader("Referrer-Policy", "no-referrer");
        r.setHeader("Cache-Control", "no-store");
        reply.send(r);
    });
}

} // namespace isolation::hub
