#include "headerpolicy.h"

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

} // namespace

bool HeaderPolicy::isHopByHop(QByteArrayView name)
{
    for (const char *h : {"connection", "keep-alive", "proxy-connection", "te", "trailer", "transfer-encoding",
             "upgrade", "proxy-authenticate", "proxy-authorization", "http2-settings"}) {
        if (is(name, h))
            return true;
    }
    return false;
}

QByteArray HeaderPolicy::cookieWithoutView(const QByteArray &cookie)
{
    QList<QByteArray> kept;
    for (const QByteArray &pair : cookie.split(';')) {
        const QByteArray p = pair.trimmed();
        if (p.isEmpty())
            continue;
        const qsizetype eq = p.indexOf('=');
        const QByteArray name = (eq < 0 ? p : p.left(eq)).trimmed();
        if (name == CookieName)
            continue;
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
            || is(n, "x-forwarded-host") || is(n, "x-real-ip") || is(n, "x-execd-access-token")
            || n.startsWith(':') || n.toLower().startsWith("x-isolation-"))
            continue;
        if (is(n, "cookie")) {
            const QByteArray rest = cookieWithoutView(h.second);
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
            || is(n, "authorization") || is(n, "x-execd-access-token") || n.startsWith(':'))
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
