// What a failed write says about the disk under it: full, read-only, not ours to write. Every
// module that writes (libgit2's object database and worktree, the store's encrypted segments, the
// cache, the lock file) classifies its failures with these, so that a full disk is said as a full
// disk, with the path and what to do, and never retried as if a file had changed under a read.
#pragma once

#include <QString>
#include <QStringView>

namespace isolation {

enum class StorageFault {
    None,
    NoSpace, // ENOSPC, EDQUOT: the disk (or the user's quota) is full
    ReadOnly, // EROFS: the file system is mounted read-only
    Denied, // EACCES, EPERM: the permissions forbid it
};

// From an errno value.
StorageFault storageFaultOf(int errnum);
// From a message that carries strerror's text (libgit2's OS errors, Qt's errorString()).
StorageFault storageFaultIn(QStringView message);

// After a write to `path` failed: from `errnum` when it tells, else from the file system that
// holds `path` (mounted read-only; under 1 MiB free). A buffered QFile often reports a full disk
// with no errno and "Unknown error", so the disk itself is asked.
StorageFault storageFaultAt(const QString &path, int errnum = 0);

// The message for a write to `path` that failed with `detail` (a QFile's errorString()): the
// storage fault's text when there is one (storageFaultAt), else "cannot write PATH: DETAIL".
QString writeFailureText(const QString &path, const QString &detail, int errnum = 0);

// The LocalAPI's error code for it: "no_space", "read_only", "permission_denied" (empty for None).
QString storageFaultCode(StorageFault fault);

// One sentence for a person: what happened to `path` and what to do. Nothing written is lost:
// the operation stops before its result is published.
QString storageFaultText(StorageFault fault, const QString &path);

} // namespace isolation
