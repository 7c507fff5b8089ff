// The tray's icons, one per engine state, from the SVGs in resources/icons.
#pragma once

#include "enginestate.h"

#include <QIcon>

namespace isolation {

QIcon stateIcon(EngineState state);
QIcon appIcon();

} // namespace isolation
