#include "crypto/hpke.h"

#include <QFile>
#include <QRegularExpression>
#include <QTest>

using namespace isolation;

namespace {

using Fields = QHash<QString, QByteArray>; // name -> value as written (hex, or a decimal number)

// One base-mode (mode 0) vector of RFC 9180 Appendix A.
struct Vector
{
    QString suite;
    Fields setup;
    QList<Fields> encryptions;
    QList<Fields> exports;
};

// Reads the RFC's markdown: "## suite", "### <Mode> Setup Information", "#### Encryptions" and
// "#### Exported Values", each followed by a ~~~ block of "name: value" records separated by blank
// lines. Long hex values continue on the next lines.
QList<Vector> readBaseVectors(const QString &path)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly | QIODevice::Text))
        return {};
    static const QRegularExpression fieldLine(QStringLiteral("^([A-Za-z_ ]+):\\s*(.*)$"));
    QList<Vector> vectors;
    QString suite;
    bool inBase = false;
    QString block; // "setup", "encryptions" or "exports"
    bool inFence = false;
    Fields record;
    QString lastField;
    auto flush = [&] {
        if (record.isEmpty() || !inBase || vectors.isEmpty())
            return;
        Vector &vector = vectors.last();
        if (block == QLatin1String("setup"))
            vector.setup.insert(record);
        else if (block == QLatin1String("encryptions"))
            vector.encryptions.append(record);
        else if (block == QLatin1String("exports"))
            vector.exports.append(record);
        record.clear();
    };
    while (!file.atEnd()) {
        const QString line = QString::fromUtf8(file.readLine()).trimmed();
        if (line == QLatin1String("~~~")) {
            flush();
            record.clear();
            inFence = !inFence;
            continue;
        }
        if (!inFence) {
            if (line.startsWith(QLatin1String("#### "))) {
                block = line.contains(QLatin1String("Encryptions")) ? QStringLiteral("encryptions")
                                                                    : QStringLiteral("exports");
            } else if (line.startsWith(QLatin1String("### "))) {
                inBase = line == QLatin1String("### Base Setup Information");
                block = QStringLiteral("setup");
                if (inBase)
                    vectors.append(Vector {suite, {}, {}, {}});
            } else if (line.startsWith(QLatin1String("## "))) {
                suite = line.mid(3);
            }
            continue;
        }
        if (line.isEmpty()) {
            flush();
            continue;
        }
        const QRegularExpressionMatch match = fieldLine.match(line);
        if (match.hasMatch()) {
            lastField = match.captured(1);
            record.insert(lastField, match.captured(2).toLatin1());
        } else {
            record[lastField] += line.toLatin1(); // a hex value continued
        }
    }
    return vectors;
}

QByteArray hex(const Fields &fields, const char *name)
{
    return QByteArray::fromHex(fields.value(QLatin1String(name)));
}

} // namespace

class tst_Hpke final : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void keySchedule_data();
    void keySchedule();
    void encryptions_data();
    void encryptions();
    void exports_data();
    void exports();
    void aes256RoundTrip();
    void aes256Context();
    void refusals();

private:
    void addVectorRows();
    AeadAlgorithm algorithmOf(const Vector &vector) const;

    QList<Vector> m_vectors;
};

void tst_Hpke::initTestCase()
{
    m_vectors = readBaseVectors(QStringLiteral(ISOLATION_TEST_DATA "/hpke/rfc9180-appendix-a1-a2-x25519.txt"));
    QCOMPARE(m_vectors.size(), 2); // A.1 and A.2, base mode
    int encryptions = 0, exports = 0;
    for (const Vector &vector : std::as_const(m_vectors)) {
        QCOMPARE(vector.setup.value(QStringLiteral("mode")), QByteArray("0"));
        QCOMPARE(vector.setup.value(QStringLiteral("kem_id")), QByteArray("32"));
        QCOMPARE(vector.setup.value(QStringLiteral("kdf_id")), QByteArray("1"));
        QVERIFY(vector.encryptions.size() >= 6);
        QVERIFY(vector.exports.size() >= 3);
        QCOMPARE(hex(vector.setup, "shared_secret").size(), 32);
        encryptions += vector.encryptions.size();
        exports += vector.exports.size();
    }
    qInfo("RFC 9180 base-mode vectors: %lld suites, %d encryptions, %d exports", qlonglong(m_vectors.size()),
        encryptions, exports);
}

AeadAlgorithm tst_Hpke::algorithmOf(const Vector &vector) const
{
    return vector.setup.value(QStringLiteral("aead_id")) == "1" ? AeadAlgorithm::Aes128Gcm
                                                                : AeadAlgorithm::ChaCha20Poly1305;
}

