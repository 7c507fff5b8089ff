#include "sessionerror.h"

#include "store/storeerror.h"
#include "workspace/workspaceerror.h"

namespace isolation {

QString sessionErrorCodeName(SessionError::Code code)
{
    switch (code) {
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
    case SessionError::Code::Failed:
        break;
    }
    return QStringLiteral("failed");
}

SessionError SessionError::from(const WorkspaceError &e)
{
    switch (e.code) {
    case WorkspaceError::Code::Conflict:
        return conflict(e.message);
    case WorkspaceError::Code::NotFound:
        return notFound(e.message);
    case WorkspaceError::Code::Corrupt:
    case WorkspaceError::Code::Failed:
        break;
    }
    return failed(e.message);
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
    case StoreError::Code::Local:
        break;
    }
    return failed(e.message);
}

} // namespace isolation
