#include "http/httprequestparser.h"

#include <QTest>

#include <cctype>

using namespace isolation;

class tst_HttpRequestParser final : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void simpleGet();
    void bodyByteByByte();
    void chunkedBody();
    void pipelined();
    void rejected_data();
    void rejected();
    void headerLimits();
    void upgrade();
    void caseInsensitiveNames();
    void controlBytesAnywhere();
};

namespace {

HttpRequestParser::State feedAll(HttpRequestParser &p, const QByteArray &bytes, qsizetype *used = nullptr)
{
    const qsizetype n = p.feed(bytes.constData(), bytes.size());
    if (used)
        *used = n;
    return p.state();
}

} // namespace

void tst_HttpRequestParser::simpleGet()
{
    HttpRequestParser p;
    QCOMPARE(feedAll(p, "GET /v1/status?verbose=1&x=a%20b HTTP/1.1\r\nHost: local\r\nX-Two:  spaced  \r\n\r\n"),
        HttpRequestParser::State::Complete);
    const HttpRequest r = p.takeRequest();
    QCOMPARE(r.method, QByteArray("GET"));
    QCOMPARE(r.path, QStringLiteral("/v1/status"));
    QCOMPARE(r.query.queryItemValue(QStringLiteral("verbose")), QStringLiteral("1"));
    QCOMPARE(r.query.queryItemValue(QStringLiteral("x"), QUrl::FullyDecoded), QStringLiteral("a b"));
    QCOMPARE(r.header("HOST"), QByteArray("local"));
    QCOMPARE(r.header("x-two"), QByteArray("spaced"));
    QVERIFY(p.keepAlive());
}

void tst_HttpRequestParser::bodyByteByByte()
{
    HttpRequestParser p;
    const QByteArray raw = "POST /x HTTP/1.1\r\nHost: h\r\nContent-Length: 11\r\n\r\nhello world";
    for (qsizetype i = 0; i < raw.size(); ++i) {
        QCOMPARE(p.state(), HttpRequestParser::State::NeedMore);
        QCOMPARE(p.feed(raw.constData() + i, 1), 1);
    }
    QCOMPARE(p.state(), HttpRequestParser::State::Complete);
    QCOMPARE(p.takeRequest().body, QByteArray("hello world"));
}

void tst_HttpRequestParser::chunkedBody()
{
    HttpRequestParser p;
    QCOMPARE(
        feedAll(p,
            "PUT /o HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n6\r\n world\r\n0\r\n\r\n"),
        HttpRequestParser::State::Complete);
    QCOMPARE(p.takeRequest().body, QByteArray("hello world"));
}

void tst_HttpRequestParser::pipelined()
{
    HttpRequestParser p;
    const QByteArray two = "GET /a HTTP/1.1\r\nHost: h\r\n\r\nGET /b HTTP/1.1\r\nHost: h\r\nConnection: close\r\n\r\n";
    qsizetype used = 0;
    QCOMPARE(feedAll(p, two, &used), HttpRequestParser::State::Complete);
    QCOMPARE(p.takeRequest().path, QStringLiteral("/a"));
    QVERIFY(used < two.size());
    QCOMPARE(feedAll(p, two.mid(used)), HttpRequestParser::State::Complete);
    QCOMPARE(p.takeRequest().path, QStringLiteral("/b"));
    QVERIFY(!p.keepAlive());
}

void tst_HttpRequestParser::rejected_data()
{
    QTest::addColumn<QByteArray>("raw");
    QTest::addColumn<int>("status");
    QTest::newRow("two content-lengths") << QByteArray(
        "POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 1\r\nContent-Length: 1\r\n\r\na")
                                         << 400;
    QTest::newRow("content-length and chunked")
        << QByteArray("POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n")
        << 400;
    QTest::newRow("gzip coding") << QByteArray(
        "POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: gzip, chunked\r\n\r\n0\r\n\r\n")
                                 << 400;
    QTest::newRow("invalid content-length")
        << QByteArray("POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 1x\r\n\r\na") << 400;
    QTest::newRow("obs-fold") << QByteArray("GET / HTTP/1.1\r\nHost: h\r\nX-A: one\r\n two\r\n\r\n") << 400;
    QTest::newRow("space before colon") << QByteArray("GET / HTTP/1.1\r\nHost : h\r\n\r\n") << 400;
    QTest::newRow("bare LF") << QByteArray("GET / HTTP/1.1\nHost: h\n\n") << 400;
    QTest::newRow("NUL in value") << QByteArray("GET / HTTP/1.1\r\nHost: h\r\nX-A: a\0b\r\n\r\n", 36) << 400;
    QTest::newRow("absolute-form") << QByteArray("GET http://evil/ HTTP/1.1\r\nHost: h\r\n\r\n") << 400;
    QTest::newRow("not http") << QByteArray("HELLO\r\n\r\n") << 400;
}

