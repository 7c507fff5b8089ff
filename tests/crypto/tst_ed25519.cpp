#include "crypto/ed25519.h"

#include "testvectors.h"

#include <QTest>

using namespace isolation;

class tst_Ed25519 final : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void wycheproof();
    void rfc8032_data();
    void rfc8032();
    void generatedKeys();
    void refusals();
};

void tst_Ed25519::wycheproof()
{
    using namespace testvectors;
    const QJsonObject file = testvectors::wycheproof(QStringLiteral("ed25519_test.json"));
    int total = 0, valid = 0, invalid = 0;
    for (const QJsonValue &groupValue : file[QStringLiteral("testGroups")].toArray()) {
        const QJsonObject group = groupValue.toObject();
        const QByteArray publicKey = hex(group[QStringLiteral("publicKey")].toObject()[QStringLiteral("pk")]);
        for (const QJsonValue &testValue : group[QStringLiteral("tests")].toArray()) {
            const QJsonObject test = testValue.toObject();
            ++total;
            const QByteArray name = caseName(test);
            const bool verified
                = ed25519Verify(publicKey, hex(test[QStringLiteral("msg")]), hex(test[QStringLiteral("sig")]));
            const QString result = test[QStringLiteral("result")].toString();
            if (result == QLatin1String("valid")) {
                QVERIFY2(verified, name);
                ++valid;
            } else {
                QVERIFY2(result == QLatin1String("invalid"), name);
                QVERIFY2(!verified, name);
                ++invalid;
            }
        }
    }
    qInfo("Ed25519 vectors: %d valid verified, %d invalid refused", valid, invalid);
    QVERIFY(valid > 0);
    QVERIFY(invalid > 0);
    QCOMPARE(total, file[QStringLiteral("numberOfTests")].toInt());
}

void tst_Ed25519::rfc8032_data()
{
    // RFC 8032 section 7.1, TEST 1 to 3.
    QTest::addColumn<QByteArray>("secret");
    QTest::addColumn<QByteArray>("publicKey");
    QTest::addColumn<QByteArray>("message");
    QTest::addColumn<QByteArray>("signature");
    QTest::newRow("TEST 1") << QByteArray::fromHex("9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60")
                            << QByteArray::fromHex("d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a")
                            << QByteArray()
                            << QByteArray::fromHex("e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e06522490155"
                                                   "5fb8821590a33bacc61e39701cf9b46bd25bf5f0595bbe24655141438e7a100b");
    QTest::newRow("TEST 2") << QByteArray::fromHex("4ccd089b28ff96da9db6c346ec114e0f5b8a319f35aba624da8cf6ed4fb8a6fb")
                            << QByteArray::fromHex("3d4017c3e843895a92b70aa74d1b7ebc9c982ccf2ec4968cc0cd55f12af4660c")
                            << QByteArray::fromHex("72")
                            << QByteArray::fromHex("92a009a9f0d4cab8720e820b5f642540a2b27b5416503f8fb3762223ebdb69da"
                                                   "085ac1e43e15996e458f3613d0f11d8c387b2eaeb4302aeeb00d291612bb0c00");
    QTest::newRow("TEST 3") << QByteArray::fromHex("c5aa8df43f9f837bedb7442f31dcb7b166d38535076f094b85ce3a2e0b4458f7")
                            << QByteArray::fromHex("fc51cd8e6218a1a38da47ed00230f0580816ed13ba3303ac5deb911548908025")
                            << QByteArray::fromHex("af82")
                            << QByteArray::fromHex("6291d657deec24024827e69c3abe01a30ce548a284743a445e3680d7db5ac3ac"
                                                   "18ff9b538d16f290ae67f760984dc6594a7c15e9716ed28dc027beceea1ec40a");
}

void tst_Ed25519::rfc8032()
{
    QFETCH(QByteArray, secret);
    QFETCH(QByteArray, publicKey);
    QFETCH(QByteArray, message);
    QFETCH(QByteArray, signature);
    QCOMPARE(ed25519PublicFromPrivate(secret).value(), publicKey);
    CryptoResult<QByteArray> signed_ = ed25519Sign(secret, message);
    QVERIFY(signed_.ok());
    QCOMPARE(signed_.value(), signature); // Ed25519 is deterministic
    QVERIFY(ed25519Verify(publicKey, message, signature));
    QVERIFY(!ed25519Verify(publicKey, QByteArray(message + 'x'), signature));
}

void tst_Ed25519::generatedKeys()
{
    const Ed25519KeyPair pair = ed25519Generate();
    QCOMPARE(pair.privateKey.size(), 32);
    QCOMPARE(pair.publicKey.size(), 32);
    QCOMPARE(ed25519PublicFromPrivate(pair.privateKey.view()).value(), pair.publicKey);
    const Ed25519KeyPair other = ed25519Generate();
    QVERIFY(other.publicKey != pair.publicKey);

    const QByteArray message("pair this server");
    const QByteArray signature = ed25519Sign(pair.privateKey.view(), message).value();
    QCOMPARE(signature.size(), 64);
    QVERIFY(ed25519Verify(pair.publicKey, message, signature));
    QVERIFY(!ed25519Verify(other.publicKey, message, signature));
    QVERIFY(!ed25519Verify(pair.publicKey, "pair this servex", signature));
    for (qsizetype at : {0, 31, 32, 63}) {
        QByteArray tampered = signature;
        tampered[at] = char(tampered[at] ^ 0x01);
        QVERIFY2(!ed25519Verify(pair.publicKey, message, tampered), qPrintable(QString::number(at)));
    }
    QVERIFY(!ed25519Verify(pair.publicKey, message, signature.first(63)));
    QVERIFY(!ed25519Verify(pair.publicKey, message, QByteArray(signature + '\0')));
    QVERIFY(!ed25519Verify(pair.publicKey.first(31), message, signature));
    QVERIFY(!ed25519Verify({}, message, signature));
}

void tst_Ed25519::refusals()
{
    QCOMPARE(ed25519Sign(QByteArray(31, 'k'), "m").error().code, CryptoError::Code::InvalidInput);
    QCOMPARE(ed25519Sign(QByteArray(64, 'k'), "m").error().code, CryptoError::Code::InvalidInput);
    QCOMPARE(ed25519PublicFromPrivate(QByteArray()).error().code, CryptoError::Code::InvalidInput);
}

QTEST_GUILESS_MAIN(tst_Ed25519)
#include "tst_ed25519.moc"
