// Calls through the tunnel: many concurrent round trips over a real WebSocket on loopback with
// nghttp2 on both ends, the engine's own handlers, explicit failures, replacement, drain.
#include "core/paths.h"
#include "engineprobe.h"
#include "tunneltestkit.h"

#include <QProcessEnvironment>
#include <QSignalSpy>
#include <QTest>
#include <QTimer>
#include <QWebSocket>
#include <QWebSocketServer>

using namespace isolation;
using namespace isolation::test;
using namespace std::chrono_literals;

namespace {

const QByteArray kCredential = "cred-calls-5b8e1c7f9a2d";
const QString kServer = QStringLiteral("srv-calls");

struct Outcome
{
    int answered = 0;
    int failed = 0;
    int mixedUp = 0;
    QList<hub::CallError::Code> errors;
};

} // namespace

class tst_TunnelCalls final : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void init();
    void cleanup();
    void manyConcurrentCalls_data();
    void manyConcurrentCalls();
    void engineServesPingAndStatus();
    void explicitFailures();
    void newTunnelReplacesOld();
    void drainFinishesOpenCalls();
    void engineShutdownDrains();
    void rawStreamsRouteByPath();
    void badBytesFromTheHub_data();
    void badBytesFromTheHub();

private:
    bool connectClient(TunnelClient &client);
    // Calls through the hub and waits for the outcome (empty if none came within 10 s).
    std::optional<hub::CallResult> callAndWait(
        const QString &method, const QJsonObject &params = {}, std::chrono::milliseconds timeout = 5s);

    SystemClock m_clock;
    std::unique_ptr<TestKey> m_key;
    std::unique_ptr<TestHub> m_hub;
};

void tst_TunnelCalls::init()
{
    m_key = std::make_unique<TestKey>();
    m_hub = std::make_unique<TestHub>(m_clock);
    m_hub->addServer(kServer, kCredential, m_key->publicKey());
    QVERIFY(m_hub->start());
}

void tst_TunnelCalls::cleanup()
{
    m_hub.reset();
    m_key.reset();
}

bool tst_TunnelCalls::connectClient(TunnelClient &client)
{
    QSignalSpy up(&client, &TunnelClient::connected);
    if (!client.start().ok())
        return false;
    return (up.count() > 0 || up.wait(5000)) && QTest::qWaitFor([&] { return m_hub->tunnels().tunnel(kServer); }, 5000);
}

std::optional<hub::CallResult> tst_TunnelCalls::callAndWait(
    const QString &method, const QJsonObject &params, std::chrono::milliseconds timeout)
{
    // Shared: should the wait give up, a late callback must not write into a dead frame.
    auto result = std::make_shared<std::optional<hub::CallResult>>();
    m_hub->tunnels().call(kServer, method, params, timeout, [result](hub::CallResult r) { *result = std::move(r); });
    if (!QTest::qWaitFor([&] { return result->has_value(); }, 10000))
        return std::nullopt;
    return *result;
}

void tst_TunnelCalls::manyConcurrentCalls_data()
{
    QTest::addColumn<int>("calls");
    QTest::addColumn<int>("delayMs"); // the engine answers after up to this long, out of order
    QTest::newRow("1000 immediate") << 1000 << 0;
    QTest::newRow("500 answered out of order") << 500 << 40;
}

