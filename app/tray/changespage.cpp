#include "changespage.h"

#include "diffview.h"
#include "sessionpicker.h"
#include "sessionscontroller.h"
#include "sessionspage.h"

#include <QFontDatabase>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QLocale>
#include <QPointer>
#include <QProgressBar>
#include <QPushButton>
#include <QSplitter>
#include <QTreeWidget>
#include <QVBoxLayout>

#include <algorithm>

namespace isolation {

QString fileStatusText(int status)
{
    switch (api::FileStatus(status)) {
    case api::FileStatus::Added:
        return ChangesPage::tr("added");
    case api::FileStatus::Modified:
        return ChangesPage::tr("modified");
    case api::FileStatus::Deleted:
        return ChangesPage::tr("deleted");
    case api::FileStatus::Renamed:
        return ChangesPage::tr("renamed");
    case api::FileStatus::TypeChange:
        return ChangesPage::tr("type changed");
    case api::FileStatus::Conflicted:
        return ChangesPage::tr("in conflict");
    case api::FileStatus::Untracked:
        return ChangesPage::tr("new");
    }
    return {};
}

ChangesPage::ChangesPage(SessionsController &sessions, QWidget *parent)
    : QWidget(parent)
    , m_sessions(sessions)
{
    build();
    wire();
    reload();
}

void ChangesPage::build()
{
    setObjectName(QStringLiteral("changesTab"));
    auto *layout = new QVBoxLayout(this);
    auto *top = new QHBoxLayout;
    m_picker = new SessionPicker(m_sessions, this);
    m_picker->setObjectName(QStringLiteral("changesSession"));
    auto *pickLabel = new QLabel(tr("Sess&ion:"), this);
    pickLabel->setBuddy(m_picker);
    m_refresh = new QPushButton(tr("Re&fresh"), this);
    m_refresh->setObjectName(QStringLiteral("changesRefresh"));
    m_refresh->setToolTip(tr("Look at the files again and ask the hub whether the workspace moved on"));
    top->addWidget(pickLabel);
    top->addWidget(m_picker);
    top->addStretch(1);
    top->addWidget(m_refresh);
    layout->addLayout(top);

    m_summary = new QLabel(this);
    m_summary->setObjectName(QStringLiteral("changesSummary"));
    layout->addWidget(m_summary);

    auto *split = new QSplitter(Qt::Horizontal, this);
    m_files = new QTreeWidget(split);
    m_files->setObjectName(QStringLiteral("changesFiles"));
    m_files->setAccessibleName(tr("Changed files"));
    m_files->setHeaderLabels({tr("File"), tr("Status")});
    m_files->setRootIsDecorated(false);
    m_files->header()->setSectionResizeMode(0, QHeaderView::Stretch);
    m_files->header()->setSectionResizeMode(1, QHeaderView::ResizeToContents);
    m_diff = new DiffView(split);
    m_diff->setObjectName(QStringLiteral("changesDiff"));
    m_diff->setAccessibleName(tr("Diff of the chosen file"));
    m_diff->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    split->setStretchFactor(0, 1);
    split->setStretchFactor(1, 2);
    layout->addWidget(split, 1);

    auto *message = new QHBoxLayout;
    m_message = new QLineEdit(this);
    m_message->setObjectName(QStringLiteral("changesMessage"));
    m_message->setPlaceholderText(tr("What changed (optional)"));
    auto *messageLabel = new QLabel(tr("&Message:"), this);
    messageLabel->setBuddy(m_message);
    message->addWidget(messageLabel);
    message->addWidget(m_message, 1);
    layout->addLayout(message);

    auto *buttons = new QHBoxLayout;
    m_saveSelected = new QPushButton(tr("Save s&elected"), this);
    m_saveSelected->setObjectName(QStringLiteral("saveSelected"));
    m_saveAll = new QPushButton(tr("Save a&ll"), this);
    m_saveAll->setObjectName(QStringLiteral("saveAll"));
    m_progress = new QProgressBar(this);
    m_progress->setObjectName(QStringLiteral("saveProgress"));
    m_progress->setRange(0, 0);
    m_progress->setTextVisible(true);
    m_progress->hide();
    m_cancel = new QPushButton(tr("Ca&ncel"), this);
    m_cancel->setObjectName(QStringLiteral("saveCancel"));
    m_cancel->hide();
    buttons->addWidget(m_saveSelected);
    buttons->addWidget(m_saveAll);
    buttons->addWidget(m_progress, 1);
    buttons->addWidget(m_cancel);
    layout->addLayout(buttons);
    m_why = new QLabel(this);
    m_why->setObjectName(QStringLiteral("changesWhy"));
    m_why->setWordWrap(true);
    layout->addWidget(m_why);
}

// What the picker, the list and the buttons do, and how the controller's answers are shown.
void ChangesPage::wire()
{
    connect(m_picker, &SessionPicker::sessionPicked, this, [this] {
        reload();
        m_sessions.refresh(m_picker->currentSession());
    });
    connect(&m_sessions, &SessionsController::sessionUpdated, this, [this](const QString &id) {
        if (id == m_picker->currentSession())
            reload();
    });
    connect(m_refresh, &QPushButton::clicked, this, [this] { m_sessions.refresh(m_picker->currentSession(), true); });
    connect(m_files, &QTreeWidget::itemChanged, this, &ChangesPage::updateActions);
    connect(m_files, &QTreeWidget::currentItemChanged, this, &ChangesPage::showDiff);
    connect(m_saveSelected, &QPushButton::clicked, this, [this] { save(true); });
    connect(m_saveAll, &QPushButton::clicked, this, [this] { save(false); });
    connect(m_cancel, &QPushButton::clicked, this, [this] {
        const SessionSnapshot *s = m_sessions.snapshot(m_picker->currentSession());
        if (!s || !s->progress.cancellable)
            return;
        m_cancelAsked = s->id + QLatin1Char('/') + s->progress.operation;
        m_sessions.cancel(s->id);
        reload();
    });
    connect(&m_sessions, &SessionsController::saved, this, [this](const QString &id, const api::SaveOutcome &report) {
        if (id != m_picker->currentSession())
            return;
        m_message->clear();
        m_why->setText(report.published ? tr("Saved.") : tr("Nothing to save."));
        m_whyIsReason = false;
    });
    connect(&m_sessions, &SessionsController::failed, this,
        [this](const QString &id, const QString &, const QString &message) {
            if (id == m_picker->currentSession()) {
                m_why->setText(message);
                m_whyIsReason = false;
            }
        });
    connect(&m_sessions, &SessionsController::movedOn, this, [this](const QString &id) {
        if (id == m_picker->currentSession()) {
            m_why->setText(tr("Another session saved first. Your work is kept here: sync, then save again."));
            m_whyIsReason = false;
        }
    });
}

QStringList ChangesPage::checkedFiles() const
{
    QStringList files;
    for (int i = 0; i < m_files->topLevelItemCount(); ++i) {
        QTreeWidgetItem *item = m_files->topLevelItem(i);
        if (item->checkState(0) == Qt::Checked)
            files << item->data(0, Qt::UserRole).toString();
    }
    return files;
}

void ChangesPage::reload()
{
    const SessionSnapshot *s = m_sessions.snapshot(m_picker->currentSession());
    // Keep what the member ticked across refreshes.
    QSet<QString> unticked;
    QString current = m_files->currentItem() ? m_files->currentItem()->data(0, Qt::UserRole).toString() : QString();
    for (int i = 0; i < m_files->topLevelItemCount(); ++i) {
        QTreeWidgetItem *item = m_files->topLevelItem(i);
        if (item->checkState(0) != Qt::Checked)
            unticked.insert(item->data(0, Qt::UserRole).toString());
    }
    {
        const QSignalBlocker quiet(m_files);
        m_files->clear();
        if (s && s->changesKnown) {
            for (const api::FileChange &f : s->changes.files) {
                auto *item = new QTreeWidgetItem(m_files);
                item->setText(
                    0, f.status == api::FileStatus::Renamed ? tr("%1 (from %2)").arg(f.path, f.oldPath) : f.path);
                item->setData(0, Qt::UserRole, f.path);
                item->setText(1, fileStatusText(int(f.status)));
                item->setFlags(item->flags() | Qt::ItemIsUserCheckable);
                item->setCheckState(0, unticked.contains(f.path) ? Qt::Unchecked : Qt::Checked);
                if (f.path == current)
                    m_files->setCurrentItem(item);
            }
        }
    }
    if (!s)
        m_summary->setText(tr("No session: start one on the Sessions tab."));
    else if (!s->changesKnown)
        m_summary->setText(tr("Looking at the files…"));
    else
        m_summary->setText(
            tr("%1 changed files; %2 commits ahead of main, %3 behind%4")
                .arg(s->changes.files.size())
                .arg(s->changes.ahead)
                .arg(s->changes.behind)
                .arg(s->changes.mergeInProgress ? tr("; a merge is in progress (save completes it)") : QString()));
    const bool working = s
        && (s->state == api::SessionState::Saving || s->state == api::SessionState::Syncing
            || s->state == api::SessionState::Opening);
    m_progress->setVisible(working);
    m_cancel->setVisible(working);
    if (!working)
        m_cancelAsked.clear();
    if (working) {
        // Cancel where the engine can stop the operation and undo it (not while it publishes);
        // once asked, the button waits for the operation to end.
        const bool asked = m_cancelAsked == s->id + QLatin1Char('/') + s->progress.operation;
        m_cancel->setText(asked ? tr("Cancelling…") : tr("Ca&ncel"));
        m_cancel->setEnabled(!asked && s->progress.cancellable);
        if (asked)
            m_cancel->setToolTip(tr("Stopping at the next safe point; what was done is undone"));
        else if (s->progress.cancellable && s->state == api::SessionState::Opening)
            m_cancel->setToolTip(tr("Stop it: the new session is removed"));
        else if (s->progress.cancellable)
            m_cancel->setToolTip(tr("Stop it: nothing is published, and your work stays on the session"));
        else
            m_cancel->setToolTip(tr("It cannot be stopped now: wait for it to end"));
        // Bytes of the phase when the engine knows its total (upload, download); else it moves.
        const api::Progress &p = s->progress;
        const QString phase = s->id + QLatin1Char('/') + p.operation + QLatin1Char('/') + p.phase;
        if (phase != m_ratePhase) {
            m_ratePhase = phase;
            m_rate.reset();
        }
        if (!m_clock.isValid())
            m_clock.start();
        m_rate.add(m_clock.elapsed(), p.bytes);
        QString text = sessionStateText(*s);
        if (p.totalBytes > 0) {
            // Per mille: QProgressBar counts in int, a phase may move more than 2 GiB.
            m_progress->setRange(0, 1000);
            m_progress->setValue(int(std::clamp<qint64>(p.bytes * 1000 / p.totalBytes, 0, 1000)));
            // The state text has the phase and its bytes of the total (sessionStateText); then the
            // rate and the time left, as the command line's progress line shows them.
            const QLocale locale;
            if (const double rate = m_rate.bytesPerSecond(); rate > 0) {
                text += tr(", %1/s").arg(locale.formattedDataSize(qint64(rate)));
                if (const qint64 left = m_rate.secondsLeft(p.bytes, p.totalBytes); left >= 0)
                    text += tr(", %1 left")
                                .arg(QStringLiteral("%1:%2").arg(left / 60).arg(left % 60, 2, 10, QLatin1Char('0')));
            }
        } else {
            m_progress->setRange(0, 0);
        }
        m_progress->setFormat(text);
    }
    updateActions();
}

void ChangesPage::updateActions()
{
    const SessionSnapshot *s = m_sessions.snapshot(m_picker->currentSession());
    const int checked = int(checkedFiles().size());
    QString whyAll;
    if (!s)
        whyAll = tr("Choose a session first");
    else if (s->state != api::SessionState::Ready)
        whyAll = tr("The session is busy: %1").arg(sessionStateText(*s));
    else if (!m_sessions.paired())
        whyAll = tr("Pair this computer first: saving needs the hub");
    else if (s->changesKnown && s->changes.files.isEmpty() && s->changes.ahead == 0)
        whyAll = tr("Nothing to save: no file changed");
    QString whySelected = whyAll;
    if (whySelected.isEmpty() && checked == 0)
        whySelected = tr("Tick the files to save");
    m_saveAll->setEnabled(whyAll.isEmpty());
    m_saveAll->setToolTip(whyAll);
    m_saveSelected->setEnabled(whySelected.isEmpty());
    m_saveSelected->setToolTip(whySelected);
    m_saveSelected->setText(checked ? tr("Save s&elected (%1)").arg(checked) : tr("Save s&elected"));
    m_refresh->setEnabled(s && s->state == api::SessionState::Ready);
    // The line under the buttons says why they are disabled, unless it reports what just happened.
    if (!whySelected.isEmpty() && (!s || s->lastError.isEmpty())) {
        m_why->setText(whySelected);
        m_whyIsReason = true;
    } else if (whySelected.isEmpty() && m_whyIsReason) {
        m_why->clear();
        m_whyIsReason = false;
    }
}

void ChangesPage::showDiff()
{
    QTreeWidgetItem *item = m_files->currentItem();
    if (!item) {
        m_diff->setMessage({});
        return;
    }
    const QString path = item->data(0, Qt::UserRole).toString();
    const int request = ++m_diffRequest;
    m_diff->setMessage(tr("Reading %1…").arg(path));
    QPointer<ChangesPage> self(this);
    m_sessions.diff(m_picker->currentSession(), path, [self, request, path](Result<api::FileDiff> d) {
        if (!self || request != self->m_diffRequest)
            return;
        if (!d) {
            self->m_diff->setMessage(tr("No diff of %1: %2").arg(path, d.error().message));
            return;
        }
        if (d.value().binary) {
            self->m_diff->setMessage(tr("%1 is a binary file.").arg(path));
            return;
        }
        self->m_diff->setDiff(
            d.value().text, d.value().truncated ? tr("(the diff goes on; only its start is shown)") : QString());
    });
}

void ChangesPage::save(bool selectedOnly)
{
    const QString id = m_picker->currentSession();
    const QStringList files = selectedOnly ? checkedFiles() : QStringList();
    m_why->setText(selectedOnly ? tr("Saving %n file(s)…", nullptr, int(files.size())) : tr("Saving every change…"));
    m_whyIsReason = false;
    m_sessions.save(id, files, m_message->text().trimmed());
}

} // namespace isolation
