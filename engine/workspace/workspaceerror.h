// The workspace module's error: what went wrong with a session's git data, as a value.
#pragma once

#include "core/storagefault.h"

#include <QString>

#include <utility>

namespace isolation {

struct WorkspaceError
{
    enum class Code {
        NotFound, // a ref, commit, path or prerequisite named does not exist
        Conflict, // the state moved under the caller or the merge conflicts: sync (re-read) and retry
        Corrupt, // a bundle or pack is malformed, truncated or inconsistent
        Invalid, // the caller's request cannot be done as asked (a path through a symlink, outside the worktree)
        Storage, // a write failed for the disk's sake (`fault`: full, read-only, not permitted)
        Failed, // anything else (I/O, libgit2); the message says what
    };

    Code code = Code::Failed;
    QString message;
    StorageFault fault = StorageFault::None; // Storage: which

    // Conflict is the one the caller can act on by syncing (or re-reading) and trying again.
    bool retryable() const { return code == Code::Conflict; }

    static WorkspaceError notFound(QString m) { return {Code::NotFound, std::move(m)}; }
    static WorkspaceError conflict(QString m) { return {Code::Conflict, std::move(m)}; }
    static WorkspaceError corrupt(QString m) { return {Code::Corrupt, std::move(m)}; }
    static WorkspaceError invalid(QString m) { return {Code::Invalid, std::move(m)}; }
    static WorkspaceError storage(StorageFault f, QString m) { return {Code::Storage, std::move(m), f}; }
    static WorkspaceError failed(QString m) { return {Code::Failed, std::move(m)}; }
};

QString workspaceErrorCodeName(WorkspaceError::Code code);

} // namespace isolation
