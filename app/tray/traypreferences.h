// The tray's own preferences, kept in the engine's settings file under tray/: which notifications
// to show and the icon style. Starting at login is Autostart's (autostart.h).
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

private:
    Settings &m_settings;
};

} // namespace isolation
