#include "headerpolicy.h"

#include "views/viewtoken.h"

#include <algorithm>

namespace isolation {

namespace {

bool is(QByteArrayView a, const char *b)
{
    return a.compare(b, Qt::CaseInsensitive) == 0;
}

// The names listed in every Connection header (comma-separated tokens), lower case.
QList<QByteArray> connectionNamed(const HttpHeaders &headers)
{
    QList<QByteArray> out;
    for (const auto &h : headers) {
        if (!is(h.first, "connection"))
            continue;
        for (const QByteArray &t : h.second.split(',')) {
            const QByteArray name = t.trimmed().toLower();
            if (!name.isEmpty())
                out.append(name);
        }
    }
    return out;
}

bool listed(const QList<QByteArray> &names, const QByteArray &name)
{
    return names.contains(name.toLower());
}

bool base64url(char c)
{
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '_';
}

} // namespace

bool HeaderPolicy::carriesToken(QByteArrayView value)
{
    if (QLatin1String(value.data(), value.size()).contains(QLatin1String("view_token"), Qt::CaseInsensitive))
        return true;
    constexpr qsizetype signatureChars = 86; // 64 bytes, base64url without padding
    if (value.size() < signatureChars + 5)
        return false;
    // A token's claims are a JSON object: base64url that starts "eyJ" ('{"'). Wherever that
    // starts, whatever stands before it: claims, ".", 86 signature characters.
    for (qsizetype at = value.indexOf("eyJ"); at >= 0; at = value.indexOf("eyJ", at + 1)) {
        qsizetype dot = at;
        while (dot < value.size() && base64url(value[dot]))
            ++dot;
        if (dot >= value.size() || value[dot] != '.' || dot + 1 + signatureChars > value.size())
            continue;
        const QByteArrayView signature = value.sliced(dot + 1, signatureChars);
        if (!std::all_of(signature.begin(), signature.end(), base64url))
            continue;
        if (ViewToken::decodeUnverified(value.sliced(at, dot + 1 + signatureChars - at)))
            return true;
    }
    return false;
}

bool HeaderPolicy::isHopByHop(QByteArrayView name)
{
    for (const char *h : {"connection", "keep-alive", "proxy-connection", "te", "trailer", "transfer-encoding",
             "upgrade", "proxy-authenticate", "proxy-authorization", "http2-settings"}) {
        if (is(name, h))
            return true;
    }
    return false;
}

QByteArray HeaderPolicy::cookieWithoutView(const QByteArray &cookie, const QByteArray &viewCookie)
{
    QList<QByteArray> kept;
    for (const QByteArray &pair : cookie.split(';')) {
        const QByteArray p = pair.trimmed();
        if (p.isEmpty())
            continue;
        const qsizetype eq = p.indexOf('=');
        const QByteArray name = (eq < 0 ? p : p.left(eq)).trimmed();
        if (name.contains(CookieName) || (!viewCookie.isEmpty() && p.contains(viewCookie)))
            continue; // ours, however it is spelt
        kept.append(p);
    }
    return kept.join("; ");
}

QByteArray HeaderPolicy::viewCookie(const HttpHeaders &headers)
{
    QByteArray found;
    int count = 0;
    for (const auto &h : headers) {
        if (!is(h.first, "cookie"))
            continue;
        for (const QByteArray &pair : h.second.split(';')) {
            const QByteArray p = pair.trimmed();
            const qsizetype eq = p.indexOf('=');
            if (eq > 0 && p.left(eq).trimmed() == CookieName) {
                found = p.mid(eq + 1).trimmed();
                ++count;
            }
        }
    }
    return count == 1 ? found : QByteArray();
}

HttpHeaders HeaderPolicy::towardsSandbox(const HttpHeaders &in, const Forwarding &f)
{
    const QList<QByteArray> named = connectionNamed(in);
    HttpHeaders out;
    out.reserve(in.size() + 5);
    if (!f.upstreamHost.isEmpty())
        out.append(qMakePair(QByteArray("Host"), QByteArray(f.upstreamHost)));
    for (const auto &h : in) {
        const QByteArray &n = h.first;
        if (isHopByHop(n) || listed(named, n) || is(n, "host") || is(n, "authorization") || is(n, "content-length")
            || is(n, "expect") || is(n, "forwarded") || is(n, "x-forwarded-for") || is(n, "x-forwarded-proto")
            || is(n, "x-forwarded-host") || is(n, "x-real-ip") || is(n, "x-execd-access-token") || n.startsWith(':')
            || n.toLower().startsWith("x-isolation-"))
            continue;
        if (carriesToken(h.second) || (!f.viewCookie.isEmpty() && !is(n, "cookie") && h.second.contains(f.viewCookie)))
            continue; // our credentials go no further, whatever header carries them
        if (is(n, "cookie")) {
            const QByteArray rest = cookieWithoutView(h.second, f.viewCookie);
            if (!rest.isEmpty())
                out.append(qMakePair(QByteArray("Cookie"), QByteArray(rest)));
            continue;
        }
        out.append(h);
    }
    if (!f.clientAddress.isEmpty())
        out.append(qMakePair(QByteArray("X-Forwarded-For"), QByteArray(f.clientAddress)));
    out.append(qMakePair(QByteArray("X-Forwarded-Proto"), QByteArray(f.proto)));
    out.append(qMakePair(QByteArray("X-Forwarded-Host"), QByteArray(f.host)));
    if (!f.execdToken.isEmpty())
        out.append(qMakePair(QByteArray("X-EXECD-ACCESS-TOKEN"), QByteArray(f.execdToken)));
    return out;
}

HttpHeaders HeaderPolicy::towardsBrowser(const HttpHeaders &in)
{
    const QList<QByteArray> named = connectionNamed(in);
    HttpHeaders out;
    out.reserve(in.size() + 1);
    for (const auto &h : in) {
        const QByteArray &n = h.first;
        if (isHopByHop(n) || listed(named, n) || is(n, "content-length") || is(n, "referrer-policy")
            || is(n, "authorization") || is(n, "x-execd-access-token") || n.startsWith(':') || carriesToken(h.second))
            continue;
        if (is(n, "set-cookie")) {
            const qsizetype eq = h.second.indexOf('=');
            if (eq < 0 || h.second.left(eq).trimmed() == CookieName)
                continue;
        }
        out.append(h);
    }
    addStandard(&out);
    return out;
}

void HeaderPolicy::addStandard(HttpHeaders *headers)
{
    headers->append(qMakePair(QByteArray("Referrer-Policy"), QByteArray("no-referrer")));
}

} // namespace isolation
