// A Qt Test class whose function lost `private Q_SLOTS:`, for check_qtest_functions.py's self-test:
// it compiles, runs only initTestCase and cleanupTestCase, and passes, testing nothing.
#include <QTest>

class tst_WithoutFunctions final : public QObject
{
    Q_OBJECT
public:
    void looksLikeATest() { QVERIFY(false); }
};

QTEST_APPLESS_MAIN(tst_WithoutFunctions)
#include "qtest_without_functions.moc"
