// The tray's view of the sessions: each session's last known changes and conflicts, the
// operations the GUI started and how they ended, and the events that notify (another session
// saved first; a sync conflicts). Over the engine's LocalAPI (EngineModel: the records and their
// events; EngineClient: the calls); everything asynchronous.
#pragma once

#include "core/result.h"
#include "localapi/apirecords.h"

#include <QDateTime>
#include <QFileSystemWatcher>
#include <QHash>
#include <QJsonObject>
#include <QObject>
#include <QPointer>
#include <QStringList>

#include <functional>

namespace isolation {

class EngineModel;

struct SessionSnapshot
{
    QString id;
    QString workspaceName;
    QString workTree;
    api::SessionState state = api::SessionState::Opening;
    QString reason; // why Failed
    api::Progress progress;
    bool changesKnown = false;
    api::Changes changes;
    QDateTime lastSave; // local time of the last published save (invalid: none yet)
    // Set when a save found the hub moved on (412); cleared by a sync or a save that succeeds.
    bool movedOn = false;
    // Conflicts of the last sync; they stay until a sync or save succeeds. `resolveMode`: the
    // markers are in the worktree (sync --resolve); otherwise nothing was changed.
    QList<api::ConflictedFile> conflicts;
    bool resolveMode = false;
    QHash<QString, int> regionsLeft; // resolve mode: conflict regions still in each file
    quint64 markerScans = 0; // marker scans started; only the latest one's figures are taken
    QString lastError; // the last operation's failure, one line (empty: it went well)
    api::Sandbox sandbox; // state None: it has none
    // The session record's last save and sync already taken into the fields above.
    api::SaveOutcome seenSave;
    api::SyncOutcome seenSync;
};

class SessionsController final : public QObject
{
    Q_OBJECT
public:
    explicit SessionsController(EngineModel &engine, QObject *parent = nullptr);
    ~SessionsController() override;

    QStringList sessionIds() const { return m_order; }
    const SessionSnapshot *snapshot(const QString &id) const;
    bool paired() const;

    // Conflicts anywhere; a save found the hub moved on anywhere; an operation runs anywhere.
    bool anyConflict() const;
    bool anyMovedOn() const;
    bool anyWorking() const;
    // Files resolved so far (no markers left) out of the conflicted ones, for one session.
    int resolvedCount(const QString &id) const;

    // Starts a session on `workspace`; its id, chosen here so that its progress (and a Cancel,
    // while the start may be cancelled) can be followed before the answer: created() or
    // createFailed() follows.
    QString createSession(const QString &workspace);
    void refresh(const QString &id, bool askHub = false);
    void save(const QString &id, const QStringList &files, const QString &message);
    void sync(const QString &id, bool resolve);
    // Asks the session's running operation to stop where that is safe (progress.cancellable); the
    // operation's own answer then reports it (failed, with the engine's "cancelled" message).
    void cancel(const QString &id);
    // The session's sandbox: paused after saving what changed / running again.
    void suspend(const QString &id);
    void resume(const QString &id);
    // Finishes a session (its sandbox deleted, its worktree removed). Without `discard`, unsaved
    // work refuses it: `done` gets the refusal (InvalidInput) to ask the member about.
    void finish(const QString &id, bool discard, std::function<void(Result<void>)> done);
    // One file's diff against the session branch (unified, "" when none), computed by the engine.
    void diff(const QString &id, const QString &path, std::function<void(Result<api::FileDiff>)> done);

Q_SIGNALS:
    void sessionsChanged(); // a session appeared or went
    void sessionUpdated(const QString &id);
    void badgeChanged(); // anyConflict/anyMovedOn/anyWorking may have changed
    void created(const QString &id);
    void createFailed(const QString &message);
    void saved(const QString &id, const isolation::api::SaveOutcome &report);
    void synced(const QString &id, const isolation::api::SyncOutcome &report);
    // Another session saved first: nothing of this save reached the hub; the work is kept.
    void movedOn(const QString &id, const QString &workspace);
    // A sync conflicts; `files` with their regions.
    void conflicted(const QString &id, const QString &workspace, const QList<isolation::api::ConflictedFile> &files);
    void failed(const QString &id, const QString &operation, const QString &message);

private:
    void reset();
    void track(const api::Session &session);
    void update(const QString &id);
    void forget(const QString &id);
    void scanMarkers(const QString &id);
    // Takes a save or sync that ended (from the tray, the command line, anything) into the
    // snapshot from the session's record: badges, and each event notified once. What ended
    // before this tray looked sets the badges but is no news (`notify` false).
    void takeOutcomes(const api::Session &session);
    void takeSave(SessionSnapshot &snap, const api::SaveOutcome &save, bool notify);
    void takeSync(SessionSnapshot &snap, const api::SyncOutcome &sync, bool notify);
    SessionSnapshot *snapshotOf(const QString &id);
    void setError(const QString &id, const QString &operation, const QString &message);
    static void clearConflicts(SessionSnapshot &snap);
    static QString sessionPath(const QString &id, const QString &rest = {});

    EngineModel &m_engine;
    // Files with markers in the worktree: an edit rescans them (no polling).
    QFileSystemWatcher *m_watcher = nullptr;
    QStringList m_order;
    QHash<QString, SessionSnapshot> m_snapshots;
};

} // namespace isolation
