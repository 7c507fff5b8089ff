// The tray's view of the sessions: each session's last known changes and conflicts, the
// operations the GUI started and how they ended, and the events that notify (another session
// saved first; a sync conflicts). Over the Engine's SessionManager; everything asynchronous.
#pragma once

#include "core/result.h"
#include "sessions/sessionerror.h"
#include "sessions/sessionreports.h"
#include "sessions/sessionstate.h"
#include "workspace/filediff.h"

#include <QDateTime>
#include <QFileSystemWatcher>
#include <QHash>
#include <QJsonObject>
#include <QObject>
#include <QPointer>
#include <QStringList>

#include <functional>

namespace isolation {

class Engine;
class Session;
class SessionManager;

struct SessionSnapshot
{
    QString id;
    QString workspaceName;
    QString workTree;
    SessionState state = SessionState::Opening;
    QString reason; // why Failed
    SessionProgress progress;
    bool changesKnown = false;
    WorkspaceChanges changes;
    QDateTime lastSave; // local time of the last published save (invalid: none yet)
    // Set when a save found the hub moved on (412); cleared by a sync or a save that succeeds.
    bool movedOn = false;
    // Conflicts of the last sync; they stay until a sync or save succeeds. `resolveMode`: the
    // markers are in the worktree (sync --resolve); otherwise nothing was changed.
    QList<ConflictedFile> conflicts;
    bool resolveMode = false;
    QHash<QString, int> regionsLeft; // resolve mode: conflict regions still in each file
    QString lastError; // the last operation's failure, one line (empty: it went well)
    QString sandboxState; // the session's sandbox ("running", "paused", ...); empty: it has none
    // The session record's last save and sync already taken into the fields above.
    QJsonObject seenSave;
    QJsonObject seenSync;
};

class SessionsController final : public QObject
{
    Q_OBJECT
public:
    explicit SessionsController(Engine &engine, QObject *parent = nullptr);
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

    void createSession(const QString &workspace);
    void refresh(const QString &id, bool askHub = false);
    void save(const QString &id, const QStringList &files, const QString &message);
    void sync(const QString &id, bool resolve);
    // The session's sandbox: paused after saving what changed / running again.
    void suspend(const QString &id);
    void resume(const QString &id);
    // Finishes a session (its sandbox deleted, its worktree removed). Without `discard`, unsaved
    // work refuses it: `done` gets the refusal (InvalidInput) to ask the member about.
    void finish(const QString &id, bool discard, std::function<void(Result<void>)> done);
    // One file's diff against the session branch (unified, "" when none), computed off the GUI thread.
    void diff(const QString &id, const QString &path, std::function<void(Result<FileDiff, SessionError>)> done);

Q_SIGNALS:
    void sessionsChanged(); // a session appeared or went
    void sessionUpdated(const QString &id);
    void badgeChanged(); // anyConflict/anyMovedOn/anyWorking may have changed
    void created(const QString &id);
    void createFailed(const QString &message);
    void saved(const QString &id, const isolation::SaveReport &report);
    void synced(const QString &id, const isolation::SyncReport &report);
    // Another session saved first: nothing of this save reached the hub; the work is kept.
    void movedOn(const QString &id, const QString &workspace);
    // A sync conflicts; `files` with their regions.
    void conflicted(const QString &id, const QString &workspace, const QList<isolation::ConflictedFile> &files);
    void failed(const QString &id, const QString &operation, const QString &message);

private:
    void bind();
    void track(Session *session);
    void update(Session *session);
    void scanMarkers(const QString &id);
    // Takes a save or sync that ended (from the tray, the command line, anything) into the
    // snapshot from the session's record: badges, and each event notified once.
    void takeOutcomes(Session *session);
    void takeSave(SessionSnapshot &snap, const QJsonObject &save);
    void takeSync(SessionSnapshot &snap, const QJsonObject &sync);
    SessionSnapshot *snapshotOf(const QString &id);
    Session *sessionOf(const QString &id) const;
    void setError(const QString &id, const QString &operation, const SessionError &error);
    static void clearConflicts(SessionSnapshot &snap);

    Engine &m_engine;
    QPointer<SessionManager> m_manager;
    // Files with markers in the worktree: an edit rescans them (no polling).
    QFileSystemWatcher *m_watcher = nullptr;
    QStringList m_order;
    QHash<QString, SessionSnapshot> m_snapshots;
};

} // namespace isolation
