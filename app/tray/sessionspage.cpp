#include "sessionspage.h"

#include "finishflow.h"
#include "sessionscontroller.h"

#include <QDesktopServices>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QLocale>
#include <QPushButton>
#include <QTableWidget>
#include <QUrl>
#include <QVBoxLayout>

namespace isolation {

namespace {
enum Column { Workspace, State, Sandbox, Changed, AheadBehind, LastSave, ColumnCount };

// "upload 3.1 MB of 12 MB", "commit", ...
QString phaseText(const api::Progress &p)
{
    const QLocale locale;
    if (p.totalBytes > 0)
        return SessionsPage::tr("%1 %2 of %3")
            .arg(p.phase, locale.formattedDataSize(p.bytes), locale.formattedDataSize(p.totalBytes));
    if (p.bytes > 0)
        return SessionsPage::tr("%1 %2").arg(p.phase, locale.formattedDataSize(p.bytes));
    return p.phase;
}
} // namespace

QString sessionStateText(const SessionSnapshot &s)
{
    switch (s.state) {
    case api::SessionState::Opening:
        return s.progress.phase.isEmpty() ? SessionsPage::tr("Opening…")
                                          : SessionsPage::tr("Opening: %1").arg(phaseText(s.progress));
    case api::SessionState::Ready:
        if (!s.conflicts.isEmpty())
            return SessionsPage::tr("Conflicts");
        if (s.movedOn)
            return SessionsPage::tr("Another session saved first");
        return SessionsPage::tr("Ready");
    case api::SessionState::Saving:
        return s.progress.phase.isEmpty() ? SessionsPage::tr("Saving…")
                                          : SessionsPage::tr("Saving: %1").arg(phaseText(s.progress));
    case api::SessionState::Syncing:
        return s.progress.phase.isEmpty() ? SessionsPage::tr("Syncing…")
                                          : SessionsPage::tr("Syncing: %1").arg(phaseText(s.progress));
    case api::SessionState::Failed:
        return SessionsPage::tr("Failed: %1").arg(s.reason);
    case api::SessionState::Unknown:
        break;
    }
    return {};
}

QString sandboxText(const SessionSnapshot &s)
{
    QString sandbox;
    switch (s.sandbox.state) {
    case api::SandboxState::None:
        return {};
    case api::SandboxState::Launching:
        sandbox = SessionsPage::tr("Starting");
        break;
    case api::SandboxState::Running:
        sandbox = SessionsPage::tr("Running");
        break;
    case api::SandboxState::Pausing:
        sandbox = SessionsPage::tr("Suspending");
        break;
    case api::SandboxState::Suspended:
        sandbox = SessionsPage::tr("Suspended");
        break;
    case api::SandboxState::Resuming:
        sandbox = SessionsPage::tr("Resuming");
        break;
    case api::SandboxState::Finishing:
        sandbox = SessionsPage::tr("Finishing");
        break;
    case api::SandboxState::Gone:
        sandbox = SessionsPage::tr("Gone");
        break;
    case api::SandboxState::Failed:
        sandbox = SessionsPage::tr("Failed");
        break;
    case api::SandboxState::Unknown:
        sandbox = s.sandbox.stateName;
        break;
    }
    QString agent;
    switch (s.sandbox.agent.state) {
    case api::AgentState::None:
        return sandbox;
    case api::AgentState::Idle:
        agent = SessionsPage::tr("agent not started");
        break;
    case api::AgentState::Running:
        agent = SessionsPage::tr("agent running");
        break;
    case api::AgentState::Waiting:
        agent = SessionsPage::tr("agent restarting");
        break;
    case api::AgentState::Stopping:
    case api::AgentState::Stopped:
        agent = SessionsPage::tr("agent stopped");
        break;
    case api::AgentState::Exited:
        agent = SessionsPage::tr("agent done");
        break;
    case api::AgentState::Failed:
        agent = SessionsPage::tr("agent failed");
        break;
    case api::AgentState::Unknown:
        agent = SessionsPage::tr("agent");
        break;
    }
    if (s.sandbox.agent.restarts > 0)
        agent = SessionsPage::tr("%1, %n restart(s)", nullptr, s.sandbox.agent.restarts).arg(agent);
    return SessionsPage::tr("%1 · %2").arg(sandbox, agent);
}

SessionsPage::SessionsPage(SessionsController &sessions, QWidget *parent)
    : QWidget(parent)
    , m_sessions(sessions)
{
    build();
    wire();
    reload();
}

void SessionsPage::build()
{
    setObjectName(QStringLiteral("sessionsTab"));
    auto *layout = new QVBoxLayout(this);

    auto *create = new QHBoxLayout;
    m_workspace = new QLineEdit(this);
    m_workspace->setObjectName(QStringLiteral("newSessionWorkspace"));
    m_workspace->setPlaceholderText(tr("Workspace name"));
    m_workspace->setAccessibleName(tr("Workspace for a new session"));
    m_create = new QPushButton(tr("&New session"), this);
    m_create->setObjectName(QStringLiteral("newSession"));
    auto *workspaceLabel = new QLabel(tr("Wor&kspace:"), this);
    workspaceLabel->setBuddy(m_workspace);
    create->addWidget(workspaceLabel);
    create->addWidget(m_workspace, 1);
    m_cancelCreate = new QPushButton(tr("&Cancel"), this);
    m_cancelCreate->setObjectName(QStringLiteral("newSessionCancel"));
    m_cancelCreate->hide();
    create->addWidget(m_create);
    create->addWidget(m_cancelCreate);
    layout->addLayout(create);

    m_table = new QTableWidget(0, ColumnCount, this);
    m_table->setObjectName(QStringLiteral("sessionsView"));
    m_table->setAccessibleName(tr("Sessions"));
    m_table->setHorizontalHeaderLabels(
        {tr("Workspace"), tr("State"), tr("Sandbox"), tr("Changed files"), tr("Ahead / behind main"), tr("Last save")});
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setSelectionMode(QAbstractItemView::SingleSelection);
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->setTabKeyNavigation(false); // Tab leaves the table (arrows move within it)
    m_table->verticalHeader()->hide();
    m_table->horizontalHeader()->setStretchLastSection(true);
    m_table->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    layout->addWidget(m_table, 1);

    auto *actions = new QHBoxLayout;
    m_saveAll = new QPushButton(tr("Save a&ll"), this);
    m_saveAll->setObjectName(QStringLiteral("sessionSaveAll"));
    m_sync = new QPushButton(tr("S&ync"), this);
    m_sync->setObjectName(QStringLiteral("sessionSync"));
    m_openFolder = new QPushButton(tr("Open &folder"), this);
    m_openFolder->setObjectName(QStringLiteral("sessionOpenFolder"));
    m_suspend = new QPushButton(tr("S&uspend"), this);
    m_suspend->setObjectName(QStringLiteral("sessionSuspend"));
    m_suspend->setToolTip(tr("Saves what changed, then pauses the session's sandbox"));
    m_resume = new QPushButton(tr("Resu&me"), this);
    m_resume->setObjectName(QStringLiteral("sessionResume"));
    m_finish = new QPushButton(tr("F&inish…"), this);
    m_finish->setObjectName(QStringLiteral("sessionFinish"));
    m_finish->setToolTip(tr("Deletes the session's sandbox and removes its folder from this computer"));
    actions->addWidget(m_saveAll);
    actions->addWidget(m_sync);
    actions->addWidget(m_openFolder);
    actions->addStretch(1);
    actions->addWidget(m_suspend);
    actions->addWidget(m_resume);
    actions->addWidget(m_finish);
    layout->addLayout(actions);
    m_status = new QLabel(this);
    m_status->setObjectName(QStringLiteral("sessionsStatus"));
    m_status->setWordWrap(true);
    layout->addWidget(m_status);
}

// What the buttons, the table and the controller's answers do.
void SessionsPage::wire()
{
    connect(m_create, &QPushButton::clicked, this, [this] {
        const QString workspace = m_workspace->text().trimmed();
        if (workspace.isEmpty())
            return;
        m_create->setEnabled(false);
        m_status->setText(tr("Starting a session on %1…").arg(workspace));
        m_cancelCreateAsked = false;
        m_creating = m_sessions.createSession(workspace);
        updateActions();
    });
    connect(m_cancelCreate, &QPushButton::clicked, this, [this] {
        const SessionSnapshot *s = m_sessions.snapshot(m_creating);
        if (!s || !s->progress.cancellable)
            return;
        m_cancelCreateAsked = true;
        m_sessions.cancel(m_creating);
        updateActions();
    });
    connect(m_workspace, &QLineEdit::returnPressed, m_create, &QPushButton::click);
    connect(m_workspace, &QLineEdit::textChanged, this, &SessionsPage::updateActions);
    connect(&m_sessions, &SessionsController::created, this, [this](const QString &id) {
        if (id == m_creating)
            m_creating.clear();
        m_workspace->clear();
        m_status->setText(tr("Session %1 is ready.").arg(id));
        setCurrentSession(id);
        updateActions();
    });
    connect(&m_sessions, &SessionsController::createFailed, this, [this](const QString &message) {
        m_creating.clear();
        m_status->setText(tr("No session started: %1").arg(message));
        updateActions();
    });
    connect(m_saveAll, &QPushButton::clicked, this, [this] { m_sessions.save(currentSession(), {}, QString()); });
    connect(m_sync, &QPushButton::clicked, this, [this] { m_sessions.sync(currentSession(), false); });
    connect(m_openFolder, &QPushButton::clicked, this, [this] {
        if (const SessionSnapshot *s = m_sessions.snapshot(currentSession()))
            QDesktopServices::openUrl(QUrl::fromLocalFile(s->workTree));
    });
    connect(m_suspend, &QPushButton::clicked, this, [this] {
        m_status->setText(tr("Suspending %1: saving what changed, then pausing its sandbox…").arg(currentSession()));
        m_sessions.suspend(currentSession());
    });
    connect(m_resume, &QPushButton::clicked, this, [this] {
        m_status->setText(tr("Resuming %1…").arg(currentSession()));
        m_sessions.resume(currentSession());
    });
    connect(m_finish, &QPushButton::clicked, this, [this] { confirmFinish(m_sessions, currentSession(), this); });
    connect(m_table, &QTableWidget::itemSelectionChanged, this, [this] {
        updateActions();
        Q_EMIT sessionPicked(currentSession());
    });
    connect(m_table, &QTableWidget::cellDoubleClicked, this, [this] { Q_EMIT showChanges(currentSession()); });
    connect(&m_sessions, &SessionsController::sessionsChanged, this, &SessionsPage::reload);
    connect(&m_sessions, &SessionsController::sessionUpdated, this, &SessionsPage::updateRow);
    connect(&m_sessions, &SessionsController::failed, this,
        [this](const QString &, const QString &, const QString &message) { m_status->setText(message); });
}

QString SessionsPage::currentSession() const
{
    const auto rows = m_table->selectionModel()->selectedRows();
    if (rows.isEmpty())
        return {};
    const QTableWidgetItem *item = m_table->item(rows.first().row(), Workspace);
    return item ? item->data(Qt::UserRole).toString() : QString();
}

void SessionsPage::setCurrentSession(const QString &id)
{
    for (int row = 0; row < m_table->rowCount(); ++row) {
        if (m_table->item(row, Workspace) && m_table->item(row, Workspace)->data(Qt::UserRole).toString() == id) {
            m_table->selectRow(row);
            return;
        }
    }
}

void SessionsPage::reload()
{
    const QString keep = currentSession();
    const QStringList ids = m_sessions.sessionIds();
    m_table->setRowCount(int(ids.size()));
    for (int row = 0; row < ids.size(); ++row) {
        for (int c = 0; c < ColumnCount; ++c) {
            if (!m_table->item(row, c))
                m_table->setItem(row, c, new QTableWidgetItem);
        }
        m_table->item(row, Workspace)->setData(Qt::UserRole, ids.at(row));
        updateRow(ids.at(row));
    }
    if (!keep.isEmpty())
        setCurrentSession(keep);
    else if (!ids.isEmpty())
        m_table->selectRow(0);
    updateActions();
}

void SessionsPage::updateRow(const QString &id)
{
    const SessionSnapshot *s = m_sessions.snapshot(id);
    if (!s)
        return;
    for (int row = 0; row < m_table->rowCount(); ++row) {
        if (!m_table->item(row, Workspace) || m_table->item(row, Workspace)->data(Qt::UserRole).toString() != id)
            continue;
        m_table->item(row, Workspace)->setText(s->workspaceName);
        m_table->item(row, Workspace)->setToolTip(tr("Session %1 in %2").arg(id, s->workTree));
        m_table->item(row, State)->setText(sessionStateText(*s));
        m_table->item(row, Sandbox)->setText(sandboxText(*s));
        m_table->item(row, Sandbox)->setToolTip(s->sandbox.reason);
        m_table->item(row, Changed)->setText(s->changesKnown ? QString::number(s->changes.files.size()) : QString());
        m_table->item(row, AheadBehind)
            ->setText(
                s->changesKnown ? tr("%1 ahead, %2 behind").arg(s->changes.ahead).arg(s->changes.behind) : QString());
        m_table->item(row, LastSave)
            ->setText(s->lastSave.isValid() ? QLocale().toString(s->lastSave, QLocale::ShortFormat) : tr("never"));
    }
    updateActions();
}

void SessionsPage::updateActions()
{
    m_create->setEnabled(!m_workspace->text().trimmed().isEmpty() && m_sessions.paired());
    m_create->setToolTip(m_sessions.paired() ? QString() : tr("Pair this computer first: sessions come from the hub"));
    // Cancel of the start under way: while the engine can still stop it (until the checkout);
    // once asked, it waits for the start to end.
    m_cancelCreate->setVisible(!m_creating.isEmpty());
    const SessionSnapshot *opening = m_sessions.snapshot(m_creating);
    m_cancelCreate->setText(m_cancelCreateAsked ? tr("Cancelling…") : tr("&Cancel"));
    m_cancelCreate->setEnabled(!m_cancelCreateAsked && opening && opening->progress.cancellable);
    m_cancelCreate->setToolTip(m_cancelCreate->isEnabled() ? tr("Stop it: the new session is removed")
                                                           : tr("It cannot be stopped now: wait for it to end"));
    const SessionSnapshot *s = m_sessions.snapshot(currentSession());
    const bool ready = s && s->state == api::SessionState::Ready;
    QString why;
    if (!s)
        why = tr("Choose a session first");
    else if (!ready)
        why = tr("The session is busy: %1").arg(sessionStateText(*s));
    else if (!m_sessions.paired())
        why = tr("Pair this computer first: saving and syncing need the hub");
    const bool canWork = ready && m_sessions.paired();
    m_saveAll->setEnabled(canWork);
    m_sync->setEnabled(canWork);
    m_saveAll->setToolTip(why);
    m_sync->setToolTip(why);
    m_openFolder->setEnabled(s != nullptr);
    const api::SandboxState sandbox = s ? s->sandbox.state : api::SandboxState::None;
    m_suspend->setEnabled(sandbox == api::SandboxState::Running);
    m_resume->setEnabled(sandbox == api::SandboxState::Suspended);
    m_finish->setEnabled(s != nullptr);
    m_suspend->setToolTip(sandbox == api::SandboxState::Running ? tr("Saves what changed, then pauses the session's sandbox")
                                                                 : tr("Only a running sandbox can be suspended"));
    m_resume->setToolTip(sandbox == api::SandboxState::Suspended ? QString() : tr("Only a suspended sandbox can be resumed"));
}

} // namespace isolation
