// Desktop notifications: the freedesktop Notifications service on the session bus (with action
// buttons), or the tray icon's own balloon where no such service answers. Never blocks: every
// D-Bus call is asynchronous.
#pragma once

#include <QHash>
#include <QList>
#include <QObject>
#include <QPair>
#include <QPointer>
#include <QSet>
#include <QString>

class QDBusPendingCallWatcher;
class QSystemTrayIcon;

namespace isolation {

struct Notification
{
    // What the notification is about ("unpaired", "moved_on", "conflict", ...); comes back with
    // an action so the tray knows what the click was for.
    QString kind;
    QString summary;
    QString body;
    // Buttons, as (action id, label). "default" is the click on the notification itself.
    QList<QPair<QString, QString>> actions;
    bool critical = false;
};

class Notifier final : public QObject
{
    Q_OBJECT
public:
    // `fallback` shows a balloon when the desktop has no notification service.
    explicit Notifier(QSystemTrayIcon *fallback, QObject *parent = nullptr);
    ~Notifier() override;

    void notify(const Notification &notification);
    // Whether the last notification went to the desktop's notification service.
    bool usedService() const { return m_usedService; }

Q_SIGNALS:
    // The user chose `action` on a notification of `kind`.
    void actionInvoked(const QString &kind, const QString &action);
    // A notification was handed to the service (id) or, with id 0, shown as a balloon.
    void shown(const QString &kind, uint id);

private Q_SLOTS:
    void onActionInvoked(uint id, const QString &action);
    void onClosed(uint id, uint reason);

private:
    void answered(QDBusPendingCallWatcher *watcher, const Notification &notification);
    void showBalloon(const Notification &notification);

    QPointer<QSystemTrayIcon> m_fallback;
    QHash<uint, QString> m_kinds; // notification id → kind, while it is on screen
    QHash<QString, uint> m_onScreen; // kind → id: a newer one of a kind replaces the older one
    QSet<QString> m_inFlight; // kinds whose Notify call has not been answered yet
    QHash<QString, Notification> m_waiting; // kind → the newest notification behind that call
    bool m_usedService = false;
};

} // namespace isolation
