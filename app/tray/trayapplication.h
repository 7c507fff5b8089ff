// The tray: icon, tooltip and menu that follow the engine's state, and the main window. A client
// of the user's engine (`isolation-server up`, a process of its own): it attaches to the one that
// runs, starts one when none does (once, and says so), offers Start when the engine is down, and
// reattaches by itself. Quit closes the tray only; the engine keeps the computer reachable.
#pragma once

#include <QDateTime>
#include <QObject>
#include <QPointer>
#include <QWidget>

#include <memory>

class QAction;
class QMenu;
class QSystemTrayIcon;
class QTimer;

namespace isolation {

class Autostart;
class EngineModel;
class MainWindow;
class Notifier;
struct Notification;
class SessionsController;

class TrayApplication final : public QObject
{
    Q_OBJECT
public:
    explicit TrayApplication(EngineModel &engine, QObject *parent = nullptr);
    ~TrayApplication() override;

    // Shows the tray icon, or the window where no system tray exists.
    void show();
    void showWindow();
    // Quit: closes the tray; the engine runs on.
    void quit();
    void showPairing();
    void showSettings();
    // Starts an engine (when none answers); its state shows on the icon and the state line. Through
    // the systemd user unit where the user manager knows it and setStartThroughUnit(true) was
    // called, else (or when that fails) as a detached process.
    void startEngine();
    // Off when this tray watches another engine than the user's own (ISOLATION_HOME,
    // ISOLATION_ENGINE_ARGS): the unit would start the default one.
    void setStartThroughUnit(bool on) { m_startThroughUnit = on; }
    // Asks, then stops the engine (POST /v1/shutdown): the computer goes offline until it starts.
    void stopEngine();
    // Disconnect / Connect: closes or reopens the tunnel (POST /v1/tunnel), nothing else.
    void setConnected(bool connected);

    // The main window, made the first time it is asked for: a tray that is never opened does
    // not carry its widgets, fonts and models.
    MainWindow *window();
    QMenu *menu() const { return m_menu.get(); }
    QSystemTrayIcon *trayIcon() const { return m_icon; }
    Notifier *notifier() const { return m_notifier; }
    SessionsController *sessions() const { return m_sessions.get(); }
    // Starting the engine and the tray at login (the Settings dialog's boxes).
    Autostart *autostart() const { return m_autostart; }
    // "Pause notifications for an hour" is on and its hour not over (also across restarts).
    bool notificationsPaused() const;

private:
    void updateState();
    void onNotificationAction(const QString &kind, const QString &action);
    void rebuildSessionsMenu();
    // Asks, then finishes a session; unsaved work asks again whether to discard it.
    void finishSession(const QString &id);
    // Shows it unless its kind is switched off in Settings or notifications are paused.
    void notify(const Notification &notification);
    void setPaused(bool on);
    // Takes a pause that a previous tray started and that is not over yet.
    void restorePause();
    void onRuntimeChanged();
    void onConnectionChanged();
    void connectSessionEvents();

    EngineModel &m_engine;
    std::unique_ptr<SessionsController> m_sessions;
    std::unique_ptr<MainWindow> m_window;
    std::unique_ptr<QMenu> m_menu;
    Autostart *m_autostart = nullptr; // a child
    bool m_startThroughUnit = false;
    QSystemTrayIcon *m_icon = nullptr;
    Notifier *m_notifier = nullptr;
    bool m_wasPaired = false;
    bool m_unpairedToTell = false; // paired turned false; told when the state says why
    QAction *m_stateLine = nullptr;
    QAction *m_pair = nullptr;
    QMenu *m_sessionsMenu = nullptr;
    QString m_lastNotifiedSession; // the session a moved-on or conflict notification was about
    QAction *m_pause = nullptr;
    QDateTime m_pausedUntil; // "Pause notifications for an hour" (kept in TrayPreferences)
    QTimer *m_pauseEnds = nullptr; // unticks the menu item when the hour is over
    bool m_runtimeWasHealthy = false;
    int m_iconKey = -1; // state, badge and style of the icon shown
    QAction *m_settings = nullptr;
    QAction *m_connect = nullptr; // Disconnect / Connect
    QAction *m_start = nullptr; // Start the engine (while none answers)
    QAction *m_stop = nullptr; // Stop the engine
    bool m_triedStart = false; // an engine was started for this tray, or seen: no automatic start any more
    bool m_wasAttached = false;
    QPointer<QWidget> m_pairingDialog;
    QPointer<QWidget> m_settingsDialog;
};

} // namespace isolation
