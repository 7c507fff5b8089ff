#include "crypto/objectcipher.h"
#include "crypto/random.h"

#include <QBuffer>
#include <QElapsedTimer>
#include <QFile>
#include <QTest>

#include <functional>

using namespace isolation;

namespace {

constexpr qsizetype kChunk = 64 * 1024; // the smallest chunk size: keeps the matrix fast
constexpr qsizetype kHeader = 71;
constexpr qsizetype kRecord = kChunk + 16;

QByteArray pattern(qsizetype size, char seed = 0)
{
    QByteArray out(size, Qt::Uninitialized);
    for (qsizetype i = 0; i < size; ++i)
        out[i] = char((i * 131 + (i >> 8) + seed) & 0xff);
    return out;
}

struct Outcome
{
    std::optional<CryptoError> error;
    QByteArray written; // what the decryptor let out
};

// Feeds ciphertext to a streaming decryptor in pieces of `piece` bytes, then finishes.
Outcome decryptStreaming(
    QByteArrayView key, const ObjectBinding &binding, QByteArrayView ciphertext, qsizetype piece = 4099)
{
    Outcome outcome;
    QBuffer device(&outcome.written);
    device.open(QIODevice::WriteOnly);
    ObjectDecryptor decryptor(key, binding, &device);
    while (!ciphertext.isEmpty()) {
        const qsizetype take = qMin(piece, ciphertext.size());
        if (CryptoResult<void> ok = decryptor.write(ciphertext.first(take)); !ok) {
            outcome.error = ok.error();
            return outcome;
        }
        ciphertext = ciphertext.sliced(take);
    }
    if (CryptoResult<void> ok = decryptor.finish(); !ok)
        outcome.error = ok.error();
    return outcome;
}

QByteArray encryptStreaming(QByteArrayView key, const ObjectBinding &binding, QByteArrayView plaintext, qsizetype piece,
    qsizetype chunkSize = kChunk)
{
    QByteArray out;
    QBuffer device(&out);
    device.open(QIODevice::WriteOnly);
    ObjectEncryptor encryptor(key, binding, &device, chunkSize);
    while (!plaintext.isEmpty()) {
        const qsizetype take = qMin(piece, plaintext.size());
        if (!encryptor.write(plaintext.first(take)).ok())
            return {};
        plaintext = plaintext.sliced(take);
    }
    if (!encryptor.finish().ok())
        return {};
    return out;
}

// Deterministic bytes made on the fly (xorshift64), so 256 MiB never has to exist at once.
class Stream
{
public:
    void fill(char *out, qsizetype n)
    {
        qsizetype i = 0;
        while (i < n && m_left > 0)
            out[i++] = next();
        for (; i + 8 <= n; i += 8) { // whole words at once: this runs over 512 MiB under ASan
            step();
            memcpy(out + i, &m_state, 8);
        }
        while (i < n)
            out[i++] = next();
    }

private:
    void step()
    {
        m_state ^= m_state << 13;
        m_state ^= m_state >> 7;
        m_state ^= m_state << 17;
    }
    char next()
    {
        if (m_left == 0) {
            step();
            m_word = m_state;
            m_left = 8;
        }
        const char c = char(m_word & 0xff);
        m_word >>= 8;
        --m_left;
        return c;
    }

    quint64 m_state = 0x9e3779b97f4a7c15ULL;
    quint64 m_word = 0;
    int m_left = 0;
};

// A write-only device that hands everything written to it to a function.
class SinkDevice final : public QIODevice
{
public:
    explicit SinkDevice(std::function<bool(QByteArrayView)> sink)
        : m_sink(std::move(sink))
    {
        open(QIODevice::WriteOnly | QIODevice::Unbuffered);
    }

protected:
    qint64 readData(char *, qint64) override { return -1; }
    qint64 writeData(const char *data, qint64 size) override { return m_sink(QByteArrayView(data, size)) ? size : -1; }

private:
    std::function<bool(QByteArrayView)> m_sink;
};

qint64 peakRssKiB()
{
    QFile status(QStringLiteral("/proc/self/status"));
    if (!status.open(QIODevice::ReadOnly | QIODevice::Text))
        return -1;
    for (const QByteArray &line : status.readAll().split('\n')) {
        if (line.startsWith("VmHWM:"))
            return line.mid(6).trimmed().split(' ').value(0).toLongLong();
    }
    return -1;
}

// Resets VmHWM to the current RSS (Linux >= 4.0), so earlier tests' peaks cannot hide ours.
bool resetPeakRss()
{
    QFile clearRefs(QStringLiteral("/proc/self/clear_refs"));
    return clearRefs.open(QIODevice::WriteOnly) && clearRefs.write("5") == 1;
}

} // namespace

