#include "requestguard.h"

#include <QHostAddress>
#include <QNetworkInterface>
#include <QUrl>

namespace isolation::hub {

namespace {

// The one Host header's name (lower case; IPv6 without brackets), or empty when there is not
// exactly one or it is no valid authority. QUrl parses it: "name", "name:port", "[v6]:port".
QString hostName(const HttpRequest &request)
{
    QByteArray host;
    int count = 0;
    for (const auto &h : request.headers) {
        if (equalsNoCase(h.first, "host")) {
            host = h.second;
            ++count;
        }
    }
    if (count != 1 || host.isEmpty())
        return {};
    QUrl url;
    url.setScheme(QStringLiteral("http"));
    url.setAuthority(QString::fromLatin1(host), QUrl::StrictMode);
    if (!url.isValid() || !url.userInfo().isEmpty() || url.host().isEmpty())
        return {};
    return url.host().toLower();
}

} // namespace

RequestGuard::RequestGuard(QStringList names, QString suffix, std::function<bool(QStringView)> subdomain)
    : m_names(std::move(names))
    , m_suffix(std::move(suffix))
    , m_subdomain(std::move(subdomain))
{ }

bool RequestGuard::servesHost(const HttpRequest &request) const
{
    const QString name = hostName(request);
    if (name.isEmpty())
        return false;
    if (m_names.contains(name))
        return true;
    if (m_suffix.isEmpty() || !m_subdomain || !name.endsWith(QLatin1Char('.') + m_suffix))
        return false;
    return m_subdomain(QStringView(name).first(name.size() - m_suffix.size() - 1));
}

// Sec-Fetch-Site, where a browser sends it, decides: a page cannot forge it, and a page under
// Referrer-Policy: no-referrer (ours) posts its forms with "Origin: null" (Fetch standard).
// Without it (an older browser) the Origin must be this request's own scheme://Host.
bool RequestGuard::sameOrigin(const HttpRequest &request)
{
    const QByteArray site = request.header("sec-fetch-site");
    if (!site.isEmpty())
        return equalsNoCase(site, "same-origin");
    return !request.header("origin").isEmpty() && !foreignOrigin(request);
}

bool RequestGuard::foreignOrigin(const HttpRequest &request)
{
    const QByteArray site = request.header("sec-fetch-site");
    if (!site.isEmpty())
        return !equalsNoCase(site, "same-origin") && !equalsNoCase(site, "none");
    const QByteArray origin = request.header("origin");
    if (origin.isEmpty())
        return false;
    // "null" and any other origin are foreign; the hub speaks http, and https in front of it (a
    // TLS proxy) keeps the same authority.
    const QByteArray host = request.header("host");
    return host.isEmpty()
        || !(equalsNoCase(origin, QByteArray("http://" + host)) || equalsNoCase(origin, QByteArray("https://" + host)));
}

bool RequestGuard::unsafeMethod(QByteArrayView method)
{
    return method != "GET" && method != "HEAD" && method != "OPTIONS";
}

HttpResponse RequestGuard::misdirected()
{
    return HttpResponse::error(
        421, QStringLiteral("misdirected_request"), QStringLiteral("this server does not serve that host name"));
}

HttpResponse RequestGuard::crossOrigin()
{
    return HttpResponse::error(
        403, QStringLiteral("cross_origin"), QStringLiteral("requests that change something must come from this origin"));
}

QStringList RequestGuard::appNames(const QHostAddress &address, const QStringList &extra)
{
    QStringList names;
    const bool wildcard = address == QHostAddress(QHostAddress::AnyIPv4) || address == QHostAddress(QHostAddress::Any)
        || address == QHostAddress(QHostAddress::AnyIPv6);
    if (address.isLoopback() || wildcard)
        names << QStringLiteral("127.0.0.1") << QStringLiteral("localhost") << QStringLiteral("::1");
    if (!address.isLoopback() && !wildcard)
        names << address.toString().toLower();
    if (wildcard) {
        for (const QHostAddress &local : QNetworkInterface::allAddresses()) {
            if (local.scopeId().isEmpty()) // link-local addresses with a zone are not host names
                names << local.toString().toLower();
        }
    }
    for (const QString &name : extra)
        names << name.toLower();
    names.removeDuplicates();
    return names;
}

} // namespace isolation::hub
