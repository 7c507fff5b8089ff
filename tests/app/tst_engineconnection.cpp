// The tray's hold on the engine (app/tray/engineconnection.h) against real `isolation-server up`
// processes: with none running it says so, starts one in a session of its own (not its child's
// child in its process group: another session id) and attaches; the engine stays when the tray's
// connection goes; a kill -9 is seen within 2 s, and the next start attaches again; a running
// engine is attached to without starting another.
#include "engineconnection.h"
#include "hubprocess.h"

#include "core/paths.h"

#include <QElapsedTimer>
#include <QFile>
#include <QProcess>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

#include <csignal>
#include <unistd.h>

using namespace isolation;
using namespace isolation::test;

class tst_EngineConnection final : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void cleanupTestCase();
    void startsOneWhenNoneRuns();
    void theEngineOutlivesTheTray();
    void aRunningEngineIsAttachedTo();
    void killedEngineIsSeenAndStartedAgain();

private:
    std::unique_ptr<EngineConnection> connection();
    static bool waitFor(EngineConnection &c, EngineConnection::State state, int timeoutMs);
    static QByteArray statField(qint64 pid, int field); // /proc/PID/stat, 1-based as in proc(5)
    int cli(const QStringList &args);

    QTemporaryDir m_home;
    QString m_socket;
    qint64 m_pid = 0; // the engine the tests started
};

void tst_EngineConnection::initTestCase()
{
    QVERIFY(m_home.isValid());
    qputenv("ISOLATION_HOME", m_home.path().toUtf8());
    qputenv("ISOLATION_RUNTIME", "off"); // no Docker here: the engine alone
    qunsetenv("ISOLATION_HUB_URL");
    auto paths = Paths::resolve(QProcessEnvironment::systemEnvironment());
    QVERIFY(paths);
    m_socket = paths.value().socketPath();
}

void tst_EngineConnection::cleanupTestCase()
{
    if (m_pid > 0)
        ::kill(pid_t(m_pid), SIGKILL);
}

std::unique_ptr<EngineConnection> tst_EngineConnection::connection()
{
    auto c = std::make_unique<EngineConnection>(m_socket);
    c->setProgram(serverBinary(), {QStringLiteral("up"), QStringLiteral("--credential-store"), QStringLiteral("file")});
    return c;
}

bool tst_EngineConnection::waitFor(EngineConnection &c, EngineConnection::State state, int timeoutMs)
{
    QElapsedTimer t;
    t.start();
    while (c.state() != state && t.elapsed() < timeoutMs)
        QTest::qWait(10);
    return c.state() == state;
}

QByteArray tst_EngineConnection::statField(qint64 pid, int field)
{
    QFile f(QStringLiteral("/proc/%1/stat").arg(pid));
    if (!f.open(QIODevice::ReadOnly))
        return {};
    const QByteArray stat = f.readAll();
    // "pid (comm) state ppid pgrp session ...": comm may hold spaces, so count after its ')'.
    const QList<QByteArray> rest = stat.mid(stat.lastIndexOf(')') + 2).split(' ');
    return rest.value(field - 3);
}

int tst_EngineConnection::cli(const QStringList &args)
{
    QProcess p;
    p.start(serverBinary(), args);
    if (!p.waitForFinished(30000))
        return -1;
    return p.exitCode();
}

void tst_EngineConnection::startsOneWhenNoneRuns()
{
    auto c = connection();
    c->attach();
    QVERIFY(waitFor(*c, EngineConnection::State::Down, 5000));
    QVERIFY2(c->reason().contains(QStringLiteral("no engine answers")), qPrintable(c->reason()));
    QCOMPARE(cli({QStringLiteral("status")}), 3); // the CLI agrees: not running

    QSignalSpy started(c.get(), &EngineConnection::engineStarted);
    c->startEngine();
    QCOMPARE(started.size(), 1);
    m_pid = started.first().first().toLongLong();
    QVERIFY(m_pid > 0);
    QVERIFY2(waitFor(*c, EngineConnection::State::Attached, 30000), qPrintable(c->reason()));
    // In a session of its own, and not this process's child.
    QVERIFY(statField(m_pid, 6) != statField(::getpid(), 6));
    QVERIFY(statField(m_pid, 4) != QByteArray::number(::getpid()));
    QCOMPARE(cli({QStringLiteral("status")}), 0);
}

void tst_EngineConnection::theEngineOutlivesTheTray()
{
    QVERIFY(m_pid > 0);
    auto c = connection();
    c->attach();
    QVERIFY(waitFor(*c, EngineConnection::State::Attached, 10000));
    c.reset(); // the tray quits
    QTest::qWait(500);
    QCOMPARE(::kill(pid_t(m_pid), 0), 0);
    QCOMPARE(cli({QStringLiteral("status")}), 0);
}

void tst_EngineConnection::aRunningEngineIsAttachedTo()
{
    auto c = connection();
    QSignalSpy started(c.get(), &EngineConnection::engineStarted);
    c->attach();
    QVERIFY(waitFor(*c, EngineConnection::State::Attached, 10000));
    c->startEngine(); // attached: nothing to start
    QCOMPARE(started.size(), 0);
    QCOMPARE(c->state(), EngineConnection::State::Attached);
}

void tst_EngineConnection::killedEngineIsSeenAndStartedAgain()
{
    auto c = connection();
    c->attach();
    QVERIFY(waitFor(*c, EngineConnection::State::Attached, 10000));
    QElapsedTimer down;
    down.start();
    QCOMPARE(::kill(pid_t(m_pid), SIGKILL), 0);
    QVERIFY(waitFor(*c, EngineConnection::State::Down, 2000));
    qInfo() << "down seen after" << down.elapsed() << "ms";
    const qint64 before = m_pid;
    QSignalSpy started(c.get(), &EngineConnection::engineStarted);
    c->startEngine();
    QCOMPARE(started.size(), 1);
    m_pid = started.first().first().toLongLong();
    QVERIFY(m_pid != before);
    QVERIFY2(waitFor(*c, EngineConnection::State::Attached, 30000), qPrintable(c->reason()));
    QCOMPARE(cli({QStringLiteral("status")}), 0);
}

QTEST_GUILESS_MAIN(tst_EngineConnection)
#include "tst_engineconnection.moc"
