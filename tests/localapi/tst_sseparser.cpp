// SseParser, the client side of GET /v1/events: an answer fed whole and fed a byte at a time gives
// the same events (ids carried over, comments and data-less events dropped, multi-line data);
// refusals are read to their end whether framed by Content-Length, chunks or the close; a head or an
// event over its limit, a 200 that is not chunked and bytes that are not HTTP are errors.
#include "localapi/sseparser.h"

#include <QTest>

using namespace isolation;

class tst_SseParser final : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void eventsWholeOrByteByByte();
    void refusals_data();
    void refusals();
    void errors_data();
    void errors();
};

namespace {

QByteArray chunk(const QByteArray &data)
{
    return QByteArray::number(data.size(), 16) + "\r\n" + data + "\r\n";
}

const QByteArray kHead = "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n";

} // namespace

void tst_SseParser::eventsWholeOrByteByByte()
{
    const QByteArray answer = kHead + chunk(": subscribed\nid: r-0\n\n")
        + chunk("id: r-1\nevent: state\ndata: {\"state\":\"online\"}\n\n") + chunk("event: save\ndata: line one\nda")
        + chunk("ta: line two\n\n") + chunk("id: r-3\nevent: nodata\n\n") + chunk("data: plain\r\n\r\n") + "0\r\n\r\n";
    for (const bool byByte : {false, true}) {
        SseParser p;
        QList<SseEvent> events;
        if (byByte) {
            for (char c : answer)
                events += p.feed(QByteArrayView(&c, 1));
        } else {
            events = p.feed(answer);
        }
        QCOMPARE(p.state(), SseParser::State::Ended);
        QCOMPARE(p.status(), 200);
        QCOMPARE(events.size(), 3);
        QCOMPARE(events[0].id, QByteArray("r-1"));
        QCOMPARE(events[0].kind, QByteArray("state"));
        QCOMPARE(events[0].data, QByteArray("{\"state\":\"online\"}"));
        QCOMPARE(events[1].id, QByteArray("r-1")); // no id of its own: the last one carries over
        QCOMPARE(events[1].data, QByteArray("line one\nline two"));
        QCOMPARE(events[2].id, QByteArray("r-3")); // the data-less event is dropped, its id stays
        QCOMPARE(events[2].kind, QByteArray("message"));
        QCOMPARE(events[2].data, QByteArray("plain"));
        QCOMPARE(p.lastId(), QByteArray("r-3"));
    }
}

void tst_SseParser::refusals_data()
{
    QTest::addColumn<QByteArray>("answer");
    QTest::addColumn<bool>("closes");
    const QByteArray body = "{\"error\":{\"code\":\"busy\"}}";
    QTest::newRow("content-length") << QByteArray(
        "HTTP/1.1 503 Busy\r\nContent-Length: " + QByteArray::number(body.size()) + "\r\n\r\n" + body)
                                    << false;
    QTest::newRow("chunked") << QByteArray("HTTP/1.1 503 Busy\r\nTransfer-Encoding: chunked\r\n\r\n"
        + chunk(body.left(5)) + chunk(body.mid(5)) + "0\r\n\r\n")
                             << false;
    QTest::newRow("until the close") << QByteArray("HTTP/1.1 503 Busy\r\nConnection: close\r\n\r\n" + body) << true;
}

void tst_SseParser::refusals()
{
    QFETCH(QByteArray, answer);
    QFETCH(bool, closes);
    SseParser p;
    QVERIFY(p.feed(answer).isEmpty());
    if (closes) {
        QCOMPARE(p.state(), SseParser::State::Refused);
        p.finish();
    }
    QCOMPARE(p.state(), SseParser::State::Ended);
    QCOMPARE(p.status(), 503);
    QCOMPARE(p.errorBody(), QByteArray("{\"error\":{\"code\":\"busy\"}}"));
}

void tst_SseParser::errors_data()
{
    QTest::addColumn<QByteArray>("answer");
    QTest::addColumn<QString>("why");
    QTest::newRow("not HTTP") << QByteArray("SSH-2.0-OpenSSH\r\n\r\n") << QStringLiteral("not valid HTTP");
    QTest::newRow("not chunked") << QByteArray("HTTP/1.1 200 OK\r\nContent-Length: 9\r\n\r\ndata: x\n\n")
                                 << QStringLiteral("not chunked");
    QTest::newRow("bad chunk size") << QByteArray(kHead + "zz\r\ndata\r\n") << QStringLiteral("not valid HTTP");
    QTest::newRow("head too large") << QByteArray(
        "HTTP/1.1 200 OK\r\nX-Pad: " + QByteArray(SseParser::kMaxHeadBytes + 1, 'a'))
                                    << QStringLiteral("head is too large");
    QByteArray huge = kHead;
    for (int i = 0; i < 5; ++i)
        huge += chunk("data: " + QByteArray(1024 * 1024, 'x') + "\n");
    QTest::newRow("event too large") << huge << QStringLiteral("too large");
    QTest::newRow("line too long") << QByteArray(kHead + chunk(QByteArray(SseParser::kMaxEventBytes + 1, 'x')))
                                   << QStringLiteral("too long");
}

void tst_SseParser::errors()
{
    QFETCH(QByteArray, answer);
    QFETCH(QString, why);
    SseParser p;
    p.feed(answer);
    QCOMPARE(p.state(), SseParser::State::Error);
    QVERIFY2(p.errorMessage().contains(why), qPrintable(p.errorMessage()));
    QVERIFY(p.feed("data: more\n\n").isEmpty()); // nothing after an error
}

QTEST_GUILESS_MAIN(tst_SseParser)
#include "tst_sseparser.moc"
