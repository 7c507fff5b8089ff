// memorytrim::MappedFiles drops the resident pages of read-only file mappings under one directory
// (what libgit2's indexer maps of an incoming pack), and nothing else: the data reads the same
// afterwards, a mapping that was written to keeps what was written, and a mapping of a file in
// another directory, even one whose name starts the same, keeps its pages.
#include "workspace/memorytrim.h"

#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QTest>

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

using namespace isolation;

namespace {

constexpr qsizetype kSize = qsizetype(1) << 20;

QByteArray pattern()
{
    QByteArray data(kSize, Qt::Uninitialized);
    for (qsizetype i = 0; i < data.size(); ++i)
        data[i] = char((i * 7 + i / 4096) & 0xff);
    return data;
}

// A file of `data` mapped with `prot` and `flags`; unmapped by the destructor.
struct Mapping
{
    char *at = nullptr;
    qsizetype size = 0;
    Mapping(const QString &path, const QByteArray &data, int prot, int flags)
    {
        QFile f(path);
        if (!f.open(QIODevice::WriteOnly) || f.write(data) != data.size())
            return;
        f.close();
        const int fd = ::open(QFile::encodeName(path).constData(), (prot & PROT_WRITE) ? O_RDWR : O_RDONLY);
        if (fd < 0)
            return;
        void *p = ::mmap(nullptr, size_t(data.size()), prot, flags, fd, 0);
        ::close(fd);
        if (p != MAP_FAILED) {
            at = static_cast<char *>(p);
            size = data.size();
        }
    }
    ~Mapping()
    {
        if (at)
            ::munmap(at, size_t(size));
    }
    // Reads a byte of every page (the pages become resident); their sum, so none is skipped.
    int touch() const
    {
        int sum = 0;
        for (qsizetype i = 0; i < size; i += 4096)
            sum += static_cast<volatile const char *>(at)[i];
        return sum;
    }
};

// The resident KiB of the mapping that starts at `at`, from /proc/self/smaps; -1 if not found.
qint64 residentKiB(const void *at)
{
    QFile smaps(QStringLiteral("/proc/self/smaps"));
    if (!smaps.open(QIODevice::ReadOnly))
        return -1;
    const QByteArray start = QByteArray::number(quintptr(at), 16) + '-';
    bool inside = false;
    for (const QByteArray &line : smaps.readAll().split('\n')) {
        if (!line.isEmpty() && line.contains('-') && !line.contains(':'))
            inside = false;
        if (line.startsWith(start)) {
            inside = true;
            continue;
        }
        if (inside && line.startsWith("Rss:"))
            return line.mid(4).trimmed().split(' ').value(0).toLongLong();
    }
    return -1;
}

} // namespace

class tst_MemoryTrim final : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void dropsReadOnlyMappingsUnderTheDirectory();
    void leavesWrittenAndOtherMappingsAlone();
};

void tst_MemoryTrim::dropsReadOnlyMappingsUnderTheDirectory()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QByteArray data = pattern();
    Mapping pack(dir.filePath(QStringLiteral("pack_git2_1")), data, PROT_READ, MAP_PRIVATE);
    QVERIFY(pack.at);
    pack.touch();
    QCOMPARE(residentKiB(pack.at), kSize / 1024);

    memorytrim::MappedFiles(QFile::encodeName(dir.path())).trimNow();
    QCOMPARE(residentKiB(pack.at), 0);
    // Read again from the file, the same bytes.
    QCOMPARE(QByteArray(pack.at, pack.size), data);
    QCOMPARE(residentKiB(pack.at), kSize / 1024);
}

void tst_MemoryTrim::leavesWrittenAndOtherMappingsAlone()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QByteArray data = pattern();
    // A private mapping written to: dropping its pages would lose the write.
    Mapping written(dir.filePath(QStringLiteral("written")), data, PROT_READ | PROT_WRITE, MAP_PRIVATE);
    QVERIFY(written.at);
    written.touch();
    written.at[5] = 'X';
    // A file in a directory whose name only starts like the trimmed one.
    QVERIFY(QDir(dir.path()).mkpath(QStringLiteral("scratch2")));
    QVERIFY(QDir(dir.path()).mkpath(QStringLiteral("scratch")));
    Mapping neighbour(dir.filePath(QStringLiteral("scratch2/pack")), data, PROT_READ, MAP_PRIVATE);
    QVERIFY(neighbour.at);
    neighbour.touch();
    Mapping inside(dir.filePath(QStringLiteral("scratch/pack")), data, PROT_READ, MAP_PRIVATE);
    QVERIFY(inside.at);
    inside.touch();

    memorytrim::MappedFiles(QFile::encodeName(dir.filePath(QStringLiteral("scratch")))).trimNow();
    QCOMPARE(residentKiB(inside.at), 0);
    QCOMPARE(residentKiB(neighbour.at), kSize / 1024);

    memorytrim::MappedFiles(QFile::encodeName(dir.path())).trimNow();
    QCOMPARE(residentKiB(neighbour.at), 0);
    QCOMPARE(residentKiB(written.at), kSize / 1024);
    QCOMPARE(written.at[5], 'X');
    QCOMPARE(QByteArray(written.at + 6, 100), data.mid(6, 100));
}

QTEST_GUILESS_MAIN(tst_MemoryTrim)
#include "tst_memorytrim.moc"
