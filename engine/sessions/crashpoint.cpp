#include "crashpoint.h"

#include <QByteArray>
#include <QLoggingCategory>
#include <QtGlobal>

#include <csignal>

namespace isolation::testhook {

void crashPoint(const char *point)
{
    static const QByteArray wanted = qgetenv("ISOLATION_TEST_CRASH_AT");
    if (wanted.isEmpty() || wanted != point)
        return;
    qWarning("ISOLATION_TEST_CRASH_AT=%s: killing the engine here (test hook)", point);
    std::raise(SIGKILL);
}

} // namespace isolation::testhook
