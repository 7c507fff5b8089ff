// Streamed request bodies (HttpServer::streamRoute + HttpBodySink) and answers read from a device
// (HttpReply::sendDevice), over real TCP sockets against an HttpServer in this process.
#include "http/httpserver.h"

#include <QBuffer>
#include <QCryptographicHash>
#include <QElapsedTimer>
#include <QPointer>
#include <QTcpSocket>
#include <QTest>

#include <memory>

using namespace isolation;

namespace {

constexpr qint64 kLimit = 1024 * 1024; // the buffered-body limit these tests run the server with

// What a sink saw, shared with the test (the server owns and destroys the sink).
struct SinkLog
{
    qint64 bytes = 0;
    qint64 largestPiece = 0;
    QCryptographicHash sha {QCryptographicHash::Sha256};
    bool completed = false;
    bool destroyed = false;
    qint64 stopAfter = -1; // write() refuses once this many bytes arrived
};

class RecordingSink final : public HttpBodySink
{
public:
    explicit RecordingSink(std::shared_ptr<SinkLog> log)
        : m_log(std::move(log))
    { }
    ~RecordingSink() override { m_log->destroyed = true; }
    bool write(QByteArrayView piece) override
    {
        if (m_log->stopAfter >= 0 && m_log->bytes >= m_log->stopAfter)
            return false;
        m_log->bytes += piece.size();
        m_log->largestPiece = std::max(m_log->largestPiece, qint64(piece.size()));
        m_log->sha.addData(piece);
        return true;
    }
    void complete(const HttpRequest &request, HttpReply reply) override
    {
        m_log->completed = true;
        if (m_log->stopAfter >= 0) {
            reply.send(HttpResponse::error(507, QStringLiteral("insufficient_storage"), QStringLiteral("full")));
            return;
        }
        reply.send(HttpResponse::text(
            201, m_log->sha.result().toHex() + ' ' + request.params.value(QStringLiteral("name")).toUtf8()));
    }

private:
    std::shared_ptr<SinkLog> m_log;
};

// A plain HTTP/1.1 client on one socket, to see connection-level behaviour QNAM hides.
struct Answer
{
    int status = 0;
    QByteArray head;
    QByteArray body;
};

class RawClient
{
public:
    bool connectTo(quint16 port)
    {
        m_socket.connectToHost(QHostAddress::LocalHost, port);
        return m_socket.waitForConnected(5000);
    }
    void send(const QByteArray &bytes)
    {
        m_socket.write(bytes);
        // Let the server's event loop run while the bytes go out.
        while (m_socket.bytesToWrite() > 0 && m_socket.state() == QAbstractSocket::ConnectedState)
            QTest::qWait(1);
    }
    // Reads one answer (head, then Content-Length bytes of body); status 0 when none came.
    Answer read(int timeoutMs = 10000)
    {
        QElapsedTimer t;
        t.start();
        Answer a;
        while (t.elapsed() < timeoutMs) {
            const QByteArray got = m_socket.readAll();
            m_in += got;
            const qsizetype end = m_in.indexOf("\r\n\r\n");
            if (end >= 0) {
                a.head = m_in.left(end + 4);
                a.status = a.head.mid(9, 3).toInt();
                if (a.status == 100) { // interim: the real answer follows
                    m_in.remove(0, end + 4);
                    continue;
                }
                const qint64 length = header(a.head, "content-length").toLongLong();
                if (m_in.size() >= end + 4 + length) {
                    a.body = m_in.mid(end + 4, length);
                    m_in.remove(0, end + 4 + length);
                    return a;
                }
            }
            if (m_socket.state() != QAbstractSocket::ConnectedState && m_socket.bytesAvailable() == 0)
                break;
            if (got.isEmpty())
                QTest::qWait(1);
            else // bytes are flowing: let the server run, without sleeping
                QCoreApplication::processEvents(QEventLoop::AllEvents, 5);
        }
        return {};
    }
    bool closedByPeer(int timeoutMs = 5000)
    {
        QElapsedTimer t;
        t.start();
        while (t.elapsed() < timeoutMs) {
            m_in += m_socket.readAll();
            if (m_socket.state() == QAbstractSocket::UnconnectedState)
                return true;
            QTest::qWait(5);
        }
        return false;
    }
    static QByteArray header(const QByteArray &head, const QByteArray &name)
    {
        for (const QByteArray &line : head.split('\n')) {
            const qsizetype colon = line.indexOf(':');
            if (colon > 0 && line.left(colon).trimmed().toLower() == name)
                return line.mid(colon + 1).trimmed();
        }
        return {};
    }
    QTcpSocket &socket() { return m_socket; }
    QByteArray &pending() { return m_in; }

private:
    QTcpSocket m_socket;
    QByteArray m_in;
};

QByteArray pattern(qint64 size)
{
    QByteArray b(size, Qt::Uninitialized);
    char *d = b.data();
    for (qint64 i = 0; i < size; ++i)
        d[i] = char((i * 7 + i / 4096) & 0xff);
    return b;
}

QByteArray chunked(const QByteArray &body, qint64 chunk)
{
    QByteArray out;
    for (qint64 i = 0; i < body.size(); i += chunk) {
        const QByteArray piece = body.mid(i, chunk);
        out += QByteArray::number(piece.size(), 16) + "\r\n" + piece + "\r\n";
    }
    return out + "0\r\n\r\n";
}

} // namespace

