#include "trayicons.h"

namespace isolation {

QIcon stateIcon(EngineState state, TrayBadge badge)
{
    // The workspace badges matter only while the engine can act on them.
    if (state == EngineState::Online || state == EngineState::Reconnecting) {
        switch (badge) {
        case TrayBadge::Conflict:
            return QIcon(QStringLiteral(":/icons/tray-conflict.svg"));
        case TrayBadge::MovedOn:
            return QIcon(QStringLiteral(":/icons/tray-moved-on.svg"));
        case TrayBadge::Working:
            return QIcon(QStringLiteral(":/icons/tray-working.svg"));
        case TrayBadge::None:
            break;
        }
    }
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
