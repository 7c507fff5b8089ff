#include "mainwindow.h"

#include "activitypage.h"
#include "cachepage.h"
#include "changespage.h"
#include "conflictspage.h"
#include "runtimepage.h"
#include "sessionpicker.h"
#include "sessionspage.h"
#include "trayicons.h"

#include "enginemodel.h"

#include <QFrame>
#include <QHBoxLayout>
#include <QLabel>
#include <QLocale>
#include <QPushButton>
#include <QTabWidget>
#include <QVBoxLayout>

namespace isolation {

MainWindow::MainWindow(EngineModel &engine, SessionsController &sessions, QWidget *parent)
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
    m_state->setWordWrap(true);
    auto *stateRow = new QHBoxLayout;
    stateRow->addWidget(m_state, 1);
    m_start = new QPushButton(tr("S&tart the engine"), central);
    m_start->setObjectName(QStringLiteral("startEngine"));
    stateRow->addWidget(m_start);
    layout->addLayout(stateRow);
    layout->addWidget(makePairBanner(central));
    // The health warnings, under the state line: what is wrong and what to do.
    m_warnings = new QLabel(central);
    m_warnings->setObjectName(QStringLiteral("warnings"));
    m_warnings->setAccessibleName(tr("Warnings"));
    m_warnings->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_warnings->setWordWrap(true);
    m_warnings->setVisible(false);
    layout->addWidget(m_warnings);
    connect(m_start, &QPushButton::clicked, this, &MainWindow::startRequested);
    connect(m_pair, &QPushButton::clicked, this, &MainWindow::pairRequested);

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

    connect(&m_engine, &EngineModel::stateChanged, this, &MainWindow::updateState);
    connect(&m_engine.connection(), &EngineConnection::stateChanged, this, &MainWindow::updateState);
    updateState();
}

// While this computer is not paired nothing else in the window can work: a banner above the tabs
// says so and offers the pairing the tray menu offers.
QWidget *MainWindow::makePairBanner(QWidget *parent)
{
    m_pairBanner = new QFrame(parent);
    m_pairBanner->setObjectName(QStringLiteral("pairBanner"));
    m_pairBanner->setFrameShape(QFrame::StyledPanel);
    m_pairBanner->setAutoFillBackground(true);
    m_pairBanner->setBackgroundRole(QPalette::AlternateBase);
    auto *row = new QHBoxLayout(m_pairBanner);
    auto *text = new QLabel(tr("<b>This computer is not paired.</b> Pair it with your Isolation account so that "
                               "sessions can be started and saved here."),
        m_pairBanner);
    text->setObjectName(QStringLiteral("pairBannerText"));
    text->setWordWrap(true);
    text->setTextFormat(Qt::RichText);
    m_pair = new QPushButton(tr("&Pair this computer…"), m_pairBanner);
    m_pair->setObjectName(QStringLiteral("pairButton"));
    row->addWidget(text, 1);
    row->addWidget(m_pair);
    m_pairBanner->setVisible(false);
    return m_pairBanner;
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
    QString line = m_engine.stateReason();
    // A keychain the engine cannot read is the member's to fix: say how.
    if (const QString advice = m_engine.credentialAdvice(); !advice.isEmpty())
        line = advice + QLatin1Char('\n') + m_engine.status().credentialStoreError;
    m_state->setText(line);
    QStringList warnings;
    for (const api::Warning &w : m_engine.status().warnings)
        warnings << (w.error ? tr("Error: %1 (since %2)") : tr("Warning: %1 (since %2)"))
                        .arg(w.message, QLocale().toString(w.since.toLocalTime().time(), QLocale::ShortFormat));
    m_warnings->setText(warnings.join(QLatin1Char('\n')));
    m_warnings->setVisible(!warnings.isEmpty());
    m_start->setVisible(!m_engine.attached() && m_engine.connection().state() == EngineConnection::State::Down);
    // As the tray menu's Pair: not paired, or a pairing under way.
    const EngineState state = m_engine.state();
    m_pairBanner->setVisible(m_engine.attached()
        && (state == EngineState::NotPaired || state == EngineState::Pairing
            || (state == EngineState::Error && !m_engine.status().paired)));
}

void MainWindow::bringToFront()
{
    showNormal();
    raise();
    activateWindow();
}

} // namespace isolation
