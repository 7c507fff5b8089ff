// Flow control through the tunnel: 16 MiB each way through a reader that reads slowly arrives
// whole and in order while every buffer stays bounded by the HTTP/2 windows; and a bidirectional
// extended-CONNECT stream (RFC 8441), as WebSocket views will use.
#include "tunneltestkit.h"

#include <QCryptographicHash>
#include <QJsonDocument>
#include <QSignalSpy>
#include <QTest>
#include <QTimer>

#include <memory>

using namespace isolation;
using namespace isolation::test;
using namespace std::chrono_literals;

namespace {

const QByteArray kCredential = "cred-flow-3e6a90c1d27b";
const QString kServer = QStringLiteral("srv-flow");
constexpr qint64 kTotal = 16 * 1024 * 1024;
constexpr qint64 kChunk = 64 * 1024;
constexpr qint64 kHighWater = 256 * 1024; // writers stop queueing above this

// Deterministic content that a shifted or dropped byte would change.
QByteArray chunkAt(qint64 offset, qint64 size)
{
    QByteArray out(size, Qt::Uninitialized);
    for (qint64 i = 0; i < size; ++i) {
        const quint64 x = quint64(offset + i);
        out[i] = char((x * 2654435761u) >> 13);
    }
    return out;
}

QByteArray expectedDigest()
{
    QCryptographicHash hash(QCryptographicHash::Sha256);
    for (qint64 off = 0; off < kTotal; off += kChunk)
        hash.addData(chunkAt(off, kChunk));
    return hash.result().toHex();
}

// Writes kTotal bytes into a stream, never queueing much more than kHighWater.
struct Producer
{
    QPointer<TunnelStream> stream;
    qint64 sent = 0;
    qint64 maxQueued = 0;
    int waits = 0; // times the producer had to wait for the window
    bool finished = false;
    std::function<void()> onFinished;

    void pump()
    {
        while (stream && sent < kTotal && stream->bytesToWrite() < kHighWater) {
            stream->write(chunkAt(sent, kChunk));
            sent += kChunk;
            maxQueued = std::max(maxQueued, stream->bytesToWrite());
        }
        if (!stream)
            return;
        if (sent < kTotal) {
            ++waits;
            return;
        }
        if (!finished) {
            finished = true;
            stream->finish();
            if (onFinished)
                onFinished();
        }
    }
};

// Reads a stream slowly: one chunk per tick, hashing what arrives.
struct SlowReader
{
    QPointer<TunnelStream> stream;
    QCryptographicHash hash {QCryptographicHash::Sha256};
    qint64 received = 0;
    qint64 maxUnread = 0;
    qint64 firstMismatch = -1; // offset of the first chunk that differs from what was sent
    QTimer timer;

    void start(TunnelStream *s, int intervalMs)
    {
        stream = s;
        QObject::connect(
            s, &TunnelStream::readyRead, &timer, [this] { maxUnread = std::max(maxUnread, stream->bytesAvailable()); });
        QObject::connect(&timer, &QTimer::timeout, [this] {
            if (!stream)
                return;
            const QByteArray data = stream->read(kChunk);
            if (firstMismatch < 0 && data != chunkAt(received, data.size()))
                firstMismatch = received;
            hash.addData(data);
            received += data.size();
        });
        timer.start(intervalMs);
    }
};

} // namespace

class tst_TunnelFlow final : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void init();
    void cleanup();
    void slowHubReaderBoundsEngineMemory();
    void slowEngineReaderBoundsHubMemory();
    void extendedConnectCarriesBothWays();

private:
    SystemClock m_clock;
    QByteArray m_digest;
    std::unique_ptr<TestKey> m_key;
    std::unique_ptr<TestHub> m_hub;
    std::unique_ptr<TunnelClient> m_client;
};

void tst_TunnelFlow::initTestCase()
{
    m_digest = expectedDigest();
}

