// The workspace module: one session's git data through libgit2 — the session branch off main, save
// (commit, merge into main, segment), sync (apply segments, merge main in), changes and export.
// Synchronous and not thread-safe: one Workspace per session, used by one thread at a time.
#pragma once

#include "core/clock.h"
#include "core/result.h"
#include "filediff.h"
#include "workspaceerror.h"
#include "workspacetypes.h"

#include <QStringList>

#include <atomic>
#include <memory>

class QIODevice;

namespace isolation {

class GitRepo;

class Workspace
{
public:
    // The root commit every empty workspace starts from: empty tree, author and committer
    // "Isolation <workspace@isolation.invalid>" at 2024-01-01T00:00:00Z, "Isolation workspace root\n".
    static constexpr const char *kRootCommitId = "fa31a8095d575bf276070d55ec2dd2fd7b522dc8";

    // Opens (creating when absent) the session's repository: git data in `gitDir`, files in `workTree`
    // (neither inside the other). A new repository gets main at the root commit and
    // session/<sessionId> at main, HEAD on it. Recovers what a killed process left (see docs/workspace.md).
    // Commit times come from `clock`, which must outlive the Workspace.
    static Result<std::unique_ptr<Workspace>, WorkspaceError> open(
        const QString &gitDir, const QString &workTree, const QString &sessionId, const Clock &clock);
    // Hands a closed repository built for session `from` to session `to` (see GitRepo::renameSession):
    // a spare repository, checked out ahead of time, becomes a new session's without a file written.
    static Result<void, WorkspaceError> renameSession(
        const QString &gitDir, const QString &workTree, const QString &from, const QString &to);
    ~Workspace();
    Workspace(const Workspace &) = delete;
    Workspace &operator=(const Workspace &) = delete;

    QString sessionId() const;
    QString gitDir() const;
    QString workTree() const;
    // The author and committer of new commits (default "Isolation <workspace@isolation.invalid>").
    void setAuthor(const QString &name, const QString &email);

    // --- Save, one step at a time; each step is safe to redo after a kill.
    // 1. Commits `selection` (worktree-relative files or directories; empty: every change) on the
    //    session branch; unselected changes stay uncommitted. Completes a merge in progress.
    Result<CommitResult, WorkspaceError> commit(const QStringList &selection = {}, const QString &message = {});
    // 2. Merges the session branch into main with a merge commit; when that merge changed no file of
    //    the session, the session branch takes it too (not "behind" its own save). Conflict ("sync
    //    first") changes nothing.
    Result<MergeResult, WorkspaceError> mergeIntoMain();
    // 3. Writes the segment for the hub to `out`: a bundle of main and every session branch, thin
    //    against what the hub has (full when it has nothing, or when `kind` is Full: a compacting
    //    save). Nothing written when the hub is current. A thin segment with `over` (commits of an
    //    earlier segment of the chain) is thin against those instead: a roll-up replacing the
    //    segments after them (NotFound when one of them is not here).
    Result<SegmentResult, WorkspaceError> writeSegment(
        QIODevice &out, SegmentKind kind = SegmentKind::Thin, const QList<QByteArray> &over = {});
    // While set, writing a segment or bundle stops (Failed, "cancelled") soon after `*cancel` turns
    // true: the caller's Cancel. Set and cleared on the thread that uses the Workspace.
    void setCancel(const std::atomic<bool> *cancel) { m_cancel = cancel; }
    // 4a. The caller stored the segment: the hub now has its refs.
    Result<void, WorkspaceError> markPublished(const SegmentResult &segment);
    // 4b. The store refused (412): main goes back to before step 2; the session branch keeps the work
    //     (back on its own commit if it had taken the merge).
    Result<void, WorkspaceError> undoMerge();
    // True between step 2 and 4a/4b, also across restarts: finish (3, 4a) or undo (4b).
    Result<bool, WorkspaceError> savePending() const;
    // Checks the session branch out into a worktree deleted from the disk (made again, every file
    // written, the index matching the branch).
    Result<void, WorkspaceError> restoreWorkTree();

    // --- Sync
    // Reads one segment (a bundle) from `in`: objects added, the hub's branches recorded, main set
    // to the hub's main, other sessions' branches taken. NotFound: an earlier segment is missing;
    // Corrupt: not a valid bundle. A refused bundle changes nothing.
    Result<ApplyResult, WorkspaceError> applyBundle(QIODevice &in);
    // Takes `refs` (main, session/*) as the hub's branches, exactly as applyBundle() does after
    // reading a segment, for objects that arrived another way (linked from the warm cache). Every
    // ref must name a commit this repository has (Corrupt otherwise; nothing moves then).
    Result<ApplyResult, WorkspaceError> adoptHubRefs(const QList<BundleRef> &refs);
    // The branches the hub has as last recorded (refs/heads/... names), sorted by name.
    Result<QList<BundleRef>, WorkspaceError> hubRefs() const;
    // Merges main into the session branch (see ConflictMode); conflicts are listed with their regions.
    // `progress` follows the files written when a fast-forward fills an empty worktree.
    Result<SyncResult, WorkspaceError> mergeMainIntoSession(
        ConflictMode mode = ConflictMode::Stop, const CheckoutProgress &progress = {});

    // --- Changes
    Result<WorkspaceChanges, WorkspaceError> changes();
    // One file's change against the session branch, as a unified diff of at most `maxBytes`.
    Result<FileDiff, WorkspaceError> diff(const QString &path, qsizetype maxBytes = 256 * 1024);

    // --- Export
    // The whole workspace as one full bundle (HEAD, main, every session branch): `git clone` reads it.
    Result<SegmentResult, WorkspaceError> exportBundle(QIODevice &out);
    // main's files as a .tar.gz: `definition` (when given) as definition.json, the files under
    // tree/, every credential (CredentialFilter) left out and listed in the result.
    Result<TreeExportResult, WorkspaceError> exportTree(QIODevice &out, const QByteArray &definition = {});

    // The commit a ref names ("main", "session", or a full ref name), empty when it does not exist.
    Result<QByteArray, WorkspaceError> refId(const QByteArray &ref) const;

private:
    explicit Workspace(std::unique_ptr<GitRepo> repo);
    Result<SegmentResult, WorkspaceError> writeBundle(
        QIODevice &out, bool full, bool skipWhenCurrent, const QList<QByteArray> &over = {});

    std::unique_ptr<GitRepo> m_repo;
    const std::atomic<bool> *m_cancel = nullptr;
};

} // namespace isolation
