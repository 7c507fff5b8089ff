// The tunnel survives hub restarts: 20 times, while 200 calls are in flight, the hub's listener
// and every tunnel are torn down and started again on the same port. No call is answered with
// another call's reply (each echoes a unique nonce), every call is answered or fails explicitly,
// and the engine reconnects each time. The engine is the real Engine facade.
#include "core/paths.h"
#include "engineprobe.h"
#include "tunneltestkit.h"

#include <QElapsedTimer>
#include <QProcessEnvironment>
#include <QRandomGenerator>
#include <QSignalSpy>
#include <QTest>
#include <QTimer>

using namespace isolation;
using namespace isolation::test;
using namespace std::chrono_literals;

namespace {

const QByteArray kCredential = "cred-restarts-0c5d3e7a21";
const QString kServer = QStringLiteral("srv-restarts");
constexpr int kRestarts = 20;
constexpr int kCalls = 200;

struct Tally
{
    int answered = 0;
    int lost = 0; // failed with Lost or NotConnected: explicit, retryable
    int otherFailures = 0;
    int mixedUp = 0;
    QSet<int> resolved;
    int doubleResolved = 0;
};

} // namespace

class tst_TunnelRestarts final : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void survivesTwentyRestartsUnderLoad();
};

void tst_TunnelRestarts::survivesTwentyRestartsUnderLoad()
{
    SystemClock clock;
    TestKey key;
    TestHub hub(clock);
    hub.addServer(kServer, kCredential, key.publicKey());
    QVERIFY(hub.start());

    QTemporaryDir home;
    QProcessEnvironment env;
    env.insert(QStringLiteral("ISOLATION_HOME"), home.path());
    Engine engine(Paths::resolve(env).value());
    QVERIFY(engine.start().ok());
    TunnelClient::Options options = clientOptions(hub.url(), kServer, kCredential, key);
    options.backoff.base = 20ms; // the policy's shape, at test speed
    options.backoff.cap = 200ms;
    QVERIFY(engine.openTunnel(options).ok());
    // Answers come back after a random 0-100 ms, so a restart always catches some in flight.
    EngineProbe::tunnel(engine)->rpc().addAsync(
        QStringLiteral("test.echo"), [](const QJsonObject &params, RpcDispatcher::Reply reply) {
            QTimer::singleShot(QRandomGenerator::global()->bounded(100), [reply, params] {
                reply(QJsonObject {{QStringLiteral("nonce"), params.value(QStringLiteral("nonce"))}});
            });
        });
    QTRY_COMPARE_WITH_TIMEOUT(engine.state(), EngineState::Online, 5000);

    auto tally = std::make_shared<Tally>();
    QElapsedTimer total;
    total.start();
    qint64 slowestReconnect = 0;
    int roundsWithAnswers = 0;
    int roundsWithLosses = 0;
    for (int round = 0; round < kRestarts; ++round) {
        QElapsedTimer reconnect;
        reconnect.start();
        // Both ends see the new tunnel (the hub registers it a moment before the engine reads the 101).
        QTRY_VERIFY_WITH_TIMEOUT(hub.tunnels().tunnel(kServer) != nullptr, 10000);
        QTRY_COMPARE_WITH_TIMEOUT(EngineProbe::tunnel(engine)->connectionCount(), round + 1, 10000);
        slowestReconnect = std::max(slowestReconnect, reconnect.elapsed());

        const int answeredBefore = tally->answered;
        const int lostBefore = tally->lost;
        for (int i = 0; i < kCalls; ++i) {
            const int nonce = round * 1000 + i;
            hub.tunnels().call(kServer, QStringLiteral("test.echo"), QJsonObject {{QStringLiteral("nonce"), nonce}},
                10s, [tally, nonce](hub::CallResult r) {
                    if (tally->resolved.contains(nonce))
                        ++tally->doubleResolved;
                    tally->resolved.insert(nonce);
                    if (r) {
                        ++tally->answered;
                        if (r.value().value(QStringLiteral("nonce")).toInt(-1) != nonce)
                            ++tally->mixedUp;
                    } else if (r.error().code == hub::CallError::Code::Lost
                        || r.error().code == hub::CallError::Code::NotConnected) {
                        ++tally->lost;
                    } else {
                        ++tally->otherFailures;
                    }
                });
        }
        // Restart mid-flight: once some answers are back but well before all are.
        QVERIFY(QTest::qWaitFor([&] { return tally->answered - answeredBefore >= 10; }, 10000));
        hub.stop();
        // Every call of this round has an outcome the moment its tunnel is gone.
        QCOMPARE(tally->resolved.size(), (round + 1) * kCalls);
        roundsWithAnswers += tally->answered > answeredBefore;
        roundsWithLosses += tally->lost > lostBefore;
        QVERIFY(hub.start());
    }

    // After the last restart the engine is back and answers normally.
    QTRY_VERIFY_WITH_TIMEOUT(hub.tunnels().tunnel(kServer) != nullptr, 10000);
    auto last = std::make_shared<std::optional<hub::CallResult>>();
    hub.tunnels().call(kServer, QStringLiteral("ping"), QJsonObject {{QStringLiteral("echo"), QStringLiteral("after")}},
        5s, [last](hub::CallResult r) { *last = std::move(r); });
    QTRY_VERIFY(last->has_value());
    QVERIFY((*last)->ok());
    QCOMPARE((*last)->value().value(QStringLiteral("echo")).toString(), QStringLiteral("after"));

    qInfo("%d restarts x %d calls in %lld ms: %d answered, %d failed explicitly (lost), slowest reconnect %lld ms",
        kRestarts, kCalls, total.elapsed(), tally->answered, tally->lost, slowestReconnect);
    QCOMPARE(tally->resolved.size(), kRestarts * kCalls);
    QCOMPARE(tally->answered + tally->lost + tally->otherFailures, kRestarts * kCalls);
    QCOMPARE(tally->doubleResolved, 0);
    QCOMPARE(tally->mixedUp, 0);
    QCOMPARE(tally->otherFailures, 0);
    // Each restart really happened under load: it cut calls off, and answers flowed before it.
    QCOMPARE(roundsWithAnswers, kRestarts);
    QCOMPARE(roundsWithLosses, kRestarts);
    QCOMPARE(EngineProbe::tunnel(engine)->connectionCount(), kRestarts + 1);
    QCOMPARE(engine.state(), EngineState::Online);
    QTRY_COMPARE(EngineProbe::tunnel(engine)->openStreams(), 0);
    engine.stop();
}

QTEST_GUILESS_MAIN(tst_TunnelRestarts)
#include "tst_tunnelrestarts.moc"