void tst_TunnelFlow::init()
{
    m_key = std::make_unique<TestKey>();
    m_hub = std::make_unique<TestHub>(m_clock);
    m_hub->addServer(kServer, kCredential, m_key->publicKey());
    QVERIFY(m_hub->start());
    m_client = std::make_unique<TunnelClient>(clientOptions(m_hub->url(), kServer, kCredential, *m_key), m_clock);
}

void tst_TunnelFlow::cleanup()
{
    m_client.reset();
    m_hub.reset();
    m_key.reset();
}

void tst_TunnelFlow::slowHubReaderBoundsEngineMemory()
{
    auto producer = std::make_shared<Producer>();
    qint64 readWhenEngineFinished = -1;
    SlowReader reader;
    producer->onFinished = [&] { readWhenEngineFinished = reader.received; };
    m_client->setStreamHandler("/test/blob", [producer](TunnelStream *stream) {
        producer->stream = stream;
        stream->respond(200, {{"content-type", "application/octet-stream"}});
        QObject::connect(stream, &TunnelStream::bytesWritten, stream, [producer] { producer->pump(); });
        producer->pump();
    });
    QSignalSpy up(m_client.get(), &TunnelClient::connected);
    QVERIFY(m_client->start().ok());
    QVERIFY(up.wait(5000));
    QTRY_VERIFY(m_hub->tunnels().tunnel(kServer));

    TunnelHead head;
    head.method = "GET";
    head.path = "/test/blob";
    auto opened = m_hub->tunnels().tunnel(kServer)->open(head, true);
    QVERIFY(opened.ok());
    TunnelStream *stream = opened.value();
    QSignalSpy closed(stream, &TunnelStream::closed);
    reader.start(stream, 2); // ~32 MiB/s at best: far slower than loopback
    QTRY_VERIFY_WITH_TIMEOUT(!closed.isEmpty(), 60000);
    QCOMPARE(closed.first().at(0).toUInt(), TunnelStream::NoError);
    QTRY_COMPARE_WITH_TIMEOUT(reader.received, kTotal, 60000);
    QCOMPARE(reader.firstMismatch, -1);
    QCOMPARE(reader.hash.result().toHex(), m_digest);

    const Http2Session::Settings windows;
    qInfo("engine queued at most %lld bytes, waited %d times; hub held at most %lld unread bytes; "
          "the engine finished when the hub had read %lld of %lld",
        producer->maxQueued, producer->waits, reader.maxUnread, readWhenEngineFinished, kTotal);
    // The hub never held more than one stream window unread...
    QVERIFY(reader.maxUnread <= windows.streamWindow);
    // ...the engine never queued more than its high-water mark plus a chunk...
    QVERIFY(producer->maxQueued <= kHighWater + kChunk);
    // ...and it had to wait for the reader: it finished only once the hub had read almost all.
    QVERIFY(producer->waits > 0);
    QVERIFY(readWhenEngineFinished >= kTotal - (kHighWater + kChunk + windows.streamWindow + windows.connectionWindow));
}