class tst_HttpStreaming final : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void init();
    void cleanup();
    void streamedBodyPastTheLimit_data();
    void streamedBodyPastTheLimit();
    void bufferedRoutesKeepTheirLimit();
    void refusedAtTheHeadKeepsTheConnection();
    void refusedBodyPastTheLimitClosesTheConnection();
    void sinkThatStopsStillAnswers();
    void peerGoneMidBodyDropsTheSink();
    void expectContinue();
    void otherMethodsStillRoute();
    void sendDeviceStreamsAFile();
    void sendDeviceWaitsForTheReader();
    void sendDeviceShortBodyClosesTheConnection();

private:
    std::unique_ptr<HttpServer> m_server;
    quint16 m_port = 0;
    std::shared_ptr<SinkLog> m_log;
    QPointer<QIODevice> m_lastBody;
    QByteArray m_file;
};

void tst_HttpStreaming::init()
{
    m_server = std::make_unique<HttpServer>();
    m_server->setLimits({64 * 1024, 100, kLimit});
    m_log = std::make_shared<SinkLog>();
    m_server->streamRoute("PUT", QStringLiteral("/up/{name}"),
        [this](const HttpRequest &head) -> Result<std::unique_ptr<HttpBodySink>, HttpResponse> {
            if (head.bearerToken() != "let-me-in")
                return HttpResponse::error(401, QStringLiteral("unauthorized"), QStringLiteral("no"));
            return std::unique_ptr<HttpBodySink>(std::make_unique<RecordingSink>(m_log));
        });
    m_server->route("GET", QStringLiteral("/up/{name}"),
        [](const HttpRequest &, HttpReply reply) { reply.send(HttpResponse::text(200, "a plain GET")); });
    m_server->route("PUT", QStringLiteral("/buffered"), [](const HttpRequest &request, HttpReply reply) {
        reply.send(HttpResponse::text(200, QByteArray::number(request.body.size())));
    });
    m_server->route("GET", QStringLiteral("/ping"),
        [](const HttpRequest &, HttpReply reply) { reply.send(HttpResponse::text(200, "pong")); });
    auto file = [this](const HttpRequest &request, HttpReply reply) {
        auto body = std::make_unique<QBuffer>();
        body->setData(m_file);
        body->open(QIODevice::ReadOnly);
        m_lastBody = body.get();
        const qint64 promised = request.query.hasQueryItem(QStringLiteral("lie")) ? m_file.size() + 10 : m_file.size();
        reply.sendDevice(200, {{"Content-Type", "application/octet-stream"}}, std::move(body), promised);
    };
    m_server->route("GET", QStringLiteral("/file"), file);
    m_server->route("HEAD", QStringLiteral("/file"), file);
    auto port = m_server->listenTcp(QHostAddress::LocalHost, 0);
    QVERIFY(port.ok());
    m_port = port.value();
}

void tst_HttpStreaming::cleanup()
{
    m_server.reset();
    m_file.clear();
}

void tst_HttpStreaming::streamedBodyPastTheLimit_data()
{
    QTest::addColumn<bool>("useChunked");
    QTest::newRow("content-length") << false;
    QTest::newRow("chunked") << true;
}

