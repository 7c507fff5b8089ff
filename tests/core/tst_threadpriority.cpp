// makeThisThreadBackground(): the calling thread, and only it, gets nice 19 and the idle I/O class
// (read back from the kernel, per thread).
#include "core/threadpriority.h"

#include <QTest>

#include <cerrno>

#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <thread>

using namespace isolation;

namespace {

struct Priority
{
    int nice = 0;
    int ioClass = -1;
};

Priority priorityOf(pid_t tid)
{
    Priority p;
    errno = 0;
    p.nice = ::getpriority(PRIO_PROCESS, id_t(tid));
    const long io = ::syscall(SYS_ioprio_get, 1 /* IOPRIO_WHO_PROCESS */, tid);
    p.ioClass = io < 0 ? -1 : int(io >> 13);
    return p;
}

} // namespace

class tst_ThreadPriority final : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void onlyTheCallingThread();
};

void tst_ThreadPriority::onlyTheCallingThread()
{
    const pid_t main = pid_t(::syscall(SYS_gettid));
    const Priority before = priorityOf(main);
    QVERIFY(before.nice < 19);
    QVERIFY(before.ioClass != 3);
    bool lowered = false;
    Priority inThread;
    std::thread worker([&] {
        lowered = makeThisThreadBackground();
        inThread = priorityOf(pid_t(::syscall(SYS_gettid)));
    });
    worker.join();
    QVERIFY(lowered);
    QCOMPARE(inThread.nice, 19);
    QCOMPARE(inThread.ioClass, 3); // IOPRIO_CLASS_IDLE
    const Priority after = priorityOf(main);
    QCOMPARE(after.nice, before.nice);
    QCOMPARE(after.ioClass, before.ioClass);
}

QTEST_GUILESS_MAIN(tst_ThreadPriority)
#include "tst_threadpriority.moc"
