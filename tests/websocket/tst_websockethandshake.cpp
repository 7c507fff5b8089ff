// The tunnel's own WebSocket opening handshake (engine/websocket/websockethandshake.*), as bytes
// (RFC 6455 §4, with the RFC's own example): the accept value, keys, the server's answer to an
// upgrade request and the client's reading of the answer.
#include "websocketwire.h"

#include "http/httprequest.h"
#include "http/httprequestparser.h"
#include "websocket/websocketframes.h"
#include "websocket/websockethandshake.h"

#include <QTest>

using namespace isolation;
using namespace isolation::test;

namespace {

HttpRequest upgradeRequest(const HttpHeaders &headers, const QByteArray &method = "GET")
{
    HttpRequest request;
    request.method = method;
    request.target = "/v1/tunnel";
    request.path = QStringLiteral("/v1/tunnel");
    request.headers = headers;
    return request;
}

QByteArray goodAnswer(const QByteArray &accept = kRfcAccept)
{
    return "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: "
        + accept + "\r\n\r\n";
}

} // namespace

class tst_WebSocketHandshake final : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void acceptForRfcExample();
    void newKeyIs16RandomBytes();
    void hasToken_data();
    void hasToken();
    void serverAnswer_data();
    void serverAnswer();
    void clientRequestIsAcceptedByServerAnswer_data();
    void clientRequestIsAcceptedByServerAnswer();
    void handshakeReader_data();
    void handshakeReader();
};

// RFC 6455 §1.3's own example.
void tst_WebSocketHandshake::acceptForRfcExample()
{
    QCOMPARE(websocket::acceptFor(kRfcKey), kRfcAccept);
    QCOMPARE(QByteArray::fromBase64(kRfcAccept).toHex(), QByteArray("b37a4f2cc0624f1690f64606cf385945b2bec4ea"));
    QVERIFY(websocket::acceptFor("AAAAAAAAAAAAAAAAAAAAAA==") != kRfcAccept);
}

void tst_WebSocketHandshake::newKeyIs16RandomBytes()
{
    const QByteArray a = websocket::newKey();
    const QByteArray b = websocket::newKey();
    QCOMPARE(a.size(), 24);
    const auto decoded = QByteArray::fromBase64Encoding(a, QByteArray::AbortOnBase64DecodingErrors);
    QVERIFY(decoded);
    QCOMPARE(decoded.decoded.size(), 16);
    QVERIFY(a != b);
}

void tst_WebSocketHandshake::hasToken_data()
{
    QTest::addColumn<QByteArray>("list");
    QTest::addColumn<QByteArray>("token");
    QTest::addColumn<bool>("has");
    QTest::newRow("alone") << QByteArray("Upgrade") << QByteArray("upgrade") << true;
    QTest::newRow("second of two") << QByteArray("keep-alive, Upgrade") << QByteArray("upgrade") << true;
    QTest::newRow("first of two") << QByteArray("Upgrade, keep-alive") << QByteArray("upgrade") << true;
    QTest::newRow("no spaces") << QByteArray("keep-alive,upgrade") << QByteArray("upgrade") << true;
    QTest::newRow("tabs and spaces") << QByteArray("\t upgrade \t") << QByteArray("upgrade") << true;
    QTest::newRow("upper case") << QByteArray("WEBSOCKET") << QByteArray("websocket") << true;
    QTest::newRow("empty element") << QByteArray("a,,upgrade") << QByteArray("upgrade") << true;
    QTest::newRow("absent") << QByteArray("keep-alive") << QByteArray("upgrade") << false;
    QTest::newRow("empty list") << QByteArray() << QByteArray("upgrade") << false;
    QTest::newRow("prefix of a token") << QByteArray("upgraded") << QByteArray("upgrade") << false;
    QTest::newRow("token with a suffix") << QByteArray("websocket/13") << QByteArray("websocket") << false;
    QTest::newRow("inside a token") << QByteArray("keep-alive upgrade") << QByteArray("upgrade") << false;
    QTest::newRow("trailing comma") << QByteArray("keep-alive,") << QByteArray("upgrade") << false;
}

void tst_WebSocketHandshake::hasToken()
{
    QFETCH(QByteArray, list);
    QFETCH(QByteArray, token);
    QFETCH(bool, has);
    QCOMPARE(isolation::hasToken(list, token), has);
}

