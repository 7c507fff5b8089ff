// Keepalive: HTTP/2 PINGs keep a quiet tunnel up, and a hub that stops answering (a relay that
// stops moving bytes but keeps the TCP connection open) is noticed within pingInterval +
// deadAfter — 40 s with the defaults.
#include "tunneltestkit.h"

#include <QElapsedTimer>
#include <QSignalSpy>
#include <QTest>

using namespace isolation;
using namespace isolation::test;
using namespace std::chrono_literals;

namespace {
const QByteArray kCredential = "cred-keepalive-81f2c0de99";
const QString kServer = QStringLiteral("srv-keepalive");
} // namespace

class tst_TunnelKeepalive final : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void defaultsNoticeWithin40s();
    void silentHubNoticed_data();
    void silentHubNoticed();
    void silentHandshakeTimesOut();
    void keepaliveGoesWithTheHeartbeat();
};

void tst_TunnelKeepalive::defaultsNoticeWithin40s()
{
    const TunnelClient::Options defaults;
    QVERIFY(defaults.pingInterval < defaults.deadAfter);
    // Silence is checked at each ping tick, so a dead link is noticed at most one interval
    // after deadAfter.
    QVERIFY(defaults.pingInterval + defaults.deadAfter <= 40s);
    // An idle engine wakes for its tunnel no more often than for its heartbeat (15 s by default).
    QVERIFY(defaults.pingInterval >= 15s);
    QCOMPARE(defaults.backoff.base, 1000ms);
    QCOMPARE(defaults.backoff.cap, 30000ms);
    QCOMPARE(defaults.backoff.resetAfter, 60000ms);
}

void tst_TunnelKeepalive::silentHubNoticed_data()
{
    QTest::addColumn<int>("pingMs");
    QTest::addColumn<int>("deadMs");
    // The old defaults (10 s, 30 s) scaled down, and a ratio with fewer pings per dead period.
    QTest::newRow("10:30 scaled to 100:300 ms") << 100 << 300;
    QTest::newRow("1:8 as 50:400 ms") << 50 << 400;
}

void tst_TunnelKeepalive::silentHubNoticed()
{
    QFETCH(int, pingMs);
    QFETCH(int, deadMs);
    SystemClock clock;
    TestKey key;
    TestHub hub(clock);
    hub.addServer(kServer, kCredential, key.publicKey());
    QVERIFY(hub.start());
    TcpRelay relay(hub.port());

    QUrl viaRelay = hub.url();
    viaRelay.setPort(relay.port());
    TunnelClient::Options options = clientOptions(viaRelay, kServer, kCredential, key);
    options.pingInterval = std::chrono::milliseconds(pingMs);
    options.deadAfter = std::chrono::milliseconds(deadMs);
    options.backoff.base = 10s; // keep the next attempt out of this test's way
    TunnelClient client(options, clock);
    QSignalSpy up(&client, &TunnelClient::connected);
    QSignalSpy down(&client, &TunnelClient::disconnected);
    QVERIFY(client.start().ok());
    QVERIFY(up.wait(5000));

    // Quiet but alive: no calls at all for five dead periods, and the tunnel stays up.
    QTest::qWait(5 * deadMs);
    QCOMPARE(down.count(), 0);
    QCOMPARE(client.state(), TunnelState::Connected);

    relay.freeze();
    QElapsedTimer sinceFreeze;
    sinceFreeze.start();
    QVERIFY(down.wait(10 * deadMs));
    const qint64 noticedAfter = sinceFreeze.elapsed();
    qInfo("frozen hub noticed after %lld ms (ping %d ms, dead after %d ms)", noticedAfter, pingMs, deadMs);
    QVERIFY(noticedAfter >= deadMs - pingMs); // not before it was really silent for long
    QVERIFY(noticedAfter <= deadMs + pingMs + 300); // the bound: one ping interval late at most (+ timer slack)
    QVERIFY2(down.first().at(0).toString().contains(QStringLiteral("stopped answering")),
        qPrintable(down.first().at(0).toString()));
    QCOMPARE(client.state(), TunnelState::Backoff);
    QCOMPARE(client.lastError()->code, TunnelError::Code::Unavailable);
    QVERIFY(client.reason().contains(QStringLiteral("stopped answering")));
    client.stop();
}

void tst_TunnelKeepalive::silentHandshakeTimesOut()
{
    // A hub that accepts the TCP connection but never answers the upgrade.
    SystemClock clock;
    TestKey key;
    TestHub hub(clock);
    hub.addServer(kServer, kCredential, key.publicKey());
    QVERIFY(hub.start());
    TcpRelay relay(hub.port());
    relay.freeze();
    QUrl viaRelay = hub.url();
    viaRelay.setPort(relay.port());
    TunnelClient::Options options = clientOptions(viaRelay, kServer, kCredential, key);
    options.handshakeTimeout = 300ms;
    TunnelClient client(options, clock);
    QSignalSpy scheduled(&client, &TunnelClient::reconnectScheduled);
    QElapsedTimer elapsed;
    elapsed.start();
    QVERIFY(client.start().ok());
    QCOMPARE(client.state(), TunnelState::Connecting);
    QVERIFY(scheduled.wait(5000));
    QVERIFY(elapsed.elapsed() >= 250);
    QCOMPARE(client.state(), TunnelState::Backoff);
    QCOMPARE(client.lastError()->code, TunnelError::Code::Unavailable);
    QVERIFY2(client.reason().contains(QStringLiteral("handshake")), qPrintable(client.reason()));
    QCOMPARE(relay.connections(), 1);
    QVERIFY(hub.tunnels().servers().isEmpty());
    client.stop();
}

// keepaliveSoon() (the engine calls it when a heartbeat is answered) pings at once, so the
// keepalive needs no wake of its own; not twice within half an interval.
void tst_TunnelKeepalive::keepaliveGoesWithTheHeartbeat()
{
    SystemClock clock;
    TestKey key;
    TestHub hub(clock);
    hub.addServer(kServer, kCredential, key.publicKey());
    QVERIFY(hub.start());
    TcpRelay relay(hub.port());
    QUrl viaRelay = hub.url();
    viaRelay.setPort(relay.port());
    TunnelClient::Options options = clientOptions(viaRelay, kServer, kCredential, key);
    options.pingInterval = 1h; // the timer stays out of this test
    options.deadAfter = 2h;
    TunnelClient client(options, clock);
    QSignalSpy up(&client, &TunnelClient::connected);
    QVERIFY(client.start().ok());
    QVERIFY(up.wait(5000));
    QTest::qWait(200); // the handshake's and settings' bytes have passed

    const qint64 before = relay.bytesToTarget();
    client.keepaliveSoon();
    QTRY_VERIFY(relay.bytesToTarget() > before); // a PING went out
    const qint64 afterOne = relay.bytesToTarget();
    client.keepaliveSoon(); // half an interval has not passed
    QTest::qWait(200);
    QCOMPARE(relay.bytesToTarget(), afterOne);
    QCOMPARE(client.state(), TunnelState::Connected);
    client.stop();
}

QTEST_GUILESS_MAIN(tst_TunnelKeepalive)
#include "tst_tunnelkeepalive.moc"
