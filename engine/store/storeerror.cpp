#include "storeerror.h"

Q_LOGGING_CATEGORY(lcStore, "isolation.store")

namespace isolation {

QString errorCodeName(StoreError::Code code)
{
    switch (code) {
    case StoreError::Code::Unavailable:
        return QStringLiteral("unavailable");
    case StoreError::Code::Rejected:
        return QStringLiteral("rejected");
    case StoreError::Code::Refused:
        return QStringLiteral("refused");
    case StoreError::Code::Local:
        return QStringLiteral("local");
    }
    return QStringLiteral("unavailable");
}

} // namespace isolation
