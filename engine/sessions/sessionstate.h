// The state of one session as a face shows it. Operations (save, sync, changes) run one at a
// time; the state names the one running. The runtime issue adds sandbox states beside these.
#pragma once

#include <QMetaType>
#include <QString>

namespace isolation {

enum class SessionState {
    Opening, // the worktree is being prepared (from the warm cache, then the hub)
    Ready, // idle: nothing running
    Saving, // a save is running (commit, merge, segment, upload, publish)
    Syncing, // a sync is running (fetch segments, update main, merge it into the session)
    Failed, // the session's repository could not be opened; the reason says why
};

// Stable identifiers for JSON and the CLI ("opening", "ready", ...).
QString sessionStateName(SessionState state);

} // namespace isolation

Q_DECLARE_METATYPE(isolation::SessionState)
