// A segment read while it downloads (SegmentStream): plaintext comes out as the sealed bytes
// arrive in pieces from another thread, the end only once the whole segment is the one named;
// a cut download, a truncated or overlong segment, a flipped byte and a cancel each end the reader
// with the reason, a waiting reader wakes at once, and the spool leaves no file behind.
#include "crypto/objectcipher.h"
#include "crypto/random.h"
#include "store/manifest.h"
#include "store/segmentfile.h"
#include "store/segmentstream.h"

#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QTemporaryDir>
#include <QTest>

#include <atomic>
#include <thread>

using namespace isolation;

class tst_SegmentStream final : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void readsWhileItArrives();
    void endsWithTheReason_data();
    void endsWithTheReason();
    void cancelWakesAWaitingReader();

private:
    // The sealed bytes of m_plain, appended to `spool` from another thread in pieces. With
    // `heldUntil`, the last piece waits (up to 30 s) for it to be set: a reader that gets plaintext
    // before the end is then shown to, however the threads are scheduled on a loaded machine.
    std::thread feed(std::shared_ptr<SegmentSpool> spool, QByteArray bytes, std::atomic<bool> *outRan = nullptr,
        const std::atomic<bool> *heldUntil = nullptr);
    SegmentStream stream(std::shared_ptr<SegmentSpool> spool) const;

    QTemporaryDir m_dir;
    QByteArray m_plain;
    QByteArray m_sealed;
    SealedSegment m_named;
    SecureBytes m_key;
    ObjectBinding m_binding;
};

void tst_SegmentStream::initTestCase()
{
    QVERIFY(m_dir.isValid());
    m_plain = randomBytes(3 * 1024 * 1024 + 5);
    const QString plain = m_dir.filePath(QStringLiteral("plain"));
    QFile f(plain);
    QVERIFY(f.open(QIODevice::WriteOnly) && f.write(m_plain) == m_plain.size());
    f.close();
    m_key = workspaceKey(randomBytes(32), QStringLiteral("ws_a"));
    m_binding = Manifest::segmentBinding(QStringLiteral("ws_a"), Manifest::newSegmentId());
    const QString sealedPath = m_dir.filePath(QStringLiteral("sealed"));
    auto sealed = sealSegmentFile(m_key, m_binding, plain, sealedPath);
    QVERIFY(sealed.ok());
    m_named = sealed.value();
    QFile s(sealedPath);
    QVERIFY(s.open(QIODevice::ReadOnly));
    m_sealed = s.readAll();
    QVERIFY(QFile::remove(sealedPath) && QFile::remove(plain));
}

std::thread tst_SegmentStream::feed(
    std::shared_ptr<SegmentSpool> spool, QByteArray bytes, std::atomic<bool> *ran, const std::atomic<bool> *heldUntil)
{
    return std::thread([spool, bytes, ran, heldUntil] {
        qsizetype at = 0;
        int i = 0;
        while (at < bytes.size()) {
            const qsizetype n = std::min<qsizetype>(bytes.size() - at, 10000 + (i++ * 7777) % 90000);
            if (heldUntil && at + n == bytes.size()) {
                for (int waited = 0; !*heldUntil && waited < 30000; ++waited)
                    std::this_thread::sleep_for(std::chrono::milliseconds(1));
            }
            if (!spool->append(QByteArrayView(bytes.constData() + at, n)))
                return;
            at += n;
            std::this_thread::sleep_for(std::chrono::microseconds(300));
        }
        if (ran)
            *ran = true;
        spool->end();
    });
}

SegmentStream tst_SegmentStream::stream(std::shared_ptr<SegmentSpool> spool) const
{
    return SegmentStream(std::move(spool), m_key, m_binding, m_named.name, m_named.size);
}

void tst_SegmentStream::readsWhileItArrives()
{
    auto spool = SegmentSpool::create(m_dir.path());
    QVERIFY(spool.ok());
    // Unlinked from the start: a kill leaves nothing to clean up.
    QCOMPARE(QDir(m_dir.path()).entryList(QDir::Files | QDir::Hidden).size(), 0);
    SegmentStream s = stream(spool.value());
    std::atomic<bool> fedAll {false};
    std::atomic<bool> gotSome {false};
    std::thread writer = feed(spool.value(), m_sealed, &fedAll, &gotSome);
    const std::unique_ptr<QIODevice> reader = s.openReader();
    QByteArray got;
    bool beforeTheEnd = false;
    QByteArray piece(64 * 1024, Qt::Uninitialized);
    while (true) {
        const qint64 n = reader->read(piece.data(), piece.size());
        QVERIFY2(n >= 0, qPrintable(reader->errorString()));
        if (n == 0)
            break;
        beforeTheEnd = beforeTheEnd || !fedAll;
        gotSome = true;
        got.append(piece.constData(), n);
    }
    writer.join();
    QVERIFY(reader->atEnd());
    QVERIFY(got == m_plain);
    QVERIFY2(beforeTheEnd, "plaintext came out only after the whole download");
    QVERIFY(!s.error());
}

