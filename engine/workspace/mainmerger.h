// Save step 2 and its undo: merges the session branch into main with a merge commit (never a
// fast-forward), remembering main's previous value until the save is published or undone.
#pragma once

#include "core/result.h"
#include "workspacetypes.h"

#include <git2/oid.h>

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
    // When the merge changed no file of the session (main had not moved since the last sync), the
    // session branch takes it too, as the next sync would: the session is not "behind" its own save.
    Result<MergeResult, WorkspaceError> merge();

    // Moves main back to the recorded base (compare-and-swap) and forgets it; a session branch that
    // took the merge goes back to its own tip (the merge's second parent, the same files). Nothing
    // to undo is success.
    Result<void, WorkspaceError> undo();

    // True while a merge into main is neither published nor undone (also after a kill).
    Result<bool, WorkspaceError> pending() const;

private:
    // Moves the session branch from `session` to `main` when `main` is this session's merge of
    // `session` with the same tree; true when it moved.
    Result<bool, WorkspaceError> takeMerge(const git_oid &main, const git_oid &session);

    GitRepo &m_repo;
};

} // namespace isolation
