// TcpStream, the data plane's socket, against QTcpServer/QTcpSocket peers on loopback: both
// directions, a write larger than the kernel takes at once, closing after the queue, the peer
// closing, a refused connect, the read limit, and write batches.
#include "net/tcpstream.h"

#include <QCoreApplication>
#include <QCryptographicHash>
#include <QElapsedTimer>
#include <QPointer>
#include <QSignalSpy>
#include <QTcpServer>
#include <QTcpSocket>
#include <QTest>

#include <memory>

using namespace isolation;

class TstTcpStream : public QObject
{
    Q_OBJECT

private:
    // A connected pair: `stream` (ours, connecting out) and `peer` (accepted by a QTcpServer).
    struct Pair
    {
        std::unique_ptr<QTcpServer> server;
        QPointer<TcpStream> stream;
        QPointer<QTcpSocket> peer;
    };
    static Pair connectedPair()
    {
        Pair p;
        p.server = std::make_unique<QTcpServer>();
        if (!p.server->listen(QHostAddress::LocalHost))
            return p;
        p.stream = TcpStream::connectTo(QHostAddress::LocalHost, p.server->serverPort());
        if (!p.server->waitForNewConnection(5000))
            return p;
        p.peer = p.server->nextPendingConnection();
        for (int i = 0; i < 500 && !p.stream->isConnected(); ++i)
            QTest::qWait(10);
        if (!p.stream->isConnected())
            p.peer = nullptr; // the callers' QVERIFY(p.peer) fails
        return p;
    }
    static QByteArray pattern(qsizetype size)
    {
        QByteArray b(size, Qt::Uninitialized);
        for (qsizetype i = 0; i < size; ++i)
            b[i] = char('a' + (i * 7) % 26);
        return b;
    }

private Q_SLOTS:
    void bothWays()
    {
        Pair p = connectedPair();
        QVERIFY(p.peer);
        QSignalSpy ready(p.stream.data(), &QIODevice::readyRead);
        QCOMPARE(p.stream->write("hello"), 5);
        QTRY_COMPARE(p.peer->bytesAvailable(), 5);
        QCOMPARE(p.peer->readAll(), QByteArray("hello"));
        p.peer->write("world");
        QTRY_VERIFY(!ready.isEmpty());
        QCOMPARE(p.stream->takeAll(), QByteArray("world"));
        QCOMPARE(p.stream->peerAddress(), QHostAddress(QHostAddress::LocalHost));
        delete p.stream;
    }

    void aLargeWriteIsQueuedAndArrivesWhole()
    {
        Pair p = connectedPair();
        QVERIFY(p.peer);
        const QByteArray data = pattern(16 * 1024 * 1024);
        QSignalSpy written(p.stream.data(), &QIODevice::bytesWritten);
        QCOMPARE(p.stream->write(data), data.size());
        QVERIFY2(p.stream->bytesToWrite() > 0, "16 MiB went out in one send: the peer's window is not that large");
        QByteArray got;
        QTRY_VERIFY_WITH_TIMEOUT(
            [&] {
                got += p.peer->readAll();
                return got.size() == data.size();
            }(),
            20000);
        QCOMPARE(QCryptographicHash::hash(got, QCryptographicHash::Sha256),
            QCryptographicHash::hash(data, QCryptographicHash::Sha256));
        QCOMPARE(p.stream->bytesToWrite(), 0);
        QVERIFY(!written.isEmpty());
        delete p.stream;
    }

    void disconnectingSendsWhatIsQueuedFirst()
    {
        Pair p = connectedPair();
        QVERIFY(p.peer);
        const QByteArray data = pattern(8 * 1024 * 1024);
        QSignalSpy gone(p.stream.data(), &TcpStream::disconnected);
        p.stream->write(data);
        p.stream->disconnectFromHost();
        QCOMPARE(p.stream->write("late"), -1); // closing: nothing more is taken
        QByteArray got;
        QTRY_VERIFY_WITH_TIMEOUT(
            [&] {
                got += p.peer->readAll();
                return p.peer->state() == QAbstractSocket::UnconnectedState || got.size() > data.size();
            }(),
            20000);
        got += p.peer->readAll();
        QCOMPARE(got.size(), data.size());
        QVERIFY(got == data);
        QTRY_COMPARE(gone.size(), 1);
        QCOMPARE(p.stream->state(), TcpStream::State::Closed);
        delete p.stream;
    }