class tst_ObjectCipher final : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void workspaceKeys();
    void roundTrip_data();
    void roundTrip();
    void defaultChunkSize();
    void saltIsFresh();
    void invalidParameters_data();
    void invalidParameters();
    void headerBitFlips();
    void chunkTampering_data();
    void chunkTampering();
    void truncation_data();
    void truncation();
    void extension_data();
    void extension();
    void reordering();
    void otherBinding_data();
    void otherBinding();
    void finishedRefusesMore();
    void boundedMemory();

private:
    void expectRefused(const Outcome &outcome, qsizetype expectedWritten = -1);

    SecureBytes m_key;
    ObjectBinding m_binding;
    QByteArray m_plaintext; // 3 chunks + 7 bytes: four chunks, the last one short
    QByteArray m_ciphertext;
};

void tst_ObjectCipher::initTestCase()
{
    m_key = workspaceKey(randomSecret(32).view(), QStringLiteral("ws-7f3a"));
    m_binding = {QStringLiteral("ws-7f3a"), QStringLiteral("segments/0001"), ObjectBinding::Kind::Segment};
    m_plaintext = pattern(3 * kChunk + 7);
    m_ciphertext = encryptStreaming(m_key.view(), m_binding, m_plaintext, 1000);
    QCOMPARE(m_ciphertext.size(), kHeader + 4 * kRecord - (kChunk - 7));
    QCOMPARE(m_ciphertext.first(4), QByteArray("ISOB"));
    QCOMPARE(int(m_ciphertext.at(4)), 1);
    QCOMPARE(int(m_ciphertext.at(5)), 2);
    QCOMPARE(int(m_ciphertext.at(6)), 16);
    const Outcome outcome = decryptStreaming(m_key.view(), m_binding, m_ciphertext);
    QVERIFY(!outcome.error);
    QCOMPARE(outcome.written, m_plaintext);
}

void tst_ObjectCipher::expectRefused(const Outcome &outcome, qsizetype expectedWritten)
{
    QVERIFY(outcome.error.has_value());
    QVERIFY2(outcome.error->code == CryptoError::Code::VerificationFailed
            || outcome.error->code == CryptoError::Code::InvalidInput,
        qPrintable(outcome.error->message));
    // Only whole chunks that verified ever come out, in order, and never the whole object.
    QCOMPARE(outcome.written.size() % kChunk, 0);
    QVERIFY(outcome.written.size() < m_plaintext.size());
    QCOMPARE(outcome.written, m_plaintext.first(outcome.written.size()));
    if (expectedWritten >= 0)
        QCOMPARE(outcome.written.size(), expectedWritten);
}

void tst_ObjectCipher::workspaceKeys()
{
    const QByteArray member(32, 'm');
    const SecureBytes a = workspaceKey(member, QStringLiteral("ws-1"));
    QCOMPARE(a.size(), 32);
    QCOMPARE(workspaceKey(member, QStringLiteral("ws-1")).view(), a.view());
    QVERIFY(workspaceKey(member, QStringLiteral("ws-2")).view() != a.view());
    QVERIFY(workspaceKey(QByteArray(32, 'n'), QStringLiteral("ws-1")).view() != a.view());
    QVERIFY(a.view() != QByteArrayView(member));
    // Any member key and id length works, including ones past HKDF's info limit.
    QCOMPARE(workspaceKey({}, QString(5000, u'w')).size(), 32);
}

