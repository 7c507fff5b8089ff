// The states of one session's sandbox under SandboxLauncher.
#pragma once

#include <QMetaType>
#include <QString>

namespace isolation {

enum class SandboxState {
    Idle, // nothing launched yet
    Creating, // the create request is with the lifecycle server
    Starting, // created; waiting for it to run and for execd to answer
    Preparing, // execd answers: write check, secrets delivered, postCreateCommand running
    Running, // ready: commands and the agent may run
    Pausing,
    Paused, // frozen by the runtime (suspend); memory, tmpfs secrets included, stays as it was
    Resuming,
    Deleting,
    Deleted, // gone; launch() may start again
    Failed, // the launch failed; the sandbox it made (if any) was deleted
};

QString sandboxStateName(SandboxState state);

} // namespace isolation

Q_DECLARE_METATYPE(isolation::SandboxState)
