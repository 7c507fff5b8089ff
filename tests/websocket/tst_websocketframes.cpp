// The tunnel's own WebSocket framing (engine/websocket/websocketframes.*), as bytes: masking against
// a byte-by-byte reference, the frame layout, and every rule FrameReader enforces (RFC 6455 §5,
// the close codes of §7.4). tst_websockethandshake has the opening handshake; tst_websocketlink
// runs both over sockets.
#include "websocketwire.h"

#include "websocket/websocketframes.h"

#include <QCryptographicHash>
#include <QTest>

using namespace isolation;
using namespace isolation::test;
using websocket::FrameReader;
using websocket::MaskKey;
using websocket::Opcode;

namespace {

// The limit the rule rows read with: small, so that "over the limit" needs no big input.
constexpr quint64 kRuleLimit = 1000;

struct Got
{
    Opcode opcode;
    QByteArray payload;
    quint16 closeCode;
    QString closeReason;
};

struct Reading
{
    QList<Got> messages;
    FrameReader::Status last = FrameReader::Status::NeedMore;
    quint16 errorCode = 0;
};

// Feeds `bytes` to a fresh reader in chunks of `chunk` bytes (0: all at once), alternating the
// two append() overloads, and drains next() after each; payloads are copied out before the next
// append (they are only valid until then).
Reading readAll(FrameReader::Role role, quint64 limit, const QByteArray &bytes, qsizetype chunk)
{
    FrameReader reader(role, limit);
    Reading r;
    qsizetype at = 0;
    int index = 0;
    do {
        const qsizetype n = chunk <= 0 ? bytes.size() : qMin(chunk, bytes.size() - at);
        const QByteArrayView piece = QByteArrayView(bytes).sliced(at, n);
        if (index++ % 2 == 0)
            reader.append(piece);
        else
            reader.append(piece.toByteArray());
        at += n;
        for (;;) {
            FrameReader::Message m;
            r.last = reader.next(&m);
            if (r.last != FrameReader::Status::Message)
                break;
            r.messages.append(
                {m.opcode, QByteArray(m.payload.constData(), m.payload.size()), m.closeCode, m.closeReason});
        }
        if (r.last == FrameReader::Status::Error) {
            r.errorCode = reader.errorCode();
            return r;
        }
    } while (at < bytes.size());
    return r;
}

// One line per message and the outcome, for comparisons that print what differs.
QString describe(const Reading &r)
{
    QStringList lines;
    for (const Got &g : r.messages) {
        lines << QStringLiteral("op %1, %2 bytes, sha1 %3, close %4 '%5'")
                     .arg(int(g.opcode))
                     .arg(g.payload.size())
                     .arg(QString::fromLatin1(
                         QCryptographicHash::hash(g.payload, QCryptographicHash::Sha1).toHex().left(12)))
                     .arg(g.closeCode)
                     .arg(g.closeReason);
    }
    lines << QStringLiteral("ends %1, error %2").arg(int(r.last)).arg(r.errorCode);
    return lines.join(QLatin1Char('\n'));
}

} // namespace

class tst_WebSocketFrames final : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    // Framing.
    void applyMaskMatchesReference();
    void encodeFrameLayout_data();
    void encodeFrameLayout();
    void encodeFrameEveryOpcode();
    void closePayloadFitsAControlFrame();
    void readerRules_data();
    void readerRules();
    void errorIsSticky();
    void fragmentsWithPingBetween_data();
    void fragmentsWithPingBetween();
    void splitFeedingGivesTheSameMessages();

};

// ---------------------------------------------------------------------------------------------
// Framing