void tst_ObjectCipher::roundTrip_data()
{
    QTest::addColumn<qsizetype>("size");
    QTest::addColumn<qsizetype>("piece");
    for (qsizetype size : {qsizetype(0), qsizetype(1), kChunk - 1, kChunk, kChunk + 1, 3 * kChunk + 7}) {
        for (qsizetype piece : {qsizetype(1 << 30), qsizetype(7919), kChunk}) {
            if (size > 20000 && piece == 1)
                continue;
            QTest::addRow("%lld bytes in %lld-byte pieces", qlonglong(size), qlonglong(piece)) << size << piece;
        }
    }
    QTest::addRow("1000 bytes byte by byte") << qsizetype(1000) << qsizetype(1);
}

void tst_ObjectCipher::roundTrip()
{
    QFETCH(qsizetype, size);
    QFETCH(qsizetype, piece);
    const QByteArray plaintext = pattern(size, 5);
    const QByteArray ciphertext = encryptStreaming(m_key.view(), m_binding, plaintext, piece);
    const qsizetype chunks = qMax<qsizetype>(1, (size + kChunk - 1) / kChunk);
    QCOMPARE(ciphertext.size(), kHeader + size + 16 * chunks);
    if (size >= 16)
        QVERIFY(!ciphertext.contains(plaintext.first(16)));

    const Outcome streamed = decryptStreaming(m_key.view(), m_binding, ciphertext, piece);
    QVERIFY2(!streamed.error, streamed.error ? qPrintable(streamed.error->message) : "");
    QCOMPARE(streamed.written, plaintext);
    CryptoResult<QByteArray> oneShot = decryptObject(m_key.view(), m_binding, ciphertext);
    QVERIFY(oneShot.ok());
    QCOMPARE(oneShot.value(), plaintext);
}

void tst_ObjectCipher::defaultChunkSize()
{
    const QByteArray plaintext = pattern(256 * 1024 * 2 + 1, 9);
    CryptoResult<QByteArray> sealed = encryptObject(m_key.view(), m_binding, plaintext);
    QVERIFY(sealed.ok());
    QCOMPARE(int(sealed.value().at(6)), 18); // 256 KiB
    QCOMPARE(sealed.value().size(), kHeader + plaintext.size() + 3 * 16);
    CryptoResult<QByteArray> opened = decryptObject(m_key.view(), m_binding, sealed.value());
    QVERIFY(opened.ok());
    QCOMPARE(opened.value(), plaintext);
}

void tst_ObjectCipher::saltIsFresh()
{
    const QByteArray a = encryptObject(m_key.view(), m_binding, "same").value();
    const QByteArray b = encryptObject(m_key.view(), m_binding, "same").value();
    QVERIFY(a.mid(7, 32) != b.mid(7, 32)); // salt
    QVERIFY(a.mid(39, 32) != b.mid(39, 32)); // so the commitment too
    QVERIFY(a.mid(kHeader) != b.mid(kHeader));
    // The commitment is not the key, nor anything derived from it in the clear.
    QVERIFY(!a.contains(m_key.view()));
}

void tst_ObjectCipher::invalidParameters_data()
{
    QTest::addColumn<qsizetype>("keySize");
    QTest::addColumn<qsizetype>("chunkSize");
    QTest::newRow("zero chunk") << qsizetype(32) << qsizetype(0);
    QTest::newRow("32 KiB chunk") << qsizetype(32) << qsizetype(32 * 1024);
    QTest::newRow("2 MiB chunk") << qsizetype(32) << qsizetype(2 * 1024 * 1024);
    QTest::newRow("not a power of two") << qsizetype(32) << qsizetype(3 * 64 * 1024);
    QTest::newRow("short key") << qsizetype(16) << kChunk;
    QTest::newRow("empty key") << qsizetype(0) << kChunk;
}