void tst_WebSocketHandshake::serverAnswer_data()
{
    QTest::addColumn<QByteArray>("method");
    QTest::addColumn<HttpHeaders>("headers");
    QTest::addColumn<bool>("accepted");
    const HttpHeaders good {{"Host", "hub"}, {"Upgrade", "websocket"}, {"Connection", "Upgrade"},
        {"Sec-WebSocket-Key", kRfcKey}, {"Sec-WebSocket-Version", "13"}};
    auto with = [&good](const QByteArray &name, const QByteArray &value) {
        HttpHeaders h;
        bool replaced = false;
        for (const auto &[n, v] : good) {
            if (n == name) {
                replaced = true;
                if (!value.isNull())
                    h.append({n, value});
            } else {
                h.append({n, v});
            }
        }
        if (!replaced)
            h.append({name, value});
        return h;
    };
    QTest::newRow("good") << QByteArray("GET") << good << true;
    QTest::newRow("names and tokens in other cases")
        << QByteArray("GET")
        << HttpHeaders {{"upgrade", "WebSocket"}, {"CONNECTION", "keep-alive, upgrade"},
               {"sec-websocket-key", " " + kRfcKey + " "}, {"SEC-WEBSOCKET-VERSION", "13"}}
        << true;
    QTest::newRow("POST") << QByteArray("POST") << good << false;
    QTest::newRow("no Upgrade") << QByteArray("GET") << with("Upgrade", QByteArray()) << false;
    QTest::newRow("Upgrade: h2c") << QByteArray("GET") << with("Upgrade", "h2c") << false;
    QTest::newRow("no Connection") << QByteArray("GET") << with("Connection", QByteArray()) << false;
    QTest::newRow("Connection: keep-alive") << QByteArray("GET") << with("Connection", "keep-alive") << false;
    QTest::newRow("version 8") << QByteArray("GET") << with("Sec-WebSocket-Version", "8") << false;
    QTest::newRow("version 13, 8") << QByteArray("GET") << with("Sec-WebSocket-Version", "13, 8") << false;
    QTest::newRow("no version") << QByteArray("GET") << with("Sec-WebSocket-Version", QByteArray()) << false;
    QTest::newRow("no key") << QByteArray("GET") << with("Sec-WebSocket-Key", QByteArray()) << false;
    QTest::newRow("key of 15 bytes") << QByteArray("GET") << with("Sec-WebSocket-Key", QByteArray(15, 'k').toBase64())
                                     << false;
    QTest::newRow("key of 17 bytes") << QByteArray("GET") << with("Sec-WebSocket-Key", QByteArray(17, 'k').toBase64())
                                     << false;
    QTest::newRow("key of 24 characters, not base64")
        << QByteArray("GET") << with("Sec-WebSocket-Key", "dGhlIHNhbXBsZSBub25jZQ!!") << false;
}

// The server takes a version-13 GET upgrade to websocket with a 16-byte key and answers 101 with
// the key's accept value (the RFC's example); anything else is refused with a reason.
void tst_WebSocketHandshake::serverAnswer()
{
    QFETCH(QByteArray, method);
    QFETCH(HttpHeaders, headers);
    QFETCH(bool, accepted);
    const auto answer = websocket::serverAnswer(upgradeRequest(headers, method));
    QCOMPARE(answer.ok(), accepted);
    if (!accepted) {
        QVERIFY(!answer.error().message.isEmpty());
        return;
    }
    const QByteArray head = answer.value();
    QVERIFY(head.startsWith("HTTP/1.1 101 "));
    QVERIFY(head.endsWith("\r\n\r\n"));
    QVERIFY(head.contains(QByteArray("\r\nSec-WebSocket-Accept: " + kRfcAccept + "\r\n")));
    websocket::HandshakeReader reader(kRfcKey);
    QCOMPARE(reader.feed(head), websocket::HandshakeReader::Status::Accepted);
}

void tst_WebSocketHandshake::clientRequestIsAcceptedByServerAnswer_data()
{
    QTest::addColumn<QString>("url");
    QTest::addColumn<QByteArray>("target");
    QTest::addColumn<QByteArray>("host");
    QTest::newRow("ws with a port and a query") << QStringLiteral("ws://127.0.0.1:8080/v1/tunnel?a=b%20c")
                                                << QByteArray("/v1/tunnel?a=b%20c") << QByteArray("127.0.0.1:8080");
    QTest::newRow("wss, default port") << QStringLiteral("wss://hub.example:443/v1/tunnel") << QByteArray("/v1/tunnel")
                                       << QByteArray("hub.example");
    QTest::newRow("no path") << QStringLiteral("wss://hub.example") << QByteArray("/") << QByteArray("hub.example");
    QTest::newRow("IPv6") << QStringLiteral("ws://[::1]:9000/x") << QByteArray("/x") << QByteArray("[::1]:9000");
    QTest::newRow("ws, port 80") << QStringLiteral("ws://localhost:80/") << QByteArray("/") << QByteArray("localhost");
}

