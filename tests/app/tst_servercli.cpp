#include "hubprocess.h"

#include <QFileInfo>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

#include <csignal>

using namespace isolation::test;

class tst_ServerCli final : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void version();
    void help();
    void usageErrors_data();
    void usageErrors();
    void statusWithoutEngine();
    void upStatusAndShutdown_data();
    void upStatusAndShutdown();

private:
    struct Run
    {
        int code = -1;
        QString out;
        QString err;
    };
    static Run run(const QStringList &args, const QString &home = {});
};

tst_ServerCli::Run tst_ServerCli::run(const QStringList &args, const QString &home)
{
    QProcess p;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    if (!home.isEmpty())
        env.insert(QStringLiteral("ISOLATION_HOME"), home);
    p.setProcessEnvironment(env);
    p.start(serverBinary(), args);
    if (!p.waitForFinished(60000)) {
        p.kill();
        p.waitForFinished();
    }
    return {p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1, QString::fromUtf8(p.readAllStandardOutput()),
        QString::fromUtf8(p.readAllStandardError())};
}

void tst_ServerCli::version()
{
    const Run r = run({QStringLiteral("--version")});
    QCOMPARE(r.code, 0);
    QVERIFY(r.out.startsWith(QStringLiteral("isolation-server ")));
    QVERIFY(r.out.contains(QRegularExpression(QStringLiteral("\\d+\\.\\d+\\.\\d+"))));
}

void tst_ServerCli::help()
{
    const Run r = run({QStringLiteral("--help")});
    QCOMPARE(r.code, 0);
    for (const char *word : {"up", "status", "ISOLATION_HOME", "Exit codes"})
        QVERIFY2(r.out.contains(QLatin1String(word)), word);
    const Run up = run({QStringLiteral("up"), QStringLiteral("--help")});
    QCOMPARE(up.code, 0);
    QVERIFY(up.out.contains(QStringLiteral("--credential-store")));
}

void tst_ServerCli::usageErrors_data()
{
    QTest::addColumn<QStringList>("args");
    QTest::newRow("no command") << QStringList {};
    QTest::newRow("unknown command") << QStringList {QStringLiteral("frobnicate")};
    QTest::newRow("unknown option") << QStringList {QStringLiteral("status"), QStringLiteral("--bogus")};
    QTest::newRow("bad store") << QStringList {
        QStringLiteral("up"), QStringLiteral("--credential-store"), QStringLiteral("paper")};
}

void tst_ServerCli::usageErrors()
{
    QFETCH(QStringList, args);
    QTemporaryDir home;
    const Run r = run(args, home.path());
    QCOMPARE(r.code, 2);
    QVERIFY(r.err.contains(QStringLiteral("isolation-server:")));
}

void tst_ServerCli::statusWithoutEngine()
{
    QTemporaryDir home;
    const Run r = run({QStringLiteral("status")}, home.path());
    QCOMPARE(r.code, 3);
    QVERIFY2(r.err.contains(QStringLiteral("no engine is running")), qPrintable(r.err));
}

void tst_ServerCli::upStatusAndShutdown_data()
{
    QTest::addColumn<int>("signal");
    QTest::newRow("SIGTERM") << int(SIGTERM);
    QTest::newRow("SIGINT") << int(SIGINT);
}

void tst_ServerCli::upStatusAndShutdown()
{
    QFETCH(int, signal);
    QTemporaryDir home;
    QProcess up;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert(QStringLiteral("ISOLATION_HOME"), home.path());
    up.setProcessEnvironment(env);
    up.start(serverBinary(), {QStringLiteral("up"), QStringLiteral("--credential-store"), QStringLiteral("file")});
    QVERIFY(up.waitForStarted());
    const QString socket = home.path() + QStringLiteral("/run/engine.sock");
    QTRY_VERIFY_WITH_TIMEOUT(QFileInfo::exists(socket), 20000);

    Run status;
    QJsonObject o;
    QTRY_VERIFY((status = run({QStringLiteral("status"), QStringLiteral("--json")}, home.path()),
        o = QJsonDocument::fromJson(status.out.toUtf8()).object(),
        o.value(QStringLiteral("reason")).toString().startsWith(QStringLiteral("Not paired"))));
    QCOMPARE(status.code, 0);
    QCOMPARE(o.value(QStringLiteral("state")).toString(), QStringLiteral("not_paired"));
    QCOMPARE(o.value(QStringLiteral("pid")).toInteger(), up.processId());

    status = run({QStringLiteral("status")}, home.path());
    QCOMPARE(status.code, 0);
    QVERIFY(status.out.contains(QStringLiteral("Not paired")));

    // A second engine on the same state directory refuses, naming the first.
    const Run second = run({QStringLiteral("up")}, home.path());
    QCOMPARE(second.code, 4);
    QVERIFY2(second.err.contains(QStringLiteral("already running")), qPrintable(second.err));
    QVERIFY(second.err.contains(QString::number(up.processId())));

    ::kill(pid_t(up.processId()), signal);
    QVERIFY(up.waitForFinished(20000));
    QCOMPARE(up.exitStatus(), QProcess::NormalExit);
    QCOMPARE(up.exitCode(), 0);
    QVERIFY(QString::fromUtf8(up.readAllStandardOutput()).contains(QStringLiteral("stopped")));
    QVERIFY(!QFileInfo::exists(socket));
    QVERIFY(QFileInfo(home.path() + QStringLiteral("/state/engine.log")).size() > 0);
}

QTEST_GUILESS_MAIN(tst_ServerCli)
#include "tst_servercli.moc"
