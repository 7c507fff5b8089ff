// The engine's overall state as a face shows it: one value summarising pairing, tunnel and errors.
#pragma once

#include <QMetaType>
#include <QString>

namespace isolation {

enum class EngineState {
    Stopped, // not started, or shut down
    NotPaired, // running; this machine is not paired with a hub
    Pairing, // a device-code pairing is under way
    Online, // paired, tunnel up
    Reconnecting, // paired, tunnel down, retrying
    Error, // paired but unable to work; the reason says why
    Disconnected, // paired, but the user disconnected: no tunnel, no heartbeat (the hub shows it offline)
};

// Stable identifiers for JSON and the CLI ("not_paired", ...).
QString engineStateName(EngineState state);
// The state a name stands for; `ok` false (and Error) for a name this version does not know.
EngineState engineStateFromName(const QString &name, bool *ok = nullptr);

} // namespace isolation

Q_DECLARE_METATYPE(isolation::EngineState)
