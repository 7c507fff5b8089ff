// Copies git objects between two repositories on one machine as files: packs (named by their
// checksum, immutable) and loose objects are hard-linked, or copied where a link cannot be made.
// Neither repository refers to the other afterwards (no alternates), so either may be deleted.
#pragma once

#include "core/result.h"
#include "workspaceerror.h"

#include <QString>

namespace isolation {

struct LinkStats
{
    int packs = 0; // packs added to the destination
    int loose = 0; // loose objects added
    qint64 bytes = 0; // bytes of the files added
    int copied = 0; // files that had to be copied because a hard link was refused
};

class ObjectLinker
{
public:
    // Adds to `toGitDir` every pack and loose object of `fromGitDir` it does not have yet. A pack's
    // data goes in before its index, so a reader never sees an index without its pack.
    static Result<LinkStats, WorkspaceError> link(const QString &fromGitDir, const QString &toGitDir);
};

} // namespace isolation
