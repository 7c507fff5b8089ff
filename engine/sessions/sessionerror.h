// The sessions module's error: why a save, sync or changes did not do what was asked, as a value
// with the codes a caller branches on (the LocalAPI's error codes and the CLI's exit codes).
#pragma once

#include "core/storagefault.h"
#include "workspace/workspacetypes.h"

#include <QList>
#include <QLoggingCategory>
#include <QString>

#include <utility>

Q_DECLARE_LOGGING_CATEGORY(lcSessions)

namespace isolation {

struct StoreError;
struct WorkspaceError;

struct SessionError
{
    enum class Code {
        MovedOn, // another save reached the hub first (412): nothing was written; sync, then save again
        Conflict, // the merge conflicts (`conflicts` lists them), or files in the way: resolve, then retry
        NotPaired, // the operation needs the hub and this computer is not paired
        NotFound, // no such session, workspace or path
        Unavailable, // the hub cannot be reached now, or the outcome is not settled yet: retry later
        Invalid, // the request cannot be done as asked (a selection through a symlink, a message too long)
        Storage, // a write failed for the disk's sake (`fault`: full, read-only, not permitted); nothing lost
        WorktreeMissing, // the session's worktree is gone from the disk: restore it, or finish the session
        Cancelled, // cancelled by the member before its point of no return: what it had done is undone
        Failed, // anything else; the message says what
    };

    Code code = Code::Failed;
    QString message;
    QList<ConflictedFile> conflicts; // Conflict: the conflicted paths with their regions
    StorageFault fault = StorageFault::None; // Storage: which

    bool retryable() const { return code == Code::Unavailable || code == Code::MovedOn; }

    static SessionError movedOn(QString m) { return {Code::MovedOn, std::move(m), {}}; }
    static SessionError conflict(QString m, QList<ConflictedFile> files = {})
    {
        return {Code::Conflict, std::move(m), std::move(files)};
    }
    static SessionError notPaired(QString m) { return {Code::NotPaired, std::move(m), {}}; }
    static SessionError notFound(QString m) { return {Code::NotFound, std::move(m), {}}; }
    static SessionError unavailable(QString m) { return {Code::Unavailable, std::move(m), {}}; }
    static SessionError invalid(QString m) { return {Code::Invalid, std::move(m), {}}; }
    static SessionError storage(StorageFault f, QString m) { return {Code::Storage, std::move(m), {}, f}; }
    static SessionError worktreeMissing(QString m) { return {Code::WorktreeMissing, std::move(m), {}}; }
    static SessionError failed(QString m) { return {Code::Failed, std::move(m), {}}; }
    static SessionError cancelled(QString m) { return {Code::Cancelled, std::move(m), {}}; }

    static SessionError from(const WorkspaceError &e);
    static SessionError from(const StoreError &e);
};

// Stable snake_case names: the LocalAPI's error codes ("moved_on", "conflict", ...; a Storage
// error is named by its fault: "no_space", "read_only", "permission_denied").
QString sessionErrorCodeName(const SessionError &e);
// The error a code names (as session.json and the LocalAPI keep it); Failed for an unknown one.
SessionError sessionErrorNamed(const QString &code, QString message);

} // namespace isolation