void tst_TunnelCalls::manyConcurrentCalls()
{
    QFETCH(int, calls);
    QFETCH(int, delayMs);
    TunnelClient client(clientOptions(m_hub->url(), kServer, kCredential, *m_key), m_clock);
    client.rpc().addAsync(
        QStringLiteral("test.echo"), [delayMs](const QJsonObject &params, RpcDispatcher::Reply reply) {
            const int nonce = params.value(QStringLiteral("nonce")).toInt();
            QTimer::singleShot(delayMs ? (nonce * 7919) % delayMs : 0, [reply, params] {
                reply(QJsonObject {{QStringLiteral("nonce"), params.value(QStringLiteral("nonce"))},
                    {QStringLiteral("payload"), params.value(QStringLiteral("payload"))}});
            });
        });
    QVERIFY(connectClient(client));

    // Shared, so a callback that runs after a failed check (at clean-up) touches nothing freed.
    auto outcome = std::make_shared<Outcome>();
    for (int i = 0; i < calls; ++i) {
        // Sizes vary so frames of different calls interleave on the connection.
        const QString payload(i % 97 * 40, QChar(u'a' + i % 26));
        m_hub->tunnels().call(kServer, QStringLiteral("test.echo"),
            QJsonObject {{QStringLiteral("nonce"), i}, {QStringLiteral("payload"), payload}}, 20s,
            [outcome, i, payload](hub::CallResult r) {
                if (!r) {
                    ++outcome->failed;
                    return;
                }
                ++outcome->answered;
                if (r.value().value(QStringLiteral("nonce")).toInt(-1) != i
                    || r.value().value(QStringLiteral("payload")).toString() != payload)
                    ++outcome->mixedUp;
            });
    }
    QTRY_COMPARE_WITH_TIMEOUT(outcome->answered + outcome->failed, calls, 30000);
    QCOMPARE(outcome->failed, 0);
    QCOMPARE(outcome->mixedUp, 0);
    QCOMPARE(client.connectionCount(), 1);
    QTRY_COMPARE(client.openStreams(), 0);
}

void tst_TunnelCalls::engineServesPingAndStatus()
{
    QTemporaryDir home;
    QProcessEnvironment env;
    env.insert(QStringLiteral("ISOLATION_HOME"), home.path());
    Engine engine(Paths::resolve(env).value());
    QVERIFY(engine.start().ok());
    QCOMPARE(engine.state(), EngineState::NotPaired);
    QVERIFY(engine.openTunnel(clientOptions(m_hub->url(), kServer, kCredential, *m_key)).ok());
    QTRY_COMPARE_WITH_TIMEOUT(engine.state(), EngineState::Online, 5000);
    QTRY_VERIFY(m_hub->tunnels().tunnel(kServer));

    const auto ping = callAndWait(QStringLiteral("ping"), QJsonObject {{QStringLiteral("echo"), QStringLiteral("hi")}});
    QVERIFY(ping.has_value());
    QVERIFY(ping->ok());
    QCOMPARE(
        ping->value(), (QJsonObject {{QStringLiteral("pong"), true}, {QStringLiteral("echo"), QStringLiteral("hi")}}));

    const auto status = callAndWait(QStringLiteral("server.status"));
    QVERIFY(status.has_value());
    QVERIFY(status->ok());
    QCOMPARE(status->value().value(QStringLiteral("state")).toString(), QStringLiteral("online"));
    QCOMPARE(status->value().value(QStringLiteral("home")).toString(), home.path());
    QCOMPARE(status->value().value(QStringLiteral("pid")).toInteger(), QCoreApplication::applicationPid());

    // Stopping the engine takes the tunnel down with it.
    engine.stop();
    QTRY_VERIFY(!m_hub->tunnels().tunnel(kServer));
}

