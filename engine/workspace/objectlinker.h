// Copies git objects between two repositories on one machine as files: packs (named by their
// checksum, immutable) and loose objects are hard-linked, or copied where a link cannot be made.
// Neither repository refers to the other afterwards (no alternates), so either may be deleted.
#pragma once

#include "core/result.h"
#include "workspaceerror.h"

#include <QDateTime>
#include <QString>

namespace isolation {

struct LinkStats
{
    int packs = 0; // packs added to the destination
    int loose = 0; // loose objects added
    qint64 bytes = 0; // bytes of the files added
    int copied = 0; // files that had to be copied because a hard link was refused
    int directoriesRead = 0; // loose-object fan-out directories listed
};

// How far one repository's objects are known to be in one destination: every loose object of the
// source older than `since` is in the destination named `destination` (an id that changes whenever
// the destination is made anew: see WarmCache::Lease::instanceId()). Empty: nothing is known.
struct LinkMark
{
    QString destination;
    QDateTime since;
};

class ObjectLinker
{
public:
    // Adds to `toGitDir` every pack and loose object of `fromGitDir` it does not have yet. A pack's
    // data goes in before its index, so a reader never sees an index without its pack.
    static Result<LinkStats, WorkspaceError> link(const QString &fromGitDir, const QString &toGitDir);

    // The same, reading only the loose-object directories of `fromGitDir` changed since `mark`
    // when it names `destination` (an object goes into a fan-out directory by a link or rename,
    // which sets the directory's time), all of them otherwise; packs are always all looked at.
    // On success the mark moves to the start of this link; on failure it is cleared.
    static Result<LinkStats, WorkspaceError> linkSince(
        const QString &fromGitDir, const QString &toGitDir, const QString &destination, LinkMark &mark);
};

} // namespace isolation
