// The tunnel handshake's authentication: the signed string, the hub's verdicts, and refused
// upgrades on the wire (401, no tunnel) for every way a handshake can be wrong.
#include "tunnel/tunnelauth.h"
#include "tunnel/tunnelclient.h"
#include "tunneltestkit.h"

#include <QCryptographicHash>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSignalSpy>
#include <QTcpSocket>
#include <QTest>

using namespace isolation;
using namespace isolation::test;
using namespace std::chrono_literals;

namespace {

const QByteArray kCredential = "cred-7d1b0f0e2a4c4e59b1d3";
const QString kServer = QStringLiteral("srv-auth");

// What a handshake carries; each test case spoils one part.
struct Handshake
{
    QString serverId = kServer;
    QByteArray credential = kCredential;
    qint64 timestamp = 0;
    QByteArray nonce = TunnelAuth::newNonce();
    bool badSignature = false;
    bool omitSignature = false;
};

HttpHeaders headersFor(const Handshake &h, const TestKey &key)
{
    QByteArray signature = key.sign(TunnelAuth::signedMessage(h.serverId, h.timestamp, h.nonce));
    if (h.badSignature)
        signature[0] = char(signature.at(0) ^ 0x01);
    HttpHeaders headers = TunnelAuth::headers(h.serverId, h.credential, h.timestamp, h.nonce, signature);
    if (h.credential.isEmpty())
        headers.removeIf([](const auto &p) { return p.first == "Authorization"; });
    if (h.omitSignature)
        headers.removeIf([](const auto &p) { return p.first == TunnelAuth::SignatureHeader; });
    return headers;
}

} // namespace

class tst_TunnelAuth final : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void signedStringIsFixed();
    void parseRejectsMalformedHeaders_data();
    void parseRejectsMalformedHeaders();
    void verdicts_data();
    void verdicts();
    void refusedUpgradesOnTheWire_data();
    void refusedUpgradesOnTheWire();
    void clientSeesUnauthorized();
    void hubWithoutRegistryRefusesAll();
    void plainWebSocketOnlyToLoopback_data();
    void plainWebSocketOnlyToLoopback();
    void credentialNeverLogged();

private:
    static void addCases();
};

void tst_TunnelAuth::signedStringIsFixed()
{
    // docs/protocol.md names this exact string; the hub and every engine must agree on it.
    QCOMPARE(TunnelAuth::signedMessage(QStringLiteral("srv-1"), 1700000000, "bm9uY2Vub25jZW5vbmNl"),
        QByteArray("isolation-tunnel-v1\nsrv-1\n1700000000\nbm9uY2Vub25jZW5vbmNl"));
    const HttpHeaders h = TunnelAuth::headers(QStringLiteral("srv-1"), "tok", 42, "nonce", QByteArray("\xff\xfe", 2));
    QCOMPARE(headerValue(h, "authorization"), QByteArray("Bearer tok"));
    QCOMPARE(headerValue(h, "x-isolation-server"), QByteArray("srv-1"));
    QCOMPARE(headerValue(h, "x-isolation-timestamp"), QByteArray("42"));
    QCOMPARE(headerValue(h, "x-isolation-nonce"), QByteArray("nonce"));
    QCOMPARE(headerValue(h, "x-isolation-signature"), QByteArray("__4")); // base64url, no padding
    QVERIFY(TunnelAuth::newNonce() != TunnelAuth::newNonce());
    QCOMPARE(TunnelAuth::newNonce().size(), 22);
}

void tst_TunnelAuth::parseRejectsMalformedHeaders_data()
{
    QTest::addColumn<QByteArray>("name");
    QTest::addColumn<QByteArray>("value");
    QTest::newRow("server id with a newline") << QByteArray(TunnelAuth::ServerHeader) << QByteArray("a\nb");
    QTest::newRow("empty server id") << QByteArray(TunnelAuth::ServerHeader) << QByteArray();
    QTest::newRow("timestamp not a number") << QByteArray(TunnelAuth::TimestampHeader) << QByteArray("soon");
    QTest::newRow("short nonce") << QByteArray(TunnelAuth::NonceHeader) << QByteArray("abc");
    QTest::newRow("nonce not base64url") << QByteArray(TunnelAuth::NonceHeader) << QByteArray("aaaaaaaaaaaaaaaa+/==");
    QTest::newRow("signature not base64url") << QByteArray(TunnelAuth::SignatureHeader) << QByteArray("a b");
    QTest::newRow("no bearer") << QByteArray("Authorization") << QByteArray("Basic abc");
}

