#include "memorytrim.h"

#include <QFile>

#include <atomic>
#include <chrono>

#include <sys/mman.h>

// gperftools' C interface, bound only in the programs linked with tcmalloc (isolation_use_tcmalloc
// in CMakeLists.txt); null elsewhere.
extern "C" {
__attribute__((weak)) int MallocExtension_GetNumericProperty(const char *property, size_t *value);
__attribute__((weak)) void MallocExtension_ReleaseToSystem(size_t bytes);
}

namespace isolation::memorytrim {

namespace {

// Free pages kept for reuse: enough for the buffers of the next few objects, so the common case
// (small files) never faults pages in again.
constexpr size_t kKeepFreeBytes = size_t(8) << 20;
constexpr size_t kReleaseAboveBytes = size_t(16) << 20;
constexpr std::chrono::milliseconds kHeapInterval {20};
constexpr qint64 kMappedIntervalMs = 100;

std::atomic<qint64> g_nextHeapCheck {0};

qint64 nowNs()
{
    return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
        .count();
}

} // namespace

void heap()
{
    if (!MallocExtension_GetNumericProperty || !MallocExtension_ReleaseToSystem)
        return;
    const qint64 now = nowNs();
    qint64 next = g_nextHeapCheck.load(std::memory_order_relaxed);
    if (now < next
        || !g_nextHeapCheck.compare_exchange_strong(next,
            now + std::chrono::duration_cast<std::chrono::nanoseconds>(kHeapInterval).count(),
            std::memory_order_relaxed))
        return;
    size_t free = 0;
    if (!MallocExtension_GetNumericProperty("tcmalloc.pageheap_free_bytes", &free) || free <= kReleaseAboveBytes)
        return;
    MallocExtension_ReleaseToSystem(free - kKeepFreeBytes);
}

MappedFiles::MappedFiles(const QByteArray &directory)
    : m_prefix(directory.endsWith('/') ? directory : directory + '/')
{ }

void MappedFiles::trim()
{
    if (m_since.isValid() && m_since.elapsed() < kMappedIntervalMs)
        return;
    trimNow();
}

void MappedFiles::trimNow()
{
    m_since.start();
    // /proc/self/maps: "start-end perms offset dev inode    path", one mapping per line.
    QFile maps(QStringLiteral("/proc/self/maps"));
    if (!maps.open(QIODevice::ReadOnly))
        return;
    const QByteArray all = maps.readAll();
    qsizetype at = 0;
    while (at < all.size()) {
        qsizetype end = all.indexOf('\n', at);
        if (end < 0)
            end = all.size();
        const QByteArray line = all.mid(at, end - at);
        at = end + 1;
        const qsizetype path = line.indexOf(" /");
        if (path < 0 || !line.mid(path + 1).startsWith(m_prefix))
            continue;
        const QList<QByteArray> fields = line.left(path).simplified().split(' ');
        // Only what is mapped read-only: a dropped page of it is read again from the file.
        if (fields.size() < 2 || !fields[1].startsWith("r-"))
            continue;
        const QList<QByteArray> range = fields[0].split('-');
        bool startOk = false;
        bool endOk = false;
        const quintptr start = range.value(0).toULongLong(&startOk, 16);
        const quintptr stop = range.value(1).toULongLong(&endOk, 16);
        if (!startOk || !endOk || stop <= start)
            continue;
        ::madvise(reinterpret_cast<void *>(start), stop - start, MADV_DONTNEED);
    }
}

} // namespace isolation::memorytrim
