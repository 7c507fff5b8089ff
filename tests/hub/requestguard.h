// Who may ask the hub (issue 20): each origin answers only the host names it serves (a page
// that rebound its own name to 127.0.0.1 gets 421, never a member page), and a browser's
// state-changing request must come from the page's own origin (Origin / Sec-Fetch-Site).
#pragma once

#include "http/httprequest.h"

#include <QHostAddress>
#include <QString>
#include <QStringList>

#include <functional>

namespace isolation::hub {

class RequestGuard
{
public:
    // `names`: host names served as they are (lower case; IPv6 without brackets). `suffix`:
    // names ending in "." + suffix are served too when `subdomain` accepts their first labels.
    // The port is not compared: a rebinding page controls the name, not the port, and a TCP
    // proxy in front of the hub (tests cut connections that way) keeps the name but not the port.
    explicit RequestGuard(QStringList names = {}, QString suffix = {},
        std::function<bool(QStringView)> subdomain = {});

    void setNames(QStringList names) { m_names = std::move(names); }
    const QStringList &names() const { return m_names; }

    // Whether the Host header names this origin (one Host, a valid authority, no user info).
    bool servesHost(const HttpRequest &request) const;

    // Positive proof a browser request comes from this origin's own page: Sec-Fetch-Site is
    // "same-origin", or (an older browser, no Sec-Fetch-Site) Origin is this request's own
    // scheme://Host.
    static bool sameOrigin(const HttpRequest &request);
    // The request says it comes from somewhere else: Sec-Fetch-Site other than "same-origin" or
    // "none", or (without Sec-Fetch-Site) an Origin that is not this request's own. Engines and
    // CLIs send neither.
    static bool foreignOrigin(const HttpRequest &request);
    static bool unsafeMethod(QByteArrayView method);

    // The answers: 421 for a host name not served here, 403 for a foreign origin.
    static HttpResponse misdirected();
    static HttpResponse crossOrigin();

    // The names the app origin serves when it listens on `address`: the loopback names for a
    // loopback or wildcard address, the address itself, every local address for a wildcard one,
    // and `extra` (--public-host).
    static QStringList appNames(const QHostAddress &address, const QStringList &extra);

private:
    QStringList m_names;
    QString m_suffix;
    std::function<bool(QStringView)> m_subdomain;
};

} // namespace isolation::hub