// The client's request, parsed by the server's own HTTP parser, is an upgrade that serverAnswer()
// takes, and its answer completes the client's handshake.
void tst_WebSocketHandshake::clientRequestIsAcceptedByServerAnswer()
{
    QFETCH(QString, url);
    QFETCH(QByteArray, target);
    QFETCH(QByteArray, host);
    const QByteArray key = websocket::newKey();
    const QByteArray request
        = websocket::clientRequest(QUrl(url), key, HttpHeaders {{"Authorization", "Bearer t0ken"}});
    HttpRequestParser parser;
    QCOMPARE(parser.feed(request.constData(), request.size()), request.size());
    QCOMPARE(parser.state(), HttpRequestParser::State::Upgrade);
    const HttpRequest parsed = parser.takeRequest();
    QCOMPARE(parsed.method, QByteArray("GET"));
    QCOMPARE(parsed.target, target);
    QCOMPARE(parsed.header("host"), host);
    QCOMPARE(parsed.header("authorization"), QByteArray("Bearer t0ken"));
    const auto answer = websocket::serverAnswer(parsed);
    QVERIFY2(answer.ok(), answer.ok() ? "" : qPrintable(answer.error().message));
    websocket::HandshakeReader reader(key);
    QCOMPARE(reader.feed(answer.value()), websocket::HandshakeReader::Status::Accepted);
    QCOMPARE(reader.status(), 101);
    QVERIFY(reader.rest().isEmpty());
}

