// A test hook, inert in normal use: with ISOLATION_TEST_CRASH_AT=<point> in its environment the
// engine kills itself with SIGKILL when a save or a restore reaches that point, as `kill -9`
// would, so the recovery tests can stop it exactly there. Points: after-commit, after-merge,
// mid-upload, after-segment, after-manifest (docs/workspace.md); mid-download (a segment half
// downloaded, and read in as it arrives), mid-checkout (files half written into an empty worktree).
#pragma once

namespace isolation::testhook {

// Kills the process (SIGKILL) when ISOLATION_TEST_CRASH_AT names `point`; otherwise nothing.
void crashPoint(const char *point);

} // namespace isolation::testhook