void tst_TunnelFlow::slowEngineReaderBoundsHubMemory()
{
    auto engineReader = std::make_shared<SlowReader>();
    m_client->setStreamHandler("/test/sink", [engineReader](TunnelStream *stream) {
        engineReader->start(stream, 2);
        // Answer once the whole upload has been read.
        auto *check = new QTimer(stream);
        QObject::connect(check, &QTimer::timeout, stream, [engineReader, stream, check] {
            if (!stream->atEnd())
                return;
            check->stop();
            stream->respondWith(200, {{"content-type", "application/json"}},
                QJsonDocument(QJsonObject {{QStringLiteral("bytes"), engineReader->received},
                                  {QStringLiteral("sha256"), QString::fromLatin1(engineReader->hash.result().toHex())}})
                    .toJson(QJsonDocument::Compact));
        });
        check->start(5);
    });
    QSignalSpy up(m_client.get(), &TunnelClient::connected);
    QVERIFY(m_client->start().ok());
    QVERIFY(up.wait(5000));
    QTRY_VERIFY(m_hub->tunnels().tunnel(kServer));

    TunnelHead head;
    head.method = "POST";
    head.path = "/test/sink";
    auto opened = m_hub->tunnels().tunnel(kServer)->open(head, false);
    QVERIFY(opened.ok());
    TunnelStream *stream = opened.value();
    auto producer = std::make_shared<Producer>();
    producer->stream = stream;
    QByteArray answer;
    connect(stream, &TunnelStream::bytesWritten, stream, [producer] { producer->pump(); });
    connect(stream, &TunnelStream::readyRead, stream, [&] { answer += stream->read(); });
    QSignalSpy closed(stream, &TunnelStream::closed);
    producer->pump();
    QTRY_VERIFY_WITH_TIMEOUT(!closed.isEmpty(), 60000);
    QCOMPARE(closed.first().at(0).toUInt(), TunnelStream::NoError);

    const QJsonObject result = QJsonDocument::fromJson(answer).object();
    QCOMPARE(result.value(QStringLiteral("bytes")).toInteger(), kTotal);
    QCOMPARE(result.value(QStringLiteral("sha256")).toString().toLatin1(), m_digest);
    QCOMPARE(engineReader->firstMismatch, -1);
    const Http2Session::Settings windows;
    qInfo("hub queued at most %lld bytes, waited %d times; engine held at most %lld unread bytes", producer->maxQueued,
        producer->waits, engineReader->maxUnread);
    QVERIFY(engineReader->maxUnread <= windows.streamWindow);
    QVERIFY(producer->maxQueued <= kHighWater + kChunk);
    QVERIFY(producer->waits > 0);
}

void tst_TunnelFlow::extendedConnectCarriesBothWays()
{
    // The engine announces SETTINGS_ENABLE_CONNECT_PROTOCOL, so the hub may open a
    // CONNECT with :protocol; the stream then carries data both ways until either side ends.
    QByteArray protocolSeen;
    m_client->setStreamHandler("/v/", [&protocolSeen](TunnelStream *stream) {
        protocolSeen = stream->requestHead().method + ' ' + stream->requestHead().protocol;
        stream->respond(200);
        QObject::connect(
            stream, &TunnelStream::readyRead, stream, [stream] { stream->write(stream->read().toUpper()); });
        QObject::connect(stream, &TunnelStream::remoteFinishedReceived, stream, [stream] { stream->finish(); });
    });
    QSignalSpy up(m_client.get(), &TunnelClient::connected);
    QVERIFY(m_client->start().ok());
    QVERIFY(up.wait(5000));
    QTRY_VERIFY(m_hub->tunnels().tunnel(kServer));

    TunnelHead head;
    head.method = "CONNECT";
    head.protocol = "websocket";
    head.scheme = "https";
    head.path = "/v/view-1/socket";
    auto opened = m_hub->tunnels().tunnel(kServer)->open(head, false);
    QVERIFY2(opened.ok(), qPrintable(opened.ok() ? QString() : opened.error().message));
    TunnelStream *stream = opened.value();
    QByteArray echoed;
    connect(stream, &TunnelStream::readyRead, stream, [&] { echoed += stream->read(); });
    QSignalSpy head200(stream, &TunnelStream::headReceived);
    QVERIFY(head200.wait(5000));
    QCOMPARE(stream->responseHead().status, 200);
    // Each message is answered before the next is sent: a real conversation, not a buffered body.
    for (int i = 0; i < 10; ++i) {
        const QByteArray message = "message " + QByteArray::number(i) + ";";
        const qsizetype before = echoed.size();
        stream->write(message);
        QTRY_COMPARE(echoed.size(), before + message.size());
        QCOMPARE(echoed.mid(before), message.toUpper());
    }
    QSignalSpy closed(stream, &TunnelStream::closed);
    stream->finish();
    QVERIFY(closed.wait(5000));
    QCOMPARE(closed.first().at(0).toUInt(), TunnelStream::NoError);
    QCOMPARE(protocolSeen, QByteArray("CONNECT websocket"));
}

QTEST_GUILESS_MAIN(tst_TunnelFlow)
#include "tst_tunnelflow.moc"