void tst_Hpke::addVectorRows()
{
    QTest::addColumn<int>("index");
    for (int i = 0; i < m_vectors.size(); ++i)
        QTest::newRow(qPrintable(m_vectors.at(i).suite)) << i;
}

void tst_Hpke::keySchedule_data()
{
    addVectorRows();
}

void tst_Hpke::keySchedule()
{
    QFETCH(int, index);
    const Vector &v = m_vectors.at(index);
    const Fields &s = v.setup;
    const AeadAlgorithm algorithm = algorithmOf(v);
    QVERIFY(s.value(QStringLiteral("aead_id")) == "1" || s.value(QStringLiteral("aead_id")) == "3");

    CryptoResult<X25519KeyPair> ephemeral = hpkeDeriveKeyPair(hex(s, "ikmE"));
    QVERIFY(ephemeral.ok());
    QCOMPARE(ephemeral.value().privateKey.toByteArray(), hex(s, "skEm"));
    QCOMPARE(ephemeral.value().publicKey, hex(s, "pkEm"));
    CryptoResult<X25519KeyPair> recipient = hpkeDeriveKeyPair(hex(s, "ikmR"));
    QVERIFY(recipient.ok());
    QCOMPARE(recipient.value().privateKey.toByteArray(), hex(s, "skRm"));
    QCOMPARE(recipient.value().publicKey, hex(s, "pkRm"));

    CryptoResult<HpkeEncapsulation> encap = hpkeEncap(hex(s, "pkRm"), hex(s, "ikmE"));
    QVERIFY(encap.ok());
    QCOMPARE(encap.value().enc, hex(s, "enc"));
    QCOMPARE(encap.value().sharedSecret.toByteArray(), hex(s, "shared_secret"));
    CryptoResult<SecureBytes> decap = hpkeDecap(hex(s, "enc"), hex(s, "skRm"));
    QVERIFY(decap.ok());
    QCOMPARE(decap.value().toByteArray(), hex(s, "shared_secret"));

    CryptoResult<HpkeKeySchedule> schedule = hpkeKeyScheduleBase(algorithm, hex(s, "shared_secret"), hex(s, "info"));
    QVERIFY(schedule.ok());
    QCOMPARE(schedule.value().key.toByteArray(), hex(s, "key"));
    QCOMPARE(schedule.value().baseNonce.toByteArray(), hex(s, "base_nonce"));
    QCOMPARE(schedule.value().exporterSecret.toByteArray(), hex(s, "exporter_secret"));

    CryptoResult<HpkeSender> sender = hpkeSetupBaseSender(algorithm, hex(s, "pkRm"), hex(s, "info"), hex(s, "ikmE"));
    QVERIFY(sender.ok());
    QCOMPARE(sender.value().enc, hex(s, "enc"));
}

void tst_Hpke::encryptions_data()
{
    addVectorRows();
}

void tst_Hpke::encryptions()
{
    // Seal every message up to the last listed sequence number (the RFC lists 0, 1, 2, 4, 255, 256); the
    // listed ones must give the listed ciphertext. The recipient opens every one, in order.
    QFETCH(int, index);
    const Vector &v = m_vectors.at(index);
    const Fields &s = v.setup;
    const AeadAlgorithm algorithm = algorithmOf(v);
    CryptoResult<HpkeSender> sender = hpkeSetupBaseSender(algorithm, hex(s, "pkRm"), hex(s, "info"), hex(s, "ikmE"));
    QVERIFY(sender.ok());
    CryptoResult<HpkeContext> recipient
        = hpkeSetupBaseRecipient(algorithm, hex(s, "enc"), hex(s, "skRm"), hex(s, "info"));
    QVERIFY(recipient.ok());
    HpkeContext &seal = sender.value().context;
    HpkeContext &open = recipient.value();

    QHash<quint64, Fields> listed;
    quint64 last = 0;
    for (const Fields &e : v.encryptions) {
        const quint64 seq = e.value(QStringLiteral("sequence number")).toULongLong();
        listed.insert(seq, e);
        last = qMax(last, seq);
    }
    QCOMPARE(listed.size(), v.encryptions.size());
    QVERIFY(last >= 256); // crosses a byte of the nonce

    int matched = 0;
    for (quint64 seq = 0; seq <= last; ++seq) {
        QCOMPARE(seal.sequenceNumber(), seq);
        QCOMPARE(open.sequenceNumber(), seq);
        const bool isListed = listed.contains(seq);
        const Fields e = listed.value(seq);
        const QByteArray aad = isListed ? hex(e, "aad") : "filler " + QByteArray::number(seq);
        const QByteArray pt = isListed ? hex(e, "pt") : QByteArray::number(seq * 31);
        CryptoResult<QByteArray> ct = seal.seal(aad, pt);
        QVERIFY(ct.ok());
        if (isListed) {
            QVERIFY2(ct.value() == hex(e, "ct"), qPrintable(QStringLiteral("sequence %1").arg(seq)));
            ++matched;
        }
        // A wrong aad is refused and does not move the recipient's count; then the real one opens.
        CryptoResult<QByteArray> refused = open.open(QByteArray(aad + 'x'), ct.value());
        QVERIFY(!refused.ok());
        QCOMPARE(refused.error().code, CryptoError::Code::VerificationFailed);
        CryptoResult<QByteArray> opened = open.open(aad, ct.value());
        QVERIFY2(opened.ok(), qPrintable(QStringLiteral("sequence %1").arg(seq)));
        QCOMPARE(opened.value(), pt);
    }
    QCOMPARE(matched, v.encryptions.size());
    // A ciphertext for one sequence number does not open at another.
    CryptoResult<QByteArray> replay = open.open(hex(listed.value(0), "aad"), hex(listed.value(0), "ct"));
    QCOMPARE(replay.error().code, CryptoError::Code::VerificationFailed);
}

