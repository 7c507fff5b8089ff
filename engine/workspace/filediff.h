// One file's change in a session's worktree against the session branch, as a unified diff, for
// the tray's preview (libgit2; untracked files show whole; binary files say so).
#pragma once

#include "core/result.h"
#include "workspaceerror.h"

#include <QString>

namespace isolation {

class GitRepo;

struct FileDiff
{
    QString text; // unified diff ("" when the file has no change)
    bool binary = false;
    bool truncated = false; // longer than asked for: `text` is the start
};

// The diff of `path` (worktree-relative) from the session branch's tip to the worktree.
Result<FileDiff, WorkspaceError> fileDiff(GitRepo &repo, const QString &path, qsizetype maxBytes);

} // namespace isolation
