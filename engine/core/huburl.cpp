#include "huburl.h"

#include <QHostAddress>

namespace isolation {

bool HubUrl::isLoopbackHost(const QString &host)
{
    if (host.compare(QLatin1String("localhost"), Qt::CaseInsensitive) == 0)
        return true;
    const QHostAddress address(host);
    return !address.isNull() && address.isLoopback();
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
