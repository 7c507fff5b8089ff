// The event ring behind GET /v1/events: numbering, eviction by count and by bytes, and which
// Last-Event-ID resumes and which resets (and why). The stream itself is tst_localapievents.
#include "localapi/eventhub.h"

#include <QJsonObject>
#include <QTest>

using namespace isolation;

class tst_EventHub final : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void numbersGrowFromOne();
    void ringDropsTheOldestByCount();
    void ringDropsTheOldestByBytes();
    void resume_data();
    void resume();
    void runIdsDiffer();
};

void tst_EventHub::numbersGrowFromOne()
{
    EventHub hub(8, 1 << 20, QStringLiteral("run"));
    QCOMPARE(hub.lastId(), QStringLiteral("run-0"));
    QList<quint64> seen;
    connect(&hub, &EventHub::published, this, [&seen](const EngineEvent &e) { seen << e.number; });
    hub.publish("state", {{QStringLiteral("state"), QStringLiteral("online")}});
    hub.publish("pairing", {});
    QCOMPARE(seen, QList<quint64>({1, 2}));
    QCOMPARE(hub.lastId(), QStringLiteral("run-2"));
    QCOMPARE(hub.event(1)->kind, QByteArray("state"));
    QCOMPARE(hub.event(1)->data, QByteArray(R"({"state":"online"})"));
    QVERIFY(!hub.event(0) && !hub.event(3));
}

void tst_EventHub::ringDropsTheOldestByCount()
{
    EventHub hub(3, 1 << 20, QStringLiteral("run"));
    for (int i = 0; i < 5; ++i)
        hub.publish("activity", {});
    QCOMPARE(hub.oldestNumber(), quint64(3));
    QVERIFY(!hub.event(2));
    QVERIFY(hub.event(5));
}

void tst_EventHub::ringDropsTheOldestByBytes()
{
    EventHub hub(100, 1000, QStringLiteral("run"));
    const QJsonObject big {{QStringLiteral("x"), QString(400, QLatin1Char('a'))}};
    for (int i = 0; i < 4; ++i)
        hub.publish("activity", big);
    QCOMPARE(hub.oldestNumber(), quint64(3)); // two of ~410 bytes fit in 1000
    const QJsonObject huge {{QStringLiteral("x"), QString(5000, QLatin1Char('a'))}};
    hub.publish("activity", huge);
    QCOMPARE(hub.oldestNumber(), quint64(5)); // the newest stays, whatever its size
}

void tst_EventHub::resume_data()
{
    QTest::addColumn<QByteArray>("lastEventId");
    QTest::addColumn<qint64>("after"); // -1: reset
    QTest::addColumn<QString>("why");
    // The ring holds 3..5 (capacity 3, five published).
    QTest::newRow("last") << QByteArray("run-5") << qint64(5) << QString();
    QTest::newRow("in the ring") << QByteArray("run-3") << qint64(3) << QString();
    QTest::newRow("just before the ring") << QByteArray("run-2") << qint64(2) << QString();
    QTest::newRow("older") << QByteArray("run-1") << qint64(-1) << QStringLiteral("too_old");
    QTest::newRow("before the first") << QByteArray("run-0") << qint64(-1) << QStringLiteral("too_old");
    QTest::newRow("ahead") << QByteArray("run-6") << qint64(-1) << QStringLiteral("unknown_id");
    QTest::newRow("another run") << QByteArray("other-5") << qint64(-1) << QStringLiteral("engine_restarted");
    QTest::newRow("no number") << QByteArray("run-") << qint64(-1) << QStringLiteral("unknown_id");
    QTest::newRow("no run") << QByteArray("5") << qint64(-1) << QStringLiteral("unknown_id");
    QTest::newRow("negative") << QByteArray("run--1") << qint64(-1) << QStringLiteral("unknown_id");
    QTest::newRow("garbage") << QByteArray("\xff\x00-x", 5) << qint64(-1) << QStringLiteral("unknown_id");
}

void tst_EventHub::resume()
{
    QFETCH(QByteArray, lastEventId);
    QFETCH(qint64, after);
    QFETCH(QString, why);
    EventHub hub(3, 1 << 20, QStringLiteral("run"));
    for (int i = 0; i < 5; ++i)
        hub.publish("activity", {});
    QString reason;
    const auto resumed = hub.resumeAfter(lastEventId, &reason);
    if (after < 0) {
        QVERIFY(!resumed);
        QCOMPARE(reason, why);
    } else {
        QVERIFY(resumed);
        QCOMPARE(qint64(*resumed), after);
    }
}

void tst_EventHub::runIdsDiffer()
{
    EventHub a, b;
    QCOMPARE(a.runId().size(), 16);
    QVERIFY(a.runId() != b.runId());
    QString why;
    QVERIFY(!b.resumeAfter(a.lastId().toLatin1(), &why));
    QCOMPARE(why, QStringLiteral("engine_restarted"));
}

QTEST_GUILESS_MAIN(tst_EventHub)
#include "tst_eventhub.moc"