void tst_TunnelAuth::parseRejectsMalformedHeaders()
{
    QFETCH(QByteArray, name);
    QFETCH(QByteArray, value);
    HttpRequest request;
    request.headers = TunnelAuth::headers(kServer, kCredential, 1700000000, TunnelAuth::newNonce(), "sig");
    QVERIFY(TunnelAuth::parse(request).ok());
    for (auto &h : request.headers) {
        if (h.first == name)
            h.second = value;
    }
    const auto parsed = TunnelAuth::parse(request);
    QVERIFY(!parsed.ok());
    QCOMPARE(parsed.error().code, Error::Code::InvalidInput);
}

void tst_TunnelAuth::addCases()
{
    QTest::addColumn<QString>("serverId");
    QTest::addColumn<QByteArray>("credential");
    QTest::addColumn<qint64>("skew");
    QTest::addColumn<bool>("badSignature");
    QTest::addColumn<bool>("omitSignature");
    QTest::addColumn<bool>("replay");
    QTest::addColumn<bool>("accepted");
    QTest::newRow("valid") << kServer << kCredential << qint64(0) << false << false << false << true;
    QTest::newRow("clock 4 min apart") << kServer << kCredential << qint64(-240) << false << false << false << true;
    QTest::newRow("no credential") << kServer << QByteArray() << qint64(0) << false << false << false << false;
    QTest::newRow("wrong credential") << kServer << QByteArray("cred-7d1b0f0e2a4c4e59b1d4") << qint64(0) << false
                                      << false << false << false;
    QTest::newRow("bad signature") << kServer << kCredential << qint64(0) << true << false << false << false;
    QTest::newRow("no signature") << kServer << kCredential << qint64(0) << false << true << false << false;
    QTest::newRow("unknown server") << QStringLiteral("srv-other") << kCredential << qint64(0) << false << false
                                    << false << false;
    QTest::newRow("stale timestamp") << kServer << kCredential << qint64(-301) << false << false << false << false;
    QTest::newRow("future timestamp") << kServer << kCredential << qint64(400) << false << false << false << false;
    QTest::newRow("replayed nonce") << kServer << kCredential << qint64(0) << false << false << true << false;
}

void tst_TunnelAuth::verdicts_data()
{
    addCases();
}

void tst_TunnelAuth::verdicts()
{
    QFETCH(QString, serverId);
    QFETCH(QByteArray, credential);
    QFETCH(qint64, skew);
    QFETCH(bool, badSignature);
    QFETCH(bool, omitSignature);
    QFETCH(bool, replay);
    QFETCH(bool, accepted);

    ManualClock clock;
    TestKey key;
    TestKey otherKey;
    hub::TunnelAuthenticator auth(
        [&](const QString &id) -> std::optional<hub::TunnelAuthenticator::Server> {
            if (id != kServer)
                return std::nullopt;
            return hub::TunnelAuthenticator::Server {QCryptographicHash::hash(kCredential, QCryptographicHash::Sha256),
                [&](const QByteArray &m, const QByteArray &s) { return TestKey::verify(key.publicKey(), m, s); }};
        },
        clock);
    Handshake h;
    h.serverId = serverId;
    h.credential = credential;
    h.timestamp = clock.unixSeconds() + skew;
    h.badSignature = badSignature;
    h.omitSignature = omitSignature;
    HttpRequest request;
    request.headers = headersFor(h, key);
    if (replay)
        QVERIFY(auth.verify(request).ok()); // the first use is fine...
    const auto verdict = auth.verify(request); // ...a second is not
    QCOMPARE(verdict.ok(), accepted);
    if (accepted)
        QCOMPARE(verdict.value(), serverId);
    else
        QVERIFY(!verdict.error().message.contains(QString::fromLatin1(kCredential)));

    // A signature by another key never passes, whatever else is right.
    Handshake forged;
    forged.timestamp = clock.unixSeconds();
    HttpRequest other;
    other.headers = headersFor(forged, otherKey);
    QVERIFY(!auth.verify(other).ok());
}

void tst_TunnelAuth::refusedUpgradesOnTheWire_data()
{
    addCases();
}

