#include "result.h"

namespace isolation {

QString errorCodeName(Error::Code code)
{
    switch (code) {
    case Error::Code::InvalidInput:
        return QStringLiteral("invalid_input");
    case Error::Code::NotFound:
        return QStringLiteral("not_found");
    case Error::Code::Unavailable:
        return QStringLiteral("unavailable");
    case Error::Code::Failed:
        return QStringLiteral("failed");
    case Error::Code::Cancelled:
        return QStringLiteral("cancelled");
    }
    return QStringLiteral("failed");
}

} // namespace isolation
