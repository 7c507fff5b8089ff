// Save step 2 and its undo: merges the session branch into main with a merge commit (never a
// fast-forward), remembering main's previous value until the save is published or undone.
#pragma once

#include "core/result.h"
#include "workspacetypes.h"

namespace isolation {

class GitRepo;

class MainMerger
{
public:
    explicit MainMerger(GitRepo &repo)
        : m_repo(repo)
    { }

    // Conflict ("sync first") when main and the session branch conflict, or while a merge from
    // `sync --resolve` is still in progress; nothing changes then. Records main's value before the
    // first unpublished merge in refs/isolation/save/base, then moves main (compare-and-swap).
    Result<MergeResult, WorkspaceError> merge();

    // Moves main back to the recorded base (compare-and-swap) and forgets it. The session branch is
    // not touched. Nothing to undo is success.
    Result<void, WorkspaceError> undo();

    // True while a merge into main is neither published nor undone (also after a kill).
    Result<bool, WorkspaceError> pending() const;

private:
    GitRepo &m_repo;
};

} // namespace isolation