// The word-at-a-time masking gives what §5.3's byte-at-a-time definition gives, for every length
// up to 100 (each tail length after the 32- and 8-byte loops) at every alignment of the pointer,
// touches no byte outside the range, and is its own inverse.
void tst_WebSocketFrames::applyMaskMatchesReference()
{
    const QList<MaskKey> keys {kKey, MaskKey {1, 2, 3, 4}, MaskKey {0, 0, 0, 0}, MaskKey {0xff, 0x00, 0xff, 0x01}};
    for (const MaskKey &key : keys) {
        for (qsizetype offset = 0; offset < 8; ++offset) {
            for (qsizetype len = 0; len <= 100; ++len) {
                const QByteArray original = pattern(len + 16, quint32(len * 8 + offset));
                QByteArray expected = original;
                referenceMask(expected.data() + offset, len, key);
                QByteArray buffer = original;
                websocket::applyMask(buffer.data() + offset, len, key);
                QVERIFY2(buffer == expected,
                    qPrintable(QStringLiteral("length %1 at offset %2, key %3").arg(len).arg(offset).arg(key[0])));
                websocket::applyMask(buffer.data() + offset, len, key);
                QVERIFY2(buffer == original,
                    qPrintable(QStringLiteral("twice, length %1 at offset %2").arg(len).arg(offset)));
            }
        }
    }
}

void tst_WebSocketFrames::encodeFrameLayout_data()
{
    QTest::addColumn<qsizetype>("size");
    QTest::addColumn<bool>("masked");
    for (const qsizetype size : {qsizetype(0), qsizetype(125), qsizetype(126), qsizetype(65535), qsizetype(65536)}) {
        QTest::addRow("%lld unmasked", qlonglong(size)) << size << false;
        QTest::addRow("%lld masked", qlonglong(size)) << size << true;
    }
}

// The header as §5.2 draws it: FIN and the opcode, the mask bit, a 7-bit length up to 125, 126
// and a 16-bit length up to 65535, 127 and a 64-bit length above; the key; the payload masked
// with it. A reader in the matching role gives back the payload.
void tst_WebSocketFrames::encodeFrameLayout()
{
    QFETCH(qsizetype, size);
    QFETCH(bool, masked);
    const QByteArray payload = pattern(size, quint32(size));
    const QByteArray frame = websocket::encodeFrame(Opcode::Binary, payload, masked ? &kKey : nullptr);

    QByteArray expected;
    expected.append(char(0x82));
    const quint8 maskBit = masked ? 0x80 : 0;
    if (size <= 125) {
        expected.append(char(maskBit | quint8(size)));
    } else if (size <= 65535) {
        expected.append(char(maskBit | 126));
        expected.append(char(size >> 8));
        expected.append(char(size & 0xff));
    } else {
        expected.append(char(maskBit | 127));
        expected.append(QByteArray::fromHex("0000000000010000")); // 65536, network order
    }
    QByteArray body = payload;
    if (masked) {
        expected.append(QByteArray::fromHex("37fa213d"));
        referenceMask(body.data(), body.size(), kKey);
    }
    expected.append(body);
    QCOMPARE(frame.size(), expected.size());
    QCOMPARE(frame.left(14).toHex(' '), expected.left(14).toHex(' '));
    QVERIFY(frame == expected);

    const Reading r = readAll(masked ? FrameReader::Role::Server : FrameReader::Role::Client, 1 << 20, frame, 0);
    QCOMPARE(r.last, FrameReader::Status::NeedMore);
    QCOMPARE(r.messages.size(), 1);
    QCOMPARE(r.messages[0].opcode, Opcode::Binary);
    QVERIFY(r.messages[0].payload == payload);
}