void tst_WebSocketHandshake::handshakeReader_data()
{
    using S = websocket::HandshakeReader::Status;
    QTest::addColumn<QByteArray>("bytes");
    QTest::addColumn<QList<int>>("cuts"); // where the bytes are split into feeds
    QTest::addColumn<int>("status"); // HandshakeReader::Status
    QTest::addColumn<int>("httpStatus");
    QTest::addColumn<QByteArray>("rest");

    const QByteArray good = goodAnswer();
    const QByteArray frames = rawFrame(0x82, "abc", false) + rawFrame(0x89, "p", false);
    const int headEnd = int(good.size());
    QTest::newRow("good 101") << good << QList<int> {} << int(S::Accepted) << 101 << QByteArray();
    QList<int> everyByte;
    for (int i = 1; i < headEnd; ++i)
        everyByte << i;
    QTest::newRow("good 101, a byte at a time") << good << everyByte << int(S::Accepted) << 101 << QByteArray();
    QTest::newRow("other cases, more tokens, spaces")
        << QByteArray("HTTP/1.1 101 OK\r\nupgrade: WebSocket\r\nconnection: keep-alive, upgrade\r\n"
                      "sec-websocket-accept:   "
               + kRfcAccept + "  \r\nServer: x\r\n\r\n")
        << QList<int> {} << int(S::Accepted) << 101 << QByteArray();
    QTest::newRow("frames after the head")
        << QByteArray(good + frames) << QList<int> {} << int(S::Accepted) << 101 << frames;
    QTest::newRow("head split across feeds, frames after it")
        << QByteArray(good + frames) << QList<int> {5, 20, headEnd - 3, headEnd - 1} << int(S::Accepted) << 101
        << frames;
    QTest::newRow("split in the status line and the accept value")
        << QByteArray(good + frames) << QList<int> {11, headEnd - 20} << int(S::Accepted) << 101 << frames;
    QTest::newRow("wrong accept") << goodAnswer(websocket::acceptFor("AAAAAAAAAAAAAAAAAAAAAA==")) << QList<int> {}
                                  << int(S::Error) << 101 << QByteArray();
    QTest::newRow("accept of the key itself")
        << goodAnswer(kRfcKey) << QList<int> {} << int(S::Error) << 101 << QByteArray();
    QTest::newRow("no accept") << QByteArray("HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\n"
                                             "Connection: Upgrade\r\n\r\n")
                               << QList<int> {} << int(S::Error) << 101 << QByteArray();
    QTest::newRow("401") << QByteArray("HTTP/1.1 401 Unauthorized\r\nContent-Length: 4\r\n\r\nnope") << QList<int> {}
                         << int(S::Refused) << 401 << QByteArray();
    QTest::newRow("401, split") << QByteArray("HTTP/1.1 401 Unauthorized\r\nContent-Length: 4\r\n\r\nnope")
                                << QList<int> {3, 30} << int(S::Refused) << 401 << QByteArray();
    QTest::newRow("200 with the accept") << QByteArray("HTTP/1.1 200 OK\r\nUpgrade: websocket\r\nConnection: Upgrade"
                                                       "\r\nSec-WebSocket-Accept: "
        + kRfcAccept + "\r\n\r\n") << QList<int> {}
                                         << int(S::Refused) << 200 << QByteArray();
    QTest::newRow("101 without Upgrade") << QByteArray(
        "HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: " + kRfcAccept + "\r\n\r\n")
                                         << QList<int> {} << int(S::Error) << 101 << QByteArray();
    QTest::newRow("101 upgrading to h2c")
        << QByteArray("HTTP/1.1 101 Switching Protocols\r\nUpgrade: h2c\r\nConnection: Upgrade\r\n"
                      "Sec-WebSocket-Accept: "
               + kRfcAccept + "\r\n\r\n")
        << QList<int> {} << int(S::Error) << 101 << QByteArray();
    QTest::newRow("101 without Connection") << QByteArray(
        "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nSec-WebSocket-Accept: " + kRfcAccept + "\r\n\r\n")
                                            << QList<int> {} << int(S::Error) << 101 << QByteArray();
    QTest::newRow("101 with an extension not asked for")
        << QByteArray(goodAnswer()).insert(good.size() - 2, "Sec-WebSocket-Extensions: permessage-deflate\r\n")
        << QList<int> {} << int(S::Error) << 101 << QByteArray();
    QTest::newRow("101 with a subprotocol not asked for")
        << QByteArray(goodAnswer()).insert(good.size() - 2, "Sec-WebSocket-Protocol: chat\r\n") << QList<int> {}
        << int(S::Error) << 101 << QByteArray();
    QTest::newRow("100 Continue") << QByteArray("HTTP/1.1 100 Continue\r\n\r\n") << QList<int> {} << int(S::Error)
                                  << 100 << QByteArray();
    QTest::newRow("status 001") << QByteArray("HTTP/1.1 001 OK\r\nContent-Length: 0\r\n\r\n") << QList<int> {}
                                << int(S::Error) << 1 << QByteArray();
    QTest::newRow("garbage") << QByteArray("\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03") << QList<int> {}
                             << int(S::Error) << 0 << QByteArray();
    QTest::newRow("another protocol") << QByteArray("SSH-2.0-OpenSSH_9.2\r\n") << QList<int> {} << int(S::Error) << 0
                                      << QByteArray();
    QTest::newRow("a request instead") << QByteArray("GET / HTTP/1.1\r\n\r\n") << QList<int> {} << int(S::Error) << 0
                                       << QByteArray();
    QTest::newRow("head over 16 KiB") << QByteArray(
        "HTTP/1.1 101 Switching Protocols\r\nX-Padding: " + QByteArray(17 * 1024, 'a'))
                                      << QList<int> {100, 8000} << int(S::Error) << 0 << QByteArray();
    QTest::newRow("not all there yet") << good.first(headEnd - 1) << QList<int> {} << int(S::NeedMore) << 0
                                       << QByteArray();
}

// The client's reading of the answer: a 101 that upgrades to websocket with the key's accept value
// and nothing not asked for is Accepted, with the bytes after the head in rest() however the
// head was split; another final status (200-599) is Refused with that status; anything else is an
// Error. Once
// decided, more bytes change nothing.
void tst_WebSocketHandshake::handshakeReader()
{
    QFETCH(QByteArray, bytes);
    QFETCH(QList<int>, cuts);
    QFETCH(int, status);
    QFETCH(int, httpStatus);
    QFETCH(QByteArray, rest);
    using S = websocket::HandshakeReader::Status;
    websocket::HandshakeReader reader(kRfcKey);
    S got = S::NeedMore;
    qsizetype at = 0;
    cuts << int(bytes.size());
    for (const int cut : std::as_const(cuts)) {
        got = reader.feed(QByteArrayView(bytes).sliced(at, cut - at));
        at = cut;
        if (got != S::NeedMore)
            break;
    }
    QCOMPARE(int(got), status);
    if (got != S::NeedMore)
        QCOMPARE(reader.status(), httpStatus);
    if (got == S::Accepted)
        QCOMPARE(reader.rest().toHex(' '), rest.toHex(' '));
    if (got == S::Error)
        QVERIFY(!reader.errorText().isEmpty());
    if (got != S::NeedMore)
        QCOMPARE(int(reader.feed(goodAnswer())), status);
}

QTEST_GUILESS_MAIN(tst_WebSocketHandshake)
#include "tst_websockethandshake.moc"
