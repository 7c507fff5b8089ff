// sessions: spare sessions — per cached workspace, one session directory checked out ahead of time
// at DATA/spares/<workspace>/ (git/, workspace/ and spare.json: a session's own layout), built in the
// background from the warm cache after saves and syncs. A new session takes it whole with one
// rename — no file written — so a warm start costs what a sync of what is new costs, not a checkout
// of every file. Disposable like the cache: deleting a spare loses nothing. See docs/workspace.md.
#pragma once

#include "core/clock.h"
#include "core/result.h"
#include "workspace/workspaceerror.h"

#include <QDateTime>
#include <QMutex>
#include <QString>

#include <optional>

namespace isolation {

class WarmCache;

struct Spare
{
    QString workspaceId;
    QString placeholder; // the session id the spare was built for (its branch until taken)
    QByteArray etag; // the manifest of the cache it was built from
    qint64 generation = 0;
    QByteArray main; // main's commit
    qint64 bytes = 0; // its files (objects hard-linked with the cache counted in full)
    QDateTime built;
};

class SparePool
{
public:
    static constexpr const char *kMarker = "spare.json";

    // Spares live in `dir` (DATA/spares: the same file system as DATA/sessions, for the rename).
    explicit SparePool(QString dir);
    SparePool(const SparePool &) = delete;
    SparePool &operator=(const SparePool &) = delete;

    QString directory() const { return m_dir; }
    // The ready spare of a workspace. Thread-safe, cheap (spare.json read).
    std::optional<Spare> spare(const QString &workspaceId) const;
    // Moves the ready spare of `workspaceId` to `sessionDir` (which must not exist yet) by one rename.
    // nullopt when there is none (or the rename failed: the caller builds the session as usual).
    // Thread-safe and quick: fine on the GUI thread.
    std::optional<Spare> take(const QString &workspaceId, const QString &sessionDir);
    // Builds the spare of `workspaceId` from the warm cache when the cache is newer than the spare
    // (or there is none); true when one was built. Blocks on the cache's lease and checks out every
    // file: worker threads only. Built aside and swapped in, so a kill leaves the old spare or the new.
    Result<bool, WorkspaceError> prepare(WarmCache &cache, const QString &workspaceId, const Clock &clock);
    // Deletes one workspace's spare (what a kill left half-built goes with the next prepare()).
    void remove(const QString &workspaceId);

    // For a new session's directory made from a spare (spare.json in it): renames the spare's branch
    // to the session's and deletes spare.json. nullopt when the directory was not a spare. Safe to
    // call again after a kill at any point. Worker threads (it opens the repository).
    static Result<std::optional<Spare>, WorkspaceError> claim(const QString &sessionDir, const QString &sessionId);

private:
    QString spareDir(const QString &workspaceId) const;
    // prepare()'s last step: the built directory renamed into place (the previous spare moved
    // aside, then deleted). False when a rename failed.
    bool install(const QString &workspaceId, const QString &build, QString *why);
    static std::optional<Spare> read(const QString &markerPath);

    QString m_dir;
    mutable QMutex m_mutex; // the renames into and out of m_dir
};

} // namespace isolation
