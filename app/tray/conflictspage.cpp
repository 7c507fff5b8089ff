#include "conflictspage.h"

#include "sessionpicker.h"
#include "sessionscontroller.h"

#include <QDesktopServices>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QTreeWidget>
#include <QUrl>
#include <QVBoxLayout>

namespace isolation {

ConflictsPage::ConflictsPage(SessionsController &sessions, QWidget *parent)
    : QWidget(parent)
    , m_sessions(sessions)
{
    setObjectName(QStringLiteral("conflictsTab"));
    auto *layout = new QVBoxLayout(this);
    auto *top = new QHBoxLayout;
    m_picker = new SessionPicker(sessions, this);
    m_picker->setObjectName(QStringLiteral("conflictsSession"));
    auto *pickLabel = new QLabel(tr("Sess&ion:"), this);
    pickLabel->setBuddy(m_picker);
    top->addWidget(pickLabel);
    top->addWidget(m_picker);
    top->addStretch(1);
    layout->addLayout(top);

    m_summary = new QLabel(this);
    m_summary->setObjectName(QStringLiteral("conflictsSummary"));
    m_summary->setWordWrap(true);
    layout->addWidget(m_summary);

    m_files = new QTreeWidget(this);
    m_files->setObjectName(QStringLiteral("conflictsFiles"));
    m_files->setAccessibleName(tr("Files in conflict"));
    m_files->setHeaderLabels({tr("File"), tr("Conflict regions"), tr("State")});
    m_files->setRootIsDecorated(false);
    m_files->header()->setSectionResizeMode(0, QHeaderView::Stretch);
    layout->addWidget(m_files, 1);

    auto *buttons = new QHBoxLayout;
    m_open = new QPushButton(tr("Open in &editor"), this);
    m_open->setObjectName(QStringLiteral("conflictOpen"));
    m_resolve = new QPushButton(tr("Sync and leave &markers"), this);
    m_resolve->setObjectName(QStringLiteral("conflictResolve"));
    m_resolve->setToolTip(tr("Merge the workspace's newest save into this session, leaving git's conflict "
                             "markers in the files for you to edit"));
    m_finish = new QPushButton(tr("Save to &finish"), this);
    m_finish->setObjectName(QStringLiteral("conflictFinish"));
    m_finish->setToolTip(tr("Saves the session: completes the merge once no markers are left"));
    buttons->addWidget(m_open);
    buttons->addWidget(m_resolve);
    buttons->addWidget(m_finish);
    buttons->addStretch(1);
    layout->addLayout(buttons);

    connect(m_picker, &SessionPicker::sessionPicked, this, &ConflictsPage::reload);
    // Any session: the summary names the other sessions in conflict.
    connect(&m_sessions, &SessionsController::sessionUpdated, this, &ConflictsPage::reload);
    connect(m_files, &QTreeWidget::currentItemChanged, this, &ConflictsPage::reload);
    connect(m_open, &QPushButton::clicked, this, [this] {
        const SessionSnapshot *s = m_sessions.snapshot(m_picker->currentSession());
        if (s && m_files->currentItem())
            QDesktopServices::openUrl(QUrl::fromLocalFile(
                s->workTree + QLatin1Char('/') + m_files->currentItem()->data(0, Qt::UserRole).toString()));
    });
    connect(m_resolve, &QPushButton::clicked, this, [this] { m_sessions.sync(m_picker->currentSession(), true); });
    connect(m_finish, &QPushButton::clicked, this, [this] { m_sessions.save(m_picker->currentSession(), {}, {}); });
    reload();
}

void ConflictsPage::reload()
{
    const SessionSnapshot *s = m_sessions.snapshot(m_picker->currentSession());
    const QString current
        = m_files->currentItem() ? m_files->currentItem()->data(0, Qt::UserRole).toString() : QString();
    {
        const QSignalBlocker quiet(m_files);
        m_files->clear();
        if (s) {
            for (const api::ConflictedFile &f : s->conflicts) {
                auto *item = new QTreeWidgetItem(m_files);
                item->setText(0, f.path);
                item->setData(0, Qt::UserRole, f.path);
                const int left = s->regionsLeft.value(f.path, f.regions);
                item->setText(
                    1, s->resolveMode ? tr("%1 of %2 left").arg(left).arg(f.regions) : QString::number(f.regions));
                item->setText(2,
                    !s->resolveMode ? tr("not merged yet")
                        : left == 0 ? tr("resolved")
                                    : tr("markers in the file"));
                if (f.path == current)
                    m_files->setCurrentItem(item);
            }
            if (!m_files->currentItem() && m_files->topLevelItemCount())
                m_files->setCurrentItem(m_files->topLevelItem(0));
        }
    }
    const bool ready = s && s->state == api::SessionState::Ready && m_sessions.paired();
    if (!s || s->conflicts.isEmpty()) {
        // The badge is for every session: say which one it is about.
        QStringList elsewhere;
        for (const QString &id : m_sessions.sessionIds()) {
            const SessionSnapshot *other = m_sessions.snapshot(id);
            if (other && !other->conflicts.isEmpty())
                elsewhere << tr("%1 — %2").arg(other->workspaceName, id);
        }
        m_summary->setText(elsewhere.isEmpty() ? tr("No conflicts.")
                                               : tr("No conflicts in this session. Files are in conflict in: %1")
                                                     .arg(elsewhere.join(QStringLiteral(", "))));
    } else if (!s->resolveMode) {
        m_summary->setText(tr("%n file(s) conflict with the workspace's newest save. Nothing was changed: "
                              "\"Sync and leave markers\" merges it in and marks the conflicting regions in "
                              "the files.",
            nullptr, int(s->conflicts.size())));
    } else {
        m_summary->setText(tr("%1 of %2 files resolved. Edit the files to remove the conflict markers, then save to "
                              "finish the merge.")
                               .arg(m_sessions.resolvedCount(s->id))
                               .arg(s->conflicts.size()));
    }
    m_open->setEnabled(s && s->resolveMode && m_files->currentItem());
    m_open->setToolTip(m_open->isEnabled() ? QString() : tr("Sync and leave markers first, then choose a file"));
    m_resolve->setEnabled(ready && !s->conflicts.isEmpty() && !s->resolveMode);
    const bool allResolved = s && s->resolveMode && m_sessions.resolvedCount(s->id) == s->conflicts.size();
    m_finish->setEnabled(ready && allResolved);
    m_finish->setToolTip(m_finish->isEnabled() ? QString() : tr("Every file must be free of conflict markers first"));
}

} // namespace isolation
