#include "sessionstate.h"

namespace isolation {

QString sessionStateName(SessionState state)
{
    switch (state) {
    case SessionState::Opening:
        return QStringLiteral("opening");
    case SessionState::Ready:
        return QStringLiteral("ready");
    case SessionState::Saving:
        return QStringLiteral("saving");
    case SessionState::Syncing:
        return QStringLiteral("syncing");
    case SessionState::Failed:
        return QStringLiteral("failed");
    }
    return QStringLiteral("failed");
}

} // namespace isolation
