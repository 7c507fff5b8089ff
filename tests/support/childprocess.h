#pragma once

class QProcess;

namespace isolation::test {

// The test's long-running peers (a hub, an engine) get SIGTERM when the test process dies, so a
// test that aborts (a watchdog timeout, a crash) leaves no engine behind holding ports or files
// for the tests after it. Call before QProcess::start().
void endWithTheTest(QProcess &process);

} // namespace isolation::test
