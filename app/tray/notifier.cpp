#include "notifier.h"

#include <QCoreApplication>
#include <QDBusConnection>
#include <QDBusError>
#include <QDBusMessage>
#include <QDBusPendingCallWatcher>
#include <QDBusPendingReply>
#include <QGuiApplication>
#include <QLoggingCategory>
#include <QStringList>
#include <QSystemTrayIcon>
#include <QVariantMap>

Q_LOGGING_CATEGORY(lcNotify, "isolation.tray.notify")

namespace isolation {

namespace {
const QString kService = QStringLiteral("org.freedesktop.Notifications");
const QString kPath = QStringLiteral("/org/freedesktop/Notifications");
const QString kInterface = QStringLiteral("org.freedesktop.Notifications");
constexpr int kTimeoutMs = 10000; // critical ones stay until dismissed (the server's rule)
} // namespace

Notifier::Notifier(QSystemTrayIcon *fallback, QObject *parent)
    : QObject(parent)
    , m_fallback(fallback)
{
    QDBusConnection bus = QDBusConnection::sessionBus();
    if (bus.isConnected()) {
        bus.connect(
            kService, kPath, kInterface, QStringLiteral("ActionInvoked"), this, SLOT(onActionInvoked(uint, QString)));
        bus.connect(
            kService, kPath, kInterface, QStringLiteral("NotificationClosed"), this, SLOT(onClosed(uint, uint)));
    }
}

Notifier::~Notifier() = default;

void Notifier::notify(const Notification &notification)
{
    QDBusConnection bus = QDBusConnection::sessionBus();
    if (!bus.isConnected()) {
        showBalloon(notification);
        return;
    }
    // A burst of one kind folds into one: while the service has not answered (so the id to
    // replace is not known yet), only the newest waits, then replaces the one shown.
    if (m_inFlight.contains(notification.kind)) {
        m_waiting.insert(notification.kind, notification);
        return;
    }
    m_inFlight.insert(notification.kind);
    QStringList actions;
    for (const auto &[id, label] : notification.actions)
        actions << id << label;
    QVariantMap hints;
    hints.insert(QStringLiteral("urgency"), QVariant::fromValue(uchar(notification.critical ? 2 : 1)));
    hints.insert(QStringLiteral("desktop-entry"), QGuiApplication::desktopFileName());
    QDBusMessage call = QDBusMessage::createMethodCall(kService, kPath, kInterface, QStringLiteral("Notify"));
    call << QGuiApplication::applicationDisplayName() << m_onScreen.value(notification.kind, 0u)
         << QStringLiteral("io.isolation.Tray") << notification.summary << notification.body << actions << hints
         << (notification.critical ? 0 : kTimeoutMs);
    auto *watcher = new QDBusPendingCallWatcher(bus.asyncCall(call), this);
    connect(watcher, &QDBusPendingCallWatcher::finished, this,
        [this, notification](QDBusPendingCallWatcher *w) { answered(w, notification); });
}

void Notifier::answered(QDBusPendingCallWatcher *watcher, const Notification &notification)
{
    watcher->deleteLater();
    m_inFlight.remove(notification.kind);
    QDBusPendingReply<uint> reply = *watcher;
    if (reply.isError()) {
        qCInfo(lcNotify).noquote() << "no notification service (" << reply.error().name()
                                   << "); showing the tray balloon instead";
        showBalloon(notification);
    } else {
        const uint id = reply.value();
        m_usedService = true;
        m_kinds.insert(id, notification.kind);
        m_onScreen.insert(notification.kind, id);
        qCInfo(lcNotify).noquote() << "notification" << notification.kind << "shown as" << id;
        Q_EMIT shown(notification.kind, id);
    }
    if (m_waiting.contains(notification.kind))
        notify(m_waiting.take(notification.kind));
}

void Notifier::showBalloon(const Notification &notification)
{
    m_usedService = false;
    if (m_fallback && QSystemTrayIcon::supportsMessages() && m_fallback->isVisible()) {
        m_fallback->showMessage(notification.summary, notification.body,
            notification.critical ? QSystemTrayIcon::Warning : QSystemTrayIcon::Information, kTimeoutMs);
    }
    qCInfo(lcNotify).noquote() << "notification" << notification.kind << "shown as a tray balloon";
    Q_EMIT shown(notification.kind, 0);
}

void Notifier::onActionInvoked(uint id, const QString &action)
{
    // The signal is broadcast: other applications' notifications pass by here too.
    const auto it = m_kinds.constFind(id);
    if (it == m_kinds.constEnd())
        return;
    qCInfo(lcNotify).noquote() << "notification" << *it << "action" << action;
    Q_EMIT actionInvoked(*it, action);
}

void Notifier::onClosed(uint id, uint)
{
    const QString kind = m_kinds.take(id);
    if (!kind.isEmpty() && m_onScreen.value(kind) == id)
        m_onScreen.remove(kind);
}

} // namespace isolation