    void thePeerClosingLeavesWhatCameReadable()
    {
        Pair p = connectedPair();
        QVERIFY(p.peer);
        QSignalSpy gone(p.stream.data(), &TcpStream::disconnected);
        p.peer->write("last words");
        p.peer->disconnectFromHost();
        QTRY_COMPARE(gone.size(), 1);
        QCOMPARE(p.stream->readAll(), QByteArray("last words"));
        QCOMPARE(p.stream->write("anyone?"), -1);
        delete p.stream;
    }

    void aRefusedConnectionSaysWhy()
    {
        QTcpServer server;
        QVERIFY(server.listen(QHostAddress::LocalHost));
        const quint16 port = server.serverPort();
        server.close(); // nothing listens there now
        std::unique_ptr<TcpStream> stream(TcpStream::connectTo(QHostAddress::LocalHost, port));
        QSignalSpy connected(stream.get(), &TcpStream::connected);
        QSignalSpy gone(stream.get(), &TcpStream::disconnected);
        stream->write("queued until connected"); // taken, then dropped with the connection
        QTRY_COMPARE(gone.size(), 1);
        QCOMPARE(connected.size(), 0);
        QVERIFY2(stream->errorString().contains(QLatin1String("refused"), Qt::CaseInsensitive),
            qPrintable(stream->errorString()));
    }

    void theReadLimitHoldsTheRestInTheKernel()
    {
        Pair p = connectedPair();
        QVERIFY(p.peer);
        constexpr qint64 limit = 4096;
        p.stream->setReadBufferSize(limit);
        const QByteArray data = pattern(1024 * 1024);
        p.peer->write(data);
        QByteArray got;
        qint64 largest = 0;
        QElapsedTimer clock;
        clock.start();
        while (got.size() < data.size() && clock.elapsed() < 20000) {
            QCoreApplication::processEvents(QEventLoop::AllEvents, 5);
            largest = std::max(largest, p.stream->bytesAvailable());
            got += p.stream->read(limit / 2); // a reader slower than the peer
        }
        QVERIFY2(largest <= limit, qPrintable(QString::number(largest)));
        QVERIFY(got == data);
        delete p.stream;
    }

    void aBatchHoldsWritesUntilItEnds()
    {
        Pair p = connectedPair();
        QVERIFY(p.peer);
        QStringList order;
        QObject context;
        {
            const TcpStream::WriteBatch outer;
            QVERIFY(TcpStream::WriteBatch::active());
            p.stream->write("head,");
            {
                const TcpStream::WriteBatch inner;
                p.stream->write("body,");
            }
            QCOMPARE(p.stream->bytesToWrite(), 10); // the inner batch ending sends nothing
            auto gone = std::make_unique<QObject>();
            TcpStream::WriteBatch::atEnd(&context, [&] {
                order << QStringLiteral("atEnd");
                QCOMPARE(p.stream->bytesToWrite(), 10); // still held while these run
                p.stream->write("end");
            });
            TcpStream::WriteBatch::atEnd(gone.get(), [&] { order << QStringLiteral("gone"); });
            gone.reset();
            QVERIFY(!p.peer->waitForReadyRead(100));
            QCOMPARE(p.peer->bytesAvailable(), 0);
        }
        QVERIFY(!TcpStream::WriteBatch::active());
        QCOMPARE(order, QStringList {QStringLiteral("atEnd")});
        QCOMPARE(p.stream->bytesToWrite(), 0);
        QByteArray got;
        QTRY_VERIFY(
            [&] {
                got += p.peer->readAll();
                return got.size() >= 13;
            }());
        QCOMPARE(got, QByteArray("head,body,end"));
        delete p.stream;
    }

    void descriptorsAreHandedOver()
    {
        Pair p = connectedPair();
        QVERIFY(p.peer);
        const int fd = p.stream->releaseDescriptor();
        QVERIFY(fd >= 0);
        QCOMPARE(p.stream->state(), TcpStream::State::Closed);
        delete p.stream; // does not close the descriptor it gave away
        auto *again = new TcpStream(fd);
        again->write("still open");
        QTRY_COMPARE(p.peer->bytesAvailable(), 10);
        delete again;
    }
};

QTEST_MAIN(TstTcpStream)
#include "tst_tcpstream.moc"