void tst_HttpStreaming::streamedBodyPastTheLimit()
{
    QFETCH(bool, useChunked);
    const QByteArray body = pattern(24 * kLimit); // 24 times what a buffered route may take
    RawClient c;
    QVERIFY(c.connectTo(m_port));
    QByteArray head = "PUT /up/big HTTP/1.1\r\nHost: h\r\nAuthorization: Bearer let-me-in\r\n";
    head += useChunked ? QByteArray("Transfer-Encoding: chunked\r\n\r\n")
                       : "Content-Length: " + QByteArray::number(body.size()) + "\r\n\r\n";
    c.send(head + (useChunked ? chunked(body, 300 * 1024) : body));
    const Answer a = c.read();
    QCOMPARE(a.status, 201);
    QCOMPARE(a.body, QCryptographicHash::hash(body, QCryptographicHash::Sha256).toHex() + " big");
    QCOMPARE(m_log->bytes, body.size());
    QVERIFY(m_log->completed);
    QVERIFY(m_log->destroyed);
    // The server never held more than its read buffer of the body at once.
    QVERIFY2(m_log->largestPiece <= kLimit, qPrintable(QString::number(m_log->largestPiece)));
    // The connection lives on.
    c.send("GET /ping HTTP/1.1\r\nHost: h\r\n\r\n");
    QCOMPARE(c.read().body, QByteArray("pong"));
}

void tst_HttpStreaming::bufferedRoutesKeepTheirLimit()
{
    RawClient c;
    QVERIFY(c.connectTo(m_port));
    c.send("PUT /buffered HTTP/1.1\r\nHost: h\r\nContent-Length: " + QByteArray::number(2 * kLimit) + "\r\n\r\n");
    QCOMPARE(c.read().status, 413);
    RawClient d;
    QVERIFY(d.connectTo(m_port));
    d.send("PUT /buffered HTTP/1.1\r\nHost: h\r\nContent-Length: 5\r\n\r\nhello");
    QCOMPARE(d.read().body, QByteArray("5"));
}

void tst_HttpStreaming::refusedAtTheHeadKeepsTheConnection()
{
    RawClient c;
    QVERIFY(c.connectTo(m_port));
    const QByteArray body = pattern(kLimit / 2);
    c.send("PUT /up/x HTTP/1.1\r\nHost: h\r\nAuthorization: Bearer wrong\r\nContent-Length: "
        + QByteArray::number(body.size()) + "\r\n\r\n" + body + "GET /ping HTTP/1.1\r\nHost: h\r\n\r\n");
    const Answer refused = c.read();
    QCOMPARE(refused.status, 401);
    QVERIFY(refused.body.contains("unauthorized"));
    QVERIFY(!m_log->completed);
    QCOMPARE(m_log->bytes, 0);
    // The refused body was read and dropped, so the next request on the connection is understood.
    QCOMPARE(c.read().body, QByteArray("pong"));
    QCOMPARE(m_server->connectionCount(), 1);
}

void tst_HttpStreaming::refusedBodyPastTheLimitClosesTheConnection()
{
    RawClient c;
    QVERIFY(c.connectTo(m_port));
    const QByteArray body = pattern(4 * kLimit);
    c.socket().write(
        "PUT /up/x HTTP/1.1\r\nHost: h\r\nContent-Length: " + QByteArray::number(body.size()) + "\r\n\r\n" + body);
    const Answer refused = c.read();
    QCOMPARE(refused.status, 401);
    QCOMPARE(RawClient::header(refused.head, "connection"), QByteArray("close"));
    QVERIFY(c.closedByPeer());
}

void tst_HttpStreaming::sinkThatStopsStillAnswers()
{
    m_log->stopAfter = 64 * 1024;
    RawClient c;
    QVERIFY(c.connectTo(m_port));
    const QByteArray body = pattern(kLimit / 2);
    c.send("PUT /up/x HTTP/1.1\r\nHost: h\r\nAuthorization: Bearer let-me-in\r\nContent-Length: "
        + QByteArray::number(body.size()) + "\r\n\r\n" + body);
    QCOMPARE(c.read().status, 507);
    QVERIFY(m_log->completed);
    QVERIFY(m_log->bytes < body.size());
    c.send("GET /ping HTTP/1.1\r\nHost: h\r\n\r\n");
    QCOMPARE(c.read().body, QByteArray("pong"));
}

