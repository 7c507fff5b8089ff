// Exit codes of isolation-server, shown in --help and docs/cli.md. Scripts rely on them.
#pragma once

namespace isolation::exitcode {

constexpr int Ok = 0;
constexpr int Failure = 1; // the operation failed; the message says why
constexpr int Usage = 2; // bad command line
constexpr int NotRunning = 3; // no engine is running for this state directory
constexpr int Refused = 4; // another engine already owns this state directory
constexpr int PairingDenied = 5; // the member denied the pairing (or too many wrong codes were tried)
constexpr int PairingExpired = 6; // the pairing code expired before approval
constexpr int NotPaired = 7; // the command needs a paired computer
constexpr int MovedOn = 8; // the workspace moved on (412): nothing was written; sync, then save again
constexpr int Conflict = 9; // a merge conflicts (sync), or files are in the way; the conflicted paths are listed
constexpr int NotNow = 10; // refused as things stand: a finish with unsaved work, a suspend of what is not running,
                           // a session whose worktree is gone (restore it, or finish it)
constexpr int Storage = 11; // the disk: full, read-only or not writable by this user; nothing was lost
constexpr int Interrupted = 130; // cancelled with Ctrl-C: what the operation did was undone (or, at a
                                 // second Ctrl-C, the command stopped waiting and the engine goes on)

} // namespace isolation::exitcode
