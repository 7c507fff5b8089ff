// Checks a commit out into an empty worktree from several threads (internal to the workspace
// module): every file written as libgit2's checkout writes it (line-ending and ident filters from
// the commit's .gitattributes, modes, symbolic links), then the index with each file's stat data,
// so that status trusts them without reading a file again. Only where every file is new; anything
// else (a file or an index entry already there, a submodule, a name checkout treats specially) is
// left to libgit2's checkout.
#pragma once

#include "core/result.h"
#include "workspaceerror.h"
#include "workspacetypes.h"

#include <git2/types.h>

#include <cstddef>

namespace isolation {

class GitRepo;

class WorktreeWriter
{
public:
    // Progress: after the first file, then at most every kProgressMs, on the calling thread; and
    // (total, total) once everything is written.
    static constexpr int kProgressMs = 100;
    static constexpr int kMaxThreads = 8;
    static constexpr size_t kFilesPerThread = 64; // fewer files per thread are not worth one
    // A thread's turn: the files of one directory, at most this many. Two threads creating files
    // in one directory take turns at its lock (a file system's inode allocation is done under
    // it): 22 % of a checkout's samples spinning on it, files handed out one at a time.
    static constexpr size_t kFilesPerTurn = 256;
    // A blob is read whole (with the base of its delta) to be written: files from kLargeFileBytes
    // up share kLargeFilesBudget between the threads, a larger one goes alone. Two threads on two
    // of the kernel source's 16-24 MB headers at once made a restore's peak (docs/workspace.md).
    static constexpr qint64 kLargeFileBytes = qint64(1) << 20;
    static constexpr qint64 kLargeFilesBudget = qint64(16) << 20;

    explicit WorktreeWriter(GitRepo &repo)
        : m_repo(repo)
    { }

    // Writes `commit`'s tree into the worktree when the worktree has no entry, the index none, and
    // the session branch's tree is empty (a session filled from nothing). false: nothing was
    // written, libgit2's checkout must do it. The files go to a scratch directory in the git dir
    // first and into the worktree by one rename per top-level entry, so a kill leaves no file
    // half-written in the worktree (the scratch directory is removed when the repository is opened).
    Result<bool, WorkspaceError> writeFresh(const git_oid &commit, const CheckoutProgress &progress = {});

private:
    GitRepo &m_repo;
};

} // namespace isolation
