// WebSocketLink and WebSocketConnector (engine/websocket/websocketlink.*) over real loopback
// sockets: against QtWebSockets (an independent implementation) as the client and as the server,
// and against a raw socket, which sees the frames as they go on the wire.
#include "websocketwire.h"

#include "http/httprequestparser.h"
#include "http/httpserver.h"
#include "websocket/websocketframes.h"
#include "websocket/websockethandshake.h"
#include "websocket/websocketlink.h"

#include <QElapsedTimer>
#include <QPointer>
#include <QSignalSpy>
#include <QTcpServer>
#include <QTcpSocket>
#include <QTest>
#include <QTimer>
#include <QWebSocket>
#include <QWebSocketServer>

#include <cstring>
#include <memory>
#include <set>

using namespace isolation;
using namespace isolation::test;
using websocket::MaskKey;

class tst_WebSocketLink final : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    // Against QtWebSockets.
    void clientEchoThroughQWebSocketServer();
    void clientClosesPolitely();
    void qwebsocketServerCloses();
    void clientRefusesATextMessage();
    void handlerMayRunTheEventLoop();
    void serverEchoForQWebSocketClient();
    void serverRefusesAMessageOverTheLimit_data();
    void serverRefusesAMessageOverTheLimit();

    // On the wire, against a raw socket.
    void clientMasksEveryFrameWithItsOwnKey();
    void serverSendsUnmaskedAndRefusesUnmasked();
};

// ---------------------------------------------------------------------------------------------
// Against QtWebSockets

namespace {

// A QWebSocketServer on loopback that records the binary messages it gets and echoes them.
struct ReferenceServer
{
    QWebSocketServer server {QStringLiteral("reference"), QWebSocketServer::NonSecureMode};
    QPointer<QWebSocket> peer;
    QList<QByteArray> got;

    ReferenceServer()
    {
        QObject::connect(&server, &QWebSocketServer::newConnection, &server, [this] {
            QWebSocket *ws = server.nextPendingConnection();
            ws->setParent(&server);
            peer = ws;
            QObject::connect(ws, &QWebSocket::binaryMessageReceived, ws, [this, ws](const QByteArray &m) {
                got.append(m);
                ws->sendBinaryMessage(m);
            });
        });
    }
    QUrl url() const { return QUrl(QStringLiteral("ws://127.0.0.1:%1/v1/tunnel").arg(server.serverPort())); }
};

// Our client link to `reference`, opened and started, its messages collected in `received`.
std::unique_ptr<WebSocketLink> openClient(ReferenceServer &reference, QList<QByteArray> *received)
{
    if (!reference.server.listen(QHostAddress::LocalHost, 0))
        return nullptr;
    WebSocketConnector connector;
    std::unique_ptr<WebSocketLink> link;
    QString failure;
    QObject::connect(&connector, &WebSocketConnector::opened, &connector, [&](WebSocketLink *l) {
        l->setParent(nullptr);
        link.reset(l);
    });
    QObject::connect(&connector, &WebSocketConnector::failed, &connector,
        [&](int status, const QString &why) { failure = QStringLiteral("%1 %2").arg(status).arg(why); });
    connector.open(reference.url(), {}, 1 << 20);
    if (!QTest::qWaitFor([&] { return link || !failure.isEmpty(); }, kTimeoutMs) || !link) {
        qWarning("no link: %s", qPrintable(failure));
        return nullptr;
    }
    link->setMessageHandler([received](QByteArrayView m) { received->append(m.toByteArray()); });
    link->start();
    if (!QTest::qWaitFor([&] { return !reference.peer.isNull(); }, kTimeoutMs))
        return nullptr;
    return link;
}

// Our server: HttpServer taking WebSocket upgrades with serverAnswer() into WebSocketLinks that
// echo every message, with the message limit given.
struct OurServer
{
    HttpServer http;
    QObject holder;
    QList<QPointer<WebSocketLink>> links;
    QStringList gone; // the reasons of disconnected()
    QList<bool> brokeProtocol;
    quint16 port = 0;

