// The workspace module's error: what went wrong with a session's git data, as a value.
#pragma once

#include <QString>

#include <utility>

namespace isolation {

struct WorkspaceError
{
    enum class Code {
        NotFound, // a ref, commit, path or prerequisite named does not exist
        Conflict, // the state moved under the caller or the merge conflicts: sync (re-read) and retry
        Corrupt, // a bundle or pack is malformed, truncated or inconsistent
        Failed, // anything else (I/O, libgit2); the message says what
    };

    Code code = Code::Failed;
    QString message;

    // Conflict is the one the caller can act on by syncing (or re-reading) and trying again.
    bool retryable() const { return code == Code::Conflict; }

    static WorkspaceError notFound(QString m) { return {Code::NotFound, std::move(m)}; }
    static WorkspaceError conflict(QString m) { return {Code::Conflict, std::move(m)}; }
    static WorkspaceError corrupt(QString m) { return {Code::Corrupt, std::move(m)}; }
    static WorkspaceError failed(QString m) { return {Code::Failed, std::move(m)}; }
};

QString workspaceErrorCodeName(WorkspaceError::Code code);

} // namespace isolation
