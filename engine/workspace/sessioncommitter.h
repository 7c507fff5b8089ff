// Save step 1: commits the worktree's changes (all, or only a selection) onto the session branch,
// completing a merge left in progress by `sync --resolve`. Nested repositories never enter a commit.
#pragma once

#include "core/result.h"
#include "workspacetypes.h"

#include <QStringList>

namespace isolation {

class GitRepo;

class SessionCommitter
{
public:
    explicit SessionCommitter(GitRepo &repo)
        : m_repo(repo)
    { }

    // `selection`: worktree-relative files or directories; empty means everything that changed.
    // Unselected changes stay in the worktree, uncommitted. A merge in progress always takes
    // its conflicted paths as they are in the worktree. Order: index written, commit written,
    // branch moved (compare-and-swap), merge state cleared — each redone safely after a kill.
    Result<CommitResult, WorkspaceError> commit(const QStringList &selection, const QString &message);

    // Cleans a selection: relative, no "..", no trailing '/'. Empty on a path outside the worktree.
    static std::optional<QStringList> normalize(const QStringList &selection);

private:
    GitRepo &m_repo;
};

} // namespace isolation
