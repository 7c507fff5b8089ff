#include "processhardening.h"

#include <QStringList>

#include <sys/prctl.h>
#include <sys/resource.h>

#include <cerrno>
#include <cstring>

namespace isolation {

namespace {

QString failure(const char *what, int error)
{
    return QStringLiteral("%1 failed: %2").arg(QLatin1String(what), QString::fromLocal8Bit(std::strerror(error)));
}

} // namespace

Status hardenProcess()
{
    QStringList failed;
    if (::prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) != 0)
        failed << failure("prctl(PR_SET_DUMPABLE, 0)", errno);
    // Both limits: a child must not raise its own soft limit back up to an unlimited hard one.
    const rlimit noCore {1, 1};
    if (::setrlimit(RLIMIT_CORE, &noCore) != 0)
        failed << failure("setrlimit(RLIMIT_CORE, 1)", errno);
    if (!failed.isEmpty())
        return Error::failed(QStringLiteral("core dumps may still be written: ") + failed.join(QStringLiteral("; ")));
    return {};
}

} // namespace isolation
