// The tunnel's connection state, as TunnelClient exposes it to the Engine and the faces.
#pragma once

#include <QMetaType>
#include <QString>

namespace isolation {

enum class TunnelState {
    Disconnected, // not started, stopped, or drained
    Connecting, // the WebSocket handshake is under way
    Connected, // the tunnel is up and serves streams
    Draining, // shutting down: GOAWAY sent, waiting for open streams to finish
    Backoff, // the last attempt failed or the link dropped; waiting before the next attempt
};

// Stable identifiers for JSON and logs ("connected", ...).
QString tunnelStateName(TunnelState state);

} // namespace isolation

Q_DECLARE_METATYPE(isolation::TunnelState)
