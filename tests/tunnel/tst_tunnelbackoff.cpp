// Reconnect policy on a fake clock: the delays between attempts grow as base * 2^n with full
// jitter, are capped at 30 s, and start again from the base after a tunnel stayed up for 60 s.
// Time and the reconnect timer are the test's; the attempts themselves are real connections.
#include "tunneltestkit.h"

#include <QSignalSpy>
#include <QTcpServer>
#include <QTest>

using namespace isolation;
using namespace isolation::test;
using namespace std::chrono_literals;

namespace {

const QByteArray kCredential = "cred-backoff-4d7e2b9a10";
const QString kServer = QStringLiteral("srv-backoff");

quint16 freePort()
{
    QTcpServer probe;
    probe.listen(QHostAddress::LocalHost, 0);
    return probe.serverPort();
}

} // namespace

class tst_TunnelBackoff final : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void delaysGrowAndCap_data();
    void delaysGrowAndCap();
    void resetAfterSixtySecondsConnected_data();
    void resetAfterSixtySecondsConnected();

private:
    struct Rig
    {
        ManualClock clock;
        ManualTimer *timer = nullptr; // owned by the client
        TestKey key;
        quint16 port = freePort();
        std::unique_ptr<TunnelClient> client;
        std::unique_ptr<QSignalSpy> scheduled;

        explicit Rig(double jitter)
        {
            QUrl hub(QStringLiteral("http://127.0.0.1"));
            hub.setPort(port);
            TunnelClient::Options options = clientOptions(hub, kServer, kCredential, key);
            options.random01 = [jitter] { return jitter; };
            options.pingInterval = 1h; // real-time keepalive must not interfere with the fake clock
            options.deadAfter = 2h;
            auto owned = std::make_unique<ManualTimer>();
            timer = owned.get();
            client = std::make_unique<TunnelClient>(options, clock, std::move(owned));
            scheduled = std::make_unique<QSignalSpy>(client.get(), &TunnelClient::reconnectScheduled);
        }
        // Waits for a failed attempt after the first `before` ones and returns the delay it
        // scheduled (-1: none came, -2: the timer was not started with it).
        qint64 nextDelay(qsizetype before = -1)
        {
            if (before < 0)
                before = scheduled->count();
            if (!QTest::qWaitFor([&] { return scheduled->count() > before; }, 5000))
                return -1;
            const auto delay = scheduled->last().at(0).value<std::chrono::milliseconds>();
            if (!timer->isActive() || timer->delay() != delay)
                return -2;
            return delay.count();
        }
    };
};

void tst_TunnelBackoff::delaysGrowAndCap_data()
{
    QTest::addColumn<double>("jitter");
    QTest::newRow("top of the range") << 0.999999;
    QTest::newRow("middle of the range") << 0.5;
    QTest::newRow("bottom of the range") << 0.0;
}

void tst_TunnelBackoff::delaysGrowAndCap()
{
    QFETCH(double, jitter);
    Rig rig(jitter);
    QVERIFY(rig.client->start().ok()); // nothing listens on the port: every attempt fails
    for (int n = 0; n < 10; ++n) {
        const qint64 delay = rig.nextDelay();
        QVERIFY2(delay >= 0, "no reconnect was scheduled");
        const qint64 ceiling = std::min<qint64>(1000LL << n, 30000);
        QVERIFY2(
            delay <= ceiling, qPrintable(QStringLiteral("attempt %1: %2 ms > %3 ms").arg(n).arg(delay).arg(ceiling)));
        // Full jitter: the delay is the drawn fraction of the ceiling.
        QVERIFY(qAbs(delay - qint64(jitter * double(ceiling))) <= 1);
        QCOMPARE(rig.client->state(), TunnelState::Backoff);
        QCOMPARE(rig.client->lastError()->code, TunnelError::Code::Unavailable);
        // Time passes only when the test says so; the timer fires the next attempt.
        rig.clock.advance(std::chrono::milliseconds(delay));
        QVERIFY(rig.timer->fire());
        QCOMPARE(rig.client->state(), TunnelState::Connecting);
    }
    QCOMPARE(rig.timer->starts(), 10);
    QCOMPARE(rig.client->connectionCount(), 0);
    rig.client->stop();
    QVERIFY(!rig.timer->isActive());
}

void tst_TunnelBackoff::resetAfterSixtySecondsConnected_data()
{
    QTest::addColumn<int>("upForSeconds");
    QTest::addColumn<bool>("resets");
    QTest::newRow("up 60 s: back to the base") << 60 << true;
    QTest::newRow("up 59 s: keeps growing") << 59 << false;
}

void tst_TunnelBackoff::resetAfterSixtySecondsConnected()
{
    QFETCH(int, upForSeconds);
    QFETCH(bool, resets);
    Rig rig(0.999999);
    QVERIFY(rig.client->start().ok());
    qint64 last = 0;
    for (int n = 0; n < 5; ++n) { // 1, 2, 4, 8, 16 s ceilings
        last = rig.nextDelay();
        QVERIFY(last >= 0);
        rig.clock.advance(std::chrono::milliseconds(last));
        if (n < 4)
            QVERIFY(rig.timer->fire());
    }
    QVERIFY(last > 15000);

    // A hub appears on the port (checking handshakes against the same fake clock).
    TestHub hub(rig.clock, rig.port);
    hub.addServer(kServer, kCredential, rig.key.publicKey());
    QVERIFY(hub.start());
    QSignalSpy up(rig.client.get(), &TunnelClient::connected);
    QVERIFY(rig.timer->fire());
    QVERIFY(up.wait(5000));
    QCOMPARE(rig.client->state(), TunnelState::Connected);
    QVERIFY(!rig.client->lastError().has_value());

    rig.clock.advance(std::chrono::seconds(upForSeconds));
    QSignalSpy down(rig.client.get(), &TunnelClient::disconnected);
    const qsizetype attemptsSoFar = rig.scheduled->count();
    hub.stop();
    QVERIFY(down.count() > 0 || down.wait(5000));
    const qint64 after = rig.nextDelay(attemptsSoFar);
    QVERIFY(after >= 0);
    if (resets)
        QVERIFY2(after <= 1000, qPrintable(QString::number(after)));
    else
        QVERIFY2(after > 16000, qPrintable(QString::number(after))); // the sixth attempt: ceiling 30 s
    rig.client->stop();
}

QTEST_GUILESS_MAIN(tst_TunnelBackoff)
#include "tst_tunnelbackoff.moc"