void tst_Hpke::exports_data()
{
    addVectorRows();
}

void tst_Hpke::exports()
{
    QFETCH(int, index);
    const Vector &v = m_vectors.at(index);
    const Fields &s = v.setup;
    const AeadAlgorithm algorithm = algorithmOf(v);
    CryptoResult<HpkeSender> sender = hpkeSetupBaseSender(algorithm, hex(s, "pkRm"), hex(s, "info"), hex(s, "ikmE"));
    CryptoResult<HpkeContext> recipient
        = hpkeSetupBaseRecipient(algorithm, hex(s, "enc"), hex(s, "skRm"), hex(s, "info"));
    QVERIFY(sender.ok() && recipient.ok());
    for (const Fields &e : v.exports) {
        const QByteArray context = hex(e, "exporter_context");
        const qsizetype length = e.value(QStringLiteral("L")).toLongLong();
        const QByteArray expected = hex(e, "exported_value");
        QCOMPARE(expected.size(), length);
        CryptoResult<SecureBytes> fromSender = sender.value().context.exportSecret(context, length);
        CryptoResult<SecureBytes> fromRecipient = recipient.value().exportSecret(context, length);
        QVERIFY(fromSender.ok() && fromRecipient.ok());
        QCOMPARE(fromSender.value().toByteArray(), expected);
        QCOMPARE(fromRecipient.value().toByteArray(), expected);
    }
}

void tst_Hpke::aes256RoundTrip()
{
    // AES-256-GCM, the suite we use: no published vector, so a round trip and every refusal.
    const X25519KeyPair recipient = x25519Generate();
    const X25519KeyPair stranger = x25519Generate();
    const QByteArray info("isolation pairing v1");
    const QByteArray aad("server-id");
    const QByteArray message("the member key");
    CryptoResult<QByteArray> sealed = hpkeSeal(recipient.publicKey, info, aad, message);
    QVERIFY(sealed.ok());
    QCOMPARE(sealed.value().size(), 32 + message.size() + 16);
    CryptoResult<SecureBytes> opened = hpkeOpen(recipient.privateKey.view(), info, aad, sealed.value());
    QVERIFY(opened.ok());
    QCOMPARE(opened.value().toByteArray(), message);

    // Fresh ephemeral key each time.
    QVERIFY(hpkeSeal(recipient.publicKey, info, aad, message).value().first(32) != sealed.value().first(32));

    auto refused = [&](QByteArrayView key, QByteArrayView i, QByteArrayView a, QByteArrayView s,
                       AeadAlgorithm algorithm = AeadAlgorithm::Aes256Gcm) {
        CryptoResult<SecureBytes> r = hpkeOpen(key, i, a, s, algorithm);
        return !r.ok() && r.error().code == CryptoError::Code::VerificationFailed;
    };
    QVERIFY(refused(stranger.privateKey.view(), info, aad, sealed.value()));
    QVERIFY(refused(recipient.privateKey.view(), "isolation pairing v2", aad, sealed.value()));
    QVERIFY(refused(recipient.privateKey.view(), info, "other-server", sealed.value()));
    QVERIFY(refused(recipient.privateKey.view(), info, aad, sealed.value(), AeadAlgorithm::ChaCha20Poly1305));
    QVERIFY(refused(recipient.privateKey.view(), info, aad, sealed.value().chopped(1)));
    QVERIFY(refused(recipient.privateKey.view(), info, aad, sealed.value().first(47)));
    QVERIFY(refused(recipient.privateKey.view(), info, aad, {}));
    for (qsizetype at : {qsizetype(0), qsizetype(31), qsizetype(32), sealed.value().size() - 1}) {
        QByteArray tampered = sealed.value();
        tampered[at] = char(tampered[at] ^ 0x01);
        // A changed enc byte could in principle land on a low-order point (InvalidInput); these do not.
        QVERIFY2(refused(recipient.privateKey.view(), info, aad, tampered), qPrintable(QString::number(at)));
    }
}

