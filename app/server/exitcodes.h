// Exit codes of isolation-server, shown in --help and docs/cli.md. Scripts rely on them.
#pragma once

namespace isolation::exitcode {

constexpr int Ok = 0;
constexpr int Failure = 1; // the operation failed; the message says why
constexpr int Usage = 2; // bad command line
constexpr int NotRunning = 3; // no engine is running for this state directory
constexpr int Refused = 4; // another engine already owns this state directory

} // namespace isolation::exitcode
