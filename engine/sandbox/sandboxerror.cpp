#include "sandboxerror.h"

Q_LOGGING_CATEGORY(lcSandbox, "isolation.sandbox")

namespace isolation {

QString errorCodeName(SandboxError::Code code)
{
    switch (code) {
    case SandboxError::Code::Refused:
        return QStringLiteral("refused");
    case SandboxError::Code::Unavailable:
        return QStringLiteral("unavailable");
    case SandboxError::Code::Failed:
        return QStringLiteral("failed");
    case SandboxError::Code::Cancelled:
        return QStringLiteral("cancelled");
    }
    return QStringLiteral("failed");
}

} // namespace isolation
