#include "mainwindow.h"

#include "activitypage.h"
#include "cachepage.h"
#include "changespage.h"
#include "conflictspage.h"
#include "runtimepage.h"
#include "sessionpicker.h"
#include "sessionspage.h"
#include "trayicons.h"

#include "engine.h"

#include <QLabel>
#include <QTabWidget>
#include <QVBoxLayout>

namespace isolation {

MainWindow::MainWindow(Engine &engine, SessionsController &sessions, QWidget *parent)
    : QMainWindow(parent)
    , m_engine(engine)
{
    setObjectName(QStringLiteral("mainWindow"));
    setWindowTitle(tr("Isolation"));
    setWindowIcon(appIcon());

    auto *central = new QWidget(this);
    auto *layout = new QVBoxLayout(central);
    m_state = new QLabel(central);
    m_state->setObjectName(QStringLiteral("stateLine"));
    m_state->setAccessibleName(tr("Engine state"));
    m_state->setTextInteractionFlags(Qt::TextSelectableByMouse);
    layout->addWidget(m_state);

    m_tabs = new QTabWidget(central);
    m_tabs->setObjectName(QStringLiteral("tabs"));
    m_tabs->setAccessibleName(tr("Views"));
    m_sessionsPage = new SessionsPage(sessions);
    m_changesPage = new ChangesPage(sessions);
    m_conflictsPage = new ConflictsPage(sessions);
    m_tabs->addTab(m_sessionsPage, tr("&Sessions"));
    m_tabs->addTab(m_changesPage, tr("&Changes"));
    m_tabs->addTab(m_conflictsPage, tr("C&onflicts"));
    m_tabs->addTab(new CachePage(engine), tr("&Warm cache"));
    m_tabs->addTab(new RuntimePage(engine), tr("&Runtime"));
    m_tabs->addTab(new ActivityPage(engine), tr("&Activity"));
    layout->addWidget(m_tabs, 1);
    setCentralWidget(central);
    resize(820, 560);

    // One session is "the chosen one" across the Sessions, Changes and Conflicts tabs.
    connect(m_sessionsPage, &SessionsPage::sessionPicked, this, &MainWindow::pickSession);
    connect(m_changesPage->picker(), &SessionPicker::sessionPicked, this, &MainWindow::pickSession);
    connect(m_conflictsPage->picker(), &SessionPicker::sessionPicked, this, &MainWindow::pickSession);
    connect(m_sessionsPage, &SessionsPage::showChanges, this,
        [this](const QString &id) { showTab(QStringLiteral("changesTab"), id); });

    connect(&m_engine, &Engine::stateChanged, this, &MainWindow::updateState);
    updateState();
}

void MainWindow::pickSession(const QString &id)
{
    if (id.isEmpty())
        return;
    if (m_sessionsPage->currentSession() != id)
        m_sessionsPage->setCurrentSession(id);
    if (m_changesPage->picker()->currentSession() != id)
        m_changesPage->picker()->setCurrentSession(id);
    if (m_conflictsPage->picker()->currentSession() != id)
        m_conflictsPage->picker()->setCurrentSession(id);
}

void MainWindow::showTab(const QString &objectName, const QString &session)
{
    if (!session.isEmpty())
        pickSession(session);
    if (QWidget *page = m_tabs->findChild<QWidget *>(objectName))
        m_tabs->setCurrentWidget(page);
    bringToFront();
}

void MainWindow::updateState()
{
    m_state->setText(m_engine.stateReason());
}

void MainWindow::bringToFront()
{
    showNormal();
    raise();
    activateWindow();
}

} // namespace isolation