void tst_SegmentStream::endsWithTheReason_data()
{
    QTest::addColumn<QString>("what");
    QTest::addColumn<int>("code");
    QTest::addColumn<QString>("says");
    QTest::newRow("download cut") << QStringLiteral("cut") << int(StoreError::Code::Unavailable)
                                  << QStringLiteral("connection reset");
    QTest::newRow("truncated") << QStringLiteral("truncate") << int(StoreError::Code::Refused)
                               << QStringLiteral("not what the manifest names");
    QTest::newRow("overlong") << QStringLiteral("extend") << int(StoreError::Code::Refused)
                              << QStringLiteral("not what the manifest names");
    QTest::newRow("byte flipped") << QStringLiteral("flip") << int(StoreError::Code::Refused)
                                  << QStringLiteral("not what the manifest names");
}

void tst_SegmentStream::endsWithTheReason()
{
    QFETCH(QString, what);
    QFETCH(int, code);
    QFETCH(QString, says);
    QByteArray bytes = m_sealed;
    if (what == QLatin1String("truncate") || what == QLatin1String("cut"))
        bytes.truncate(bytes.size() / 2);
    if (what == QLatin1String("extend"))
        bytes += randomBytes(300000);
    if (what == QLatin1String("flip"))
        bytes[bytes.size() / 3] = char(bytes[bytes.size() / 3] ^ 0x01);
    auto spool = SegmentSpool::create(m_dir.path());
    QVERIFY(spool.ok());
    SegmentStream s = stream(spool.value());
    std::thread writer([spool = spool.value(), bytes, what] {
        spool->append(bytes);
        spool->end(what == QLatin1String("cut")
                ? std::optional<StoreError>(StoreError::unavailable(QStringLiteral("connection reset by peer")))
                : std::nullopt);
    });
    const std::unique_ptr<QIODevice> reader = s.openReader();
    QByteArray piece(64 * 1024, Qt::Uninitialized);
    qint64 n = 0;
    qint64 total = 0;
    while ((n = reader->read(piece.data(), piece.size())) > 0)
        total += n;
    writer.join();
    QCOMPARE(n, qint64(-1)); // never a clean end
    QVERIFY(total < m_plain.size());
    QVERIFY(s.error());
    QCOMPARE(int(s.error()->code), code);
    QVERIFY2(s.error()->message.contains(says), qPrintable(s.error()->message));
    QCOMPARE(reader->errorString(), s.error()->message);
    // A refused segment stops its download: nothing more is taken.
    if (code == int(StoreError::Code::Refused))
        QVERIFY(!spool.value()->append("more"));
}

void tst_SegmentStream::cancelWakesAWaitingReader()
{
    auto spool = SegmentSpool::create(m_dir.path());
    QVERIFY(spool.ok());
    SegmentStream s = stream(spool.value());
    QVERIFY(spool.value()->append(QByteArrayView(m_sealed.constData(), 100))); // the header, not a chunk
    std::atomic<qint64> result {1};
    std::thread reader([&s, &result] {
        const std::unique_ptr<QIODevice> r = s.openReader();
        char c;
        result = r->read(&c, 1);
    });
    QTest::qWait(200);
    QCOMPARE(result.load(), qint64(1)); // still waiting for bytes
    QElapsedTimer woke;
    woke.start();
    s.cancel(StoreError::local(QStringLiteral("the sync stopped")));
    reader.join();
    QVERIFY(woke.elapsed() < 2000);
    QCOMPARE(result.load(), qint64(-1));
    QCOMPARE(s.error()->message, QStringLiteral("the sync stopped"));
    QVERIFY(!spool.value()->append("late bytes"));
}

QTEST_GUILESS_MAIN(tst_SegmentStream)
#include "tst_segmentstream.moc"
