// Sync's merge: brings main into the session branch. A clean merge is committed and checked out;
// on conflict it either changes nothing and reports, or leaves git's markers and the merge in
// progress for the next save to complete. Uncommitted changes in the way stop it, changing nothing.
#pragma once

#include "core/result.h"
#include "workspacetypes.h"

#include <QByteArray>

#include <git2/types.h>

namespace isolation {

class GitRepo;

class SessionSync
{
public:
    explicit SessionSync(GitRepo &repo)
        : m_repo(repo)
    { }

    Result<SyncResult, WorkspaceError> mergeMain(ConflictMode mode, const CheckoutProgress &progress = {});

    // Conflict regions in merged text: lines opening a "<<<<<<<" marker.
    static int countRegions(const QByteArray &text);
    static int countRegionsInFile(const QString &path);

private:
    Result<QList<ConflictedFile>, WorkspaceError> conflictsOf(git_index *merged) const;
    Result<void, WorkspaceError> checkout(const git_oid &treeId);
    Result<SyncResult, WorkspaceError> writeConflicts(QList<ConflictedFile> conflicts);

    GitRepo &m_repo;
};

} // namespace isolation
