// The log rotates by size (logging.h): NAME -> NAME.1 -> ... -> NAME.<keep>, each file under its
// limit, and no line lost or split while several threads write through the real message handler.
// The limit is injected small; the product's limits are checked as constants.
#include "core/logging.h"

#include <QFile>
#include <QFileInfo>
#include <QHash>
#include <QLoggingCategory>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QTest>
#include <QThread>

#include <sys/stat.h>

using namespace isolation;

namespace {

Q_LOGGING_CATEGORY(lcTest, "isolation.test")

constexpr int kThreads = 8;
constexpr int kLinesPerThread = 400;

// Each line: which thread, which line of it, padding of a length that varies, and an end mark
// that shows the line is whole.
void writeLines(int thread)
{
    for (int i = 0; i < kLinesPerThread; ++i)
        qCInfo(lcTest).noquote()
            << QStringLiteral("thread %1 line %2 %3 end").arg(thread).arg(i).arg(QString((i * 7 + thread) % 90, u'x'));
}

void writeFromThreads()
{
    QList<QThread *> threads;
    for (int t = 0; t < kThreads; ++t)
        threads << QThread::create(writeLines, t);
    for (QThread *t : std::as_const(threads))
        t->start();
    for (QThread *t : std::as_const(threads)) {
        t->wait();
        delete t;
    }
}

void append(const QString &path, const QByteArray &bytes)
{
    QFile f(path);
    QVERIFY(f.open(QIODevice::Append));
    f.write(bytes);
}

QByteArray readFile(const QString &path)
{
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

} // namespace

class tst_LogRotation final : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void init();
    void cleanup();
    void productLimits();
    void noLineLostOrSplit();
    void oldestFilesGo();
    void reopenedLogKeepsItsSize();
    void zeroMeansNoRotation();
    void anotherWriterOfTheSameLog();

private:
    std::unique_ptr<QTemporaryDir> m_dir;
    QString m_log;
};

void tst_LogRotation::init()
{
    m_dir = std::make_unique<QTemporaryDir>();
    m_log = m_dir->filePath(QStringLiteral("engine.log"));
}

void tst_LogRotation::cleanup()
{
    logging::uninstall();
}

void tst_LogRotation::productLimits()
{
    QCOMPARE(logging::MaxLogFileBytes, qint64(10) * 1024 * 1024);
    QCOMPARE(logging::KeptLogFiles, 4);
    QCOMPARE(logging::Rotation {}.maxBytes, logging::MaxLogFileBytes);
    QCOMPARE(logging::Rotation {}.keep, logging::KeptLogFiles);
}

// Enough files kept that nothing is deleted: every line of every thread is there exactly once, whole,
// in its thread's order from the oldest file to the newest, and no file is past the limit.
void tst_LogRotation::noLineLostOrSplit()
{
    constexpr qint64 limit = 8 * 1024;
    QVERIFY(logging::install(m_log, {limit, 1000}));
    writeFromThreads();
    logging::uninstall();

    const QStringList files = logging::logFiles(m_log, 1000);
    QVERIFY2(files.size() > 10, qPrintable(QString::number(files.size()))); // ~180 KB in 8 KiB files
    QCOMPARE(files.first(), m_log);
    static const QRegularExpression line(
        QStringLiteral("^\\S+ info isolation\\.test: thread (\\d+) line (\\d+) x* end$"));
    QHash<int, int> next; // thread -> the line expected next
    int total = 0;
    for (qsizetype f = files.size() - 1; f >= 0; --f) { // oldest first
        const QByteArray bytes = readFile(files.at(f));
        QVERIFY2(bytes.size() <= limit, qPrintable(files.at(f)));
        QVERIFY2(bytes.endsWith('\n'), qPrintable(files.at(f) + QStringLiteral(" ends inside a line")));
        struct stat st
        {
        };
        QCOMPARE(::stat(QFile::encodeName(files.at(f)).constData(), &st), 0);
        QCOMPARE(st.st_mode & 0777, 0600u);
        for (const QByteArray &l : bytes.chopped(1).split('\n')) {
            const auto m = line.match(QString::fromUtf8(l));
            QVERIFY2(m.hasMatch(), l.constData());
            const int thread = m.captured(1).toInt();
            QCOMPARE(m.captured(2).toInt(), next.value(thread));
            next[thread] = m.captured(2).toInt() + 1;
            ++total;
        }
    }
    QCOMPARE(total, kThreads * kLinesPerThread);
    for (int t = 0; t < kThreads; ++t)
        QCOMPARE(next.value(t), kLinesPerThread);
}