void tst_HttpRequestParser::rejected()
{
    QFETCH(QByteArray, raw);
    QFETCH(int, status);
    HttpRequestParser p;
    QCOMPARE(feedAll(p, raw), HttpRequestParser::State::Error);
    QCOMPARE(p.errorStatus(), status);
    QVERIFY(!p.keepAlive());
}

void tst_HttpRequestParser::headerLimits()
{
    {
        HttpRequestParser p({1024, 100, 1024});
        const QByteArray big = "GET / HTTP/1.1\r\nHost: h\r\nX-Big: " + QByteArray(2000, 'a') + "\r\n\r\n";
        QCOMPARE(feedAll(p, big), HttpRequestParser::State::Error);
        QCOMPARE(p.errorStatus(), 431);
    }
    {
        HttpRequestParser p({64 * 1024, 10, 1024});
        QByteArray many = "GET / HTTP/1.1\r\n";
        for (int i = 0; i < 11; ++i)
            many += "X-" + QByteArray::number(i) + ": v\r\n";
        QCOMPARE(feedAll(p, many + "\r\n"), HttpRequestParser::State::Error);
        QCOMPARE(p.errorStatus(), 431);
    }
    {
        HttpRequestParser p({64 * 1024, 100, 10});
        QCOMPARE(feedAll(p, "POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 11\r\n\r\nhello world"),
            HttpRequestParser::State::Error);
        QCOMPARE(p.errorStatus(), 413);
    }
}

void tst_HttpRequestParser::upgrade()
{
    HttpRequestParser p;
    const QByteArray raw
        = "GET /ws HTTP/1.1\r\nHost: h\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n\r\n\x81\x05hello";
    qsizetype used = 0;
    QCOMPARE(feedAll(p, raw, &used), HttpRequestParser::State::Upgrade);
    QCOMPARE(raw.mid(used), QByteArray("\x81\x05hello"));
    QCOMPARE(p.takeRequest().header("upgrade"), QByteArray("websocket"));
}

void tst_HttpRequestParser::caseInsensitiveNames()
{
    // Every pair of bytes against the definition: equal, or both letters and equal in lower case.
    for (int a = 0; a < 256; ++a) {
        for (int b = 0; b < 256; ++b) {
            const char x = char(a), y = char(b);
            const bool letters = std::isalpha(a) && std::isalpha(b) && a < 128 && b < 128;
            const bool expected = a == b || (letters && std::tolower(a) == std::tolower(b));
            QCOMPARE(equalsNoCase(QByteArrayView(&x, 1), QByteArrayView(&y, 1)), expected);
        }
    }
    QVERIFY(equalsNoCase("Content-Length", "content-length"));
    QVERIFY(!equalsNoCase("content-length", "content-lengt"));
    QVERIFY(!equalsNoCase("Host", "Hos\x7f"));
    QVERIFY(startsWithNoCase("X-Isolation-Foo", "x-isolation-"));
    QVERIFY(!startsWithNoCase("X-Isol", "x-isolation-"));
}

void tst_HttpRequestParser::controlBytesAnywhere()
{
    // Each byte at each place of values long enough for the eight-bytes-at-a-time path and its tail.
    for (int length : {1, 7, 8, 9, 16, 23}) {
        for (int at = 0; at < length; ++at) {
            for (int c = 0; c < 256; ++c) {
                QByteArray value(length, 'a');
                value[at] = char(c);
                const bool control = (c < 0x20 && c != '\t') || c == 0x7f;
                QVERIFY2(hasControlBytes(value) == control, qPrintable(QStringLiteral("%1 at %2 of %3").arg(c).arg(at).arg(length)));
            }
        }
    }
    QVERIFY(!hasControlBytes("\t\t\t\t\t\t\t\t\x80\xff obs-text and tabs"));
}

QTEST_GUILESS_MAIN(tst_HttpRequestParser)
#include "tst_httprequestparser.moc"
