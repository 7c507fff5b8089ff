#include "trayicons.h"

namespace isolation {

QIcon stateIcon(EngineState state)
{
    switch (state) {
    case EngineState::Online:
        return QIcon(QStringLiteral(":/icons/tray-online.svg"));
    case EngineState::Reconnecting:
    case EngineState::Pairing:
        return QIcon(QStringLiteral(":/icons/tray-reconnecting.svg"));
    case EngineState::Error:
        return QIcon(QStringLiteral(":/icons/tray-error.svg"));
    case EngineState::Stopped:
    case EngineState::NotPaired:
        break;
    }
    return QIcon(QStringLiteral(":/icons/tray-not-paired.svg"));
}

QIcon appIcon()
{
    return QIcon(QStringLiteral(":/icons/isolation.svg"));
}

} // namespace isolation
