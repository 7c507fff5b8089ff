#include "crypto/hkdf.h"

#include "testvectors.h"

#include <QMessageAuthenticationCode>
#include <QTest>

using namespace isolation;

class tst_Hkdf final : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void wycheproof();
    void extractIsHmac_data();
    void extractIsHmac();
    void limits_data();
    void limits();
};

void tst_Hkdf::wycheproof()
{
    using namespace testvectors;
    const QJsonObject file = testvectors::wycheproof(QStringLiteral("hkdf_sha256_test.json"));
    int total = 0, valid = 0, invalid = 0;
    for (const QJsonValue &groupValue : file[QStringLiteral("testGroups")].toArray()) {
        for (const QJsonValue &testValue : groupValue.toObject()[QStringLiteral("tests")].toArray()) {
            const QJsonObject test = testValue.toObject();
            ++total;
            const QByteArray name = caseName(test);
            const QByteArray ikm = hex(test[QStringLiteral("ikm")]);
            const QByteArray salt = hex(test[QStringLiteral("salt")]);
            const QByteArray info = hex(test[QStringLiteral("info")]);
            const qsizetype size = test[QStringLiteral("size")].toInt();
            CryptoResult<SecureBytes> okm = hkdfSha256(ikm, salt, info, size);
            CryptoResult<SecureBytes> twoSteps = hkdfExpand(hkdfExtract(salt, ikm).view(), info, size);
            if (test[QStringLiteral("result")].toString() == QLatin1String("valid")) {
                const QByteArray expected = hex(test[QStringLiteral("okm")]);
                QVERIFY2(okm.ok(), name);
                QVERIFY2(okm.value().view() == expected, name);
                QVERIFY2(twoSteps.ok(), name);
                QVERIFY2(twoSteps.value().view() == expected, name);
                ++valid;
            } else {
                QVERIFY2(!okm.ok() && okm.error().code == CryptoError::Code::InvalidInput, name);
                QVERIFY2(!twoSteps.ok() && twoSteps.error().code == CryptoError::Code::InvalidInput, name);
                ++invalid;
            }
        }
    }
    qInfo("HKDF-SHA256 vectors: %d valid matched, %d invalid refused", valid, invalid);
    QVERIFY(valid > 0);
    QVERIFY(invalid > 0);
    QCOMPARE(total, file[QStringLiteral("numberOfTests")].toInt());
}

void tst_Hkdf::extractIsHmac_data()
{
    QTest::addColumn<QByteArray>("salt");
    QTest::addColumn<QByteArray>("ikm");
    QTest::newRow("both empty") << QByteArray() << QByteArray();
    QTest::newRow("empty ikm") << QByteArray("salt") << QByteArray();
    QTest::newRow("empty salt") << QByteArray() << QByteArray("input key material");
    QTest::newRow("long salt") << QByteArray(200, 's') << QByteArray(3, 'i');
}

void tst_Hkdf::extractIsHmac()
{
    // RFC 5869: PRK = HMAC-Hash(salt, IKM), with an empty salt meaning HashLen zero bytes. Qt's HMAC is
    // an independent implementation to check the edge cases Wycheproof leaves out (empty IKM).
    QFETCH(QByteArray, salt);
    QFETCH(QByteArray, ikm);
    const QByteArray hmacKey = salt.isEmpty() ? QByteArray(32, '\0') : salt;
    const QByteArray expected = QMessageAuthenticationCode::hash(ikm, hmacKey, QCryptographicHash::Sha256);
    QCOMPARE(hkdfExtract(salt, ikm).toByteArray(), expected);

    // Full HKDF with L = 32: T(1) = HMAC(PRK, info || 0x01).
    const QByteArray t1
        = QMessageAuthenticationCode::hash("info" + QByteArray(1, '\x01'), expected, QCryptographicHash::Sha256);
    CryptoResult<SecureBytes> okm = hkdfSha256(ikm, salt, "info", 32);
    QVERIFY(okm.ok());
    QCOMPARE(okm.value().toByteArray(), t1);
}

void tst_Hkdf::limits_data()
{
    QTest::addColumn<qsizetype>("prkSize");
    QTest::addColumn<qsizetype>("infoSize");
    QTest::addColumn<qsizetype>("length");
    QTest::addColumn<bool>("accepted");
    QTest::newRow("zero length") << qsizetype(32) << qsizetype(0) << qsizetype(0) << true;
    QTest::newRow("max length") << qsizetype(32) << qsizetype(0) << qsizetype(8160) << true;
    QTest::newRow("over max length") << qsizetype(32) << qsizetype(0) << qsizetype(8161) << false;
    QTest::newRow("negative length") << qsizetype(32) << qsizetype(0) << qsizetype(-1) << false;
    QTest::newRow("short prk") << qsizetype(31) << qsizetype(0) << qsizetype(32) << false;
    QTest::newRow("long prk") << qsizetype(64) << qsizetype(0) << qsizetype(32) << true;
    QTest::newRow("max info") << qsizetype(32) << qsizetype(1024) << qsizetype(32) << true;
    QTest::newRow("over max info") << qsizetype(32) << qsizetype(1025) << qsizetype(32) << false;
}

void tst_Hkdf::limits()
{
    QFETCH(qsizetype, prkSize);
    QFETCH(qsizetype, infoSize);
    QFETCH(qsizetype, length);
    QFETCH(bool, accepted);
    const QByteArray prk(prkSize, 'p');
    const QByteArray info(infoSize, 'i');
    CryptoResult<SecureBytes> out = hkdfExpand(prk, info, length);
    QCOMPARE(out.ok(), accepted);
    if (accepted) {
        QCOMPARE(out.value().size(), length);
        if (length > 0)
            QVERIFY(out.value().toByteArray() != QByteArray(length, '\0'));
    } else {
        QCOMPARE(out.error().code, CryptoError::Code::InvalidInput);
    }
    if (prkSize >= 32) { // the one-step form has the same limits on info and length
        CryptoResult<SecureBytes> full = hkdfSha256("ikm", "salt", info, length);
        QCOMPARE(full.ok(), accepted);
    }
}

QTEST_GUILESS_MAIN(tst_Hkdf)
#include "tst_hkdf.moc"