void tst_ObjectCipher::invalidParameters()
{
    QFETCH(qsizetype, keySize);
    QFETCH(qsizetype, chunkSize);
    const QByteArray key(keySize, 'k');
    QByteArray out;
    QBuffer device(&out);
    device.open(QIODevice::WriteOnly);
    ObjectEncryptor encryptor(key, m_binding, &device, chunkSize);
    QCOMPARE(encryptor.write("data").error().code, CryptoError::Code::InvalidInput);
    QCOMPARE(encryptor.finish().error().code, CryptoError::Code::InvalidInput);
    QVERIFY(out.isEmpty());
    if (keySize != 32) {
        ObjectDecryptor decryptor(key, m_binding, &device);
        QCOMPARE(decryptor.write(m_ciphertext).error().code, CryptoError::Code::InvalidInput);
    }
}

void tst_ObjectCipher::headerBitFlips()
{
    int refused = 0;
    for (qsizetype at = 0; at < kHeader; ++at) {
        for (int bit = 0; bit < 8; ++bit) {
            QByteArray tampered = m_ciphertext;
            tampered[at] = char(tampered[at] ^ (1 << bit));
            const Outcome outcome = decryptStreaming(m_key.view(), m_binding, tampered);
            expectRefused(outcome, 0);
            if (QTest::currentTestFailed()) {
                qWarning("header byte %lld bit %d", qlonglong(at), bit);
                return;
            }
            // Magic and version say "not ours"; everything else says "not authentic".
            const auto expected = at < 5 ? CryptoError::Code::InvalidInput : CryptoError::Code::VerificationFailed;
            if (at != 6) // a flipped exponent is either out of range (InvalidInput) or fails the tag
                QCOMPARE(outcome.error->code, expected);
            ++refused;
        }
    }
    QCOMPARE(refused, kHeader * 8);
}

void tst_ObjectCipher::chunkTampering_data()
{
    QTest::addColumn<int>("chunk");
    QTest::addColumn<qsizetype>("offset"); // within the chunk's record; negative counts from its end
    for (int chunk = 0; chunk < 4; ++chunk) {
        const qsizetype middle = chunk < 3 ? 1000 : 3; // the final chunk holds 7 bytes
        for (qsizetype offset : {qsizetype(0), middle, qsizetype(-17)})
            QTest::addRow("chunk %d ciphertext %lld", chunk, qlonglong(offset)) << chunk << offset;
        for (qsizetype tagByte = 1; tagByte <= 16; ++tagByte)
            QTest::addRow("chunk %d tag byte %lld", chunk, qlonglong(16 - tagByte)) << chunk << -tagByte;
    }
}

void tst_ObjectCipher::chunkTampering()
{
    QFETCH(int, chunk);
    QFETCH(qsizetype, offset);
    const qsizetype start = kHeader + chunk * kRecord;
    const qsizetype end = qMin(start + kRecord, m_ciphertext.size());
    const qsizetype at = offset >= 0 ? start + offset : end + offset;
    QVERIFY(at >= start && at < end);
    QByteArray tampered = m_ciphertext;
    tampered[at] = char(tampered[at] ^ 0x40);
    const Outcome outcome = decryptStreaming(m_key.view(), m_binding, tampered);
    // Chunks before the tampered one came out; the tampered one did not.
    expectRefused(outcome, chunk * kChunk);
    QCOMPARE(outcome.error->code, CryptoError::Code::VerificationFailed);
    QCOMPARE(decryptObject(m_key.view(), m_binding, tampered).error().code, CryptoError::Code::VerificationFailed);
}

void tst_ObjectCipher::truncation_data()
{
    QTest::addColumn<qsizetype>("length");
    QTest::addColumn<qsizetype>("written");
    QTest::newRow("empty") << qsizetype(0) << qsizetype(0);
    QTest::newRow("mid magic") << qsizetype(2) << qsizetype(0);
    QTest::newRow("mid header") << qsizetype(40) << qsizetype(0);
    QTest::newRow("header only") << kHeader << qsizetype(0);
    QTest::newRow("header and 15 bytes") << kHeader + 15 << qsizetype(0);
    for (int chunk = 0; chunk < 4; ++chunk) {
        const qsizetype start = kHeader + chunk * kRecord;
        if (chunk > 0) // at a chunk boundary: the last whole chunk was not sealed as final
            QTest::addRow("after chunk %d", chunk - 1) << start << qsizetype((chunk - 1) * kChunk);
        const qsizetype recordSize = chunk < 3 ? kRecord : 7 + 16;
        QTest::addRow("mid chunk %d", chunk) << start + recordSize / 2 << qsizetype(chunk * kChunk);
    }
    QTest::newRow("last byte") << m_ciphertext.size() - 1 << 3 * kChunk;
}

