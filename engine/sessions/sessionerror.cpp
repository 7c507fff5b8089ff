#include "sessionerror.h"

#include "store/storeerror.h"
#include "workspace/workspaceerror.h"

namespace isolation {

QString sessionErrorCodeName(const SessionError &e)
{
    switch (e.code) {
    case SessionError::Code::MovedOn:
        return QStringLiteral("moved_on");
    case SessionError::Code::Conflict:
        return QStringLiteral("conflict");
    case SessionError::Code::NotPaired:
        return QStringLiteral("not_paired");
    case SessionError::Code::NotFound:
        return QStringLiteral("not_found");
    case SessionError::Code::Unavailable:
        return QStringLiteral("unavailable");
    case SessionError::Code::Invalid:
        return QStringLiteral("invalid");
    case SessionError::Code::Storage:
        if (const QString name = storageFaultCode(e.fault); !name.isEmpty())
            return name;
        break;
    case SessionError::Code::WorktreeMissing:
        return QStringLiteral("worktree_missing");
    case SessionError::Code::Cancelled:
        return QStringLiteral("cancelled");
    case SessionError::Code::Failed:
        break;
    }
    return QStringLiteral("failed");
}

SessionError sessionErrorNamed(const QString &code, QString message)
{
    SessionError e = SessionError::failed(std::move(message));
    for (auto c : {SessionError::Code::MovedOn, SessionError::Code::Conflict, SessionError::Code::NotPaired,
             SessionError::Code::NotFound, SessionError::Code::Unavailable, SessionError::Code::Invalid,
             SessionError::Code::WorktreeMissing, SessionError::Code::Cancelled}) {
        if (sessionErrorCodeName(SessionError {c, {}, {}}) == code)
            e.code = c;
    }
    for (auto f : {StorageFault::NoSpace, StorageFault::ReadOnly, StorageFault::Denied}) {
        if (storageFaultCode(f) == code) {
            e.code = SessionError::Code::Storage;
            e.fault = f;
        }
    }
    return e;
}

namespace {

// A failure whose message tells of a full, read-only or forbidden disk (writeFailureText,
// strerror's words) is a Storage error.
SessionError failedOrStorage(const QString &message)
{
    const StorageFault fault = storageFaultIn(message);
    return fault == StorageFault::None ? SessionError::failed(message) : SessionError::storage(fault, message);
}

} // namespace

SessionError SessionError::from(const WorkspaceError &e)
{
    switch (e.code) {
    case WorkspaceError::Code::Conflict:
        return conflict(e.message);
    case WorkspaceError::Code::NotFound:
        return notFound(e.message);
    case WorkspaceError::Code::Invalid:
        return invalid(e.message);
    case WorkspaceError::Code::Storage:
        return storage(e.fault, e.message);
    case WorkspaceError::Code::Corrupt:
    case WorkspaceError::Code::Failed:
        break;
    }
    return failedOrStorage(e.message);
}

SessionError SessionError::from(const StoreError &e)
{
    switch (e.code) {
    case StoreError::Code::Unavailable:
        return unavailable(e.message);
    case StoreError::Code::Rejected:
        if (e.status == 401)
            return notPaired(e.message);
        if (e.status == 404)
            return notFound(e.message);
        break;
    case StoreError::Code::Refused:
        break;
    case StoreError::Code::Local:
        return failedOrStorage(e.message);
    }
    return failed(e.message);
}

} // namespace isolation