void tst_TunnelAuth::refusedUpgradesOnTheWire()
{
    QFETCH(QString, serverId);
    QFETCH(QByteArray, credential);
    QFETCH(qint64, skew);
    QFETCH(bool, badSignature);
    QFETCH(bool, omitSignature);
    QFETCH(bool, replay);
    QFETCH(bool, accepted);

    SystemClock clock;
    TestKey key;
    TestHub hub(clock);
    hub.addServer(kServer, kCredential, key.publicKey());
    QVERIFY(hub.start());

    Handshake h;
    h.serverId = serverId;
    h.credential = credential;
    h.timestamp = clock.unixSeconds() + skew;
    h.badSignature = badSignature;
    h.omitSignature = omitSignature;

    auto handshake = [&](QByteArray *answer) {
        QTcpSocket socket;
        socket.connectToHost(QHostAddress::LocalHost, hub.port());
        if (!socket.waitForConnected(5000))
            return false;
        QByteArray request = "GET /v1/tunnel HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\n"
                             "Connection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
                             "Sec-WebSocket-Version: 13\r\n";
        for (const auto &p : headersFor(h, key))
            request += p.first + ": " + p.second + "\r\n";
        socket.write(request + "\r\n");
        // The hub runs in this thread: spin the loop while waiting for its whole answer.
        return QTest::qWaitFor(
            [&] {
                answer->append(socket.readAll());
                if (!answer->contains("\r\n\r\n"))
                    return false;
                return !answer->startsWith("HTTP/1.1 401") || answer->endsWith("}");
            },
            5000);
    };
    QByteArray answer;
    if (replay) {
        QVERIFY(handshake(&answer));
        QVERIFY2(answer.startsWith("HTTP/1.1 101"), answer.constData());
        QTRY_VERIFY(hub.tunnels().tunnel(kServer) != nullptr);
        hub.tunnels().closeAll(QStringLiteral("test"));
        answer.clear();
    }
    QVERIFY(handshake(&answer));
    if (accepted) {
        QVERIFY2(answer.startsWith("HTTP/1.1 101"), answer.constData());
        QTRY_VERIFY(hub.tunnels().tunnel(serverId) != nullptr);
        return;
    }
    QVERIFY2(answer.startsWith("HTTP/1.1 401"), answer.constData());
    const QByteArray body = answer.mid(answer.indexOf("\r\n\r\n") + 4);
    const QJsonObject error = QJsonDocument::fromJson(body).object().value(QStringLiteral("error")).toObject();
    QCOMPARE(error.value(QStringLiteral("code")).toString(), QStringLiteral("unauthorized"));
    // The refusal does not say which part was wrong.
    QCOMPARE(
        error.value(QStringLiteral("message")).toString(), QStringLiteral("invalid server credential or signature"));
    QTest::qWait(50);
    QVERIFY(hub.tunnels().servers().isEmpty());
}

void tst_TunnelAuth::clientSeesUnauthorized()
{
    SystemClock clock;
    TestKey key;
    TestKey impostor;
    TestHub hub(clock);
    hub.addServer(kServer, kCredential, key.publicKey());
    QVERIFY(hub.start());

    TunnelClient client(clientOptions(hub.url(), kServer, kCredential, impostor), clock);
    QSignalSpy scheduled(&client, &TunnelClient::reconnectScheduled);
    QVERIFY(client.start().ok());
    QVERIFY(scheduled.wait(5000));
    QCOMPARE(client.state(), TunnelState::Backoff);
    QVERIFY(client.lastError().has_value());
    QCOMPARE(client.lastError()->code, TunnelError::Code::Unauthorized);
    QVERIFY2(client.reason().contains(QStringLiteral("401")), qPrintable(client.reason()));
    QCOMPARE(client.connectionCount(), 0);
    QVERIFY(hub.tunnels().servers().isEmpty());
    client.stop();
    QCOMPARE(client.state(), TunnelState::Disconnected);
}

void tst_TunnelAuth::hubWithoutRegistryRefusesAll()
{
    // Until pairing plugs its registry in, the hub has no verifier and accepts no tunnel.
    QTemporaryDir dir;
    hub::HubServer::Options options;
    options.dataDir = dir.path();
    options.listenPort = 0;
    options.previewPort = 0;
    hub::HubServer server(options);
    QVERIFY(server.start().ok());
    SystemClock clock;
    TestKey key;
    TunnelClient client(clientOptions(server.appUrl(), kServer, kCredential, key), clock);
    QSignalSpy scheduled(&client, &TunnelClient::reconnectScheduled);
    QVERIFY(client.start().ok());
    QVERIFY(scheduled.wait(5000));
    QCOMPARE(client.lastError()->code, TunnelError::Code::Unauthorized);
    QVERIFY(server.tunnels().servers().isEmpty());
}

