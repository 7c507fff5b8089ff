#include "crypto/aead.h"
#include "crypto/aeadcipher.h"

#include "testvectors.h"

#include <QTest>

using namespace isolation;

class tst_Aead final : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void sizes_data();
    void sizes();
    void wycheproofAesGcm();
    void roundTrip_data();
    void roundTrip();
    void refusals_data();
    void refusals();
    void cipherReuse_data();
    void cipherReuse();
};

void tst_Aead::sizes_data()
{
    QTest::addColumn<AeadAlgorithm>("algorithm");
    QTest::addColumn<qsizetype>("keySize");
    QTest::newRow("AES-128-GCM") << AeadAlgorithm::Aes128Gcm << qsizetype(16);
    QTest::newRow("AES-256-GCM") << AeadAlgorithm::Aes256Gcm << qsizetype(32);
    QTest::newRow("ChaCha20-Poly1305") << AeadAlgorithm::ChaCha20Poly1305 << qsizetype(32);
}

void tst_Aead::sizes()
{
    QFETCH(AeadAlgorithm, algorithm);
    QFETCH(qsizetype, keySize);
    QCOMPARE(aeadKeySize(algorithm), keySize);
    QCOMPARE(aeadNonceSize(algorithm), 12);
    QCOMPARE(aeadTagSize(algorithm), 16);
}

void tst_Aead::wycheproofAesGcm()
{
    using namespace testvectors;
    const QJsonObject file = wycheproof(QStringLiteral("aes_gcm_test.json"));
    int total = 0, valid = 0, invalid = 0, refusedSizes = 0, refusedAes192 = 0;
    for (const QJsonValue &groupValue : file[QStringLiteral("testGroups")].toArray()) {
        const QJsonObject group = groupValue.toObject();
        const int keyBits = group[QStringLiteral("keySize")].toInt();
        const int ivBits = group[QStringLiteral("ivSize")].toInt();
        const int tagBits = group[QStringLiteral("tagSize")].toInt();
        for (const QJsonValue &testValue : group[QStringLiteral("tests")].toArray()) {
            const QJsonObject test = testValue.toObject();
            ++total;
            const QByteArray name = caseName(test);
            const QByteArray key = hex(test[QStringLiteral("key")]);
            const QByteArray iv = hex(test[QStringLiteral("iv")]);
            const QByteArray aad = hex(test[QStringLiteral("aad")]);
            const QByteArray msg = hex(test[QStringLiteral("msg")]);
            const QByteArray sealed = hex(test[QStringLiteral("ct")]) + hex(test[QStringLiteral("tag")]);
            const QString result = test[QStringLiteral("result")].toString();
            QVERIFY2(result == QLatin1String("valid") || result == QLatin1String("invalid"), name);

            if (keyBits == 192) {
                // We offer no AES-192: a 24-byte key is refused by both AES suites we have.
                for (AeadAlgorithm algorithm : {AeadAlgorithm::Aes128Gcm, AeadAlgorithm::Aes256Gcm}) {
                    QCOMPARE(aeadSeal(algorithm, key, iv, aad, msg).error().code, CryptoError::Code::InvalidInput);
                    QCOMPARE(aeadOpen(algorithm, key, iv, aad, sealed).error().code, CryptoError::Code::InvalidInput);
                }
                ++refusedAes192;
                continue;
            }
            QVERIFY2(keyBits == 128 || keyBits == 256, name);
            const AeadAlgorithm algorithm = keyBits == 128 ? AeadAlgorithm::Aes128Gcm : AeadAlgorithm::Aes256Gcm;

            if (ivBits != 96 || tagBits != 128) {
                // Only 12-byte nonces and 16-byte tags: anything else is refused before any cryptography.
                CryptoResult<QByteArray> seal = aeadSeal(algorithm, key, iv, aad, msg);
                QVERIFY2(!seal.ok() && seal.error().code == CryptoError::Code::InvalidInput, name);
                CryptoResult<QByteArray> open = aeadOpen(algorithm, key, iv, aad, sealed);
                QVERIFY2(!open.ok() && open.error().code == CryptoError::Code::InvalidInput, name);
                ++refusedSizes;
                continue;
            }

            CryptoResult<QByteArray> open = aeadOpen(algorithm, key, iv, aad, sealed);
            if (result == QLatin1String("valid")) {
                CryptoResult<QByteArray> seal = aeadSeal(algorithm, key, iv, aad, msg);
                QVERIFY2(seal.ok(), name);
                QVERIFY2(seal.value() == sealed, name);
                QVERIFY2(open.ok(), name);
                QVERIFY2(open.value() == msg, name);
                ++valid;
            } else {
                QVERIFY2(!open.ok() && open.error().code == CryptoError::Code::VerificationFailed, name);
                ++invalid;
            }
        }
    }
    qInfo("AES-GCM vectors: %d valid matched, %d invalid refused, %d with other IV/tag sizes refused, "
          "%d AES-192 refused; %d in all",
        valid, invalid, refusedSizes, refusedAes192, total);
    QVERIFY(valid > 0);
    QVERIFY(invalid > 0);
    QVERIFY(refusedSizes > 0);
    QCOMPARE(total, file[QStringLiteral("numberOfTests")].toInt());
}