void tst_TunnelCalls::explicitFailures()
{
    auto callOnce
        = [this](const QString &method, std::chrono::milliseconds timeout) { return callAndWait(method, {}, timeout); };
    // No tunnel yet.
    auto offline = callOnce(QStringLiteral("ping"), 1s);
    QVERIFY(offline && !offline->ok());
    QCOMPARE(offline->error().code, hub::CallError::Code::NotConnected);

    TunnelClient client(clientOptions(m_hub->url(), kServer, kCredential, *m_key), m_clock);
    client.rpc().addAsync(QStringLiteral("test.never"), [](const QJsonObject &, RpcDispatcher::Reply) {});
    client.rpc().add(QStringLiteral("test.fails"),
        [](const QJsonObject &) -> Result<QJsonObject> { return Error::unavailable(QStringLiteral("not now")); });
    QVERIFY(connectClient(client));

    auto unknown = callOnce(QStringLiteral("no.such.method"), 5s);
    QVERIFY(unknown && !unknown->ok());
    QCOMPARE(unknown->error().code, hub::CallError::Code::Remote);
    QCOMPARE(unknown->error().status, 404);
    QCOMPARE(unknown->error().errorCode, QStringLiteral("unknown_method"));

    auto fails = callOnce(QStringLiteral("test.fails"), 5s);
    QVERIFY(fails && !fails->ok());
    QCOMPARE(fails->error().status, 503);
    QCOMPARE(fails->error().errorCode, QStringLiteral("unavailable"));
    QCOMPARE(fails->error().message, QStringLiteral("not now"));

    // Params over 1 MiB are refused with an answer, not by cutting the call off.
    client.rpc().add(
        QStringLiteral("test.echo"), [](const QJsonObject &params) -> Result<QJsonObject> { return params; });
    auto tooLarge = callAndWait(QStringLiteral("test.echo"),
        QJsonObject {{QStringLiteral("echo"), QString(int(RpcDispatcher::MaxRequestBody), QLatin1Char('x'))}}, 10s);
    QVERIFY(tooLarge && !tooLarge->ok());
    QCOMPARE(tooLarge->error().code, hub::CallError::Code::Remote);
    QCOMPARE(tooLarge->error().status, 413);
    QCOMPARE(tooLarge->error().errorCode, QStringLiteral("too_large"));
    // Just under the limit is carried whole.
    const QString nearly(int(RpcDispatcher::MaxRequestBody) - 64, QLatin1Char('y'));
    auto large = callAndWait(QStringLiteral("test.echo"), QJsonObject {{QStringLiteral("e"), nearly}}, 10s);
    QVERIFY(large && large->ok());
    QCOMPARE(large->value().value(QStringLiteral("e")).toString(), nearly);
    QTRY_COMPARE(client.openStreams(), 0);

    auto slow = callOnce(QStringLiteral("test.never"), 200ms);
    QVERIFY(slow && !slow->ok());
    QCOMPARE(slow->error().code, hub::CallError::Code::Timeout);
    // The timed-out stream was cancelled on both ends.
    QTRY_COMPARE(client.openStreams(), 0);

    // A call in flight when the tunnel goes fails as Lost, not silently.
    auto inFlight = std::make_shared<std::optional<hub::CallResult>>();
    m_hub->tunnels().call(
        kServer, QStringLiteral("test.never"), {}, 10s, [inFlight](hub::CallResult r) { *inFlight = std::move(r); });
    QTRY_COMPARE(client.openStreams(), 1);
    client.stop();
    QTRY_VERIFY(inFlight->has_value());
    QVERIFY(!(*inFlight)->ok());
    QCOMPARE((*inFlight)->error().code, hub::CallError::Code::Lost);
    QVERIFY((*inFlight)->error().retryable());
}

void tst_TunnelCalls::newTunnelReplacesOld()
{
    TunnelClient first(clientOptions(m_hub->url(), kServer, kCredential, *m_key), m_clock);
    first.rpc().add(QStringLiteral("whoami"), [](const QJsonObject &) -> Result<QJsonObject> {
        return QJsonObject {{QStringLiteral("me"), QStringLiteral("first")}};
    });
    QVERIFY(connectClient(first));
    hub::HubTunnel *old = m_hub->tunnels().tunnel(kServer);
    QSignalSpy firstDown(&first, &TunnelClient::disconnected);

    TunnelClient second(clientOptions(m_hub->url(), kServer, kCredential, *m_key), m_clock);
    second.rpc().add(QStringLiteral("whoami"), [](const QJsonObject &) -> Result<QJsonObject> {
        return QJsonObject {{QStringLiteral("me"), QStringLiteral("second")}};
    });
    QSignalSpy up(&second, &TunnelClient::connected);
    QVERIFY(second.start().ok());
    QVERIFY(up.wait(5000));
    QVERIFY(firstDown.wait(5000)); // the hub closed the replaced tunnel
    first.stop(); // or it would come back and replace the second in turn
    QTRY_VERIFY(m_hub->tunnels().tunnel(kServer) && m_hub->tunnels().tunnel(kServer) != old);

    const auto who = callAndWait(QStringLiteral("whoami"));
    QVERIFY(who.has_value());
    QVERIFY(who->ok());
    QCOMPARE(who->value().value(QStringLiteral("me")).toString(), QStringLiteral("second"));
    QCOMPARE(m_hub->tunnels().servers(), QStringList {kServer});
}

