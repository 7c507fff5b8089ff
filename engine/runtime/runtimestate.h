// The lifecycle container's state as the engine sees it (RuntimeManager).
#pragma once

#include <QMetaType>
#include <QString>

namespace isolation {

enum class RuntimeState {
    Absent, // not started yet (or stopped with the engine)
    DockerMissing, // Docker is not installed, not running, or not ours to use; the reason says what to do
    Starting, // obtaining images, creating or starting the container, waiting for /health
    Healthy, // the lifecycle server answers /health
    Unhealthy, // the container runs but /health fails
    Restarting, // the container died or was asked to restart; bringing it back
    Upgrading, // the pin changed: a new container is coming up next to the old one
    Failed, // cannot run (image missing or refused, port taken...); the reason says why
};

// Stable identifiers for JSON and the CLI ("docker_missing", ...).
QString runtimeStateName(RuntimeState state);

} // namespace isolation

Q_DECLARE_METATYPE(isolation::RuntimeState)
