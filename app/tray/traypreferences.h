// The tray's own preferences, kept in the engine's settings file under tray/: which notifications
// to show, until when they are paused, and the icon style. Starting at login is Autostart's (autostart.h).
#pragma once

#include <QDateTime>
#include <QString>
#include <QStringList>

namespace isolation {

class Settings;

enum class IconStyle {
    Colour,
    MonochromeDark, // a dark glyph, for light panels
    MonochromeLight, // a light glyph, for dark panels
};

class TrayPreferences final
{
public:
    explicit TrayPreferences(Settings &settings);

    // Notification kinds: "moved_on", "conflict", "unpaired", "runtime".
    static QStringList notificationKinds();
    bool notifies(const QString &kind) const;
    void setNotifies(const QString &kind, bool on);

    // "Pause notifications for an hour": the end of the pause (UTC), invalid when not paused. Kept
    // in the file, so a pause outlives a restart of the tray.
    QDateTime notificationsPausedUntil() const;
    void setNotificationsPausedUntil(const QDateTime &until);

    IconStyle iconStyle() const;
    void setIconStyle(IconStyle style);

private:
    Settings &m_settings;
};

} // namespace isolation