void tst_TunnelCalls::drainFinishesOpenCalls()
{
    TunnelClient client(clientOptions(m_hub->url(), kServer, kCredential, *m_key), m_clock);
    client.rpc().addAsync(QStringLiteral("test.slow"), [](const QJsonObject &params, RpcDispatcher::Reply reply) {
        QTimer::singleShot(300, [reply, params] { reply(params); });
    });
    QVERIFY(connectClient(client));

    auto outcome = std::make_shared<Outcome>();
    for (int i = 0; i < 20; ++i) {
        m_hub->tunnels().call(kServer, QStringLiteral("test.slow"), QJsonObject {{QStringLiteral("n"), i}}, 10s,
            [outcome, i](hub::CallResult r) {
                if (r && r.value().value(QStringLiteral("n")).toInt() == i)
                    ++outcome->answered;
                else
                    ++outcome->failed;
            });
    }
    QTRY_COMPARE(client.openStreams(), 20);
    QSignalSpy drained(&client, &TunnelClient::drained);
    QSignalSpy states(&client, &TunnelClient::stateChanged);
    client.drain(5s);
    QCOMPARE(client.state(), TunnelState::Draining);

    // After GOAWAY the hub opens no new streams: a new call fails explicitly at once.
    auto late = std::make_shared<std::optional<hub::CallResult>>();
    m_hub->tunnels().call(
        kServer, QStringLiteral("test.slow"), {}, 5s, [late](hub::CallResult r) { *late = std::move(r); });

    QVERIFY(drained.wait(5000));
    // Every open call finished before the tunnel closed (the answers may still be on the wire).
    QTRY_COMPARE(outcome->answered + outcome->failed, 20);
    QCOMPARE(outcome->answered, 20);
    QTRY_VERIFY(late->has_value());
    QVERIFY(!(*late)->ok());
    QCOMPARE((*late)->error().code, hub::CallError::Code::Lost);
    QCOMPARE(client.state(), TunnelState::Disconnected);
    QTRY_VERIFY(!m_hub->tunnels().tunnel(kServer));
    // Drained means stopped: no reconnect follows.
    QTest::qWait(300);
    QCOMPARE(client.state(), TunnelState::Disconnected);
    QCOMPARE(client.connectionCount(), 1);
}

void tst_TunnelCalls::engineShutdownDrains()
{
    QTemporaryDir home;
    QProcessEnvironment env;
    env.insert(QStringLiteral("ISOLATION_HOME"), home.path());
    Engine engine(Paths::resolve(env).value());
    QVERIFY(engine.start().ok());
    QVERIFY(engine.openTunnel(clientOptions(m_hub->url(), kServer, kCredential, *m_key)).ok());
    EngineProbe::tunnel(engine)->rpc().addAsync(QStringLiteral("test.slow"), [](const QJsonObject &, RpcDispatcher::Reply reply) {
        QTimer::singleShot(200, [reply] { reply(QJsonObject {{QStringLiteral("done"), true}}); });
    });
    QTRY_COMPARE_WITH_TIMEOUT(engine.state(), EngineState::Online, 5000);
    QTRY_VERIFY(m_hub->tunnels().tunnel(kServer));

    auto slow = std::make_shared<std::optional<hub::CallResult>>();
    m_hub->tunnels().call(
        kServer, QStringLiteral("test.slow"), {}, 5s, [slow](hub::CallResult r) { *slow = std::move(r); });
    QTRY_COMPARE(EngineProbe::tunnel(engine)->openStreams(), 1);
    QSignalSpy stopped(&engine, &Engine::stopped);
    engine.shutdown();
    QCOMPARE(engine.state(), EngineState::Reconnecting); // draining: not stopped yet
    QVERIFY(stopped.wait(5000));
    QCOMPARE(engine.state(), EngineState::Stopped);
    QTRY_VERIFY(slow->has_value());
    QVERIFY((*slow)->ok()); // the call in flight finished before the engine stopped
    QTRY_VERIFY(!m_hub->tunnels().tunnel(kServer));
}

