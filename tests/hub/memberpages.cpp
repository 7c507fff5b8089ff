#include "memberpages.h"

#include "atomicfile.h"
#include "requestguard.h"

#include "core/base64url.h"
#include "crypto/consttime.h"
#include "crypto/random.h"

#include <QCryptographicHash>
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>

namespace isolation::hub {

namespace {

const QByteArray kCookie = QByteArrayLiteral("isolation_member");

QByteArray cookieValue(const HttpRequest &request, const QByteArray &name)
{
    for (const auto &h : request.headers) {
        if (!equalsNoCase(h.first, "cookie"))
            continue;
        for (QByteArray part : h.second.split(';')) {
            part = part.trimmed();
            if (part.startsWith(QByteArray(name + '=')))
                return part.mid(name.size() + 1);
        }
    }
    return {};
}

QByteArray tokenHash(QByteArrayView token)
{
    return QCryptographicHash::hash(token, QCryptographicHash::Sha256);
}

// Where a sign-in may send the browser on: a path of this origin, nothing else.
QString localPath(const QString &next)
{
    if (!next.startsWith(QLatin1Char('/')) || next.startsWith(QLatin1String("//")) || next.contains(QLatin1Char('\\'))
        || next.startsWith(QLatin1String("/signin")))
        return QStringLiteral("/");
    return next;
}

} // namespace

Result<QByteArray> MemberPages::requireSignIn(const QString &file)
{
    QFile existing(file);
    if (existing.exists()) {
        if (!existing.open(QIODevice::ReadOnly))
            return Error::failed(QStringLiteral("cannot read %1").arg(file));
        const QJsonObject o = QJsonDocument::fromJson(existing.readAll()).object();
        const auto hash = QByteArray::fromBase64Encoding(
            o.value(QStringLiteral("sha256")).toString().toLatin1(), kBase64Url | QByteArray::AbortOnBase64DecodingErrors);
        if (!hash || hash.decoded.size() != 32)
            return Error::failed(QStringLiteral("%1 holds no sign-in token hash; delete it for a new token").arg(file));
        m_tokenHash = hash.decoded;
        return QByteArray();
    }
    const QByteArray token = randomBytes(32).toBase64(kBase64Url);
    const QByteArray hash = tokenHash(token);
    // AtomicFile writes 0600: only the hash is kept, but nobody else needs even that.
    const Status written = AtomicFile::replace(
        file, QJsonDocument(QJsonObject {{QStringLiteral("sha256"), QString::fromLatin1(hash.toBase64(kBase64Url))}}).toJson());
    if (!written.ok())
        return written.error();
    m_tokenHash = hash;
    return token;
}

bool MemberPages::signedIn(const HttpRequest &request) const
{
    const QByteArray session = cookieValue(request, kCookie);
    return !session.isEmpty() && m_sessions.contains(session);
}

QByteArray MemberPages::newSession(HttpResponse &response)
{
    const QByteArray session = randomBytes(24).toBase64(kBase64Url);
    const QByteArray csrf = randomBytes(24).toBase64(kBase64Url);
    m_sessions.insert(session, csrf);
    response.setHeader("Set-Cookie", kCookie + '=' + session + "; Path=/; HttpOnly; SameSite=Strict");
    return csrf;
}

QByteArray MemberPages::begin(const HttpRequest &request, HttpResponse &response)
{
    const QByteArray session = cookieValue(request, kCookie);
    if (!session.isEmpty() && m_sessions.contains(session))
        return m_sessions.value(session);
    // Signed in only by the token when it is required; the hub's gate keeps such requests off
    // the pages, so this is the second line.
    return signInRequired() ? QByteArray() : newSession(response);
}

bool MemberPages::check(const HttpRequest &request, const QUrlQuery &form) const
{
    if (!RequestGuard::sameOrigin(request))
        return false;
    const QByteArray session = cookieValue(request, kCookie);
    const QByteArray csrf = form.queryItemValue(QStringLiteral("csrf"), QUrl::FullyDecoded).toLatin1();
    return !session.isEmpty() && m_sessions.contains(session) && constantTimeEquals(csrf, m_sessions.value(session));
}

void MemberPages::registerRoutes(HttpServer &app)
{
    app.route("GET", QStringLiteral("/signin"), [](const HttpRequest &request, HttpReply reply) {
        reply.send(signInPage(200, request.query.queryItemValue(QStringLiteral("next"), QUrl::FullyDecoded)));
    });
    app.route("POST", QStringLiteral("/signin"),
        [this](const HttpRequest &request, HttpReply reply) { signInPost(request, reply); });
}

void MemberPages::signInPost(const HttpRequest &request, HttpReply reply)
{
    const QUrlQuery form(QString::fromUtf8(request.body));
    const QString next = localPath(form.queryItemValue(QStringLiteral("next"), QUrl::FullyDecoded));
    if (!RequestGuard::sameOrigin(request)) {
        reply.send(signInPage(403, next, QStringLiteral("Sign in from this hub's own page.")));
        return;
    }
    if (!signInRequired()) {
        HttpResponse r;
        r.status = 303;
        r.setHeader("Location", next.toUtf8());
        reply.send(r);
        return;
    }
    const QByteArray token = form.queryItemValue(QStringLiteral("token"), QUrl::FullyDecoded).trimmed().toLatin1();
    if (token.isEmpty() || !constantTimeEquals(tokenHash(token), m_tokenHash)) {
        reply.send(signInPage(401, next, QStringLiteral("That is not this hub's sign-in token.")));
        return;
    }
    HttpResponse r;
    r.status = 303;
    newSession(r);
    r.setHeader("Location", next.toUtf8());
    r.setHeader("Cache-Control", "no-store");
    reply.send(r);
}

HttpResponse MemberPages::signInPage(int status, const QString &next, const QString &message)
{
    const QString body
        = (message.isEmpty() ? QString() : QStringLiteral("<p class=bad>%1</p>").arg(message.toHtmlEscaped()))
        + QStringLiteral("<p>This hub listens beyond this machine, so its pages need the sign-in token it "
                         "printed when it first started.</p>"
                         "<form method=\"post\" action=\"/signin\">"
                         "<input type=\"hidden\" name=\"next\" value=\"%1\">"
                         "<label>Sign-in token<br><input type=\"password\" name=\"token\" autocomplete=\"off\" "
                         "autofocus size=\"44\"></label><br><button>Sign in</button></form>")
              .arg(localPath(next).toHtmlEscaped());
    return page(status, html(QStringLiteral("Sign in"), body));
}

QString MemberPages::html(const QString &title, const QString &body, const QString &style)
{
    return QStringLiteral(
        "<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\">"
        "<meta name=\"viewport\" content=\"width=device-width\">"
        "<title>%1 · Isolation</title>"
        "<style>body{font:16px system-ui,sans-serif;max-width:40em;margin:3em auto;padding:0 1em}"
        "button{font-size:16px;margin:1em .5em 0 0;padding:.4em 1.2em}.ok{color:#2f9e44}.bad{color:#d9480f}%3"
        "</style></head><body><h1>%1</h1>%2</body></html>")
        .arg(title.toHtmlEscaped(), body, style);
}

HttpResponse MemberPages::page(int status, const QString &html, const QByteArray &formTargets)
{
    HttpResponse r = HttpResponse::text(status, html.toUtf8(), "text/html; charset=utf-8");
    r.setHeader("Cache-Control", "no-store");
    r.setHeader("Content-Security-Policy",
        "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'"
            + (formTargets.isEmpty() ? QByteArray() : ' ' + formTargets));
    r.setHeader("X-Frame-Options", "DENY");
    r.setHeader("Referrer-Policy", "no-referrer");
    return r;
}

} // namespace isolation::hub
