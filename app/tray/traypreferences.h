// The tray's own preferences, kept in the engine's settings file under tray/: which notifications
// to show, the icon style, and launching at login (an XDG autostart entry in the user's config).
#pragma once

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

    IconStyle iconStyle() const;
    void setIconStyle(IconStyle style);

    // The autostart entry: $XDG_CONFIG_HOME/autostart/io.isolation.Tray.desktop.
    static QString autostartFile();
    static bool launchesAtLogin();
    // Writes or removes the entry; false (with *error) when it cannot.
    static bool setLaunchAtLogin(bool on, QString *error);

private:
    Settings &m_settings;
};

} // namespace isolation