    explicit OurServer(quint64 limit)
    {
        http.setStreamSockets(true);
        http.setUpgradeHandler(
            [this, limit](const HttpRequest &request, QIODevice *device, const QByteArray &, const QByteArray &rest) {
                const auto answer = websocket::serverAnswer(request);
                if (!answer)
                    return false;
                device->write(answer.value());
                auto *link = new WebSocketLink(WebSocketLink::Role::Server, device, rest, limit, &holder);
                link->setMessageHandler([link](QByteArrayView m) { link->sendBinary(m); });
                QObject::connect(link, &WebSocketLink::disconnected, &holder, [this, link](const QString &why) {
                    gone << why;
                    brokeProtocol << link->peerBrokeProtocol();
                });
                links << link;
                link->start();
                return true;
            });
        const auto listening = http.listenTcp(QHostAddress::LocalHost, 0);
        if (listening)
            port = listening.value();
    }
    QUrl url() const { return QUrl(QStringLiteral("ws://127.0.0.1:%1/ws").arg(port)); }
};

} // namespace

// Our client against QWebSocketServer: messages of every length form both ways arrive
// byte-identical (the server's copy proves our masking and framing, the echo our reading),
// including an echo the server sends in 4 KiB fragments; a ping from the peer is answered with
// its payload.
void tst_WebSocketLink::clientEchoThroughQWebSocketServer()
{
    ReferenceServer reference;
    QList<QByteArray> received;
    const auto link = openClient(reference, &received);
    QVERIFY(link);
    QVERIFY(link->isOpen());
    QCOMPARE(link->peerAddress(), QHostAddress(QHostAddress::LocalHost));

    QList<QByteArray> sent;
    for (const qsizetype size : kSizes) {
        sent << pattern(size, quint32(size) + 3);
        link->sendBinary(sent.last());
    }
    QTRY_COMPARE_WITH_TIMEOUT(received.size(), sent.size(), kTimeoutMs);
    QCOMPARE(reference.got.size(), sent.size());
    for (qsizetype i = 0; i < sent.size(); ++i) {
        QVERIFY2(reference.got[i] == sent[i], qPrintable(QStringLiteral("to the server: %1").arg(sent[i].size())));
        QVERIFY2(received[i] == sent[i], qPrintable(QStringLiteral("echoed: %1").arg(sent[i].size())));
    }

    reference.peer->setOutgoingFrameSize(4096);
    const QByteArray fragmented = pattern(65536 + 5, 99);
    link->sendBinary(fragmented);
    QTRY_COMPARE_WITH_TIMEOUT(received.size(), sent.size() + 1, kTimeoutMs);
    QVERIFY(received.last() == fragmented);

    QSignalSpy pong(reference.peer.data(), &QWebSocket::pong);
    reference.peer->ping("are you there?");
    QTRY_COMPARE_WITH_TIMEOUT(pong.count(), 1, kTimeoutMs);
    QCOMPARE(pong.first().at(1).toByteArray(), QByteArray("are you there?"));
    QVERIFY(link->isOpen());
}

// close(1000, "bye") on our side: the peer sees the code and reason, answers, and our link
// reports disconnected once the closing handshake is complete (no protocol error).
void tst_WebSocketLink::clientClosesPolitely()
{
    ReferenceServer reference;
    QList<QByteArray> received;
    const auto link = openClient(reference, &received);
    QVERIFY(link);
    QSignalSpy peerGone(reference.peer.data(), &QWebSocket::disconnected);
    QSignalSpy linkGone(link.get(), &WebSocketLink::disconnected);
    link->close(websocket::CloseNormal, QStringLiteral("bye"));
    QCOMPARE(link->state(), WebSocketLink::State::Closing);
    QTRY_COMPARE_WITH_TIMEOUT(peerGone.count(), 1, kTimeoutMs);
    QCOMPARE(reference.peer->closeCode(), QWebSocketProtocol::CloseCodeNormal);
    QCOMPARE(reference.peer->closeReason(), QStringLiteral("bye"));
    QTRY_COMPARE_WITH_TIMEOUT(linkGone.count(), 1, kTimeoutMs);
    QCOMPARE(linkGone.first().first().toString(), QStringLiteral("bye"));
    QCOMPARE(link->state(), WebSocketLink::State::Closed);
    QVERIFY(!link->peerBrokeProtocol());
}

