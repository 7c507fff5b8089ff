// The activity log kept in a file (docs/formats.md, "Activity log"): what one run recorded is
// read back by the next, details and all; the file stays bounded however long the engine runs; a
// line cut by a crash is skipped, the rest kept; only its owner can read it.
#include "core/activitylog.h"

#include <QFile>
#include <QTemporaryDir>
#include <QTest>

using namespace isolation;

class tst_ActivityLog final : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void keptAcrossRuns();
    void staysBounded();
    void aCutLineIsSkipped();
};

namespace {
int linesOf(const QString &path)
{
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly))
        return -1;
    return int(f.readAll().count('\n'));
}
} // namespace

void tst_ActivityLog::keptAcrossRuns()
{
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("activity.jsonl"));
    {
        ActivityLog log;
        log.record(QStringLiteral("connection"), QStringLiteral("before the file")); // recorded before keepIn
        QVERIFY(log.keepIn(path).ok());
        log.record(QStringLiteral("save"), QStringLiteral("Saved s1"),
            {{QStringLiteral("door"), QStringLiteral("cli")}, {QStringLiteral("bytes"), 1234}});
    }
    QCOMPARE(QFile::permissions(path) & (QFileDevice::ReadGroup | QFileDevice::ReadOther), QFileDevice::Permissions());
    ActivityLog next;
    QVERIFY(next.keepIn(path).ok());
    QCOMPARE(int(next.entries().size()), 2);
    QCOMPARE(next.entries()[0].message, QStringLiteral("before the file"));
    const ActivityEntry &saved = next.entries()[1];
    QCOMPARE(saved.kind, QStringLiteral("save"));
    QCOMPARE(saved.details.value(QStringLiteral("door")).toString(), QStringLiteral("cli"));
    QCOMPARE(saved.details.value(QStringLiteral("bytes")).toInteger(), 1234);
    QVERIFY(saved.time.isValid());
    QCOMPARE(saved.time.timeSpec(), Qt::UTC);
}

void tst_ActivityLog::staysBounded()
{
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("activity.jsonl"));
    ActivityLog log;
    QVERIFY(log.keepIn(path).ok());
    const int n = 5 * ActivityLog::Capacity + 7;
    for (int i = 0; i < n; ++i)
        log.record(QStringLiteral("session"), QStringLiteral("event %1").arg(i));
    QCOMPARE(int(log.entries().size()), ActivityLog::Capacity);
    QVERIFY2(linesOf(path) < 2 * ActivityLog::Capacity, qPrintable(QString::number(linesOf(path))));
    ActivityLog again;
    QVERIFY(again.keepIn(path).ok());
    QCOMPARE(int(again.entries().size()), ActivityLog::Capacity);
    QCOMPARE(again.entries().back().message, QStringLiteral("event %1").arg(n - 1));
    QCOMPARE(again.entries().front().message, QStringLiteral("event %1").arg(n - ActivityLog::Capacity));
}

void tst_ActivityLog::aCutLineIsSkipped()
{
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("activity.jsonl"));
    {
        ActivityLog log;
        QVERIFY(log.keepIn(path).ok());
        log.record(QStringLiteral("sync"), QStringLiteral("first"));
        log.record(QStringLiteral("sync"), QStringLiteral("second"));
    }
    QFile f(path);
    QVERIFY(f.open(QIODevice::Append));
    f.write("{\"time\":\"2026-12-04T03:00:00.000Z\",\"kind\":\"sa"); // a crash mid-line
    f.close();
    ActivityLog next;
    QVERIFY(next.keepIn(path).ok());
    QCOMPARE(int(next.entries().size()), 2);
    next.record(QStringLiteral("sync"), QStringLiteral("third"));
    ActivityLog last;
    QVERIFY(last.keepIn(path).ok());
    QCOMPARE(int(last.entries().size()), 3); // the cut line is skipped, the line after it read
    QCOMPARE(last.entries().back().message, QStringLiteral("third"));
}

QTEST_GUILESS_MAIN(tst_ActivityLog)
#include "tst_activitylog.moc"
