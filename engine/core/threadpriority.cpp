#include "threadpriority.h"

#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

namespace isolation {

namespace {

// linux/ioprio.h's values (glibc has no wrapper for ioprio_set).
constexpr int kIoprioWhoProcess = 1; // a thread id is a process id here
constexpr int kIoprioClassIdle = 3;
constexpr int kIoprioClassShift = 13;

} // namespace

bool makeThisThreadBackground()
{
    const pid_t tid = pid_t(::syscall(SYS_gettid));
    const bool cpu = ::setpriority(PRIO_PROCESS, id_t(tid), 19) == 0;
    const bool io = ::syscall(SYS_ioprio_set, kIoprioWhoProcess, tid, kIoprioClassIdle << kIoprioClassShift) == 0;
    return cpu && io;
}

} // namespace isolation
