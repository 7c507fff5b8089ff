// The verbs the engine program (isolation-engine) runs: `isolation-server up` and
// `isolation-server bugreport` hand over to it (handover.h). Each takes its arguments as the
// CLI's verbs do, the first being "isolation-server VERB".
#pragma once

#include <QStringList>

namespace isolation {

int runUp(const QStringList &arguments); // cli_up.cpp
int runBugReport(const QStringList &arguments); // cli_bugreport.cpp

} // namespace isolation