// The peer closes with its code and reason: our link reports disconnected with that reason and
// answers with the same code.
void tst_WebSocketLink::qwebsocketServerCloses()
{
    ReferenceServer reference;
    QList<QByteArray> received;
    const auto link = openClient(reference, &received);
    QVERIFY(link);
    QSignalSpy peerGone(reference.peer.data(), &QWebSocket::disconnected);
    QSignalSpy linkGone(link.get(), &WebSocketLink::disconnected);
    reference.peer->close(QWebSocketProtocol::CloseCodeGoingAway, QStringLiteral("server going away"));
    QTRY_COMPARE_WITH_TIMEOUT(linkGone.count(), 1, kTimeoutMs);
    QCOMPARE(linkGone.first().first().toString(), QStringLiteral("server going away"));
    QCOMPARE(link->state(), WebSocketLink::State::Closed);
    QVERIFY(!link->peerBrokeProtocol());
    QTRY_COMPARE_WITH_TIMEOUT(peerGone.count(), 1, kTimeoutMs);
    QCOMPARE(reference.peer->closeCode(), QWebSocketProtocol::CloseCodeGoingAway);
}

// The tunnel carries binary messages only: a text message is a protocol break, closed with 1003.
void tst_WebSocketLink::clientRefusesATextMessage()
{
    ReferenceServer reference;
    QList<QByteArray> received;
    const auto link = openClient(reference, &received);
    QVERIFY(link);
    QSignalSpy peerGone(reference.peer.data(), &QWebSocket::disconnected);
    QSignalSpy linkGone(link.get(), &WebSocketLink::disconnected);
    reference.peer->sendTextMessage(QStringLiteral("hello"));
    QTRY_COMPARE_WITH_TIMEOUT(linkGone.count(), 1, kTimeoutMs);
    QVERIFY(link->peerBrokeProtocol());
    QVERIFY(received.isEmpty());
    QTRY_COMPARE_WITH_TIMEOUT(peerGone.count(), 1, kTimeoutMs);
    QCOMPARE(reference.peer->closeCode(), QWebSocketProtocol::CloseCodeDatatypeNotSupported);
}

// A handler that runs the event loop (as one that waits for something might) while more frames
// come in still holds its message intact (the view is valid during the call), is not called again
// from inside itself, and the messages that came meanwhile follow it, whole and in order, once it
// returns.
void tst_WebSocketLink::handlerMayRunTheEventLoop()
{
    ReferenceServer reference;
    QList<QByteArray> unused;
    const auto link = openClient(reference, &unused);
    QVERIFY(link);
    QList<QByteArray> sent;
    for (int i = 0; i < 20; ++i)
        sent << pattern(1000 + i, quint32(i));
    QList<QByteArray> got;
    int depth = 0;
    int deepest = 0;
    bool intact = true;
    link->setMessageHandler([&](QByteArrayView m) {
        deepest = qMax(deepest, ++depth);
        const QByteArray before = m.toByteArray();
        if (got.isEmpty() && depth == 1)
            QTest::qWait(400); // the peer sends the rest meanwhile
        intact = intact && m == QByteArrayView(before);
        got << before;
        --depth;
    });
    reference.peer->sendBinaryMessage(sent.first());
    reference.peer->flush();
    QTimer::singleShot(100, reference.peer, [&] {
        for (qsizetype i = 1; i < sent.size(); ++i)
            reference.peer->sendBinaryMessage(sent[i]);
    });
    QTRY_COMPARE_WITH_TIMEOUT(got.size(), sent.size(), kTimeoutMs);
    QVERIFY(intact);
    QCOMPARE(deepest, 1);
    for (qsizetype i = 0; i < sent.size(); ++i)
        QVERIFY2(got[i] == sent[i], qPrintable(QString::number(i)));
}