void tst_TunnelAuth::plainWebSocketOnlyToLoopback_data()
{
    QTest::addColumn<QString>("hub");
    QTest::addColumn<QString>("expected"); // empty: refused
    QTest::newRow("ws to a remote name") << "ws://hub.example.com" << QString();
    QTest::newRow("http to a remote name") << "http://hub.example.com:8470" << QString();
    QTest::newRow("ws to a LAN address") << "ws://10.0.0.7:8470" << QString();
    QTest::newRow("ws to a look-alike name") << "ws://127.0.0.1.example.com" << QString();
    QTest::newRow("ftp") << "ftp://127.0.0.1" << QString();
    QTest::newRow("ws to 127.0.0.1") << "ws://127.0.0.1:8470"
                                     << "ws://127.0.0.1:8470/v1/tunnel";
    QTest::newRow("http to localhost") << "http://localhost:8470/"
                                       << "ws://localhost:8470/v1/tunnel";
    QTest::newRow("ws to ::1") << "ws://[::1]:8470"
                               << "ws://[::1]:8470/v1/tunnel";
    QTest::newRow("https anywhere") << "https://hub.example.com"
                                    << "wss://hub.example.com/v1/tunnel";
    QTest::newRow("wss with a base path") << "wss://example.com/hub"
                                          << "wss://example.com/hub/v1/tunnel";
}

void tst_TunnelAuth::plainWebSocketOnlyToLoopback()
{
    QFETCH(QString, hub);
    QFETCH(QString, expected);
    const auto url = TunnelClient::tunnelUrl(QUrl(hub));
    if (!expected.isEmpty()) {
        QVERIFY2(url.ok(), qPrintable(url.ok() ? QString() : url.error().message));
        QCOMPARE(url.value().toString(), expected);
        return;
    }
    QVERIFY(!url.ok());
    QCOMPARE(url.error().code, TunnelError::Code::InvalidConfig);
    // The client refuses to start at all: no attempt, no retry.
    SystemClock clock;
    TestKey key;
    TunnelClient client(clientOptions(QUrl(hub), kServer, kCredential, key), clock);
    QSignalSpy states(&client, &TunnelClient::stateChanged);
    const auto started = client.start();
    QVERIFY(!started.ok());
    QCOMPARE(started.error().code, TunnelError::Code::InvalidConfig);
    QVERIFY(!started.error().retryable());
    QCOMPARE(client.state(), TunnelState::Disconnected);
    QTest::qWait(100);
    for (const auto &args : states)
        QVERIFY(args.at(0).value<TunnelState>() != TunnelState::Connecting);
}

namespace {
QStringList g_log;
void captureLog(QtMsgType, const QMessageLogContext &, const QString &message)
{
    g_log.append(message);
}
} // namespace

void tst_TunnelAuth::credentialNeverLogged()
{
    SystemClock clock;
    TestKey key;
    TestHub hub(clock);
    hub.addServer(kServer, kCredential, key.publicKey());
    QVERIFY(hub.start());
    g_log.clear();
    const auto previous = qInstallMessageHandler(captureLog);
    {
        // A refused one (wrong credential) and an accepted one, with debug logging on.
        TunnelClient wrong(clientOptions(hub.url(), kServer, "cred-wrong-but-long-enough", key), clock);
        QSignalSpy scheduled(&wrong, &TunnelClient::reconnectScheduled);
        QVERIFY(wrong.start().ok());
        QVERIFY(scheduled.wait(5000));
        TunnelClient right(clientOptions(hub.url(), kServer, kCredential, key), clock);
        QSignalSpy up(&right, &TunnelClient::connected);
        QVERIFY(right.start().ok());
        QVERIFY(up.wait(5000));
    }
    qInstallMessageHandler(previous);
    QVERIFY(!g_log.isEmpty());
    for (const QString &line : std::as_const(g_log)) {
        QVERIFY2(!line.contains(QString::fromLatin1(kCredential)), qPrintable(line));
        QVERIFY2(!line.contains(QStringLiteral("cred-wrong-but-long-enough")), qPrintable(line));
    }
}

QTEST_GUILESS_MAIN(tst_TunnelAuth)
#include "tst_tunnelauth.moc"
