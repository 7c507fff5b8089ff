#include "runtime/mountpolicy.h"

#include <QDir>
#include <QFile>
#include <QLocalServer>
#include <QTemporaryDir>
#include <QTest>

#include <unistd.h>

using namespace isolation;

class tst_MountPolicy final : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void check_data();
    void check();
    void missingSessionDirectory();

private:
    QTemporaryDir m_tmp;
    QString m_sessions;
    QString m_outside;
    std::unique_ptr<QLocalServer> m_socket;
};

void tst_MountPolicy::initTestCase()
{
    QVERIFY(m_tmp.isValid());
    const QString root = QDir(m_tmp.path()).canonicalPath();
    m_sessions = root + QStringLiteral("/data/sessions");
    m_outside = root + QStringLiteral("/outside");
    QVERIFY(QDir().mkpath(m_sessions + QStringLiteral("/s1/sub")));
    QVERIFY(QDir().mkpath(m_outside));
    QFile f(m_sessions + QStringLiteral("/s1/file.txt"));
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.close();
    // Real symlinks: inside to inside, inside to outside, to /etc, and a relative escape.
    QVERIFY(QFile::link(m_sessions + QStringLiteral("/s1/sub"), m_sessions + QStringLiteral("/s1/inner")));
    QVERIFY(QFile::link(m_outside, m_sessions + QStringLiteral("/s1/escape")));
    QVERIFY(QFile::link(QStringLiteral("/etc"), m_sessions + QStringLiteral("/s1/etc")));
    QVERIFY(
        ::symlink("../../../outside", QFile::encodeName(m_sessions + QStringLiteral("/s1/relative")).constData()) == 0);
    // A socket inside the session directory (as a Docker socket would be), and a link to it.
    m_socket = std::make_unique<QLocalServer>();
    m_socket->setSocketOptions(QLocalServer::UserAccessOption);
    QVERIFY(m_socket->listen(m_sessions + QStringLiteral("/s1/docker.sock")));
    QVERIFY(QFile::link(m_sessions + QStringLiteral("/s1/docker.sock"), m_sessions + QStringLiteral("/s1/sock-link")));
}

void tst_MountPolicy::check_data()
{
    QTest::addColumn<QString>("path"); // relative to the temp dir's data/sessions unless absolute
    QTest::addColumn<QString>("expected"); // canonical result, or empty when refused
    QTest::addColumn<QString>("why"); // a word the refusal must contain

    QTest::newRow("a session directory") << QStringLiteral("s1") << QStringLiteral("s1") << QString();
    QTest::newRow("a file in it") << QStringLiteral("s1/file.txt") << QStringLiteral("s1/file.txt") << QString();
    QTest::newRow("a symlink staying inside") << QStringLiteral("s1/inner") << QStringLiteral("s1/sub") << QString();
    QTest::newRow("dot-dot staying inside")
        << QStringLiteral("s1/sub/../file.txt") << QStringLiteral("s1/file.txt") << QString();
    QTest::newRow("the whole session directory")
        << QStringLiteral(".") << QString() << QStringLiteral("whole session directory");
    QTest::newRow("a symlink escaping") << QStringLiteral("s1/escape") << QString() << QStringLiteral("resolves to");
    QTest::newRow("a relative symlink escaping")
        << QStringLiteral("s1/relative") << QString() << QStringLiteral("resolves to");
    QTest::newRow("a symlink to /etc") << QStringLiteral("s1/etc") << QString() << QStringLiteral("/etc");
    QTest::newRow("dot-dot escaping") << QStringLiteral("s1/../../../outside") << QString()
                                      << QStringLiteral("only paths inside");
    QTest::newRow("a socket inside") << QStringLiteral("s1/docker.sock") << QString() << QStringLiteral("socket");
    QTest::newRow("a symlink to a socket") << QStringLiteral("s1/sock-link") << QString() << QStringLiteral("socket");
    QTest::newRow("the root") << QStringLiteral("/") << QString() << QStringLiteral("only paths inside");
    QTest::newRow("/etc") << QStringLiteral("/etc") << QString() << QStringLiteral("only paths inside");
    QTest::newRow("the Docker socket") << QStringLiteral("/var/run/docker.sock") << QString() << QString();
    QTest::newRow("a path that does not exist")
        << QStringLiteral("s1/nothing") << QString() << QStringLiteral("does not exist");
    QTest::newRow("a relative path") << QStringLiteral("!relative/path") << QString() << QStringLiteral("absolute");
    QTest::newRow("empty") << QStringLiteral("!") << QString() << QStringLiteral("absolute");
}

void tst_MountPolicy::check()
{
    QFETCH(QString, path);
    QFETCH(QString, expected);
    QFETCH(QString, why);
    const MountPolicy policy(m_sessions);
    QVERIFY(policy.valid());
    QString full;
    if (path.startsWith(QLatin1Char('!')))
        full = path.mid(1);
    else
        full = path.startsWith(QLatin1Char('/')) ? path : m_sessions + QLatin1Char('/') + path;
    const Result<QString> r = policy.check(full);
    if (expected.isEmpty()) {
        QVERIFY2(!r.ok(), qPrintable(full + QStringLiteral(" was allowed")));
        QCOMPARE(r.error().code, Error::Code::InvalidInput);
        QVERIFY2(r.error().message.contains(why), qPrintable(r.error().message));
    } else {
        QVERIFY2(r.ok(), qPrintable(r.ok() ? QString() : r.error().message));
        QCOMPARE(r.value(), m_sessions + QLatin1Char('/') + expected);
    }
}

void tst_MountPolicy::missingSessionDirectory()
{
    const MountPolicy policy(m_tmp.path() + QStringLiteral("/no-such-dir"));
    QVERIFY(!policy.valid());
    const Result<QString> r = policy.check(m_sessions + QStringLiteral("/s1"));
    QVERIFY(!r.ok());
    QVERIFY(r.error().message.contains(QStringLiteral("does not exist")));
}

QTEST_GUILESS_MAIN(tst_MountPolicy)
#include "tst_mountpolicy.moc"