void tst_TunnelCalls::rawStreamsRouteByPath()
{
    TunnelClient client(clientOptions(m_hub->url(), kServer, kCredential, *m_key), m_clock);
    client.setStreamHandler("/v/", [](TunnelStream *stream) {
        stream->respondWith(200, {{"content-type", "text/plain"}, {"x-path", stream->requestHead().path}}, "view");
    });
    QVERIFY(connectClient(client));
    auto get = [this](const QByteArray &method, const QByteArray &path) {
        TunnelHead head;
        head.method = method;
        head.path = path;
        auto opened = m_hub->tunnels().tunnel(kServer)->open(head, true);
        QPointer<TunnelStream> stream = opened.ok() ? opened.value() : nullptr;
        QByteArray body;
        int status = 0;
        if (stream) {
            QObject::connect(stream, &TunnelStream::readyRead, [&] { body += stream->read(); });
            QObject::connect(stream, &TunnelStream::closed, [&](quint32 code) {
                body += stream->read();
                status = code == 0 ? stream->responseHead().status : -1;
            });
        }
        if (!QTest::qWaitFor([&] { return status != 0; }, 5000))
            qWarning("no answer within 5 s");
        return qMakePair(status, body);
    };
    const auto view = get("GET", "/v/abc/index.html");
    QCOMPARE(view.first, 200);
    QCOMPARE(view.second, QByteArray("view"));
    const auto other = get("GET", "/elsewhere");
    QCOMPARE(other.first, 404);
    QVERIFY(other.second.contains("not_found"));
    const auto rpcGet = get("GET", "/rpc/ping");
    QCOMPARE(rpcGet.first, 405);
}

void tst_TunnelCalls::badBytesFromTheHub_data()
{
    QTest::addColumn<QByteArray>("message");
    QTest::addColumn<bool>("text");
    QTest::newRow("not HTTP/2") << QByteArray("HTTP/1.1 200 OK\r\n\r\nhello") << false;
    QTest::newRow("preface then garbage")
        << QByteArray("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n") + QByteArray(12, '\xff') << false;
    QTest::newRow("a text message") << QByteArray("hello") << true;
    QTest::newRow("a message over 1 MiB") << QByteArray(2 * 1024 * 1024, 'x') << false;
}

void tst_TunnelCalls::badBytesFromTheHub()
{
    // A peer that completes the WebSocket upgrade and then talks nonsense.
    QFETCH(QByteArray, message);
    QFETCH(bool, text);
    QWebSocketServer rogue(QStringLiteral("rogue"), QWebSocketServer::NonSecureMode);
    QVERIFY(rogue.listen(QHostAddress::LocalHost, 0));
    connect(&rogue, &QWebSocketServer::newConnection, &rogue, [&] {
        QWebSocket *ws = rogue.nextPendingConnection();
        ws->setParent(&rogue);
        if (text)
            ws->sendTextMessage(QString::fromLatin1(message));
        else
            ws->sendBinaryMessage(message);
    });
    QUrl url(QStringLiteral("ws://127.0.0.1"));
    url.setPort(rogue.serverPort());
    TunnelClient client(clientOptions(url, kServer, kCredential, *m_key), m_clock);
    QSignalSpy scheduled(&client, &TunnelClient::reconnectScheduled);
    QVERIFY(client.start().ok());
    QVERIFY(scheduled.wait(5000));
    QCOMPARE(client.state(), TunnelState::Backoff); // it will try again, with backoff
    QVERIFY(client.lastError().has_value());
    QVERIFY2(client.lastError()->code == TunnelError::Code::Protocol
            || client.lastError()->code == TunnelError::Code::Unavailable,
        qPrintable(client.lastError()->message));
    if (!text && message.size() < 1024)
        QCOMPARE(client.lastError()->code, TunnelError::Code::Protocol);
    qInfo("%s", qPrintable(client.reason()));
    client.stop();
}

QTEST_GUILESS_MAIN(tst_TunnelCalls)
#include "tst_tunnelcalls.moc"
