#include "traypreferences.h"

#include "core/settings.h"


namespace isolation {

TrayPreferences::TrayPreferences(Settings &settings)
    : m_settings(settings)
{ }

QStringList TrayPreferences::notificationKinds()
{
    return {
        QStringLiteral("moved_on"), QStringLiteral("conflict"), QStringLiteral("unpaired"), QStringLiteral("runtime")};
}

bool TrayPreferences::notifies(const QString &kind) const
{
    return m_settings.value(QStringLiteral("tray/notify/") + kind, true).toBool();
}

void TrayPreferences::setNotifies(const QString &kind, bool on)
{
    m_settings.setValue(QStringLiteral("tray/notify/") + kind, on);
}

QDateTime TrayPreferences::notificationsPausedUntil() const
{
    return QDateTime::fromString(
        m_settings.value(QStringLiteral("tray/notificationsPausedUntil")).toString(), Qt::ISODate);
}

void TrayPreferences::setNotificationsPausedUntil(const QDateTime &until)
{
    m_settings.setValue(QStringLiteral("tray/notificationsPausedUntil"),
        until.isValid() ? until.toUTC().toString(Qt::ISODate) : QString());
    m_settings.sync();
}

IconStyle TrayPreferences::iconStyle() const
{
    const QString s = m_settings.value(QStringLiteral("tray/iconStyle")).toString();
    if (s == QLatin1String("monochrome-dark"))
        return IconStyle::MonochromeDark;
    if (s == QLatin1String("monochrome-light"))
        return IconStyle::MonochromeLight;
    return IconStyle::Colour;
}

void TrayPreferences::setIconStyle(IconStyle style)
{
    m_settings.setValue(QStringLiteral("tray/iconStyle"),
        style == IconStyle::MonochromeDark        ? QStringLiteral("monochrome-dark")
            : style == IconStyle::MonochromeLight ? QStringLiteral("monochrome-light")
                                                  : QStringLiteral("colour"));
}

} // namespace isolation