// With three kept, NAME.1..NAME.3 exist and NAME.4 never does; what is left is the newest lines.
void tst_LogRotation::oldestFilesGo()
{
    constexpr qint64 limit = 4 * 1024;
    QVERIFY(logging::install(m_log, {limit, 3}));
    writeFromThreads();
    qCInfo(lcTest) << "the last line";
    logging::uninstall();

    QCOMPARE(logging::logFiles(m_log, 10),
        QStringList({m_log, m_log + QStringLiteral(".1"), m_log + QStringLiteral(".2"), m_log + QStringLiteral(".3")}));
    QVERIFY(!QFileInfo::exists(m_log + QStringLiteral(".4")));
    QVERIFY(readFile(m_log).trimmed().endsWith("the last line"));
    for (const QString &f : logging::logFiles(m_log, 3))
        QVERIFY(readFile(f).size() <= limit);
    // The oldest lines went with the deleted files.
    QVERIFY(!readFile(m_log + QStringLiteral(".3")).contains(" line 0 "));
}

// An engine started again appends to its log and counts what is there: the first line past the
// limit rotates.
void tst_LogRotation::reopenedLogKeepsItsSize()
{
    {
        QFile f(m_log);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(QByteArray(1000, 'a') + '\n');
    }
    QVERIFY(logging::install(m_log, {1024, 2}));
    qCInfo(lcTest) << "after the restart";
    logging::uninstall();
    QCOMPARE(readFile(m_log + QStringLiteral(".1")), QByteArray(1000, 'a') + '\n');
    QVERIFY(readFile(m_log).contains("after the restart"));

    // Installed again on the same file: appended, not rotated (it is far under the limit).
    QVERIFY(logging::install(m_log, {1024, 2}));
    qCInfo(lcTest) << "and again";
    logging::uninstall();
    QVERIFY(readFile(m_log).contains("after the restart"));
    QVERIFY(readFile(m_log).contains("and again"));
    QVERIFY(!QFileInfo::exists(m_log + QStringLiteral(".2")));
}

void tst_LogRotation::zeroMeansNoRotation()
{
    QVERIFY(logging::install(m_log, {0, 4}));
    for (int i = 0; i < 200; ++i)
        qCInfo(lcTest) << "line" << i << QByteArray(100, 'z');
    logging::uninstall();
    QCOMPARE(logging::logFiles(m_log), QStringList {m_log});
    QVERIFY(readFile(m_log).size() > 200 * 100);
}

// Two processes may write one log (two trays of one user). What the other wrote counts towards the
// limit, and when the other rotated first, this one follows to the new file instead of rotating
// the other's fresh file away; no line of either is lost.
void tst_LogRotation::anotherWriterOfTheSameLog()
{
    constexpr qint64 limit = 4096;
    QVERIFY(logging::install(m_log, {limit, 3}));
    qCInfo(lcTest) << "ours 1";
    append(m_log, QByteArray(limit - 100, 'o') + '\n'); // the other writer's line
    qCInfo(lcTest) << "ours 2" << QByteArray(150, 'x'); // no longer fits: rotates
    QVERIFY(readFile(m_log + QStringLiteral(".1")).contains("ours 1"));
    QVERIFY(readFile(m_log + QStringLiteral(".1")).contains("oooo"));
    QVERIFY(readFile(m_log).contains("ours 2"));

    // The other writer rotates: our file is engine.log.1 now, and a new engine.log is the other's.
    QVERIFY(QFile::rename(m_log + QStringLiteral(".1"), m_log + QStringLiteral(".2")));
    QVERIFY(QFile::rename(m_log, m_log + QStringLiteral(".1")));
    append(m_log, "the other's first line\n");
    for (int i = 0; i < 40; ++i)
        qCInfo(lcTest) << "ours" << 3 + i << QByteArray(150, 'y');
    logging::uninstall();
    QByteArray all;
    QByteArray others; // the file the other writer started
    for (const QString &f : logging::logFiles(m_log, 3)) {
        const QByteArray bytes = readFile(f);
        QVERIFY(bytes.size() <= limit);
        if (bytes.contains("the other's first line"))
            others = bytes;
        all += bytes;
    }
    // This process followed to the other's new file, after the other's line, rather than rotating
    // it away at once.
    QVERIFY(others.startsWith("the other's first line\n"));
    QVERIFY(others.contains("ours "));
    for (int i = 2; i < 43; ++i)
        QVERIFY2(all.contains(QByteArray(QByteArray("ours ") + QByteArray::number(i) + ' ')),
            qPrintable(QString::number(i)));
    QVERIFY(!QFileInfo::exists(m_log + QStringLiteral(".4")));
}

QTEST_GUILESS_MAIN(tst_LogRotation)
#include "tst_logrotation.moc"