// Every opcode a message can have goes out with its code in the first byte and reads back the
// same in both roles (a close frame's code and reason included).
void tst_WebSocketFrames::encodeFrameEveryOpcode()
{
    const QList<std::pair<Opcode, QByteArray>> messages {
        {Opcode::Binary, pattern(77)},
        {Opcode::Text, QStringLiteral("grüße, 世界 😀").toUtf8()},
        {Opcode::Ping, "ping?"},
        {Opcode::Pong, "pong!"},
        {Opcode::Close, websocket::closePayload(websocket::CloseGoingAway, QStringLiteral("au revoir"))},
    };
    for (const bool masked : {false, true}) {
        QByteArray stream;
        for (const auto &[opcode, payload] : messages) {
            const QByteArray frame = websocket::encodeFrame(opcode, payload, masked ? &kKey : nullptr);
            QCOMPARE(quint8(frame[0]), quint8(0x80 | quint8(opcode)));
            stream += frame;
        }
        const Reading r = readAll(masked ? FrameReader::Role::Server : FrameReader::Role::Client, 1 << 20, stream, 0);
        QCOMPARE(r.last, FrameReader::Status::NeedMore);
        QCOMPARE(r.messages.size(), messages.size());
        for (qsizetype i = 0; i < messages.size(); ++i) {
            QCOMPARE(r.messages[i].opcode, messages[i].first);
            QCOMPARE(r.messages[i].payload, messages[i].second);
        }
        QCOMPARE(r.messages.last().closeCode, quint16(websocket::CloseGoingAway));
        QCOMPARE(r.messages.last().closeReason, QStringLiteral("au revoir"));
    }
}

// A close payload is the code in network order and the reason, cut to 125 bytes in all without
// splitting a UTF-8 character (two-, three- and four-byte ones), so a peer's reader takes it.
void tst_WebSocketFrames::closePayloadFitsAControlFrame()
{
    QCOMPARE(websocket::closePayload(1001, {}), QByteArray::fromHex("03e9"));
    QCOMPARE(websocket::closePayload(3000, QStringLiteral("bye")), QByteArray::fromHex("0bb8") + "bye");
    QCOMPARE(websocket::closePayload(1000, QString(123, QLatin1Char('a'))).size(), 125);
    QCOMPARE(websocket::closePayload(1000, QString(124, QLatin1Char('a'))), closeBody(1000, QByteArray(123, 'a')));

    const QList<QString> reasons {
        QString(200, QChar(0xe9)), // é: two bytes each, the cut at 123 falls inside one
        QString(100, QChar(0x4e16)), // 世: three bytes
        QStringLiteral("😀").repeated(40), // four bytes
        QStringLiteral("a") + QStringLiteral("😀").repeated(40),
        QStringLiteral("ab") + QStringLiteral("😀").repeated(40),
    };
    for (const QString &reason : reasons) {
        const QByteArray payload = websocket::closePayload(1000, reason);
        QVERIFY2(payload.size() <= 125 && payload.size() >= 125 - 3, qPrintable(QString::number(payload.size())));
        const QByteArray text = payload.sliced(2);
        QVERIFY(reason.toUtf8().startsWith(text));
        QCOMPARE(QString::fromUtf8(text).toUtf8(), text); // whole characters only
        const Reading r = readAll(FrameReader::Role::Client, kRuleLimit, rawFrame(0x88, payload, false), 0);
        QCOMPARE(r.last, FrameReader::Status::NeedMore);
        QCOMPARE(r.messages.size(), 1);
        QCOMPARE(r.messages[0].closeCode, quint16(1000));
        QCOMPARE(r.messages[0].closeReason, QString::fromUtf8(text));
    }
}

