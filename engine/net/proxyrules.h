// Which proxy a request to the hub goes through, from the environment as command-line tools and
// Go programs (Tailscale, cloudflared) read it: HTTPS_PROXY for https:// and wss:// (the cloud),
// HTTP_PROXY for http:// and ws://, NO_PROXY for the hosts reached directly (upper-case names
// first, then lower-case). Only http:// proxies: HTTPS requests go through them with CONNECT.
// This computer (localhost, 127.0.0.0/8, ::1) is never proxied: a local hub works whatever the
// environment says. docs/user-guide.md, "Behind a proxy".
//
// NO_PROXY: entries separated by commas or spaces; `*` alone turns proxying off; `example.com`
// matches that host and every name below it, `.example.com` (or `*.example.com`) only the names
// below it; a literal address matches itself, `10.0.0.0/8` (CIDR) the addresses in it;
// `host:port` that port only.
#pragma once

#include <QHostAddress>
#include <QList>
#include <QNetworkProxy>
#include <QNetworkProxyFactory>
#include <QProcessEnvironment>
#include <QString>
#include <QStringList>
#include <QUrl>

#include <optional>

namespace isolation {

class ProxyRules
{
public:
    static ProxyRules fromEnvironment(const QProcessEnvironment &env = QProcessEnvironment::systemEnvironment());

    // QNetworkProxy::NoProxy when `url` goes direct.
    QNetworkProxy proxyFor(const QUrl &url) const;
    bool isEmpty() const { return !m_http && !m_https; }
    // What the environment asked for and this cannot do (an unknown proxy scheme, a NO_PROXY
    // entry that is not a host, address or range), for the log; those are ignored.
    QStringList problems() const { return m_problems; }
    // For the log: the proxies without their credentials, and NO_PROXY.
    QString describe() const;

private:
    struct Exception
    {
        QString domain; // lower case, without a leading dot
        bool subdomainsOnly = false; // written with a leading dot
        std::optional<QPair<QHostAddress, int>> subnet; // an address is a /32 (or /128)
        int port = -1; // -1: any
    };
    static std::optional<QNetworkProxy> parseProxy(const QString &name, const QString &value, QStringList *problems);
    bool bypassed(const QString &host, int port) const;

    std::optional<QNetworkProxy> m_http;
    std::optional<QNetworkProxy> m_https;
    QList<Exception> m_exceptions;
    bool m_noProxyAtAll = false; // NO_PROXY=*
    QString m_noProxyText;
    QStringList m_problems;
};

// ProxyRules as a QNetworkAccessManager asks for them (QNetworkAccessManager::setProxyFactory).
class ProxyRulesFactory final : public QNetworkProxyFactory
{
public:
    explicit ProxyRulesFactory(ProxyRules rules)
        : m_rules(std::move(rules))
    { }
    QList<QNetworkProxy> queryProxy(const QNetworkProxyQuery &query) override;

private:
    ProxyRules m_rules;
};

} // namespace isolation
