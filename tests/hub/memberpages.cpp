#include "memberpages.h"

#include "crypto/consttime.h"
#include "crypto/random.h"

namespace isolation::hub {

namespace {

constexpr auto kB64 = QByteArray::Base64UrlEncoding | QByteArray::OmitTrailingEquals;
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

} // namespace

QByteArray MemberPages::begin(const HttpRequest &request, HttpResponse &response)
{
    QByteArray session = cookieValue(request, kCookie);
    if (session.isEmpty() || !m_sessions.contains(session)) {
        session = randomBytes(24).toBase64(kB64);
        m_sessions.insert(session, randomBytes(24).toBase64(kB64));
        response.setHeader("Set-Cookie", kCookie + '=' + session + "; Path=/; HttpOnly; SameSite=Strict");
    }
    return m_sessions.value(session);
}

bool MemberPages::check(const HttpRequest &request, const QUrlQuery &form) const
{
    const QByteArray session = cookieValue(request, kCookie);
    const QByteArray csrf = form.queryItemValue(QStringLiteral("csrf"), QUrl::FullyDecoded).toLatin1();
    return !session.isEmpty() && m_sessions.contains(session) && constantTimeEquals(csrf, m_sessions.value(session));
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
