#include "core/backoff.h"

#include <QTest>

using namespace isolation;
using namespace std::chrono_literals;

class tst_Backoff final : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void ceilingDoublesUpToCap();
    void fullJitterSpansTheRange();
    void resetsAfterLongConnection();
    void noResetAfterShortConnection();
};

void tst_Backoff::ceilingDoublesUpToCap()
{
    ManualClock clock;
    Backoff b({1s, 30s, 60s}, clock, [] { return 0.999999; });
    const QList<qint64> expected {1000, 2000, 4000, 8000, 16000, 30000, 30000, 30000};
    for (qint64 top : expected) {
        QCOMPARE(b.ceiling().count(), top);
        const auto d = b.nextDelay();
        QVERIFY(d.count() <= top);
        QVERIFY(d.count() >= top - 1);
    }
    // Far past the point where 2^attempt would overflow, the cap still holds.
    for (int i = 0; i < 100; ++i)
        QVERIFY(b.nextDelay() <= 30s);
}

void tst_Backoff::fullJitterSpansTheRange()
{
    ManualClock clock;
    double r = 0.0;
    Backoff b({1s, 30s, 60s}, clock, [&r] { return r; });
    r = 0.0;
    QCOMPARE(b.nextDelay().count(), 0);
    r = 0.5;
    QCOMPARE(b.nextDelay().count(), 1000); // half of 2 s
    r = 0.25;
    QCOMPARE(b.nextDelay().count(), 1000); // a quarter of 4 s
}

void tst_Backoff::resetsAfterLongConnection()
{
    ManualClock clock;
    Backoff b({1s, 30s, 60s}, clock, [] { return 0.5; });
    for (int i = 0; i < 5; ++i)
        b.nextDelay();
    QCOMPARE(b.attempts(), 5);
    b.connected();
    clock.advance(60s);
    b.disconnected();
    QCOMPARE(b.attempts(), 0);
    QCOMPARE(b.ceiling().count(), 1000);
}

void tst_Backoff::noResetAfterShortConnection()
{
    ManualClock clock;
    Backoff b({1s, 30s, 60s}, clock, [] { return 0.5; });
    for (int i = 0; i < 5; ++i)
        b.nextDelay();
    b.connected();
    clock.advance(59s);
    b.disconnected();
    QCOMPARE(b.attempts(), 5);
    QCOMPARE(b.ceiling().count(), 30000);
}

QTEST_GUILESS_MAIN(tst_Backoff)
#include "tst_backoff.moc"
