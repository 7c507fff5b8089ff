// The tray's icons, one per engine state, from the SVGs in resources/icons.
#pragma once

#include "localapi/enginestate.h"
#include "traypreferences.h"

#include <QIcon>

namespace isolation {

// What the workspaces add to an online tray, most urgent first.
enum class TrayBadge {
    None,
    Conflict, // files in conflict; stays until every conflict is resolved
    MovedOn, // another session saved first (412)
    Working, // a save or sync runs
};

QIcon stateIcon(EngineState state, TrayBadge badge = TrayBadge::None, IconStyle style = IconStyle::Colour);
QIcon appIcon();

} // namespace isolation