// Our server (HttpServer's upgrade, serverAnswer(), WebSocketLink in the server role) for a
// QWebSocket client: messages of every length form, sent whole and in 1000-byte fragments, come
// back byte-identical.
void tst_WebSocketLink::serverEchoForQWebSocketClient()
{
    OurServer ours(1 << 20);
    QVERIFY(ours.port != 0);
    QWebSocket client;
    QList<QByteArray> received;
    connect(&client, &QWebSocket::binaryMessageReceived, this, [&](const QByteArray &m) { received << m; });
    QSignalSpy connected(&client, &QWebSocket::connected);
    client.open(ours.url());
    QTRY_COMPARE_WITH_TIMEOUT(connected.count(), 1, kTimeoutMs);
    QCOMPARE(ours.links.size(), 1);

    QList<QByteArray> sent;
    for (const qsizetype frameSize : {qsizetype(0), qsizetype(1000)}) {
        if (frameSize)
            client.setOutgoingFrameSize(quint64(frameSize));
        for (const qsizetype size : kSizes) {
            sent << pattern(size, quint32(size + frameSize));
            client.sendBinaryMessage(sent.last());
        }
    }
    QTRY_COMPARE_WITH_TIMEOUT(received.size(), sent.size(), kTimeoutMs);
    for (qsizetype i = 0; i < sent.size(); ++i)
        QVERIFY2(received[i] == sent[i], qPrintable(QStringLiteral("message %1, %2 bytes").arg(i).arg(sent[i].size())));

    QSignalSpy pong(&client, &QWebSocket::pong);
    client.ping("ping from the client");
    QTRY_COMPARE_WITH_TIMEOUT(pong.count(), 1, kTimeoutMs);
    QCOMPARE(pong.first().at(1).toByteArray(), QByteArray("ping from the client"));

    QSignalSpy clientGone(&client, &QWebSocket::disconnected);
    client.close(QWebSocketProtocol::CloseCodeNormal, QStringLiteral("done"));
    QTRY_COMPARE_WITH_TIMEOUT(ours.gone.size(), 1, kTimeoutMs);
    QCOMPARE(ours.gone.first(), QStringLiteral("done"));
    QCOMPARE(ours.brokeProtocol.first(), false);
    QTRY_COMPARE_WITH_TIMEOUT(clientGone.count(), 1, kTimeoutMs);
}

void tst_WebSocketLink::serverRefusesAMessageOverTheLimit_data()
{
    QTest::addColumn<qsizetype>("frameSize"); // the client's outgoing frame size, 0 for one frame
    QTest::newRow("one frame") << qsizetype(0);
    QTest::newRow("4 KiB fragments") << qsizetype(4096);
}