void tst_Aead::roundTrip_data()
{
    QTest::addColumn<AeadAlgorithm>("algorithm");
    QTest::addColumn<qsizetype>("size");
    for (auto [name, algorithm] :
        {std::pair {"AES-128-GCM", AeadAlgorithm::Aes128Gcm}, std::pair {"AES-256-GCM", AeadAlgorithm::Aes256Gcm},
            std::pair {"ChaCha20-Poly1305", AeadAlgorithm::ChaCha20Poly1305}}) {
        for (qsizetype size : {0, 1, 15, 16, 17, 1000, 65536 + 3})
            QTest::addRow("%s %lld", name, qlonglong(size)) << algorithm << size;
    }
}

void tst_Aead::roundTrip()
{
    QFETCH(AeadAlgorithm, algorithm);
    QFETCH(qsizetype, size);
    const QByteArray key(aeadKeySize(algorithm), 'k');
    const QByteArray nonce(12, 'n');
    const QByteArray aad("header");
    QByteArray plaintext(size, Qt::Uninitialized);
    for (qsizetype i = 0; i < size; ++i)
        plaintext[i] = char(i * 7 + 3);

    CryptoResult<QByteArray> sealed = aeadSeal(algorithm, key, nonce, aad, plaintext);
    QVERIFY(sealed.ok());
    QCOMPARE(sealed.value().size(), size + 16);
    if (size > 0)
        QVERIFY(!sealed.value().startsWith(plaintext.first(qMin<qsizetype>(size, 16))));
    CryptoResult<QByteArray> opened = aeadOpen(algorithm, key, nonce, aad, sealed.value());
    QVERIFY(opened.ok());
    QCOMPARE(opened.value(), plaintext);

    // Each input the tag covers: change it and the message is refused.
    auto refused = [&](QByteArrayView k, QByteArrayView n, QByteArrayView a, QByteArrayView c) {
        CryptoResult<QByteArray> r = aeadOpen(algorithm, k, n, a, c);
        return !r.ok() && r.error().code == CryptoError::Code::VerificationFailed;
    };
    QByteArray otherKey = key;
    otherKey[0] = 'K';
    QVERIFY(refused(otherKey, nonce, aad, sealed.value()));
    QByteArray otherNonce = nonce;
    otherNonce[11] = 'N';
    QVERIFY(refused(key, otherNonce, aad, sealed.value()));
    QVERIFY(refused(key, nonce, "Header", sealed.value()));
    QVERIFY(refused(key, nonce, {}, sealed.value()));
    for (qsizetype at : {qsizetype(0), sealed.value().size() / 2, sealed.value().size() - 1}) {
        QByteArray tampered = sealed.value();
        tampered[at] = char(tampered[at] ^ 0x01);
        QVERIFY2(refused(key, nonce, aad, tampered), qPrintable(QString::number(at)));
    }
    QVERIFY(refused(key, nonce, aad, sealed.value().chopped(1)));
    QVERIFY(refused(key, nonce, aad, QByteArray(sealed.value() + '\0')));
    QVERIFY(refused(key, nonce, aad, sealed.value().first(15)));
}

