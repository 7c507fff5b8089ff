// The tray: icon, tooltip and menu that follow the engine's state, and the main window.
#pragma once

#include <QDateTime>
#include <QObject>
#include <QPointer>
#include <QWidget>

#include <memory>

class QAction;
class QMenu;
class QSystemTrayIcon;

namespace isolation {

class Engine;
class MainWindow;
class Notifier;
struct Notification;
class SessionsController;

class TrayApplication final : public QObject
{
    Q_OBJECT
public:
    explicit TrayApplication(Engine &engine, QObject *parent = nullptr);
    ~TrayApplication() override;

    // Shows the tray icon, or the window where no system tray exists.
    void show();
    void showWindow();
    // Quit: drains the tunnel, stops the engine, then leaves the event loop.
    void quit();
    void showPairing();
    void showSettings();

    // The main window, made the first time it is asked for: a tray that is never opened does
    // not carry its widgets, fonts and models.
    MainWindow *window();
    QMenu *menu() const { return m_menu.get(); }
    QSystemTrayIcon *trayIcon() const { return m_icon; }
    Notifier *notifier() const { return m_notifier; }
    SessionsController *sessions() const { return m_sessions.get(); }

private:
    void updateState();
    void onNotificationAction(const QString &kind, const QString &action);
    void rebuildSessionsMenu();
    // Asks, then finishes a session; unsaved work asks again whether to discard it.
    void finishSession(const QString &id);
    // Shows it unless its kind is switched off in Settings or notifications are paused.
    void notify(const Notification &notification);
    void onRuntimeChanged();
    void connectSessionEvents();

    Engine &m_engine;
    std::unique_ptr<SessionsController> m_sessions;
    std::unique_ptr<MainWindow> m_window;
    std::unique_ptr<QMenu> m_menu;
    QSystemTrayIcon *m_icon = nullptr;
    Notifier *m_notifier = nullptr;
    bool m_wasPaired = false;
    QAction *m_stateLine = nullptr;
    QAction *m_pair = nullptr;
    QMenu *m_sessionsMenu = nullptr;
    QString m_lastNotifiedSession; // the session a moved-on or conflict notification was about
    QAction *m_pause = nullptr;
    QDateTime m_pausedUntil; // "Pause notifications for an hour"
    bool m_runtimeWasHealthy = false;
    int m_iconKey = -1; // state, badge and style of the icon shown
    QAction *m_settings = nullptr;
    QPointer<QWidget> m_pairingDialog;
    QPointer<QWidget> m_settingsDialog;
};

} // namespace isolation