void tst_Hpke::aes256Context()
{
    const X25519KeyPair recipientKeys = x25519Generate();
    CryptoResult<HpkeSender> sender = hpkeSetupBaseSender(AeadAlgorithm::Aes256Gcm, recipientKeys.publicKey, "info");
    QVERIFY(sender.ok());
    CryptoResult<HpkeContext> recipient
        = hpkeSetupBaseRecipient(AeadAlgorithm::Aes256Gcm, sender.value().enc, recipientKeys.privateKey.view(), "info");
    QVERIFY(recipient.ok());
    QList<QByteArray> sealed;
    for (int i = 0; i < 3; ++i)
        sealed.append(sender.value().context.seal("aad", QByteArray("message " + QByteArray::number(i))).value());
    QVERIFY(sealed.at(0) != sealed.at(1)); // same key, different nonce
    // Out of order: the second message does not open as the first.
    QCOMPARE(recipient.value().open("aad", sealed.at(1)).error().code, CryptoError::Code::VerificationFailed);
    for (int i = 0; i < 3; ++i)
        QCOMPARE(recipient.value().open("aad", sealed.at(i)).value(), "message " + QByteArray::number(i));
    QCOMPARE(sender.value().context.exportSecret("ctx", 48).value().toByteArray(),
        recipient.value().exportSecret("ctx", 48).value().toByteArray());
    QVERIFY(sender.value().context.exportSecret("ctx", 32).value().view()
        != sender.value().context.exportSecret("ctx2", 32).value().view());

    // Moving a context moves its state: the moved-from one refuses.
    HpkeContext moved = std::move(sender.value().context);
    QCOMPARE(moved.sequenceNumber(), quint64(3));
    QCOMPARE(sender.value().context.seal({}, "x").error().code, CryptoError::Code::InvalidInput);
}

void tst_Hpke::refusals()
{
    const X25519KeyPair keys = x25519Generate();
    auto code = [](const auto &result) { return result.ok() ? CryptoError::Code(-1) : result.error().code; };
    QCOMPARE(code(hpkeSeal(keys.publicKey.first(31), {}, {}, "m")), CryptoError::Code::InvalidInput);
    QCOMPARE(code(hpkeSeal(QByteArray(32, '\0'), {}, {}, "m")), CryptoError::Code::InvalidInput); // low order
    QCOMPARE(code(hpkeSetupBaseRecipient(AeadAlgorithm::Aes256Gcm, QByteArray(31, 'e'), keys.privateKey.view(), {})),
        CryptoError::Code::InvalidInput);
    QCOMPARE(code(hpkeSetupBaseRecipient(AeadAlgorithm::Aes256Gcm, QByteArray(32, '\0'), keys.privateKey.view(), {})),
        CryptoError::Code::InvalidInput);
    QCOMPARE(
        code(hpkeOpen(keys.privateKey.view().first(31), {}, {}, QByteArray(64, 's'))), CryptoError::Code::InvalidInput);
    QCOMPARE(code(hpkeDeriveKeyPair(QByteArray(31, 'i'))), CryptoError::Code::InvalidInput);

    HpkeContext empty;
    QCOMPARE(code(empty.seal({}, "m")), CryptoError::Code::InvalidInput);
    QCOMPARE(code(empty.open({}, QByteArray(16, 'c'))), CryptoError::Code::InvalidInput);
    QCOMPARE(code(empty.exportSecret({}, 32)), CryptoError::Code::InvalidInput);

    CryptoResult<HpkeSender> sender = hpkeSetupBaseSender(AeadAlgorithm::Aes128Gcm, keys.publicKey, {});
    QVERIFY(sender.ok());
    QCOMPARE(sender.value().context.exportSecret({}, 8160).value().size(), 8160);
    QCOMPARE(code(sender.value().context.exportSecret({}, 8161)), CryptoError::Code::InvalidInput);
    QCOMPARE(code(sender.value().context.exportSecret({}, -1)), CryptoError::Code::InvalidInput);
    // OpenSSL 3.0 caps HKDF info at 1024 bytes: 22 bytes of labels leave 1002 for the exporter context.
    QVERIFY(sender.value().context.exportSecret(QByteArray(1002, 'c'), 32).ok());
    QCOMPARE(code(sender.value().context.exportSecret(QByteArray(1003, 'c'), 32)), CryptoError::Code::InvalidInput);
}

QTEST_GUILESS_MAIN(tst_Hpke)
#include "tst_hpke.moc"
