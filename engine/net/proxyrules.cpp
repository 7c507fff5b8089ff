#include "proxyrules.h"

#include "core/huburl.h"

#include <QRegularExpression>

namespace isolation {

namespace {

QString firstSet(const QProcessEnvironment &env, const QString &upper)
{
    const QString fromUpper = env.value(upper).trimmed();
    return fromUpper.isEmpty() ? env.value(upper.toLower()).trimmed() : fromUpper;
}

} // namespace

std::optional<QNetworkProxy> ProxyRules::parseProxy(const QString &name, const QString &value, QStringList *problems)
{
    if (value.isEmpty())
        return std::nullopt;
    // "proxy:3128" is an http:// proxy, as curl and Go read it.
    const QUrl url
        = QUrl(value.contains(QStringLiteral("://")) ? value : QStringLiteral("http://") + value, QUrl::StrictMode);
    if (!url.isValid() || url.host().isEmpty()) {
        problems->append(QStringLiteral("%1 is not a proxy URL; going direct").arg(name));
        return std::nullopt;
    }
    if (url.scheme().toLower() != QLatin1String("http")) {
        problems->append(
            QStringLiteral("%1: only http:// proxies are supported, not %2://; going direct").arg(name, url.scheme()));
        return std::nullopt;
    }
    return QNetworkProxy(QNetworkProxy::HttpProxy, url.host(), quint16(url.port(80)), url.userName(QUrl::FullyDecoded),
        url.password(QUrl::FullyDecoded));
}

ProxyRules ProxyRules::fromEnvironment(const QProcessEnvironment &env)
{
    ProxyRules rules;
    rules.m_https
        = parseProxy(QStringLiteral("HTTPS_PROXY"), firstSet(env, QStringLiteral("HTTPS_PROXY")), &rules.m_problems);
    rules.m_http
        = parseProxy(QStringLiteral("HTTP_PROXY"), firstSet(env, QStringLiteral("HTTP_PROXY")), &rules.m_problems);
    rules.m_noProxyText = firstSet(env, QStringLiteral("NO_PROXY"));
    static const QRegularExpression separators(QStringLiteral("[,\\s]+"));
    for (QString entry : rules.m_noProxyText.split(separators, Qt::SkipEmptyParts)) {
        if (entry == QLatin1String("*")) {
            rules.m_noProxyAtAll = true;
            continue;
        }
        Exception e;
        if (entry.contains(QLatin1Char('/'))) { // a range
            const auto subnet = QHostAddress::parseSubnet(entry);
            if (subnet.first.isNull()) {
                rules.m_problems.append(QStringLiteral("NO_PROXY: %1 is not an address range; ignored").arg(entry));
                continue;
            }
            e.subnet = subnet;
            rules.m_exceptions.append(e);
            continue;
        }
        if (entry.startsWith(QLatin1String("*.")))
            entry.remove(0, 1); // "*.example.com" as ".example.com", as Go reads it
        if (entry.startsWith(QLatin1Char('.'))) {
            e.subdomainsOnly = true;
            entry.remove(0, 1);
        }
        // host, host:port, [v6], [v6]:port, or a bare v6 address
        const QUrl asUrl(QStringLiteral("http://") + entry);
        QString host = asUrl.isValid() ? asUrl.host() : QString();
        if (QHostAddress(entry).protocol() == QAbstractSocket::IPv6Protocol) { // bare ::1-style
            host = entry;
        } else {
            e.port = asUrl.isValid() ? asUrl.port(-1) : -1;
        }
        if (host.isEmpty()) {
            rules.m_problems.append(QStringLiteral("NO_PROXY: %1 is not a host; ignored").arg(entry));
            continue;
        }
        const QHostAddress address(host);
        if (!address.isNull())
            e.subnet = qMakePair(address, address.protocol() == QAbstractSocket::IPv6Protocol ? 128 : 32);
        else
            e.domain = host.toLower();
        rules.m_exceptions.append(e);
    }
    return rules;
}

bool ProxyRules::bypassed(const QString &host, int port) const
{
    if (m_noProxyAtAll || HubUrl::isLoopbackHost(host))
        return true;
    const QString name = host.toLower();
    const QHostAddress address(host);
    for (const Exception &e : m_exceptions) {
        if (e.port >= 0 && e.port != port)
            continue;
        if (e.subnet) {
            if (!address.isNull() && address.isInSubnet(e.subnet->first, e.subnet->second))
                return true;
            continue;
        }
        if (!e.subdomainsOnly && name == e.domain)
            return true;
        if (name.endsWith(QLatin1Char('.') + e.domain))
            return true;
    }
    return false;
}

QNetworkProxy ProxyRules::proxyFor(const QUrl &url) const
{
    const QString scheme = url.scheme().toLower();
    const bool secure = scheme == QLatin1String("https") || scheme == QLatin1String("wss");
    const std::optional<QNetworkProxy> &proxy = secure ? m_https : m_http;
    if (!proxy || bypassed(url.host(), url.port(secure ? 443 : 80)))
        return QNetworkProxy(QNetworkProxy::NoProxy);
    return *proxy;
}

QString ProxyRules::describe() const
{
    auto show = [](const std::optional<QNetworkProxy> &p) {
        if (!p)
            return QStringLiteral("direct");
        return QStringLiteral("http://%1:%2%3")
            .arg(p->hostName())
            .arg(p->port())
            .arg(p->user().isEmpty() ? QString() : QStringLiteral(" (with credentials)"));
    };
    return QStringLiteral("https: %1, http: %2, no proxy for: this computer%3")
        .arg(show(m_https), show(m_http), m_noProxyText.isEmpty() ? QString() : QStringLiteral(", ") + m_noProxyText);
}

QList<QNetworkProxy> ProxyRulesFactory::queryProxy(const QNetworkProxyQuery &query)
{
    return {m_rules.proxyFor(query.url())};
}

} // namespace isolation