// A message over the link's limit (whole, or in fragments that add up to more) ends the
// connection as the peer's protocol break, with 1009 sent; one at the limit was echoed first.
void tst_WebSocketLink::serverRefusesAMessageOverTheLimit()
{
    QFETCH(qsizetype, frameSize);
    constexpr quint64 limit = 64 * 1024;
    OurServer ours(limit);
    QVERIFY(ours.port != 0);
    QWebSocket client;
    if (frameSize)
        client.setOutgoingFrameSize(quint64(frameSize));
    QList<QByteArray> received;
    connect(&client, &QWebSocket::binaryMessageReceived, this, [&](const QByteArray &m) { received << m; });
    QSignalSpy connected(&client, &QWebSocket::connected);
    QSignalSpy clientGone(&client, &QWebSocket::disconnected);
    client.open(ours.url());
    QTRY_COMPARE_WITH_TIMEOUT(connected.count(), 1, kTimeoutMs);

    const QByteArray atLimit = pattern(qsizetype(limit), 5);
    client.sendBinaryMessage(atLimit);
    client.sendBinaryMessage(pattern(qsizetype(limit) + 1, 6));
    QTRY_COMPARE_WITH_TIMEOUT(ours.gone.size(), 1, kTimeoutMs);
    QCOMPARE(ours.brokeProtocol.first(), true);
    QTRY_COMPARE_WITH_TIMEOUT(clientGone.count(), 1, kTimeoutMs);
    QCOMPARE(client.closeCode(), QWebSocketProtocol::CloseCodeTooMuchData);
    QCOMPARE(received.size(), 1);
    QVERIFY(received.first() == atLimit);
}

// ---------------------------------------------------------------------------------------------
// On the wire (QtWebSockets takes unmasked frames from a client, so it cannot tell)

// Our client, seen from a raw socket: every frame it sends is masked (§5.1), each with a key of
// its own (§5.3), and reads as what was sent. A peer that never answers the close frame is cut
// off after CloseTimeoutMs, and the link reports the reason it closed with.
void tst_WebSocketLink::clientMasksEveryFrameWithItsOwnKey()
{
    QTcpServer raw;
    QVERIFY(raw.listen(QHostAddress::LocalHost, 0));
    QPointer<QTcpSocket> peer;
    QByteArray in;
    connect(&raw, &QTcpServer::newConnection, this, [&] {
        peer = raw.nextPendingConnection();
        connect(peer, &QTcpSocket::readyRead, peer, [&] { in += peer->readAll(); });
    });
    WebSocketConnector connector;
    std::unique_ptr<WebSocketLink> link;
    connect(&connector, &WebSocketConnector::opened, this, [&](WebSocketLink *l) {
        l->setParent(nullptr);
        link.reset(l);
    });
    connector.open(QUrl(QStringLiteral("ws://127.0.0.1:%1/").arg(raw.serverPort())), {}, 1 << 20);
    QTRY_VERIFY_WITH_TIMEOUT(in.contains("\r\n\r\n"), kTimeoutMs);
    HttpRequestParser parser;
    QCOMPARE(parser.feed(in.constData(), in.size()), in.size());
    QCOMPARE(parser.state(), HttpRequestParser::State::Upgrade);
    const auto answer = websocket::serverAnswer(parser.takeRequest());
    QVERIFY(answer.ok());
    in.clear();
    peer->write(answer.value());
    QTRY_VERIFY_WITH_TIMEOUT(link != nullptr, kTimeoutMs);
    QSignalSpy gone(link.get(), &WebSocketLink::disconnected);
    link->start();

    const QList<QByteArray> payloads {"same", "same", "same", pattern(300)};
    for (const QByteArray &p : payloads)
        link->sendBinary(p);
    link->close(websocket::CloseNormal, QStringLiteral("bye"));
    QElapsedTimer sinceClose;
    sinceClose.start();
    const QByteArray closing = closeBody(1000, "bye");
    const qsizetype expected = 3 * (6 + 4) + (8 + 300) + (6 + closing.size());
    QTRY_COMPARE_WITH_TIMEOUT(in.size(), expected, kTimeoutMs);

    std::set<quint32> keys;
    QList<QByteArray> unmasked;
    qsizetype at = 0;
    while (at < in.size()) {
        const auto b1 = quint8(in[at + 1]);
        QVERIFY2(b1 & 0x80, qPrintable(QStringLiteral("frame at %1 not masked").arg(at)));
        qsizetype length = b1 & 0x7f;
        qsizetype head = 2;
        if (length == 126) {
            length = (quint8(in[at + 2]) << 8) | quint8(in[at + 3]);
            head = 4;
        }
        MaskKey key;
        std::memcpy(key.data(), in.constData() + at + head, 4);
        quint32 k32 = 0;
        std::memcpy(&k32, key.data(), 4);
        keys.insert(k32);
        QByteArray body = in.mid(at + head + 4, length);
        referenceMask(body.data(), body.size(), key);
        unmasked << body;
        at += head + 4 + length;
    }
    QCOMPARE(at, in.size());
    QCOMPARE(unmasked, payloads + QList<QByteArray> {closing});
    QCOMPARE(keys.size(), size_t(payloads.size() + 1)); // a fresh key for every frame

    QTRY_COMPARE_WITH_TIMEOUT(gone.count(), 1, WebSocketLink::CloseTimeoutMs + kTimeoutMs);
    QVERIFY2(
        sinceClose.elapsed() >= WebSocketLink::CloseTimeoutMs - 200, qPrintable(QString::number(sinceClose.elapsed())));
    QCOMPARE(gone.first().first().toString(), QStringLiteral("bye"));
    QVERIFY(!link->peerBrokeProtocol());
    QTRY_COMPARE_WITH_TIMEOUT(peer->state(), QAbstractSocket::UnconnectedState, kTimeoutMs);
}