void tst_WebSocketFrames::readerRules_data()
{
    QTest::addColumn<bool>("server"); // the reader's role
    QTest::addColumn<QByteArray>("bytes");
    QTest::addColumn<int>("code"); // the error expected, 0 for none
    QTest::addColumn<int>("messages"); // messages before the end or the error

    const int protocol = websocket::CloseProtocolError;
    const int invalid = websocket::CloseInvalidPayload;
    const int tooBig = websocket::CloseTooBig;
    auto row = [](const char *name, bool server, const QByteArray &bytes, int code, int messages = 0) {
        QTest::newRow(name) << server << bytes << code << messages;
    };
    const bool S = true; // read as the server: frames must be masked
    const bool C = false;

    row("rsv1 set", S, rawFrame(0xC2, "x", true), protocol);
    row("rsv2 set", S, rawFrame(0xA2, "x", true), protocol);
    row("rsv3 set", S, rawFrame(0x92, "x", true), protocol);
    row("rsv1 set to a client", C, rawFrame(0xC1, "x", false), protocol);
    row("opcode 3", S, rawFrame(0x83, "x", true), protocol);
    row("opcode 7", S, rawFrame(0x87, "x", true), protocol);
    row("opcode 0xB", S, rawFrame(0x8B, "x", true), protocol);
    row("opcode 0xF", C, rawFrame(0x8F, "x", false), protocol);
    row("ping without FIN", S, rawFrame(0x09, "p", true), protocol);
    row("close without FIN", S, rawFrame(0x08, closeBody(1000), true), protocol);
    row("ping of 126 bytes", S, rawFrame(0x89, pattern(126), true), protocol);
    row("pong of 126 bytes to a client", C, rawFrame(0x8A, pattern(126), false), protocol);
    row("ping of 125 bytes", S, rawFrame(0x89, pattern(125), true), 0, 1);
    row("pong, 16-bit length form", S, rawFrame(0x8A, "p", true, 16), protocol);
    row("unmasked frame to a server", S, rawFrame(0x82, "hello", false), protocol);
    row("unmasked ping to a server", S, rawFrame(0x89, "", false), protocol);
    row("masked frame to a client", C, rawFrame(0x82, "hello", true), protocol);
    row("masked close to a client", C, rawFrame(0x88, closeBody(1000), true), protocol);
    row("continuation without a start", S, rawFrame(0x80, "x", true), protocol);
    row("unfinished continuation without a start", C, rawFrame(0x00, "x", false), protocol);
    row("binary inside a fragmented message", S, rawFrame(0x02, "a", true) + rawFrame(0x82, "b", true), protocol);
    row("text inside a fragmented message", C, rawFrame(0x02, "a", false) + rawFrame(0x01, "b", false), protocol);
    row("64-bit length with the top bit", S, rawFrame(0x82, {}, true, 64, quint64(1) << 63), protocol);
    row("64-bit length all ones", C, rawFrame(0x82, {}, false, 64, ~quint64(0)), protocol);
    // Over the limit: known from the header, before any payload (never NeedMore for 2 GiB).
    row("2 GiB announced, no payload", S, rawFrame(0x82, {}, true, 64, quint64(2) << 30), tooBig);
    row("2 GiB announced to a client", C, rawFrame(0x81, {}, false, 64, quint64(2) << 30), tooBig);
    row("limit + 1 announced, no payload", S, rawFrame(0x82, {}, true, 16, kRuleLimit + 1), tooBig);
    row("limit + 1 in a frame", S, rawFrame(0x82, pattern(kRuleLimit + 1), true), tooBig);
    row("exactly the limit", S, rawFrame(0x82, pattern(kRuleLimit), true), 0, 1);
    row("fragments over the limit", S,
        rawFrame(0x02, pattern(600), true) + rawFrame(0x80, {}, true, 0, kRuleLimit - 600 + 1), tooBig);
    row("fragments at the limit", S, rawFrame(0x02, pattern(600), true) + rawFrame(0x80, pattern(400), true), 0, 1);
    row("control frames do not count", C,
        rawFrame(0x02, pattern(900), false) + rawFrame(0x89, pattern(125), false) + rawFrame(0x80, pattern(100), false),
        0, 2);
    row("close of 1 byte", S, rawFrame(0x88, "\x03", true), protocol);
    row("close without a code", S, rawFrame(0x88, {}, true), 0, 1);
    for (const quint16 code : {0, 999, 1004, 1005, 1006, 1012, 1015, 1016, 2999, 5000, 65535})
        QTest::addRow("close code %d refused", code) << S << rawFrame(0x88, closeBody(code), true) << protocol << 0;
    for (const quint16 code : {1000, 1001, 1002, 1003, 1007, 1008, 1009, 1010, 1011, 3000, 4999})
        QTest::addRow("close code %d taken", code) << C << rawFrame(0x88, closeBody(code, "ok"), false) << 0 << 1;
    row("close reason not UTF-8", S, rawFrame(0x88, closeBody(1000, "\xff"), true), invalid);
    row("close reason cut inside a character", C, rawFrame(0x88, closeBody(1000, "caf\xc3"), false), invalid);
    row("text not UTF-8", S, rawFrame(0x81, "\xc3\x28", true), invalid);
    row("text with an overlong encoding", S, rawFrame(0x81, "\xc0\xaf", true), invalid);
    row("text with a surrogate", C, rawFrame(0x81, "\xed\xa0\x80", false), invalid);
    row("text above U+10FFFF", S, rawFrame(0x81, "\xf4\x90\x80\x80", true), invalid);
    row("fragmented text ending inside a character", S, rawFrame(0x01, "h\xc3", true) + rawFrame(0x80, {}, true),
        invalid);
    row("fragmented text split inside a character", S, rawFrame(0x01, "h\xc3", true) + rawFrame(0x80, "\xa9", true), 0,
        1);
    // Valid UTF-8 that a decoder might trip on: noncharacters, the last code point, a BOM.
    row("text with noncharacters", S, rawFrame(0x81, "\xef\xbf\xbe\xef\xbf\xbf\xef\xb7\x90", true), 0, 1);
    row("text with U+10FFFF", C, rawFrame(0x81, "\xf4\x8f\xbf\xbf", false), 0, 1);
    row("text that is a BOM", S, rawFrame(0x81, "\xef\xbb\xbf", true), 0, 1);
    row("binary is not checked as UTF-8", S, rawFrame(0x82, "\xff\xc3", true), 0, 1);
    row("empty binary", C, rawFrame(0x82, {}, false), 0, 1);
    row("messages before the error count", S,
        rawFrame(0x82, "a", true) + rawFrame(0x89, {}, true) + rawFrame(0x82, "b", false), protocol, 2);
}

