#include "mainwindow.h"

#include "activitypage.h"
#include "runtimepage.h"
#include "trayicons.h"

#include "engine.h"

#include <QLabel>
#include <QTabWidget>
#include <QVBoxLayout>

namespace isolation {

MainWindow::MainWindow(Engine &engine, QWidget *parent)
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
    m_tabs->addTab(placeholder(QStringLiteral("sessionsTab"), tr("Sessions"),
                       tr("Every session on this computer: its workspace, state, commits ahead of and "
                          "behind main, the last save, and actions.")),
        tr("&Sessions"));
    m_tabs->addTab(placeholder(QStringLiteral("changesTab"), tr("Changes"),
                       tr("The files a session touched, with a diff of each, to save all of them or a "
                          "selection.")),
        tr("&Changes"));
    m_tabs->addTab(placeholder(QStringLiteral("conflictsTab"), tr("Conflicts"),
                       tr("Files in conflict after a sync, how many conflict regions each has and which save "
                          "the other side came from.")),
        tr("C&onflicts"));
    m_tabs->addTab(placeholder(QStringLiteral("cacheTab"), tr("Warm cache"),
                       tr("The workspaces cached on this computer for fast launches: size, last use, and "
                          "eviction.")),
        tr("&Warm cache"));
    m_tabs->addTab(new RuntimePage(engine), tr("&Runtime"));
    m_tabs->addTab(new ActivityPage(engine), tr("&Activity"));
    layout->addWidget(m_tabs, 1);
    setCentralWidget(central);
    resize(820, 560);

    connect(&m_engine, &Engine::stateChanged, this, &MainWindow::updateState);
    updateState();
}

QWidget *MainWindow::placeholder(const QString &objectName, const QString &title, const QString &what)
{
    auto *page = new QWidget;
    page->setObjectName(objectName);
    auto *layout = new QVBoxLayout(page);
    auto *heading = new QLabel(QStringLiteral("<h3>%1</h3>").arg(title.toHtmlEscaped()), page);
    auto *body = new QLabel(what, page);
    body->setWordWrap(true);
    auto *notYet = new QLabel(tr("Not available yet in this version."), page);
    notYet->setObjectName(QStringLiteral("notAvailable"));
    layout->addWidget(heading);
    layout->addWidget(body);
    layout->addWidget(notYet);
    layout->addStretch(1);
    return page;
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