// Our server, seen from a raw socket: its frames are not masked (§5.1: a server must not mask),
// byte for byte; a ping gets its pong; an unmasked frame from the client is a protocol break,
// answered with a close frame with 1002, then the connection ends.
void tst_WebSocketLink::serverSendsUnmaskedAndRefusesUnmasked()
{
    OurServer ours(1 << 20);
    QVERIFY(ours.port != 0);
    QTcpSocket raw;
    QByteArray in;
    connect(&raw, &QTcpSocket::readyRead, this, [&] { in += raw.readAll(); });
    raw.connectToHost(QHostAddress::LocalHost, ours.port);
    QTRY_COMPARE_WITH_TIMEOUT(raw.state(), QAbstractSocket::ConnectedState, kTimeoutMs);
    raw.write(websocket::clientRequest(ours.url(), kRfcKey, {}));
    QTRY_VERIFY_WITH_TIMEOUT(in.contains("\r\n\r\n"), kTimeoutMs);
    websocket::HandshakeReader reader(kRfcKey);
    QCOMPARE(reader.feed(in), websocket::HandshakeReader::Status::Accepted);
    in = reader.rest();
    QVERIFY(in.isEmpty());

    raw.write(rawFrame(0x82, "hi", true));
    QTRY_COMPARE_WITH_TIMEOUT(in.toHex(' '), QByteArray("\x82\x02hi").toHex(' '), kTimeoutMs);
    in.clear();
    raw.write(rawFrame(0x89, "ping", true));
    QTRY_COMPARE_WITH_TIMEOUT(in.toHex(' '), QByteArray("\x8a\x04ping").toHex(' '), kTimeoutMs);
    in.clear();
    const QByteArray big = pattern(70000, 3);
    raw.write(rawFrame(0x82, big, true));
    QTRY_COMPARE_WITH_TIMEOUT(in.size(), 10 + big.size(), kTimeoutMs);
    QCOMPARE(in.left(10).toHex(' '), QByteArray::fromHex("827f0000000000011170").toHex(' '));
    QVERIFY(in.sliced(10) == big);
    in.clear();

    raw.write(rawFrame(0x82, "hi", false));
    QTRY_COMPARE_WITH_TIMEOUT(ours.gone.size(), 1, kTimeoutMs);
    QCOMPARE(ours.brokeProtocol.first(), true);
    QTRY_COMPARE_WITH_TIMEOUT(raw.state(), QAbstractSocket::UnconnectedState, kTimeoutMs);
    QCOMPARE(in.toHex(' '), QByteArray::fromHex("880203ea").toHex(' '));
}

QTEST_GUILESS_MAIN(tst_WebSocketLink)
#include "tst_websocketlink.moc"