// Each rule of §5 (and the size limit) fails the reader with the code to close with: 1002 for a
// protocol error, 1007 for bad UTF-8, 1009 for a message too big. The same whether the bytes
// come at once, one at a time or three at a time.
void tst_WebSocketFrames::readerRules()
{
    QFETCH(bool, server);
    QFETCH(QByteArray, bytes);
    QFETCH(int, code);
    QFETCH(int, messages);
    const auto role = server ? FrameReader::Role::Server : FrameReader::Role::Client;
    const Reading whole = readAll(role, kRuleLimit, bytes, 0);
    QCOMPARE(whole.errorCode, quint16(code));
    QCOMPARE(whole.last, code ? FrameReader::Status::Error : FrameReader::Status::NeedMore);
    QCOMPARE(whole.messages.size(), messages);
    QCOMPARE(describe(readAll(role, kRuleLimit, bytes, 1)), describe(whole));
    QCOMPARE(describe(readAll(role, kRuleLimit, bytes, 3)), describe(whole));
}

// After an error the reader stays failed whatever comes next, with the same code and a reason.
void tst_WebSocketFrames::errorIsSticky()
{
    FrameReader reader(FrameReader::Role::Server, kRuleLimit);
    reader.append(rawFrame(0x82, "unmasked", false));
    FrameReader::Message m;
    QCOMPARE(reader.next(&m), FrameReader::Status::Error);
    QCOMPARE(reader.errorCode(), quint16(websocket::CloseProtocolError));
    QVERIFY(!reader.errorText().isEmpty());
    reader.append(rawFrame(0x82, "masked", true));
    QCOMPARE(reader.next(&m), FrameReader::Status::Error);
    QCOMPARE(reader.next(&m), FrameReader::Status::Error);
    QCOMPARE(reader.errorCode(), quint16(websocket::CloseProtocolError));
}

