#include "secretserror.h"

Q_LOGGING_CATEGORY(lcSecrets, "isolation.secrets")

namespace isolation {

QString errorCodeName(SecretsError::Code code)
{
    switch (code) {
    case SecretsError::Code::Malformed:
        return QStringLiteral("malformed");
    case SecretsError::Code::Unreadable:
        return QStringLiteral("unreadable");
    case SecretsError::Code::WrongSession:
        return QStringLiteral("wrong_session");
    case SecretsError::Code::Expired:
        return QStringLiteral("expired");
    }
    return QStringLiteral("malformed");
}

} // namespace isolation
