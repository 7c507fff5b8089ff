// One session's repository (internal to the workspace module): its git dir and worktree, created on
// first open with the deterministic root commit, refs moved only by compare-and-swap, the author
// signature on the injected clock, and the nested-repository exclusions kept current.
#pragma once

#include "core/clock.h"
#include "core/result.h"
#include "gitsupport.h"
#include "nestedrepos.h"
#include "worktreewatch.h"

#include <QString>

#include <memory>
#include <optional>

namespace isolation {

class GitRepo
{
public:
    static constexpr const char *kMainRef = "refs/heads/main";
    static constexpr const char *kSessionPrefix = "refs/heads/session/";
    // What the hub last had, per branch: refs/heads/X is recorded as refs/isolation/hub/X.
    static constexpr const char *kHubPrefix = "refs/isolation/hub/";
    // main before an unpublished save's merge; present exactly while a save is in flight.
    static constexpr const char *kSaveBaseRef = "refs/isolation/save/base";

    // Opens the repository at `gitDir` with `workTree` as its worktree, creating both when absent:
    // main at the root commit, the session branch at main, HEAD on the session branch. Clears what
    // a killed process can leave behind (stale lock files, a merge already committed, temp dirs).
    static Result<std::unique_ptr<GitRepo>, WorkspaceError> open(
        const QString &gitDir, const QString &workTree, const QString &sessionId, const Clock &clock);

    // The deterministic root commit of an empty workspace, written into this repository.
    static Result<git_oid, WorkspaceError> writeRootCommit(git_repository *repo);
    // The empty tree, written into this repository if it is not there yet.
    static Result<git::TreePtr, WorkspaceError> emptyTree(git_repository *repo);
    static bool isValidSessionId(const QString &id);
    // Gives the repository at `gitDir` (not open anywhere), its worktree now at `workTree`, to
    // session `to`: its branch session/`from` becomes session/`to`, and HEAD follows. Done already
    // (HEAD on session/`to`, session/`from` gone) is success: a caller killed half-way calls it again.
    static Result<void, WorkspaceError> renameSession(
        const QString &gitDir, const QString &workTree, const QString &from, const QString &to);

    git_repository *get() const { return m_repo.get(); }
    const QString &gitDir() const { return m_gitDir; }
    const QString &workTree() const { return m_workTree; }
    const QString &sessionId() const { return m_sessionId; }
    QByteArray sessionRef() const { return kSessionPrefix + m_sessionId.toUtf8(); }
    // A scratch directory inside the git dir (same file system as objects/), removed on open.
    QString tempRoot() const;

    void setAuthor(const QString &name, const QString &email);
    Result<git::SignaturePtr, WorkspaceError> signature() const;

    // The object a direct ref names, or nullopt when the ref does not exist.
    Result<std::optional<git_oid>, WorkspaceError> target(const QByteArray &ref) const;
    // Moves `ref` to `to` if it still holds `expected` (nullopt: only if it does not exist yet).
    Result<void, WorkspaceError> moveRef(
        const QByteArray &ref, const git_oid &to, const std::optional<git_oid> &expected, const QString &why);
    // Deletes `ref` if it still holds `expected`; deleting an absent ref succeeds.
    Result<void, WorkspaceError> deleteRef(const QByteArray &ref, const git_oid &expected);
    // Every ref under `prefix` with its target, sorted by name.
    Result<QList<std::pair<QByteArray, git_oid>>, WorkspaceError> refsUnder(const QByteArray &prefix) const;

    // True when `ancestor` is `descendant` or one of its ancestors.
    Result<bool, WorkspaceError> isAncestor(const git_oid &ancestor, const git_oid &descendant) const;
    Result<git::CommitPtr, WorkspaceError> commit(const git_oid &id) const;
    // The repository's index (one object, shared with libgit2's checkouts and merges), as on disk:
    // read again when the file's checksum is not the one it was last read or written with (another
    // handle, a git in the sandbox, a killed save), kept otherwise (a one-file save does not parse
    // every entry again). Whoever changes it in memory and then fails before writing it calls
    // reloadIndex(), so what is kept is always what the disk has.
    Result<git::IndexPtr, WorkspaceError> index() const;
    // Drops the index's changes in memory: read again from the disk (after a failed checkout, merge
    // or commit).
    void reloadIndex() const;

    // Scans the worktree for nested repositories and installs them as in-memory ignore rules.
    Result<NestedRepos, WorkspaceError> refreshExclusions();
    // What the last refreshExclusions() found (its rules still installed); empty before the first.
    const std::optional<NestedRepos> &exclusions() const { return m_nested; }
    // The kernel's watch of the worktree that saves use to look at changed paths only (made on first use).
    WorktreeWatch &watch();

private:
    GitRepo() = default;
    Result<void, WorkspaceError> recover();
    Result<void, WorkspaceError> ensureBranches();

    git::RepositoryPtr m_repo;
    QString m_gitDir;
    QString m_workTree;
    QString m_sessionId;
    QString m_authorName = QStringLiteral("Isolation");
    QString m_authorEmail = QStringLiteral("workspace@isolation.invalid");
    const Clock *m_clock = nullptr;
    std::optional<NestedRepos> m_nested;
    std::unique_ptr<WorktreeWatch> m_watch;
};

} // namespace isolation
