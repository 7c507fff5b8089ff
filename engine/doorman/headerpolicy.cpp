#include "headerpolicy.h"

#include "views/viewtoken.h"

#include <algorithm>
#include <cstring>
#include <optional>

namespace isolation {

namespace {

// The Connection headers of a message: the names they list (comma-separated) are hop-by-hop too.
template<typename Headers>
class ConnectionNames
{
public:
    explicit ConnectionNames(const Headers &headers)
        : m_headers(headers)
    {
        for (const auto &h : headers)
            m_any = m_any || isNoCase(nameOf(h), "connection");
    }
    bool lists(QByteArrayView name) const
    {
        if (!m_any)
            return false;
        for (const auto &h : m_headers) {
            if (isNoCase(nameOf(h), "connection") && hasToken(valueOf(h), name))
                return true;
        }
        return false;
    }

private:
    const Headers &m_headers;
    bool m_any = false;
};

// The header every answer of the doorman carries (addStandard(), towardsBrowser()).
constexpr char kReferrerPolicy[] = "Referrer-Policy";
constexpr char kNoReferrer[] = "no-referrer";

// "view_token" in any case anywhere in `value`: found by its '_' (rare in header values; memchr
// reads them fast), then the letters around it.
bool mentionsViewToken(QByteArrayView value)
{
    constexpr QByteArrayView name("view_token");
    constexpr qsizetype underscore = 4;
    if (value.size() < name.size())
        return false;
    const char *const begin = value.data();
    const char *const end = begin + value.size();
    for (const char *p = begin + underscore; p < end; ++p) {
        p = static_cast<const char *>(std::memchr(p, '_', size_t(end - p)));
        if (!p)
            return false;
        if (end - p >= name.size() - underscore && equalsNoCase(QByteArrayView(p - underscore, name.size()), name))
            return true;
    }
    return false;
}

// Whether a cookie's name is ours, however it is spelt: it holds CookieStem, in any case.
bool namesViewCookie(QByteArrayView name)
{
    const QByteArrayView stem(HeaderPolicy::CookieStem);
    for (qsizetype at = 0; at + stem.size() <= name.size(); ++at) {
        if (equalsNoCase(name.sliced(at, stem.size()), stem))
            return true;
    }
    return false;
}

// The one value of a header, or nothing when it is absent or there more than once.
std::optional<QByteArrayView> onlyValue(const HttpHeaders &headers, QByteArrayView name)
{
    std::optional<QByteArrayView> found;
    for (const auto &h : headers) {
        if (!equalsNoCase(h.first, name))
            continue;
        if (found)
            return std::nullopt;
        found = QByteArrayView(h.second);
    }
    return found;
}

bool base64url(char c)
{
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '_';
}

} // namespace

bool HeaderPolicy::carriesToken(QByteArrayView value)
{
    if (mentionsViewToken(value))
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
    return isNoCase(name, "connection") || isNoCase(name, "keep-alive") || isNoCase(name, "proxy-connection")
        || isNoCase(name, "te") || isNoCase(name, "trailer") || isNoCase(name, "transfer-encoding")
        || isNoCase(name, "upgrade") || isNoCase(name, "proxy-authenticate") || isNoCase(name, "proxy-authorization")
        || isNoCase(name, "http2-settings");
}

QByteArray HeaderPolicy::cookieWithoutView(const QByteArray &cookie, const QByteArray &viewCookie)
{
    QByteArray kept;
    anyPiece(cookie, ';', [&](QByteArrayView p) {
        if (p.isEmpty())
            return false;
        const qsizetype eq = p.indexOf('=');
        const QByteArrayView name = (eq < 0 ? p : p.first(eq)).trimmed();
        if (namesViewCookie(name) || (!viewCookie.isEmpty() && p.contains(viewCookie)))
            return false; // ours, however it is spelt
        if (!kept.isEmpty())
            kept += "; ";
        kept += p;
        return false;
    });
    return kept;
}

QByteArrayView HeaderPolicy::viewCookie(const HttpHeaders &headers)
{
    QByteArrayView found;
    int count = 0;
    for (const auto &h : headers) {
        if (!isNoCase(h.first, "cookie"))
            continue;
        anyPiece(h.second, ';', [&](QByteArrayView p) {
            const qsizetype eq = p.indexOf('=');
            if (eq > 0 && p.first(eq).trimmed() == CookieName) {
                found = p.sliced(eq + 1).trimmed();
                ++count;
            }
            return false;
        });
    }
    return count == 1 ? found : QByteArrayView();
}

HttpHeaders HeaderPolicy::towardsSandbox(const HttpHeaders &in, const Forwarding &f)
{
    const ConnectionNames<HttpHeaders> named(in);
    HttpHeaders out;
    out.reserve(in.size() + 5);
    if (!f.upstreamHost.isEmpty())
        out.append(qMakePair(QByteArrayLiteral("Host"), QByteArray(f.upstreamHost)));
    for (const auto &h : in) {
        const QByteArray &n = h.first;
        if (isHopByHop(n) || named.lists(n) || isNoCase(n, "host") || isNoCase(n, "authorization")
            || isNoCase(n, "content-length") || isNoCase(n, "expect") || isNoCase(n, "forwarded")
            || isNoCase(n, "x-forwarded-for") || isNoCase(n, "x-forwarded-proto") || isNoCase(n, "x-forwarded-host")
            || isNoCase(n, "x-real-ip") || isNoCase(n, "x-execd-access-token") || n.startsWith(':')
            || startsWithNoCase(n, "x-isolation-"))
            continue;
        if (carriesToken(h.second)
            || (!f.viewCookie.isEmpty() && !isNoCase(n, "cookie") && h.second.contains(f.viewCookie)))
            continue; // our credentials go no further, whatever header carries them
        if (isNoCase(n, "cookie")) {
            const QByteArray rest = cookieWithoutView(h.second, f.viewCookie);
            if (!rest.isEmpty())
                out.append(qMakePair(QByteArrayLiteral("Cookie"), rest));
            continue;
        }
        out.append(h);
    }
    if (!f.clientAddress.isEmpty())
        out.append(qMakePair(QByteArrayLiteral("X-Forwarded-For"), f.clientAddress));
    out.append(qMakePair(QByteArrayLiteral("X-Forwarded-Proto"), f.proto));
    out.append(qMakePair(QByteArrayLiteral("X-Forwarded-Host"), f.host));
    if (!f.execdToken.isEmpty())
        out.append(qMakePair(QByteArrayLiteral("X-EXECD-ACCESS-TOKEN"), f.execdToken));
    return out;
}

HeaderFields HeaderPolicy::towardsBrowser(const HeaderFields &in)
{
    const ConnectionNames<HeaderFields> named(in);
    HeaderFields out;
    for (const HeaderField &h : in) {
        const QByteArrayView n = h.name;
        if (isHopByHop(n) || named.lists(n) || isNoCase(n, "content-length") || isNoCase(n, "referrer-policy")
            || isNoCase(n, "authorization") || isNoCase(n, "x-execd-access-token") || n.startsWith(':')
            || carriesToken(h.value))
            continue;
        if (isNoCase(n, "set-cookie")) {
            const qsizetype eq = h.value.indexOf('=');
            if (eq < 0 || namesViewCookie(h.value.first(eq)))
                continue;
        }
        out.append(h);
    }
    out.append({kReferrerPolicy, kNoReferrer});
    return out;
}

HttpHeaders HeaderPolicy::towardsBrowser(const HttpHeaders &in)
{
    return headersOf(towardsBrowser(fieldsOf(in)));
}

bool HeaderPolicy::fromSameOrigin(const HttpHeaders &headers)
{
    const auto site = onlyValue(headers, "sec-fetch-site");
    return site && equalsNoCase(site->trimmed(), "same-origin");
}

bool HeaderPolicy::hasMediaType(const HttpHeaders &headers, QByteArrayView type)
{
    const auto value = onlyValue(headers, "content-type");
    if (!value)
        return false;
    const qsizetype semicolon = value->indexOf(';');
    return equalsNoCase((semicolon < 0 ? *value : value->first(semicolon)).trimmed(), type);
}

void HeaderPolicy::addStandard(HttpHeaders *headers)
{
    headers->append(qMakePair(QByteArray(kReferrerPolicy), QByteArray(kNoReferrer)));
}

} // namespace isolation