void tst_HttpStreaming::peerGoneMidBodyDropsTheSink()
{
    {
        RawClient c;
        QVERIFY(c.connectTo(m_port));
        c.send("PUT /up/x HTTP/1.1\r\nHost: h\r\nAuthorization: Bearer let-me-in\r\nContent-Length: 1000000\r\n\r\n"
            + pattern(300000));
        QTRY_VERIFY(m_log->bytes == 300000);
        c.socket().abort();
    }
    QTRY_VERIFY(m_log->destroyed);
    QVERIFY(!m_log->completed);
}

void tst_HttpStreaming::expectContinue()
{
    RawClient c;
    QVERIFY(c.connectTo(m_port));
    c.send("PUT /up/x HTTP/1.1\r\nHost: h\r\nAuthorization: Bearer let-me-in\r\nExpect: 100-continue\r\n"
           "Content-Length: 4000000\r\n\r\n");
    QTRY_VERIFY(c.pending().append(c.socket().readAll()).startsWith("HTTP/1.1 100 Continue\r\n\r\n"));
    c.send(pattern(4000000));
    QCOMPARE(c.read().status, 201);
    QCOMPARE(m_log->bytes, 4000000);
}

void tst_HttpStreaming::otherMethodsStillRoute()
{
    RawClient c;
    QVERIFY(c.connectTo(m_port));
    c.send("GET /up/x HTTP/1.1\r\nHost: h\r\n\r\n");
    QCOMPARE(c.read().body, QByteArray("a plain GET"));
    c.send("DELETE /up/x HTTP/1.1\r\nHost: h\r\n\r\n");
    QCOMPARE(c.read().status, 405);
    QVERIFY(!m_log->completed);
}

void tst_HttpStreaming::sendDeviceStreamsAFile()
{
    m_file = pattern(8 * kLimit + 123);
    RawClient c;
    QVERIFY(c.connectTo(m_port));
    c.send("HEAD /file HTTP/1.1\r\nHost: h\r\n\r\n");
    QTRY_VERIFY(c.pending().append(c.socket().readAll()).contains("\r\n\r\n"));
    QVERIFY(c.pending().endsWith("\r\n\r\n")); // no body after the head
    QCOMPARE(RawClient::header(c.pending(), "content-length"), QByteArray::number(m_file.size()));
    c.pending().clear();
    c.send("GET /file HTTP/1.1\r\nHost: h\r\n\r\n");
    const Answer a = c.read();
    QCOMPARE(a.status, 200);
    QCOMPARE(a.body.size(), m_file.size());
    QVERIFY(a.body == m_file);
    c.send("GET /ping HTTP/1.1\r\nHost: h\r\n\r\n");
    QCOMPARE(c.read().body, QByteArray("pong"));
}

void tst_HttpStreaming::sendDeviceWaitsForTheReader()
{
    m_file = pattern(64 * kLimit);
    RawClient c;
    QVERIFY(c.connectTo(m_port));
    c.socket().setReadBufferSize(64 * 1024); // the client takes nothing for a while
    c.socket().write("GET /file HTTP/1.1\r\nHost: h\r\n\r\n");
    QTRY_VERIFY(m_lastBody);
    QTest::qWait(500);
    // The server read only what the socket could take, not the whole file.
    qDebug() << "server read" << m_lastBody->pos() << "of" << m_file.size();
    QVERIFY2(m_lastBody->pos() < 32 * kLimit, qPrintable(QString::number(m_lastBody->pos())));
    c.socket().setReadBufferSize(0);
    const Answer a = c.read(30000);
    QCOMPARE(a.status, 200);
    QVERIFY(a.body == m_file);
}

void tst_HttpStreaming::sendDeviceShortBodyClosesTheConnection()
{
    m_file = pattern(3 * kLimit);
    RawClient c;
    QVERIFY(c.connectTo(m_port));
    c.socket().write("GET /file?lie=1 HTTP/1.1\r\nHost: h\r\n\r\n");
    QVERIFY(c.closedByPeer());
    // The peer saw fewer bytes than promised: a short answer, never a wrong one.
    const QByteArray &got = c.pending();
    const qsizetype end = got.indexOf("\r\n\r\n");
    QVERIFY(end > 0);
    QCOMPARE(got.size() - end - 4, m_file.size());
}

QTEST_GUILESS_MAIN(tst_HttpStreaming)
#include "tst_httpstreaming.moc"
