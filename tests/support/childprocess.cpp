#include "childprocess.h"

#include <QProcess>

#include <csignal>
#include <sys/prctl.h>

namespace isolation::test {

void endWithTheTest(QProcess &process)
{
    // Runs in the child between fork and exec: async-signal-safe calls only.
    process.setChildProcessModifier([] { ::prctl(PR_SET_PDEATHSIG, SIGTERM); });
}

} // namespace isolation::test
