#include "huburl.h"

#include <arpa/inet.h>
#include <netinet/in.h>

namespace isolation {

bool HubUrl::isLoopbackHost(const QString &host)
{
    if (host.compare(QLatin1String("localhost"), Qt::CaseInsensitive) == 0)
        return true;
    // An address in its usual text form (QUrl::host() gives IPv6 without brackets): 127.0.0.0/8,
    // ::1, or an IPv4 loopback mapped into IPv6 (::ffff:127.0.0.1). inet_pton, not QHostAddress:
    // core needs no Qt Network (the tray links core and stays without it).
    const QByteArray text = host.toLatin1();
    in_addr v4 {};
    if (::inet_pton(AF_INET, text.constData(), &v4) == 1)
        return (ntohl(v4.s_addr) >> 24) == 127;
    in6_addr v6 {};
    if (::inet_pton(AF_INET6, text.constData(), &v6) == 1)
        return IN6_IS_ADDR_LOOPBACK(&v6) || (IN6_IS_ADDR_V4MAPPED(&v6) && v6.s6_addr[12] == 127);
    return false;
}

Result<QUrl, Error> HubUrl::check(const QUrl &url)
{
    const QString shown = url.toString(QUrl::RemoveUserInfo | QUrl::RemoveQuery | QUrl::RemoveFragment);
    if (!url.isValid() || url.host().isEmpty())
        return Error::invalidInput(
            tr("the hub URL is not valid: %1 (give one like https://hub.example.com)").arg(shown));
    if (!url.userInfo().isEmpty())
        return Error::invalidInput(
            tr("refusing hub %1: a hub URL carries no user name or password").arg(shown));
    const QString scheme = url.scheme().toLower();
    if (scheme == QLatin1String("https") || scheme == QLatin1String("wss"))
        return url;
    if (scheme != QLatin1String("http") && scheme != QLatin1String("ws"))
        return Error::invalidInput(
            tr("refusing hub %1: a hub URL is https:// (or http:// on this computer: 127.0.0.1, ::1, localhost)")
                .arg(shown));
    if (isLoopbackHost(url.host()))
        return url;
    QUrl secure = url;
    secure.setScheme(scheme == QLatin1String("ws") ? QStringLiteral("wss") : QStringLiteral("https"));
    if (secure.port() == 80)
        secure.setPort(-1);
    return Error::invalidInput(tr("refusing hub %1: a hub must be https:// or on this computer (127.0.0.1, ::1, "
                                  "localhost); use %2")
                                   .arg(shown, secure.toString(QUrl::RemoveUserInfo | QUrl::RemovePath
                                                   | QUrl::RemoveQuery | QUrl::RemoveFragment)));
}

} // namespace isolation
