#include "crypto/x25519.h"

#include "testvectors.h"

#include <QTest>

using namespace isolation;

class tst_X25519 final : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void wycheproof();
    void rfc7748();
    void generatedPairsAgree();
    void refusals_data();
    void refusals();
};

void tst_X25519::wycheproof()
{
    using namespace testvectors;
    const QJsonObject file = testvectors::wycheproof(QStringLiteral("x25519_test.json"));
    int total = 0, valid = 0, acceptableMatched = 0, zeroRefused = 0;
    const QByteArray zeros(32, '\0');
    for (const QJsonValue &groupValue : file[QStringLiteral("testGroups")].toArray()) {
        for (const QJsonValue &testValue : groupValue.toObject()[QStringLiteral("tests")].toArray()) {
            const QJsonObject test = testValue.toObject();
            ++total;
            const QByteArray name = caseName(test);
            const QByteArray shared = hex(test[QStringLiteral("shared")]);
            const QString result = test[QStringLiteral("result")].toString();
            CryptoResult<SecureBytes> ours
                = x25519SharedSecret(hex(test[QStringLiteral("private")]), hex(test[QStringLiteral("public")]));
            if (shared == zeros) {
                // Low-order public keys (all "acceptable"): we take the RFC 7748 6.1 option and refuse them.
                QVERIFY2(result != QLatin1String("valid"), name);
                QVERIFY2(!ours.ok() && ours.error().code == CryptoError::Code::InvalidInput, name);
                ++zeroRefused;
                continue;
            }
            QVERIFY2(result == QLatin1String("valid") || result == QLatin1String("acceptable"), name);
            // Valid, and acceptable twist or non-canonical points: computed exactly as RFC 7748 says.
            QVERIFY2(ours.ok(), name);
            QVERIFY2(ours.value().view() == shared, name);
            (result == QLatin1String("valid") ? valid : acceptableMatched)++;
        }
    }
    qInfo("X25519 vectors: %d valid matched, %d acceptable matched, %d all-zero results refused", valid,
        acceptableMatched, zeroRefused);
    QVERIFY(valid > 0);
    QVERIFY(acceptableMatched > 0);
    QVERIFY(zeroRefused > 0);
    QCOMPARE(total, file[QStringLiteral("numberOfTests")].toInt());
}

void tst_X25519::rfc7748()
{
    // RFC 7748 section 6.1.
    const QByteArray alicePrivate
        = QByteArray::fromHex("77076d0a7318a57d3c16c17251b26645df4c2f87ebc0992ab177fba51db92c2a");
    const QByteArray alicePublic
        = QByteArray::fromHex("8520f0098930a754748b7ddcb43ef75a0dbf3a0d26381af4eba4a98eaa9b4e6a");
    const QByteArray bobPrivate
        = QByteArray::fromHex("5dab087e624a8a4b79e17f8b83800ee66f3bb1292618b6fd1c2f8b27ff88e0eb");
    const QByteArray bobPublic
        = QByteArray::fromHex("de9edb7d7b7dc1b4d35b61c2ece435373f8343c85b78674dadfc7e146f882b4f");
    const QByteArray shared = QByteArray::fromHex("4a5d9d5ba4ce2de1728e3bf480350f25e07e21c947d19e3376f09b3c1e161742");
    QCOMPARE(x25519PublicFromPrivate(alicePrivate).value(), alicePublic);
    QCOMPARE(x25519PublicFromPrivate(bobPrivate).value(), bobPublic);
    QCOMPARE(x25519SharedSecret(alicePrivate, bobPublic).value().toByteArray(), shared);
    QCOMPARE(x25519SharedSecret(bobPrivate, alicePublic).value().toByteArray(), shared);
}

void tst_X25519::generatedPairsAgree()
{
    const X25519KeyPair a = x25519Generate();
    const X25519KeyPair b = x25519Generate();
    QCOMPARE(a.privateKey.size(), 32);
    QCOMPARE(a.publicKey.size(), 32);
    QVERIFY(a.privateKey.view() != b.privateKey.view());
    QVERIFY(a.publicKey != b.publicKey);
    QCOMPARE(x25519PublicFromPrivate(a.privateKey.view()).value(), a.publicKey);
    CryptoResult<SecureBytes> ab = x25519SharedSecret(a.privateKey.view(), b.publicKey);
    CryptoResult<SecureBytes> ba = x25519SharedSecret(b.privateKey.view(), a.publicKey);
    QVERIFY(ab.ok() && ba.ok());
    QCOMPARE(ab.value().toByteArray(), ba.value().toByteArray());
    const X25519KeyPair c = x25519Generate();
    QVERIFY(x25519SharedSecret(a.privateKey.view(), c.publicKey).value().view() != ab.value().view());
}

void tst_X25519::refusals_data()
{
    QTest::addColumn<QByteArray>("privateKey");
    QTest::addColumn<QByteArray>("peerPublic");
    const QByteArray good = QByteArray::fromHex("8520f0098930a754748b7ddcb43ef75a0dbf3a0d26381af4eba4a98eaa9b4e6a");
    QTest::newRow("short private") << QByteArray(31, 'k') << good;
    QTest::newRow("long private") << QByteArray(33, 'k') << good;
    QTest::newRow("empty private") << QByteArray() << good;
    QTest::newRow("short public") << QByteArray(32, 'k') << good.first(31);
    QTest::newRow("empty public") << QByteArray(32, 'k') << QByteArray();
    QTest::newRow("zero public") << QByteArray(32, 'k') << QByteArray(32, '\0');
    QTest::newRow("public one") << QByteArray(32, 'k') << QByteArray(1, '\x01') + QByteArray(31, '\0');
}

void tst_X25519::refusals()
{
    QFETCH(QByteArray, privateKey);
    QFETCH(QByteArray, peerPublic);
    CryptoResult<SecureBytes> shared = x25519SharedSecret(privateKey, peerPublic);
    QVERIFY(!shared.ok());
    QCOMPARE(shared.error().code, CryptoError::Code::InvalidInput);
    if (privateKey.size() != 32)
        QCOMPARE(x25519PublicFromPrivate(privateKey).error().code, CryptoError::Code::InvalidInput);
}

QTEST_GUILESS_MAIN(tst_X25519)
#include "tst_x25519.moc"
