#include "trayapplication.h"

#include "autostart.h"
#include "finishflow.h"
#include "mainwindow.h"
#include "notifier.h"
#include "pairingdialog.h"
#include "sessionscontroller.h"
#include "settingsdialog.h"
#include "trayicons.h"
#include "traypreferences.h"

#include "enginemodel.h"

#include <QAbstractButton>
#include <QJsonObject>
#include <QLoggingCategory>
#include <QApplication>
#include <QMenu>
#include <QMessageBox>
#include <QPointer>
#include <QSystemTrayIcon>
#include <QTimer>

namespace isolation {

// The icon's changes, timed by the log line's stamp (bench/tray: engine event to icon).
Q_LOGGING_CATEGORY(lcTrayIcon, "isolation.tray.icon")

TrayApplication::TrayApplication(EngineModel &engine, QObject *parent)
    : QObject(parent)
    , m_engine(engine)
    , m_sessions(std::make_unique<SessionsController>(engine))
    , m_menu(std::make_unique<QMenu>())
    , m_autostart(new Autostart(this))
{
    m_menu->setObjectName(QStringLiteral("trayMenu"));
    // Closing the window hides it; Quit is a menu item of its own.
    QApplication::setQuitOnLastWindowClosed(false);
    m_stateLine = m_menu->addAction(QString());
    m_stateLine->setObjectName(QStringLiteral("stateLine"));
    m_stateLine->setEnabled(false);
    m_menu->addSeparator();
    m_pair = m_menu->addAction(tr("&Pair this computer…"), this, &TrayApplication::showPairing);
    m_pair->setObjectName(QStringLiteral("pairAction"));
    m_sessionsMenu = m_menu->addMenu(tr("S&essions"));
    m_sessionsMenu->setObjectName(QStringLiteral("sessionsMenu"));
    QAction *open = m_menu->addAction(tr("&Open Isolation…"), this, &TrayApplication::showWindow);
    open->setObjectName(QStringLiteral("openAction"));
    m_pause = m_menu->addAction(tr("Pause &notifications for an hour"));
    m_pause->setObjectName(QStringLiteral("pauseNotifications"));
    m_pause->setCheckable(true);
    // A pause outlives a restart of the tray: it is kept in the settings until it ends.
    m_pauseEnds = new QTimer(this);
    m_pauseEnds->setSingleShot(true);
    connect(m_pauseEnds, &QTimer::timeout, this, [this] { m_pause->setChecked(false); });
    restorePause();
    connect(m_pause, &QAction::toggled, this, &TrayApplication::setPaused);
    m_settings = m_menu->addAction(tr("&Settings…"), this, &TrayApplication::showSettings);
    m_settings->setObjectName(QStringLiteral("settingsAction"));
    m_menu->addSeparator();
    m_connect = m_menu->addAction(tr("&Disconnect"), this, [this] { setConnected(!m_engine.status().connected); });
    m_connect->setObjectName(QStringLiteral("connectAction"));
    m_start = m_menu->addAction(tr("S&tart the engine"), this, &TrayApplication::startEngine);
    m_start->setObjectName(QStringLiteral("startEngineAction"));
    m_stop = m_menu->addAction(tr("Stop the en&gine…"), this, &TrayApplication::stopEngine);
    m_stop->setObjectName(QStringLiteral("stopEngineAction"));
    m_menu->addSeparator();
    QAction *quit = m_menu->addAction(tr("&Quit Isolation tray"), this, &TrayApplication::quit);
    quit->setObjectName(QStringLiteral("quitAction"));
    quit->setToolTip(tr("Closes the tray; the engine keeps this computer reachable"));

    m_icon = new QSystemTrayIcon(this);
    m_icon->setContextMenu(m_menu.get());
    connect(m_icon, &QSystemTrayIcon::activated, this, [this](QSystemTrayIcon::ActivationReason reason) {
        if (reason == QSystemTrayIcon::Trigger || reason == QSystemTrayIcon::DoubleClick)
            showWindow();
    });
    m_notifier = new Notifier(m_icon, this);
    connect(m_notifier, &Notifier::actionInvoked, this, &TrayApplication::onNotificationAction);
    connect(&m_engine, &EngineModel::stateChanged, this, &TrayApplication::updateState);
    connect(&m_engine.connection(), &EngineConnection::stateChanged, this, &TrayApplication::onConnectionChanged);
    connectSessionEvents();
    // Made on a model that is attached already: an engine was seen, so none is started for it.
    if (m_engine.connection().state() == EngineConnection::State::Attached || m_engine.attached()) {
        m_wasAttached = true;
        m_triedStart = true;
    }
    rebuildSessionsMenu();
    updateState();
}

TrayApplication::~TrayApplication() = default;

void TrayApplication::show()
{
    if (QSystemTrayIcon::isSystemTrayAvailable()) {
        m_icon->show();
    } else {
        // Without a tray host the window is the only face; closing it closes the tray.
        connect(qApp, &QGuiApplication::lastWindowClosed, this, &TrayApplication::quit, Qt::UniqueConnection);
        showWindow();
    }
}

void TrayApplication::quit()
{
    // The engine is not ours: it keeps running, and the cloud keeps reaching this computer.
    QCoreApplication::quit();
}

void TrayApplication::onConnectionChanged()
{
    const EngineConnection::State state = m_engine.connection().state();
    // None answered when the tray came: start one, once, and say so. Later the member decides
    // (an engine stopped on purpose stays stopped; one that died is offered Start).
    if (state == EngineConnection::State::Down && !m_triedStart && !m_wasAttached) {
        m_triedStart = true;
        qInfo("no engine answers; starting one");
        startEngine();
        return;
    }
    if (state == EngineConnection::State::Down && m_wasAttached) {
        m_wasAttached = false;
        Notification n;
        n.kind = QStringLiteral("engine");
        n.summary = tr("The Isolation engine stopped");
        n.body = tr("The cloud cannot reach this computer until it runs again. %1").arg(m_engine.connection().reason());
        n.actions = {{QStringLiteral("default"), tr("Open")}, {QStringLiteral("start"), tr("Start it")}};
        notify(n);
    }
    if (state == EngineConnection::State::Attached) {
        m_wasAttached = true;
        // An engine was there: from now on the member starts one (a kill -9 followed by the
        // stream's retries, or Stop the engine, must not start one behind their back).
        m_triedStart = true;
    }
    updateState();
}

void TrayApplication::startEngine()
{
    m_triedStart = true;
    EngineConnection &connection = m_engine.connection();
    if (!m_startThroughUnit || connection.state() == EngineConnection::State::Attached) {
        connection.startEngine();
        updateState();
        return;
    }
    // The unit, where there is one: the engine is then the user manager's service however it was
    // started (restarted on failure, in the journal, stopped at logout only without lingering).
    connection.expectEngine(tr("Starting the engine (systemd user unit)"));
    updateState();
    m_autostart->startEngineUnit([this](Status status) {
        if (status.ok()) {
            qInfo("started the engine through the systemd user unit");
            return;
        }
        if (status.error().code != Error::Code::NotFound)
            qWarning("%s - starting it as a process of its own", qPrintable(status.error().message));
        // Not Attached yet: start it ourselves (startEngine() does nothing while Starting).
        EngineConnection &connection = m_engine.connection();
        if (connection.state() == EngineConnection::State::Attached)
            return;
        connection.startEngine(EngineConnection::WhileStarting::Start);
        updateState();
    });
}

void TrayApplication::stopEngine()
{
    auto *ask = new QMessageBox(QMessageBox::Warning, tr("Stop the engine"),
        tr("Stop the Isolation engine? The cloud cannot reach this computer, and no session can be launched on "
           "it, until the engine starts again (from this menu, or at the next login)."),
        QMessageBox::Yes | QMessageBox::Cancel);
    ask->setObjectName(QStringLiteral("stopEngineQuestion"));
    ask->setAttribute(Qt::WA_DeleteOnClose);
    ask->button(QMessageBox::Yes)->setText(tr("&Stop the engine"));
    QPointer<TrayApplication> self(this);
    connect(ask, &QMessageBox::accepted, this, [self] {
        if (!self)
            return;
        self->m_wasAttached = false; // asked for: no "stopped" notification
        self->m_engine.client().post(QStringLiteral("/v1/shutdown"), {}, [](EngineClient::Answer) {}, 30000);
    });
    ask->open();
}

void TrayApplication::setConnected(bool connected)
{
    QPointer<TrayApplication> self(this);
    m_engine.client().post(QStringLiteral("/v1/tunnel"), QJsonObject {{QStringLiteral("connected"), connected}},
        [self](EngineClient::Answer r) {
            if (!self)
                return;
            if (!r)
                QMessageBox::warning(nullptr, tr("Isolation"), describe(r.error()));
            self->m_engine.refreshStatus();
        },
        30000);
}

MainWindow *TrayApplication::window()
{
    if (!m_window) {
        m_window = std::make_unique<MainWindow>(m_engine, *m_sessions);
        connect(m_window.get(), &MainWindow::startRequested, this, &TrayApplication::startEngine);
        connect(m_window.get(), &MainWindow::pairRequested, this, &TrayApplication::showPairing);
    }
    return m_window.get();
}

void TrayApplication::showWindow()
{
    window()->bringToFront();
}

void TrayApplication::showPairing()
{
    if (!m_pairingDialog) {
        auto *dialog = new PairingDialog(m_engine);
        m_pairingDialog = dialog;
        dialog->begin();
    }
    m_pairingDialog->show();
    m_pairingDialog->raise();
    m_pairingDialog->activateWindow();
}

void TrayApplication::showSettings()
{
    if (!m_settingsDialog) {
        auto *dialog = new SettingsDialog(m_engine, *m_autostart);
        connect(dialog, &SettingsDialog::preferencesChanged, this, &TrayApplication::updateState);
        m_settingsDialog = dialog;
    }
    m_settingsDialog->show();
    m_settingsDialog->raise();
    m_settingsDialog->activateWindow();
}

void TrayApplication::updateState()
{
    const QString line = m_engine.stateReason();
    const EngineState state = m_engine.state();
    const bool attached = m_engine.attached();
    const EngineConnection::State connection = m_engine.connection().state();
    // Pairing is offered while nothing else is: not paired, or a pairing already on screen.
    m_pair->setVisible(attached
        && (state == EngineState::NotPaired || state == EngineState::Pairing
            || (state == EngineState::Error && !m_engine.status().paired)));
    m_start->setVisible(connection == EngineConnection::State::Down);
    m_stop->setVisible(attached);
    m_connect->setVisible(attached && m_engine.status().paired);
    m_connect->setText(m_engine.status().connected ? tr("&Disconnect") : tr("&Connect"));
    TrayBadge badge = TrayBadge::None;
    QString why = line;
    if (m_sessions->anyConflict()) {
        badge = TrayBadge::Conflict;
        why = tr("Files in conflict: open Conflicts to resolve them");
    } else if (m_sessions->anyMovedOn()) {
        badge = TrayBadge::MovedOn;
        why = tr("Another session saved first: sync, then save again");
    } else if (m_sessions->anyWorking()) {
        badge = TrayBadge::Working;
        why = tr("Saving or syncing");
    }
    if (state != EngineState::Online && state != EngineState::Reconnecting)
        why = line;
    if (const QString advice = m_engine.credentialAdvice(); !advice.isEmpty())
        why = advice;
    m_stateLine->setText(why);
    // Called on every session update: draw the icon again only when it changes.
    const IconStyle style = TrayPreferences(m_engine.settings()).iconStyle();
    const int iconKey = (int(state) << 8) | (int(badge) << 4) | int(style);
    if (iconKey != m_iconKey) {
        m_iconKey = iconKey;
        m_icon->setIcon(stateIcon(state, badge, style));
        qCDebug(lcTrayIcon).noquote() << "icon set: state" << engineStateName(state) << "badge" << int(badge);
    }
    QString tip = tr("Isolation: %1").arg(why);
    for (const api::Warning &w : m_engine.status().warnings)
        tip += QLatin1Char('\n') + (w.error ? tr("Error: %1") : tr("Warning: %1")).arg(w.message);
    m_icon->setToolTip(tip);

    // Losing the pairing is news the member must see even with the window closed: the hub
    // revoked this computer, or it was unpaired from the command line. Noticed by `paired` turning
    // false, whatever the state says at that moment (the tunnel may still be going down), and told
    // once the engine says "not paired", with its reason (revoked, unpaired); a keychain that
    // cannot be read is not an unpairing (credentialAdvice says what to do).
    const bool paired = attached && m_engine.status().paired;
    if (m_wasPaired && attached && !paired && m_engine.status().credentialStoreProblem.isEmpty())
        m_unpairedToTell = true;
    if (paired || !attached)
        m_unpairedToTell = false;
    if (m_unpairedToTell && state == EngineState::NotPaired) {
        m_unpairedToTell = false;
        Notification n;
        n.kind = QStringLiteral("unpaired");
        n.summary = tr("This computer is no longer paired");
        n.body = line;
        n.critical = true;
        n.actions = {{QStringLiteral("default"), tr("Open Isolation")}, {QStringLiteral("pair"), tr("Pair again…")}};
        notify(n);
    }
    if (attached)
        m_wasPaired = paired;
}

void TrayApplication::onNotificationAction(const QString &kind, const QString &action)
{
    if (kind == QLatin1String("unpaired") && action == QLatin1String("pair"))
        showPairing();
    else if (kind == QLatin1String("moved_on") && action == QLatin1String("sync"))
        m_sessions->sync(m_lastNotifiedSession, false);
    else if (kind == QLatin1String("conflict"))
        window()->showTab(QStringLiteral("conflictsTab"), m_lastNotifiedSession);
    else if (kind == QLatin1String("moved_on"))
        window()->showTab(QStringLiteral("changesTab"), m_lastNotifiedSession);
    else if (kind == QLatin1String("runtime"))
        window()->showTab(QStringLiteral("runtimeTab"));
    else if (kind == QLatin1String("engine") && action == QLatin1String("start"))
        startEngine();
    else
        showWindow();
}

void TrayApplication::notify(const Notification &notification)
{
    if (!TrayPreferences(m_engine.settings()).notifies(notification.kind))
        return;
    if (notificationsPaused())
        return;
    if (m_pausedUntil.isValid())
        m_pause->setChecked(false); // the hour is over
    m_notifier->notify(notification);
}

bool TrayApplication::notificationsPaused() const
{
    return m_pausedUntil.isValid() && QDateTime::currentDateTimeUtc() < m_pausedUntil;
}

void TrayApplication::setPaused(bool on)
{
    m_pausedUntil = on ? QDateTime::currentDateTimeUtc().addSecs(3600) : QDateTime();
    TrayPreferences(m_engine.settings()).setNotificationsPausedUntil(m_pausedUntil);
    if (on)
        m_pauseEnds->start(std::chrono::seconds(3600));
    else
        m_pauseEnds->stop();
}

void TrayApplication::restorePause()
{
    const QDateTime until = TrayPreferences(m_engine.settings()).notificationsPausedUntil();
    const qint64 left = until.isValid() ? QDateTime::currentDateTimeUtc().msecsTo(until) : 0;
    if (left <= 0) {
        if (until.isValid())
            TrayPreferences(m_engine.settings()).setNotificationsPausedUntil({});
        return;
    }
    m_pausedUntil = until;
    const QSignalBlocker quiet(m_pause);
    m_pause->setChecked(true);
    m_pauseEnds->start(std::chrono::milliseconds(left));
}

void TrayApplication::onRuntimeChanged()
{
    const api::Runtime &runtime = m_engine.runtime();
    const QString state = m_engine.attached() ? runtime.state : QString();
    if (state == QLatin1String("healthy")) {
        m_runtimeWasHealthy = true;
        return;
    }
    // Down after having worked (not a restart asked for, not the engine stopping): say so once.
    if (m_runtimeWasHealthy
        && (state == QLatin1String("failed") || state == QLatin1String("docker_missing")
            || state == QLatin1String("unhealthy"))) {
        m_runtimeWasHealthy = false;
        Notification n;
        n.kind = QStringLiteral("runtime");
        n.summary = tr("The sandbox runtime stopped working");
        n.body = runtime.reason;
        n.actions = {{QStringLiteral("default"), tr("Open")}};
        notify(n);
    }
    if (state.isEmpty() || state == QLatin1String("absent"))
        m_runtimeWasHealthy = false;
}

void TrayApplication::connectSessionEvents()
{
    connect(&m_engine, &EngineModel::runtimeChanged, this, &TrayApplication::onRuntimeChanged);
    connect(m_sessions.get(), &SessionsController::badgeChanged, this, &TrayApplication::updateState);
    connect(m_sessions.get(), &SessionsController::sessionsChanged, this, &TrayApplication::rebuildSessionsMenu);
    // A sandbox's state (Suspend or Resume) is read when the menu opens.
    connect(m_sessionsMenu, &QMenu::aboutToShow, this, &TrayApplication::rebuildSessionsMenu);
    connect(m_sessions.get(), &SessionsController::movedOn, this, [this](const QString &id, const QString &workspace) {
        m_lastNotifiedSession = id;
        Notification n;
        n.kind = QStringLiteral("moved_on");
        n.summary = tr("Another session saved first");
        n.body = tr("%1: nothing of your save reached the hub; your work is kept in the session. Sync, then save "
                    "again.")
                     .arg(workspace);
        n.actions = {{QStringLiteral("default"), tr("Open")}, {QStringLiteral("sync"), tr("Sync now")}};
        notify(n);
    });
    connect(m_sessions.get(), &SessionsController::conflicted, this,
        [this](const QString &id, const QString &workspace, const QList<api::ConflictedFile> &files) {
            m_lastNotifiedSession = id;
            Notification n;
            n.kind = QStringLiteral("conflict");
            n.summary = tr("%n file(s) in conflict", nullptr, int(files.size()));
            QStringList paths;
            for (const api::ConflictedFile &f : files.mid(0, 3))
                paths << f.path;
            n.body = tr("%1: %2").arg(workspace, paths.join(QStringLiteral(", ")));
            n.critical = true;
            n.actions = {{QStringLiteral("default"), tr("Open")}};
            notify(n);
        });
}

void TrayApplication::rebuildSessionsMenu()
{
    m_sessionsMenu->clear();
    const QStringList ids = m_sessions->sessionIds();
    m_sessionsMenu->setEnabled(!ids.isEmpty());
    for (const QString &id : ids) {
        const SessionSnapshot *s = m_sessions->snapshot(id);
        QMenu *one = m_sessionsMenu->addMenu(tr("%1 — %2").arg(s ? s->workspaceName : QString(), id));
        one->addAction(tr("&Open"), this, [this, id] { window()->showTab(QStringLiteral("changesTab"), id); });
        one->addAction(tr("Save &all"), this, [this, id] { m_sessions->save(id, {}, {}); });
        one->addAction(tr("S&ync"), this, [this, id] { m_sessions->sync(id, false); });
        const api::SandboxState sandbox = s ? s->sandbox.state : api::SandboxState::None;
        if (sandbox == api::SandboxState::Running)
            one->addAction(tr("S&uspend"), this, [this, id] { m_sessions->suspend(id); });
        else if (sandbox == api::SandboxState::Suspended)
            one->addAction(tr("&Resume"), this, [this, id] { m_sessions->resume(id); });
        one->addAction(tr("&Finish…"), this, [this, id] { finishSession(id); });
    }
}

void TrayApplication::finishSession(const QString &id)
{
    confirmFinish(*m_sessions, id);
}

} // namespace isolation
