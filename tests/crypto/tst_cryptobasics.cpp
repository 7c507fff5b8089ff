#include "crypto/consttime.h"
#include "crypto/cryptoerror.h"
#include "crypto/random.h"
#include "crypto/securebytes.h"

#include <QSet>
#include <QTest>

using namespace isolation;

class tst_CryptoBasics final : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void secureBytesConstruct();
    void secureBytesCopyIsDeep();
    void secureBytesMoveEmptiesSource();
    void secureBytesReassign();
    void randomBytes_data();
    void randomBytes();
    void randomDrawsDiffer();
    void constantTimeEquals_data();
    void constantTimeEquals();
    void errorCodes();
};

void tst_CryptoBasics::secureBytesConstruct()
{
    SecureBytes empty;
    QVERIFY(empty.isEmpty());
    QCOMPARE(empty.size(), 0);
    QVERIFY(empty.view().isEmpty());
    QVERIFY(empty.toByteArray().isEmpty());

    SecureBytes zeros(5);
    QCOMPARE(zeros.size(), 5);
    QCOMPARE(zeros.toByteArray(), QByteArray(5, '\0'));

    SecureBytes negative(-3);
    QVERIFY(negative.isEmpty());

    const QByteArray source("key material");
    SecureBytes copy {QByteArrayView(source)};
    QCOMPARE(copy.size(), source.size());
    QCOMPARE(copy.view(), QByteArrayView(source));
    QVERIFY(copy.constData() != source.constData());
    copy.data()[0] = 'K';
    QCOMPARE(source, QByteArray("key material")); // never shared with the source
    QCOMPARE(copy.toByteArray(), QByteArray("Key material"));

    copy.clear();
    QVERIFY(copy.isEmpty());
    QVERIFY(copy.constData() == nullptr);
}

void tst_CryptoBasics::secureBytesCopyIsDeep()
{
    SecureBytes a(QByteArrayView("abc"));
    SecureBytes b(a);
    QVERIFY(a.constData() != b.constData());
    b.data()[0] = 'x';
    QCOMPARE(a.toByteArray(), QByteArray("abc"));
    QCOMPARE(b.toByteArray(), QByteArray("xbc"));

    SecureBytes c;
    c = a;
    QVERIFY(c.constData() != a.constData());
    QCOMPARE(c.toByteArray(), QByteArray("abc"));
    c = c; // self-assignment keeps the contents
    QCOMPARE(c.toByteArray(), QByteArray("abc"));
}

void tst_CryptoBasics::secureBytesMoveEmptiesSource()
{
    SecureBytes a(QByteArrayView("secret"));
    const char *buffer = a.constData();
    SecureBytes b(std::move(a));
    QVERIFY(a.isEmpty()); // NOLINT(bugprone-use-after-move): the moved-from state is specified
    QVERIFY(b.constData() == buffer); // moved, not copied
    QCOMPARE(b.toByteArray(), QByteArray("secret"));

    SecureBytes c(QByteArrayView("old"));
    c = std::move(b);
    QVERIFY(b.isEmpty()); // NOLINT(bugprone-use-after-move)
    QCOMPARE(c.toByteArray(), QByteArray("secret"));
}

void tst_CryptoBasics::secureBytesReassign()
{
    SecureBytes a(QByteArrayView("first value"));
    a = SecureBytes(QByteArrayView("2nd"));
    QCOMPARE(a.size(), 3);
    QCOMPARE(a.toByteArray(), QByteArray("2nd"));
    a = SecureBytes();
    QVERIFY(a.isEmpty());
}

void tst_CryptoBasics::randomBytes_data()
{
    QTest::addColumn<qsizetype>("size");
    QTest::addColumn<qsizetype>("expected");
    QTest::newRow("negative") << qsizetype(-1) << qsizetype(0);
    QTest::newRow("zero") << qsizetype(0) << qsizetype(0);
    QTest::newRow("one") << qsizetype(1) << qsizetype(1);
    QTest::newRow("key") << qsizetype(32) << qsizetype(32);
    QTest::newRow("large") << qsizetype(1 << 20) << qsizetype(1 << 20);
}

void tst_CryptoBasics::randomBytes()
{
    QFETCH(qsizetype, size);
    QFETCH(qsizetype, expected);
    QCOMPARE(isolation::randomBytes(size).size(), expected);
    QCOMPARE(randomSecret(size).size(), expected);
}

void tst_CryptoBasics::randomDrawsDiffer()
{
    // 64 draws of 16 bytes: a repeat (or an all-zero draw) means the generator is not being called.
    QSet<QByteArray> seen;
    for (int i = 0; i < 64; ++i) {
        const QByteArray draw = isolation::randomBytes(16);
        QVERIFY(draw != QByteArray(16, '\0'));
        seen.insert(draw);
        seen.insert(randomSecret(16).toByteArray());
    }
    QCOMPARE(seen.size(), 128);

    // Every byte value turns up in 64 KiB of output.
    const QByteArray many = isolation::randomBytes(65536);
    QSet<char> values(many.begin(), many.end());
    QCOMPARE(values.size(), 256);
}

void tst_CryptoBasics::constantTimeEquals_data()
{
    QTest::addColumn<QByteArray>("a");
    QTest::addColumn<QByteArray>("b");
    QTest::addColumn<bool>("equal");
    QTest::newRow("both empty") << QByteArray() << QByteArray() << true;
    QTest::newRow("same") << QByteArray("0123456789abcdef") << QByteArray("0123456789abcdef") << true;
    QTest::newRow("first byte") << QByteArray("x123456789abcdef") << QByteArray("0123456789abcdef") << false;
    QTest::newRow("last byte") << QByteArray("0123456789abcdeX") << QByteArray("0123456789abcdef") << false;
    QTest::newRow("one bit") << QByteArray("\x01", 1) << QByteArray("\x00", 1) << false;
    QTest::newRow("prefix") << QByteArray("0123") << QByteArray("01234") << false;
    QTest::newRow("empty vs byte") << QByteArray() << QByteArray("\x00", 1) << false;
}

void tst_CryptoBasics::constantTimeEquals()
{
    QFETCH(QByteArray, a);
    QFETCH(QByteArray, b);
    QFETCH(bool, equal);
    QCOMPARE(isolation::constantTimeEquals(a, b), equal);
    QCOMPARE(isolation::constantTimeEquals(b, a), equal);
}

void tst_CryptoBasics::errorCodes()
{
    QCOMPARE(errorCodeName(CryptoError::Code::InvalidInput), QStringLiteral("invalid_input"));
    QCOMPARE(errorCodeName(CryptoError::Code::VerificationFailed), QStringLiteral("verification_failed"));
    QCOMPARE(errorCodeName(CryptoError::Code::Internal), QStringLiteral("internal"));
    QVERIFY(!CryptoError::verificationFailed(QStringLiteral("x")).retryable());
    // An OpenSSL failure is read into the message and the queue is left empty.
    const CryptoError error = CryptoError::fromOpenSsl("EVP_Something");
    QCOMPARE(error.code, CryptoError::Code::Internal);
    QVERIFY(error.message.startsWith(QStringLiteral("EVP_Something failed")));
}

QTEST_GUILESS_MAIN(tst_CryptoBasics)
#include "tst_cryptobasics.moc"
