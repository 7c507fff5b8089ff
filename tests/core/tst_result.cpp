#include "core/result.h"

#include <QTest>

#include <memory>

using namespace isolation;

class tst_Result final : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void valueAndError();
    void voidResult();
    void moveOnlyValue();
    void customErrorType();
    void retryable_data();
    void retryable();
};

void tst_Result::valueAndError()
{
    Result<int> good = 42;
    QVERIFY(good.ok());
    QVERIFY(bool(good));
    QCOMPARE(good.value(), 42);
    QCOMPARE(good.valueOr(7), 42);

    Result<int> bad = Error::notFound(QStringLiteral("no such thing"));
    QVERIFY(!bad.ok());
    QCOMPARE(bad.error().code, Error::Code::NotFound);
    QCOMPARE(bad.error().message, QStringLiteral("no such thing"));
    QCOMPARE(bad.valueOr(7), 7);
    QCOMPARE(errorCodeName(bad.error().code), QStringLiteral("not_found"));

    // A QString value must not be confused with an error message.
    Result<QString> text = QStringLiteral("hello");
    QVERIFY(text.ok());
    QCOMPARE(text.value(), QStringLiteral("hello"));
}

void tst_Result::voidResult()
{
    Status fine;
    QVERIFY(fine.ok());
    Status broken = Error::failed(QStringLiteral("disk full"));
    QVERIFY(!broken.ok());
    QCOMPARE(broken.error().message, QStringLiteral("disk full"));
}

void tst_Result::moveOnlyValue()
{
    Result<std::unique_ptr<int>> r = std::make_unique<int>(5);
    QVERIFY(r.ok());
    std::unique_ptr<int> taken = std::move(r).value();
    QCOMPARE(*taken, 5);
}

void tst_Result::customErrorType()
{
    struct SaveError
    {
        enum class Code { MovedOn, Conflict } code;
        QString message;
    };
    Result<int, SaveError> r = SaveError {SaveError::Code::MovedOn, QStringLiteral("another session saved first")};
    QVERIFY(!r);
    QCOMPARE(r.error().code, SaveError::Code::MovedOn);
}

void tst_Result::retryable_data()
{
    QTest::addColumn<int>("code");
    QTest::addColumn<bool>("retryable");
    QTest::newRow("invalid input") << int(Error::Code::InvalidInput) << false;
    QTest::newRow("not found") << int(Error::Code::NotFound) << false;
    QTest::newRow("unavailable") << int(Error::Code::Unavailable) << true;
    QTest::newRow("failed") << int(Error::Code::Failed) << false;
}

void tst_Result::retryable()
{
    QFETCH(int, code);
    QFETCH(bool, retryable);
    const Error e {Error::Code(code), QStringLiteral("x")};
    QCOMPARE(e.retryable(), retryable);
}

QTEST_GUILESS_MAIN(tst_Result)
#include "tst_result.moc"