void tst_WebSocketFrames::fragmentsWithPingBetween_data()
{
    QTest::addColumn<bool>("server");
    QTest::addColumn<quint8>("opcode");
    QTest::newRow("binary to a server") << true << quint8(Opcode::Binary);
    QTest::newRow("binary to a client") << false << quint8(Opcode::Binary);
    QTest::newRow("text to a server") << true << quint8(Opcode::Text);
    QTest::newRow("text to a client") << false << quint8(Opcode::Text);
}

// A message in four fragments with a ping and a pong between them (§5.4: control frames may be
// injected): the ping and pong come out first, in their order, then the whole message with the
// first fragment's opcode; a message after it starts afresh. Fed a byte at a time, the same.
void tst_WebSocketFrames::fragmentsWithPingBetween()
{
    QFETCH(bool, server);
    QFETCH(quint8, opcode);
    const auto role = server ? FrameReader::Role::Server : FrameReader::Role::Client;
    const QByteArray bytes = rawFrame(opcode, "Hello, ", server) + rawFrame(0x89, "are you there?", server)
        + rawFrame(0x00, "w", server) + rawFrame(0x00, {}, server) + rawFrame(0x8A, "pong", server)
        + rawFrame(0x80, "orld!", server) + rawFrame(0x82, "next", server);
    const Reading whole = readAll(role, kRuleLimit, bytes, 0);
    QCOMPARE(whole.last, FrameReader::Status::NeedMore);
    QCOMPARE(whole.messages.size(), 4);
    QCOMPARE(whole.messages[0].opcode, Opcode::Ping);
    QCOMPARE(whole.messages[0].payload, QByteArray("are you there?"));
    QCOMPARE(whole.messages[1].opcode, Opcode::Pong);
    QCOMPARE(whole.messages[1].payload, QByteArray("pong"));
    QCOMPARE(whole.messages[2].opcode, Opcode(opcode));
    QCOMPARE(whole.messages[2].payload, QByteArray("Hello, world!"));
    QCOMPARE(whole.messages[3].opcode, Opcode::Binary);
    QCOMPARE(whole.messages[3].payload, QByteArray("next"));
    QCOMPARE(describe(readAll(role, kRuleLimit, bytes, 1)), describe(whole));
}

// A stream of frames of every length form (and a fragmented one, masked fragments of odd sizes)
// read at once, a byte at a time, 7 and 4096 bytes at a time gives the same messages.
void tst_WebSocketFrames::splitFeedingGivesTheSameMessages()
{
    for (const bool server : {true, false}) {
        QByteArray bytes;
        QList<QByteArray> sent;
        quint32 seed = 7;
        for (const qsizetype size : {qsizetype(0), qsizetype(1), qsizetype(125), qsizetype(126), qsizetype(65535),
                 qsizetype(65536), qsizetype(3)}) {
            sent << pattern(size, ++seed);
            bytes += websocket::encodeFrame(Opcode::Binary, sent.last(), server ? &kKey : nullptr);
        }
        const QByteArray big = pattern(10007, ++seed);
        bytes += rawFrame(0x02, big.first(333), server) + rawFrame(0x00, big.sliced(333, 5000), server)
            + rawFrame(0x80, big.sliced(5333), server);
        sent << big;

        const auto role = server ? FrameReader::Role::Server : FrameReader::Role::Client;
        const Reading whole = readAll(role, 1 << 20, bytes, 0);
        QCOMPARE(whole.last, FrameReader::Status::NeedMore);
        QCOMPARE(whole.messages.size(), sent.size());
        for (qsizetype i = 0; i < sent.size(); ++i)
            QVERIFY2(whole.messages[i].payload == sent[i], qPrintable(QString::number(i)));
        for (const qsizetype chunk : {1, 7, 4096})
            QCOMPARE(describe(readAll(role, 1 << 20, bytes, chunk)), describe(whole));
    }
}

QTEST_GUILESS_MAIN(tst_WebSocketFrames)
#include "tst_websocketframes.moc"
