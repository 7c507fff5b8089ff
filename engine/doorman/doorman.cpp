#include "doorman.h"

#include "httpdoor.h"
#include "terminalrelays.h"
#include "tunneldoor.h"
#include "upstreamexchange.h"
#include "viewpages.h"

#include "crypto/random.h"
#include "tunnel/tunnelclient.h"

#include <QJsonDocument>
#include <QJsonObject>
#include <QLoggingCategory>
#include <QPointer>
#include <QRegularExpression>
#include <QUrl>
#include <QUrlQuery>

Q_LOGGING_CATEGORY(lcDoorman, "isolation.doorman")

namespace isolation {

namespace {

QByteArray queryValue(const QByteArray &query, const QString &name)
{
    const QUrlQuery q(QString::fromLatin1(query));
    if (q.allQueryItemValues(name).size() != 1)
        return {};
    return q.queryItemValue(name, QUrl::FullyDecoded).toUtf8();
}

// The terminal page's PTY WebSocket, towards the view's relay: only the window size goes with it,
// as numbers written here (docs/protocol.md, "The PTY relay").
void planPty(const ViewPath &path, Admission &out)
{
    QByteArray target = "/proxy/{relay}/pty";
    char separator = '?';
    for (const char *name : {"cols", "rows"}) {
        bool ok = false;
        const uint value = queryValue(path.query, QString::fromLatin1(name)).toUInt(&ok);
        if (!ok || value < 1 || value > 1000)
            continue;
        target += separator;
        target += name;
        target += '=';
        target += QByteArray::number(value);
        separator = '&';
    }
    out.upstreamTarget = target;
    out.needsTerminalRelay = true;
}

// The terminal's run and the files view's upload act in the sandbox: only the view's own page
// may ask, with a body a form cannot send. A page of a neighbouring view is the same site on the
// local preview origin, so its form posts (text/plain shaped as JSON) would carry our
// SameSite=Strict cookie; its Sec-Fetch-Site says same-site, and its body type is one a form
// can send. Both are refused before anything reaches the sandbox.
std::optional<HttpResponse> refuseUnlessOwnPage(const HttpHeaders &headers, QByteArrayView mediaType)
{
    if (!HeaderPolicy::fromSameOrigin(headers))
        return Doorman::refusal(403, QStringLiteral("forbidden"),
            QStringLiteral("only this view's own page may do this (Sec-Fetch-Site: same-origin)"));
    if (!HeaderPolicy::hasMediaType(headers, mediaType))
        return Doorman::refusal(415, QStringLiteral("unsupported_media_type"),
            QStringLiteral("the body must be Content-Type: %1").arg(QString::fromLatin1(mediaType)));
    return std::nullopt;
}

// The request's headers as the sandbox may see them (HeaderPolicy::towardsSandbox); for a
// WebSocket, without the handshake's own, which the doorman writes towards the sandbox itself.
HttpHeaders headersTowardsSandbox(const DoorRequest &request, const QByteArray &viewCookie)
{
    HeaderPolicy::Forwarding forwarding;
    forwarding.clientAddress = request.clientAddress;
    forwarding.proto = request.proto;
    forwarding.host = request.host;
    forwarding.viewCookie = viewCookie;
    HttpHeaders headers = HeaderPolicy::towardsSandbox(request.headers, forwarding);
    if (!request.websocket)
        return headers;
    HttpHeaders kept;
    for (const auto &h : std::as_const(headers)) {
        if (!h.first.toLower().startsWith("sec-websocket-") || isNoCase(h.first, "sec-websocket-protocol")
            || isNoCase(h.first, "sec-websocket-extensions"))
            kept.append(h);
    }
    return kept;
}

// The files view's upload of `file` as execd takes it: multipart/form-data, the metadata part,
// then the file part with the request's body between bodyPrefix and bodySuffix.
void planUpload(const QString &file, Admission &out)
{
    // The boundary is 128 random bits the uploader never sees: a file cannot hold it to end its
    // part early and write a metadata part (another path) of its own.
    const QByteArray boundary = "isolation-" + randomBytes(16).toHex();
    const QByteArray metadata
        = QJsonDocument(QJsonObject {{QStringLiteral("path"), file}, {QStringLiteral("mode"), 644}})
              .toJson(QJsonDocument::Compact);
    out.method = "POST";
    out.upstreamTarget = "/files/upload";
    out.bodyPrefix = "--" + boundary
        + "\r\nContent-Disposition: form-data; name=\"metadata\"\r\nContent-Type: application/json\r\n\r\n" + metadata
        + "\r\n--" + boundary
        + "\r\nContent-Disposition: form-data; name=\"file\"; filename=\"upload\"\r\n"
          "Content-Type: application/octet-stream\r\n\r\n";
    out.bodySuffix = "\r\n--" + boundary + "--\r\n";
    HttpHeaders headers;
    for (const auto &h : std::as_const(out.headers)) {
        if (!isNoCase(h.first, "content-type"))
            headers.append(h);
    }
    headers.append(qMakePair(QByteArray("Content-Type"), QByteArray("multipart/form-data; boundary=" + boundary)));
    out.headers = headers;
}

} // namespace

Doorman::Doorman(Options options, const Clock &clock, ViewTargetResolver *targets, QObject *parent)
    : QObject(parent)
    , m_options(std::move(options))
    , m_hostSuffix('.' + m_options.localSuffix.toLower().toUtf8())
    , m_clock(clock)
    , m_targets(targets)
    , m_pool(new UpstreamPool(this))
    , m_relays(new TerminalRelays(m_options.ptyRelayProgram, this))
{
    m_purge.setInterval(30000);
    connect(&m_purge, &QTimer::timeout, this, [this] {
        const qint64 now = m_clock.unixSeconds();
        m_sessions.purge(now);
        m_relays->purge(now);
        for (auto it = m_terminals.begin(); it != m_terminals.end();) {
            if (now >= it->expiresAt && it->waiting.isEmpty() && !it->sessionId.isEmpty()) {
                const Terminal t = *it;
                it = m_terminals.erase(it);
                // The view's own process in the sandbox ends with the view.
                UpstreamCall::start(m_pool, {t.target.host, t.target.port}, "DELETE", "/session/" + t.sessionId,
                    {{"Host", t.target.host.toUtf8()}, {"X-EXECD-ACCESS-TOKEN", t.target.accessToken}}, {}, {}, this);
            } else {
                ++it;
            }
        }
    });
    m_purge.start();
}

Doorman::~Doorman()
{
    close();
}

Result<quint16> Doorman::listenLocal(const QHostAddress &address, quint16 port)
{
    if (!m_http)
        m_http = new HttpDoor(this, this);
    return m_http->listen(address, port);
}

void Doorman::attach(TunnelClient *tunnel)
{
    if (!m_tunnel)
        m_tunnel = new TunnelDoor(this, this);
    QPointer<Doorman> self(this);
    tunnel->setStreamHandler("/v/", [self](TunnelStream *stream) {
        if (self)
            self->serveStream(stream);
        else
            stream->respondWith(503, {{"content-type", "application/json"}}, {});
    });
}

void Doorman::serveStream(TunnelStream *stream)
{
    if (!m_tunnel)
        m_tunnel = new TunnelDoor(this, this);
    m_tunnel->serve(stream);
}

void Doorman::close()
{
    if (m_http)
        m_http->close();
    m_pool->clear();
}

QString Doorman::viewIdFromHost(QByteArrayView host) const
{
    // A browser asks with the same host again and again.
    if (!m_lastHost.isNull() && host == m_lastHost)
        return m_lastViewId;
    QString id = parseViewIdFromHost(host);
    m_lastHost = host.toByteArray();
    m_lastViewId = id;
    return id;
}

QString Doorman::parseViewIdFromHost(QByteArrayView host) const
{
    // "<viewId>.<suffix>" with an optional ":port"; the host compares without case. Every
    // request asks, so nothing is copied until the id is known.
    QByteArrayView h = host;
    const qsizetype colon = h.lastIndexOf(':');
    if (colon >= 0 && !h.contains(']'))
        h.truncate(colon);
    const QByteArrayView suffix(m_hostSuffix);
    if (h.size() <= suffix.size() || !equalsNoCase(h.last(suffix.size()), suffix))
        return {};
    const QString id = QString::fromLatin1(h.first(h.size() - suffix.size())).toLower();
    return ViewToken::isViewId(id) ? id : QString();
}

HttpResponse Doorman::refusal(int status, const QString &code, const QString &message, bool close)
{
    HttpResponse r = HttpResponse::error(status, code, message);
    HeaderPolicy::addStandard(&r.headers);
    r.setHeader("Cache-Control", "no-store");
    if (close)
        r.setHeader("Connection", "close");
    return r;
}

Admission Doorman::admit(const DoorRequest &request)
{
    Admission out = decide(request);
    if (out.answer)
        ++(out.answer->status >= 400 ? m_refused : m_answered);
    return out;
}

Admission Doorman::decide(const DoorRequest &request)
{
    Admission out;
    if (request.viewId.isEmpty() || !ViewToken::isViewId(request.viewId)) {
        out.answer = refusal(404, QStringLiteral("not_found"), QStringLiteral("no such view"));
        return out;
    }
    auto path = ViewPath::parse(request.target);
    if (!path) {
        out.answer = refusal(400, QStringLiteral("bad_request"), path.error().message, true);
        return out;
    }
    const qint64 now = m_clock.unixSeconds();
    // The cookie's bytes stay in the request's headers: looked up without a copy.
    const QByteArrayView cookieBytes = HeaderPolicy::viewCookie(request.headers);
    const QByteArray cookie = QByteArray::fromRawData(cookieBytes.data(), cookieBytes.size());
    const ViewClaims *known = m_sessions.find(cookie, request.viewId, now);

    if (!path.value().token.isEmpty()) {
        if (request.websocket || (request.method != "GET" && request.method != "HEAD")) {
            out.answer = refusal(400, QStringLiteral("bad_request"),
                QStringLiteral("a view token belongs on a page's address only"), true);
            return out;
        }
        if (known) // this browser holds the view already: just drop the token from the address
            return exchangePage(path.value(), {}, *known);
        auto verified = ViewToken::verify(path.value().token, m_options.hubPublicKey, m_options.serverId, now);
        if (!verified) {
            qCInfo(lcDoorman) << "view token refused for view" << request.viewId << ":" << verified.error().message;
            out.answer = refusal(verified.error().httpStatus(),
                verified.error().httpStatus() == 403 ? QStringLiteral("forbidden") : QStringLiteral("unauthorized"),
                verified.error().message);
            return out;
        }
        if (verified.value().viewId != request.viewId) {
            qCInfo(lcDoorman) << "view token for another view refused at view" << request.viewId;
            out.answer
                = refusal(403, QStringLiteral("forbidden"), QStringLiteral("the view token is for another view"));
            return out;
        }
        const QByteArray opened = m_sessions.open(verified.value(), now);
        if (opened.isEmpty()) {
            out.answer = refusal(401, QStringLiteral("unauthorized"),
                QStringLiteral("this view link was used already; open the view again from the hub"));
            return out;
        }
        qCInfo(lcDoorman) << "view" << request.viewId << "opened (" << viewKindName(verified.value().kind) << ")";
        return exchangePage(path.value(), opened, verified.value());
    }

    if (!known) {
        out.answer = refusal(
            401, QStringLiteral("unauthorized"), QStringLiteral("open this view through the link the hub gives"));
        return out;
    }
    // A page of another view (or any other site) may navigate here, never fetch from here.
    const QByteArray site = headerValue(request.headers, "sec-fetch-site").toLower();
    const QByteArray mode = headerValue(request.headers, "sec-fetch-mode").toLower();
    if (!request.websocket && (site == "cross-site" || site == "same-site") && mode != "navigate") {
        out.answer = refusal(403, QStringLiteral("forbidden"), QStringLiteral("requests from other sites are refused"));
        return out;
    }
    if (request.websocket) {
        const QByteArray origin = headerValue(request.headers, "origin");
        if (origin != request.proto + "://" + request.host) {
            out.answer = refusal(403, QStringLiteral("forbidden"), QStringLiteral("WebSocket from another origin"));
            return out;
        }
    }
    return plan(request, *known, path.value(), cookie);
}

Admission Doorman::exchangePage(const ViewPath &path, const QByteArray &cookie, const ViewClaims &claims)
{
    Admission out;
    // Not a 302: the browser's first request came from another site (the hub's page), and a
    // SameSite=Strict cookie is not sent on a redirect of such a navigation. A page that moves on
    // by itself is a navigation from this origin, which sends it.
    const QString target = QString::fromLatin1(path.target()).toHtmlEscaped();
    HttpResponse r = HttpResponse::text(200,
        QStringLiteral(
            "<!doctype html><html><head><meta charset=\"utf-8\"><meta name=\"referrer\" content=\"no-referrer\">"
            "<meta http-equiv=\"refresh\" content=\"0;url=%1\"><title>Opening the view</title></head>"
            "<body><p><a href=\"%1\">Open the view</a></p></body></html>")
            .arg(target)
            .toUtf8(),
        "text/html; charset=utf-8");
    HeaderPolicy::addStandard(&r.headers);
    r.setHeader("Cache-Control", "no-store");
    if (!cookie.isEmpty()) {
        const qint64 maxAge = std::max<qint64>(0, claims.expiresAt - m_clock.unixSeconds());
        // Secure always, as "__Host-" demands, also over plain http: every origin a view is served
        // on is a secure context for the browser (https, or http://*.localhost).
        const QByteArray c = QByteArray(HeaderPolicy::CookieName) + '=' + cookie
            + "; Path=/; Max-Age=" + QByteArray::number(maxAge) + "; Secure; HttpOnly; SameSite=Strict";
        r.headers.append(qMakePair(QByteArray("Set-Cookie"), QByteArray(c)));
    }
    out.answer = r;
    return out;
}

Admission Doorman::plan(
    const DoorRequest &request, const ViewClaims &claims, const ViewPath &path, const QByteArray &viewCookie)
{
    Admission out;
    out.claims = claims;
    out.method = request.method;
    out.headers = headersTowardsSandbox(request, viewCookie);
    switch (claims.kind) {
    case ViewKind::Preview: {
        const QByteArray target = path.target();
        HeadWriter w(out.upstreamTarget, 16 + target.size());
        w << "/proxy/";
        w.number(claims.port) << target;
    }
        return out;
    case ViewKind::Terminal:
    case ViewKind::Files:
    case ViewKind::Editor:
    case ViewKind::Agent:
        break;
    }
    if (request.websocket && claims.kind == ViewKind::Terminal && path.decodedPath == "/_view/terminal/pty") {
        planPty(path, out);
        return out;
    }
    if (request.websocket) {
        out.answer = refusal(404, QStringLiteral("not_found"), QStringLiteral("no WebSocket here"));
        return out;
    }
    const QByteArray p = path.decodedPath;
    if (auto page = ViewPages::answer(claims.kind, request.method, p)) {
        HeaderPolicy::addStandard(&page->headers);
        out.answer = *page;
        return out;
    }
    if (claims.kind == ViewKind::Terminal && p == "/_view/terminal/run") {
        if (request.method != "POST") {
            out.answer = refusal(405, QStringLiteral("method_not_allowed"), QStringLiteral("POST only"));
            return out;
        }
        if (auto refused = refuseUnlessOwnPage(request.headers, "application/json")) {
            out.answer = *refused;
            return out;
        }
        out.upstreamTarget = "/session/{session}/run";
        out.needsTerminalSession = true;
        return out;
    }
    if (claims.kind == ViewKind::Agent && p.startsWith("/_view/agent/") && planAgent(request, path, out))
        return out;
    if ((claims.kind == ViewKind::Files || claims.kind == ViewKind::Editor) && p.startsWith("/_view/files/")
        && planFiles(request, path, out))
        return out;
    out.answer = refusal(404, QStringLiteral("not_found"), QStringLiteral("no such page in this view"));
    return out;
}

bool Doorman::planAgent(const DoorRequest &request, const ViewPath &path, Admission &out) const
{
    const QByteArray &p = path.decodedPath;
    if (p == "/_view/agent/events") {
        if (request.method != "GET") {
            out.answer = refusal(405, QStringLiteral("method_not_allowed"), QStringLiteral("GET only"));
            return true;
        }
        // Read by this view's own page only: the transcript is the agent's whole output.
        if (!HeaderPolicy::fromSameOrigin(request.headers)) {
            out.answer = refusal(403, QStringLiteral("forbidden"),
                QStringLiteral("only this view's own page may do this (Sec-Fetch-Site: same-origin)"));
            return true;
        }
        bool ok = false;
        const QByteArray after = queryValue(path.query, QStringLiteral("after"));
        out.agentAfter = after.isEmpty() ? 0 : after.toULongLong(&ok);
        if (!after.isEmpty() && !ok) {
            out.answer = refusal(400, QStringLiteral("bad_request"), QStringLiteral("after is a number"));
            return true;
        }
        out.agentCall = Admission::AgentCall::Events;
        out.dropBody = true;
        return true;
    }
    if (p == "/_view/agent/input") {
        if (request.method != "POST") {
            out.answer = refusal(405, QStringLiteral("method_not_allowed"), QStringLiteral("POST only"));
            return true;
        }
        if (auto refused = refuseUnlessOwnPage(request.headers, "application/json")) {
            out.answer = *refused;
            return true;
        }
        out.agentCall = Admission::AgentCall::Input;
        return true;
    }
    return false;
}

bool Doorman::planFiles(const DoorRequest &request, const ViewPath &path, Admission &out) const
{
    const auto normalised
        = ViewPath::normaliseFilePath(QString::fromUtf8(queryValue(path.query, QStringLiteral("path"))));
    const QString &root = m_options.filesRoot;
    if (!normalised || (*normalised != root && !normalised->startsWith(root + QLatin1Char('/')))) {
        out.answer
            = refusal(403, QStringLiteral("forbidden"), QStringLiteral("only paths under %1 can be browsed").arg(root));
        return true;
    }
    const QString &file = *normalised;
    const QByteArray &p = path.decodedPath;
    const auto encoded = [](const QString &s) { return QUrl::toPercentEncoding(s, "/"); };
    if (p == "/_view/files/list" && request.method == "GET") {
        out.upstreamTarget = "/directories/list?path=" + encoded(file) + "&depth=1";
        out.dropBody = true;
        return true;
    }
    if (p == "/_view/files/download" && (request.method == "GET" || request.method == "HEAD")) {
        out.upstreamTarget = "/files/download?path=" + encoded(file);
        out.dropBody = true;
        return true;
    }
    if (p == "/_view/files/upload" && request.method == "PUT") {
        // The body is the file's bytes as they are: a type no form can send.
        if (auto refused = refuseUnlessOwnPage(request.headers, "application/octet-stream")) {
            out.answer = *refused;
            return true;
        }
        if (out.claims.kind == ViewKind::Editor) {
            // The editor saves over the version it opened, nothing else: If-Match names that
            // version's SHA-256, checked against the file as it is now before anything is written
            // (docs/protocol.md, "View kinds"). A file changed underneath is refused, not overwritten.
            static const QRegularExpression version(QStringLiteral("^\"sha256:([0-9a-f]{64})\"$"));
            const auto m = version.match(QString::fromLatin1(headerValue(request.headers, "if-match")));
            if (!m.hasMatch()) {
                out.answer = refusal(428, QStringLiteral("precondition_required"),
                    QStringLiteral("the editor saves with If-Match: \"sha256:<the version it opened>\""));
                return true;
            }
            out.unchangedFile = "/files/download?path=" + encoded(file);
            out.unchangedSha256 = QByteArray::fromHex(m.captured(1).toLatin1());
            out.modeListing = "/directories/list?path=" + encoded(file.section(QLatin1Char('/'), 0, -2)) + "&depth=1";
            out.modePath = file;
        }
        planUpload(file, out);
        return true;
    }
    return false;
}

void Doorman::terminalSession(
    const ViewClaims &claims, const ViewTarget &target, std::function<void(Result<QByteArray>)> done)
{
    Terminal &t = m_terminals[claims.viewId];
    t.expiresAt = claims.expiresAt;
    t.target = target;
    if (!t.sessionId.isEmpty()) {
        done(t.sessionId);
        return;
    }
    t.waiting.append(std::move(done));
    if (t.waiting.size() > 1)
        return;
    const QString viewId = claims.viewId;
    const QByteArray body
        = QJsonDocument(QJsonObject {{QStringLiteral("cwd"), m_options.filesRoot}}).toJson(QJsonDocument::Compact);
    auto finish = [this, viewId](Result<QByteArray> r) {
        auto it = m_terminals.find(viewId);
        if (it == m_terminals.end())
            return;
        const auto waiting = std::move(it->waiting);
        it->waiting.clear();
        if (r)
            it->sessionId = r.value();
        else
            m_terminals.erase(it);
        for (const auto &d : waiting)
            d(r);
    };
    UpstreamCall::start(
        m_pool, {target.host, target.port}, "POST", "/session",
        {{"Host", target.host.toUtf8()}, {"X-EXECD-ACCESS-TOKEN", target.accessToken},
            {"Content-Type", "application/json"}},
        body,
        [finish](Result<UpstreamAnswer> answer) {
            if (!answer) {
                finish(Error::unavailable(QStringLiteral("no shell session: %1").arg(answer.error().message)));
                return;
            }
            const QJsonObject o = QJsonDocument::fromJson(answer.value().body).object();
            const QByteArray id = o.value(QStringLiteral("session_id")).toString().toUtf8();
            if (answer.value().status != 200 || id.isEmpty() || id.contains('/') || id.contains('?'))
                finish(Error::failed(
                    QStringLiteral("execd did not make a shell session (HTTP %1)").arg(answer.value().status)));
            else
                finish(id);
        },
        this);
}

} // namespace isolation
