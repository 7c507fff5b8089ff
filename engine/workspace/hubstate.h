// What the hub has of a workspace, recorded as refs/isolation/hub/<branch> for every workspace branch
// (main, session/*): the prerequisites of the next thin segment, updated when a segment is published
// or a segment from the hub is applied (which also moves main and other sessions' branches).
#pragma once

#include "bundleheader.h"
#include "core/result.h"
#include "workspaceerror.h"

#include <QList>

namespace isolation {

class GitRepo;

class HubState
{
public:
    struct Plan
    {
        QList<BundleRef> refs; // HEAD (main's commit), main, every session branch
        QList<QByteArray> prerequisites; // distinct commits the hub has (none for a full bundle)
        bool upToDate = false; // the hub already has every branch at these commits
    };

    explicit HubState(GitRepo &repo)
        : m_repo(repo)
    { }

    // refs/heads/main and refs/heads/session/<id> are workspace branches; the rest of a bundle is ignored.
    static bool isWorkspaceBranch(const QByteArray &ref);
    // refs/heads/X → refs/isolation/hub/X.
    static QByteArray hubRef(const QByteArray &branch);

    Result<Plan, WorkspaceError> plan(bool full) const;
    // After the caller stored a segment: the hub now has `refs`; a pending save is done.
    Result<void, WorkspaceError> markPublished(const QList<BundleRef> &refs);
    // After a segment from the hub was read: records its branches as the hub's, resets main to the
    // hub's main (a pending unpublished merge is dropped; the session branch keeps its work) and
    // takes other sessions' branches as they are; this session's branch is left to the sync.
    // Corrupt when a workspace branch names something other than a commit (nothing moves then).
    Result<QList<BundleRef>, WorkspaceError> adopt(const BundleHeader &header);

private:
    Result<void, WorkspaceError> set(const QByteArray &ref, const QByteArray &hex, const QString &why);

    GitRepo &m_repo;
};

} // namespace isolation
