// The device-code pairing flow's states (RFC 8628 semantics, docs/protocol.md).
#pragma once

#include <QString>

namespace isolation {

enum class PairingState {
    Idle, // no pairing under way
    Starting, // asking the hub for a code
    WaitingForApproval, // the code is shown; polling the hub
    Storing, // approved; writing the credentials to the store
    Approved, // done: this machine is paired
    Denied, // the member denied the code (or too many wrong codes were tried)
    Expired, // the code expired before approval
    Failed, // the hub could not be reached or answered garbage; the reason says more
};

QString pairingStateName(PairingState state);

} // namespace isolation