void tst_ObjectCipher::truncation()
{
    QFETCH(qsizetype, length);
    QFETCH(qsizetype, written);
    const QByteArray truncated = m_ciphertext.first(length);
    const Outcome outcome = decryptStreaming(m_key.view(), m_binding, truncated);
    expectRefused(outcome, written);
    QCOMPARE(outcome.error->code, CryptoError::Code::VerificationFailed);
}

void tst_ObjectCipher::extension_data()
{
    QTest::addColumn<QByteArray>("appended");
    QTest::newRow("one byte") << QByteArray(1, '\0');
    QTest::newRow("a tag's worth") << QByteArray(16, 'x');
    QTest::newRow("a copy of the final chunk") << m_ciphertext.mid(kHeader + 3 * kRecord);
    QTest::newRow("a copy of chunk 0") << m_ciphertext.mid(kHeader, kRecord);
    QTest::newRow("a whole second object") << m_ciphertext;
}

void tst_ObjectCipher::extension()
{
    QFETCH(QByteArray, appended);
    const Outcome outcome = decryptStreaming(m_key.view(), m_binding, QByteArray(m_ciphertext + appended));
    expectRefused(outcome);
    QCOMPARE(outcome.error->code, CryptoError::Code::VerificationFailed);
}

void tst_ObjectCipher::reordering()
{
    QByteArray swapped = m_ciphertext;
    swapped.replace(kHeader, kRecord, m_ciphertext.mid(kHeader + kRecord, kRecord));
    swapped.replace(kHeader + kRecord, kRecord, m_ciphertext.mid(kHeader, kRecord));
    QCOMPARE(swapped.size(), m_ciphertext.size());
    expectRefused(decryptStreaming(m_key.view(), m_binding, swapped), 0);

    // A chunk dropped from the middle.
    QByteArray dropped = m_ciphertext;
    dropped.remove(kHeader + kRecord, kRecord);
    expectRefused(decryptStreaming(m_key.view(), m_binding, dropped), kChunk);
}

void tst_ObjectCipher::otherBinding_data()
{
    QTest::addColumn<QString>("workspaceId");
    QTest::addColumn<QString>("objectName");
    QTest::addColumn<int>("kind");
    QTest::addColumn<bool>("otherKey");
    QTest::newRow("other object name") << "ws-7f3a"
                                       << "segments/0002" << 2 << false;
    QTest::newRow("name with appended byte") << "ws-7f3a"
                                             << "segments/00010" << 2 << false;
    QTest::newRow("other kind") << "ws-7f3a"
                                << "segments/0001" << 1 << false;
    QTest::newRow("other workspace id") << "ws-7f3b"
                                        << "segments/0001" << 2 << false;
    // The length prefixes keep ("ab", "c") apart from ("a", "bc").
    QTest::newRow("boundary moved") << "ws-7f3"
                                    << "asegments/0001" << 2 << false;
    QTest::newRow("other key") << "ws-7f3a"
                               << "segments/0001" << 2 << true;
}

void tst_ObjectCipher::otherBinding()
{
    QFETCH(QString, workspaceId);
    QFETCH(QString, objectName);
    QFETCH(int, kind);
    QFETCH(bool, otherKey);
    const ObjectBinding binding {workspaceId, objectName, ObjectBinding::Kind(kind)};
    const SecureBytes key = otherKey ? workspaceKey(randomSecret(32).view(), workspaceId) : m_key;
    const Outcome outcome = decryptStreaming(key.view(), binding, m_ciphertext);
    expectRefused(outcome, 0);
    QCOMPARE(outcome.error->code, CryptoError::Code::VerificationFailed);
}

