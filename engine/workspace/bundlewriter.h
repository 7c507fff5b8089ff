// Writes git bundles (v2): our header, then a pack from libgit2's packbuilder streamed to a device
// as it is produced, so no pack or bundle is ever held whole in memory.
#pragma once

#include "bundleheader.h"
#include "core/result.h"
#include "workspaceerror.h"

#include <QList>

#include <atomic>

#include <git2/types.h>

class QIODevice;

namespace isolation {

struct BundleStats
{
    qint64 bytes = 0;
    quint64 objects = 0;
};

class BundleWriter
{
public:
    // `cancel`, when given: the write stops (Failed, "cancelled") soon after it turns true.
    explicit BundleWriter(git_repository *repo, const std::atomic<bool> *cancel = nullptr)
        : m_repo(repo)
        , m_cancel(cancel)
    { }

    // Writes a bundle carrying `refs` (each naming a commit) for a receiver that already has
    // the `prerequisites` commits: the pack holds every object reachable from the refs and not
    // from the prerequisites. No prerequisites: a full bundle (`git clone` reads it).
    Result<BundleStats, WorkspaceError> write(
        const QList<BundleRef> &refs, const QList<QByteArray> &prerequisites, QIODevice &out) const;

private:
    git_repository *m_repo;
    const std::atomic<bool> *m_cancel;
};

} // namespace isolation
