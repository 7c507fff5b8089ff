#include "workspaceerror.h"

namespace isolation {

QString workspaceErrorCodeName(WorkspaceError::Code code)
{
    switch (code) {
    case WorkspaceError::Code::NotFound:
        return QStringLiteral("not_found");
    case WorkspaceError::Code::Conflict:
        return QStringLiteral("conflict");
    case WorkspaceError::Code::Corrupt:
        return QStringLiteral("corrupt");
    case WorkspaceError::Code::Invalid:
        return QStringLiteral("invalid");
    case WorkspaceError::Code::Storage:
        return QStringLiteral("storage");
    case WorkspaceError::Code::Failed:
        return QStringLiteral("failed");
    }
    return QStringLiteral("failed");
}

} // namespace isolation
