// A private desktop for tests, made of the real programs a Linux desktop runs: a session D-Bus,
// an unlocked gnome-keyring (Secret Service), an X server (Xvfb), a system tray host (trayer, the
// XEmbed tray of older desktops, or gtk-sni-tray, the D-Bus StatusNotifierItem tray of GNOME's
// AppIndicator extension and KDE) and a notification daemon (dunst), with a fresh HOME.
// Everything stops with the object.
#pragma once

#include <QProcess>
#include <QProcessEnvironment>
#include <QString>
#include <QStringList>
#include <QTemporaryDir>

#include <memory>
#include <vector>

namespace isolation::test {

class DesktopSession
{
public:
    enum Part {
        Bus = 0x1, // dbus-daemon --session
        Keyring = 0x2 | Bus, // gnome-keyring-daemon --unlock (Secret Service)
        Display = 0x4, // Xvfb
        TrayHost = 0x8 | Display, // trayer, the XEmbed system tray
        Notifications = 0x10 | Bus | Display, // dunst, org.freedesktop.Notifications
        // status-notifier-watcher (org.kde.StatusNotifierWatcher) and gtk-sni-tray-standalone (a
        // registered StatusNotifierHost) on the session bus (what KDE, and GNOME with AppIndicator, offer)
        NotifierHost = 0x20 | Bus | Display,
        Everything = Keyring | TrayHost | Notifications,
    };

    DesktopSession();
    ~DesktopSession();
    DesktopSession(const DesktopSession &) = delete;
    DesktopSession &operator=(const DesktopSession &) = delete;

    // Starts the parts (an OR of Part) and waits until each is ready. On failure *error says
    // which program failed or is missing (./dev installs them all).
    bool start(int parts, QString *error);
    void stop();

    // The environment of a program on this desktop: DISPLAY, DBUS_SESSION_BUS_ADDRESS, HOME,
    // XDG_* (QT_QPA_PLATFORM=xcb when there is a display).
    QProcessEnvironment environment() const { return m_env; }
    // Makes this process live on the desktop too (for in-process Qt code such as QtKeychain).
    void enterThisProcess() const;
    QString home() const;

    // Runs a tool on the desktop (dunstctl, xdotool, ...) and returns its standard output.
    QByteArray run(
        const QString &program, const QStringList &args, int *exitCode = nullptr, int timeoutMs = 15000) const;
    // A screenshot of the whole screen (ImageMagick `import`) as PNG.
    bool screenshot(const QString &path) const;

private:
    QProcess *launch(const QString &program, const QStringList &args, QString *error);
    bool startBus(QString *error);
    bool startKeyring(QString *error);
    bool startDisplay(QString *error);
    bool startTrayHost(QString *error);
    bool waitFor(const std::function<bool()> &ready, int timeoutMs) const;

    std::unique_ptr<QTemporaryDir> m_root;
    QProcessEnvironment m_env;
    std::vector<std::unique_ptr<QProcess>> m_processes; // stopped in reverse order
    QProcess *m_display = nullptr; // the Xvfb of m_env's DISPLAY (one of m_processes)
};

} // namespace isolation::test