void tst_Aead::refusals_data()
{
    QTest::addColumn<AeadAlgorithm>("algorithm");
    QTest::addColumn<QByteArray>("key");
    QTest::addColumn<QByteArray>("nonce");
    QTest::newRow("AES-128 with 32-byte key") << AeadAlgorithm::Aes128Gcm << QByteArray(32, 'k') << QByteArray(12, 'n');
    QTest::newRow("AES-256 with 16-byte key") << AeadAlgorithm::Aes256Gcm << QByteArray(16, 'k') << QByteArray(12, 'n');
    QTest::newRow("ChaCha with 31-byte key")
        << AeadAlgorithm::ChaCha20Poly1305 << QByteArray(31, 'k') << QByteArray(12, 'n');
    QTest::newRow("empty key") << AeadAlgorithm::Aes256Gcm << QByteArray() << QByteArray(12, 'n');
    QTest::newRow("empty nonce") << AeadAlgorithm::Aes256Gcm << QByteArray(32, 'k') << QByteArray();
    QTest::newRow("8-byte nonce") << AeadAlgorithm::Aes128Gcm << QByteArray(16, 'k') << QByteArray(8, 'n');
    QTest::newRow("16-byte nonce") << AeadAlgorithm::Aes256Gcm << QByteArray(32, 'k') << QByteArray(16, 'n');
    QTest::newRow("ChaCha 8-byte nonce") << AeadAlgorithm::ChaCha20Poly1305 << QByteArray(32, 'k')
                                         << QByteArray(8, 'n');
}

void tst_Aead::refusals()
{
    QFETCH(AeadAlgorithm, algorithm);
    QFETCH(QByteArray, key);
    QFETCH(QByteArray, nonce);
    QCOMPARE(aeadSeal(algorithm, key, nonce, {}, "data").error().code, CryptoError::Code::InvalidInput);
    QCOMPARE(aeadOpen(algorithm, key, nonce, {}, QByteArray(20, 'c')).error().code, CryptoError::Code::InvalidInput);
}

void tst_Aead::cipherReuse_data()
{
    QTest::addColumn<AeadAlgorithm>("algorithm");
    QTest::newRow("AES-128-GCM") << AeadAlgorithm::Aes128Gcm;
    QTest::newRow("AES-256-GCM") << AeadAlgorithm::Aes256Gcm;
    QTest::newRow("ChaCha20-Poly1305") << AeadAlgorithm::ChaCha20Poly1305;
}

void tst_Aead::cipherReuse()
{
    // One AeadCipher switching between sealing and opening, after a failed open too, must give exactly
    // what fresh one-shot calls give.
    QFETCH(AeadAlgorithm, algorithm);
    const QByteArray key = QByteArray("0123456789abcdef0123456789abcdef").left(aeadKeySize(algorithm));
    CryptoResult<AeadCipher> cipher = AeadCipher::create(algorithm, key);
    QVERIFY(cipher.ok());
    QByteArray out;
    for (int round = 0; round < 4; ++round) {
        const QByteArray nonce = QByteArray(11, 'n') + char(round);
        const QByteArray aad = "aad" + QByteArray::number(round);
        const QByteArray plaintext = QByteArray(100 * round + 5, char('a' + round));
        QVERIFY(cipher.value().seal(nonce, aad, plaintext, out).ok());
        QCOMPARE(out, aeadSeal(algorithm, key, nonce, aad, plaintext).value());
        const QByteArray sealed = out;

        QByteArray tampered = sealed;
        tampered[0] = char(tampered[0] ^ 0x80);
        CryptoResult<void> bad = cipher.value().open(nonce, aad, tampered, out);
        QCOMPARE(bad.error().code, CryptoError::Code::VerificationFailed);
        QVERIFY(out.isEmpty()); // nothing of the unauthenticated plaintext is left

        QVERIFY(cipher.value().open(nonce, aad, sealed, out).ok());
        QCOMPARE(out, plaintext);
    }
    QCOMPARE(AeadCipher::create(algorithm, QByteArray(key + 'x')).error().code, CryptoError::Code::InvalidInput);
}

QTEST_GUILESS_MAIN(tst_Aead)
#include "tst_aead.moc"