void tst_ObjectCipher::finishedRefusesMore()
{
    QByteArray out;
    QBuffer device(&out);
    device.open(QIODevice::WriteOnly);
    ObjectEncryptor encryptor(m_key.view(), m_binding, &device, kChunk);
    QVERIFY(encryptor.finish().ok());
    QCOMPARE(encryptor.state(), ObjectCipherState::Finished);
    QCOMPARE(encryptor.write("more").error().code, CryptoError::Code::InvalidInput);
    QCOMPARE(out.size(), kHeader + 16);

    QByteArray plain;
    QBuffer plainDevice(&plain);
    plainDevice.open(QIODevice::WriteOnly);
    ObjectDecryptor decryptor(m_key.view(), m_binding, &plainDevice);
    QVERIFY(decryptor.write(out).ok());
    QVERIFY(decryptor.finish().ok());
    QVERIFY(plain.isEmpty());
    QCOMPARE(decryptor.write("x").error().code, CryptoError::Code::VerificationFailed);
    QCOMPARE(decryptor.state(), ObjectCipherState::Failed);
    // Errors stick.
    QCOMPARE(decryptor.finish().error().code, CryptoError::Code::VerificationFailed);
}

void tst_ObjectCipher::boundedMemory()
{
    // 256 MiB through encryptor -> decryptor -> checker, generated and checked on the fly.
    constexpr qsizetype total = qsizetype(256) * 1024 * 1024;
    constexpr qsizetype piece = 64 * 1024 + 13; // not aligned with chunks
    QVERIFY(resetPeakRss());
    const qint64 before = peakRssKiB();
    QVERIFY(before > 0);

    Stream expected;
    QByteArray expectedPiece;
    qsizetype checked = 0;
    bool mismatch = false;
    SinkDevice checker([&](QByteArrayView plain) {
        expectedPiece.resize(plain.size());
        expected.fill(expectedPiece.data(), plain.size());
        mismatch = mismatch || plain != QByteArrayView(expectedPiece);
        checked += plain.size();
        return true;
    });
    ObjectDecryptor decryptor(m_key.view(), m_binding, &checker);
    qsizetype ciphertextBytes = 0;
    std::optional<CryptoError> decryptError;
    SinkDevice pipe([&](QByteArrayView sealed) {
        ciphertextBytes += sealed.size();
        if (CryptoResult<void> ok = decryptor.write(sealed); !ok) {
            decryptError = ok.error();
            return false;
        }
        return true;
    });
    ObjectEncryptor encryptor(m_key.view(), m_binding, &pipe);

    QElapsedTimer timer;
    timer.start();
    Stream source;
    QByteArray buffer(piece, Qt::Uninitialized);
    for (qsizetype done = 0; done < total; done += piece) {
        const qsizetype n = qMin(piece, total - done);
        source.fill(buffer.data(), n);
        QVERIFY(encryptor.write(QByteArrayView(buffer.constData(), n)).ok());
    }
    QVERIFY(encryptor.finish().ok());
    QVERIFY(!decryptError);
    QVERIFY(decryptor.finish().ok());
    const qint64 elapsed = timer.elapsed();
    const qint64 after = peakRssKiB();

    QVERIFY(!mismatch);
    QCOMPARE(checked, total);
    QCOMPARE(ciphertextBytes, kHeader + total + (total / (256 * 1024)) * 16);
    const qint64 growthKiB = after - before;
    qInfo("256 MiB encrypted and decrypted in %lld ms; peak RSS %lld KiB -> %lld KiB (growth %lld KiB)",
        qlonglong(elapsed), qlonglong(before), qlonglong(after), qlonglong(growthKiB));
    QVERIFY2(growthKiB < 64 * 1024, qPrintable(QStringLiteral("peak RSS grew by %1 KiB").arg(growthKiB)));
}

QTEST_GUILESS_MAIN(tst_ObjectCipher)
#include "tst_objectcipher.moc"
