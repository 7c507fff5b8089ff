#include "trayapplication.h"

#include "mainwindow.h"
#include "notifier.h"
#include "pairingdialog.h"
#include "settingsdialog.h"
#include "trayicons.h"

#include "engine.h"

#include <QApplication>
#include <QMenu>
#include <QSystemTrayIcon>

namespace isolation {

TrayApplication::TrayApplication(Engine &engine, QObject *parent)
    : QObject(parent)
    , m_engine(engine)
    , m_window(std::make_unique<MainWindow>(engine))
    , m_menu(std::make_unique<QMenu>())
{
    m_menu->setObjectName(QStringLiteral("trayMenu"));
    // Quitting is ours to do (after draining the tunnel), not a side effect of closing a window.
    QApplication::setQuitOnLastWindowClosed(false);
    m_stateLine = m_menu->addAction(QString());
    m_stateLine->setObjectName(QStringLiteral("stateLine"));
    m_stateLine->setEnabled(false);
    m_menu->addSeparator();
    m_pair = m_menu->addAction(tr("&Pair this computer…"), this, &TrayApplication::showPairing);
    m_pair->setObjectName(QStringLiteral("pairAction"));
    QAction *open = m_menu->addAction(tr("&Open Isolation…"), this, &TrayApplication::showWindow);
    open->setObjectName(QStringLiteral("openAction"));
    m_settings = m_menu->addAction(tr("&Settings…"), this, &TrayApplication::showSettings);
    m_settings->setObjectName(QStringLiteral("settingsAction"));
    m_menu->addSeparator();
    QAction *quit = m_menu->addAction(tr("&Quit"), this, &TrayApplication::quit);
    quit->setObjectName(QStringLiteral("quitAction"));

    m_icon = new QSystemTrayIcon(this);
    m_icon->setContextMenu(m_menu.get());
    connect(m_icon, &QSystemTrayIcon::activated, this, [this](QSystemTrayIcon::ActivationReason reason) {
        if (reason == QSystemTrayIcon::Trigger || reason == QSystemTrayIcon::DoubleClick)
            showWindow();
    });
    m_notifier = new Notifier(m_icon, this);
    connect(m_notifier, &Notifier::actionInvoked, this, &TrayApplication::onNotificationAction);
    connect(&m_engine, &Engine::stateChanged, this, &TrayApplication::updateState);
    updateState();
}

TrayApplication::~TrayApplication() = default;

void TrayApplication::show()
{
    if (QSystemTrayIcon::isSystemTrayAvailable()) {
        m_icon->show();
    } else {
        // Without a tray host the window is the only face; closing it quits (after the drain).
        connect(qApp, &QGuiApplication::lastWindowClosed, this, &TrayApplication::quit, Qt::UniqueConnection);
        showWindow();
    }
}

void TrayApplication::quit()
{
    if (m_engine.state() == EngineState::Stopped) {
        QCoreApplication::quit();
        return;
    }
    // Drain the tunnel first so the hub's open calls finish; quit once the engine has stopped.
    connect(&m_engine, &Engine::stopped, qApp, &QCoreApplication::quit, Qt::QueuedConnection);
    m_engine.shutdown();
}

void TrayApplication::showWindow()
{
    m_window->bringToFront();
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
    if (!m_settingsDialog)
        m_settingsDialog = new SettingsDialog(m_engine);
    m_settingsDialog->show();
    m_settingsDialog->raise();
    m_settingsDialog->activateWindow();
}

void TrayApplication::updateState()
{
    const QString line = m_engine.stateReason();
    const EngineState state = m_engine.state();
    // Pairing is offered while nothing else is: not paired, or a pairing already on screen.
    m_pair->setVisible(state == EngineState::NotPaired || state == EngineState::Pairing || state == EngineState::Error);
    m_stateLine->setText(line);
    m_icon->setIcon(stateIcon(state));
    m_icon->setToolTip(tr("Isolation: %1").arg(line));

    // Losing the pairing is news the member must see even with the window closed: the hub
    // revoked this computer, or it was unpaired from the command line.
    const bool paired
        = state == EngineState::Online || state == EngineState::Reconnecting || state == EngineState::Error;
    if (m_wasPaired && state == EngineState::NotPaired) {
        Notification n;
        n.kind = QStringLiteral("unpaired");
        n.summary = tr("This computer is no longer paired");
        n.body = line;
        n.critical = true;
        n.actions = {{QStringLiteral("default"), tr("Open Isolation")}, {QStringLiteral("pair"), tr("Pair again…")}};
        m_notifier->notify(n);
    }
    if (state != EngineState::Stopped)
        m_wasPaired = paired;
}

void TrayApplication::onNotificationAction(const QString &kind, const QString &action)
{
    if (kind == QLatin1String("unpaired") && action == QLatin1String("pair"))
        showPairing();
    else
        showWindow();
}

} // namespace isolation
