// The processes that hold secrets write no core file: the engine (isolation-server up, and the
// tray, which runs it in-process) and the keychain helper. Each real program is started with core
// files allowed (the limit raised, ASan's own core-dump guard off, as in a release build) and
// killed with SIGABRT; no core may appear in its working directory, and its RLIMIT_CORE must read
// 1 in /proc/<pid>/limits. A plain program under the same conditions shows the kernel here does
// write cores. Reading another process's /proc entries after PR_SET_DUMPABLE 0 needs root (or
// CAP_SYS_PTRACE) for some files; /proc/<pid>/limits is readable by all.
#include "core/processhardening.h"
#include "hubprocess.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QProcess>
#include <QScopeGuard>
#include <QTemporaryDir>
#include <QTest>

#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>

#include <csignal>
#include <unistd.h>

using namespace isolation;

namespace {

// The "Max core file size" line of /proc/<pid>/limits: soft and hard, as the kernel prints them.
QByteArray coreLimit(qint64 pid)
{
    QFile f(QStringLiteral("/proc/%1/limits").arg(pid));
    if (!f.open(QIODevice::ReadOnly))
        return {};
    for (const QByteArray &line : f.readAll().split('\n')) {
        if (line.startsWith("Max core file size"))
            return line.mid(int(qstrlen("Max core file size"))).simplified();
    }
    return {};
}

QStringList cores(const QString &dir)
{
    return QDir(dir).entryList({QStringLiteral("core*")}, QDir::Files);
}

} // namespace

class tst_ProcessHardening final : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void kernelWritesCoresHere();
    void hardenedInProcess();
    void noCoreFromHelpers_data();
    void noCoreFromHelpers();

private:
    bool m_coresInCwd = false; // core_pattern writes a file in the crashing process's directory
};

void tst_ProcessHardening::initTestCase()
{
    // Children inherit this: without it they would have no core file to lose. The soft limit up
    // to the hard one, which anyone may do; usually that is unlimited.
    rlimit limit {};
    QVERIFY(::getrlimit(RLIMIT_CORE, &limit) == 0);
    limit.rlim_cur = limit.rlim_max;
    QVERIFY(::setrlimit(RLIMIT_CORE, &limit) == 0);
    QFile pattern(QStringLiteral("/proc/sys/kernel/core_pattern"));
    QVERIFY(pattern.open(QIODevice::ReadOnly));
    const QByteArray p = pattern.readAll().trimmed();
    m_coresInCwd = !p.startsWith('|') && !p.startsWith('@') && !p.contains('/') && p.startsWith("core")
        && limit.rlim_max == RLIM_INFINITY;
    if (!m_coresInCwd)
        qWarning("core_pattern is '%s' (or the hard RLIMIT_CORE is not unlimited): cores do not land in the "
                 "working directory, so only the limits and the dumpable flag are checked, not that no core is "
                 "written",
            p.constData());
}

void tst_ProcessHardening::kernelWritesCoresHere()
{
    if (!m_coresInCwd)
        QSKIP("core_pattern sends cores elsewhere (see the warning above); the other checks still run");
    QTemporaryDir cwd;
    QProcess sleeper;
    sleeper.setWorkingDirectory(cwd.path());
    sleeper.start(QStringLiteral("sleep"), {QStringLiteral("60")});
    QVERIFY(sleeper.waitForStarted());
    QCOMPARE(coreLimit(sleeper.processId()), QByteArray("unlimited unlimited bytes"));
    ::kill(pid_t(sleeper.processId()), SIGABRT);
    QVERIFY(sleeper.waitForFinished(20000));
    QCOMPARE(sleeper.exitStatus(), QProcess::CrashExit);
    QTRY_COMPARE(cores(cwd.path()).size(), 1);
}

void tst_ProcessHardening::hardenedInProcess()
{
    // In a child, so the test process keeps its own limit for the programs it starts next.
    const pid_t child = ::fork();
    QVERIFY(child >= 0);
    if (child == 0) {
        if (!hardenProcess())
            ::_exit(1);
        if (::prctl(PR_GET_DUMPABLE, 0, 0, 0, 0) != 0)
            ::_exit(2);
        rlimit now {};
        if (::getrlimit(RLIMIT_CORE, &now) != 0 || now.rlim_cur != 1 || now.rlim_max != 1)
            ::_exit(3);
        ::_exit(0);
    }
    int status = 0;
    QCOMPARE(::waitpid(child, &status, 0), child);
    QVERIFY(WIFEXITED(status));
    QCOMPARE(WEXITSTATUS(status), 0);
}

void tst_ProcessHardening::noCoreFromHelpers_data()
{
    QTest::addColumn<QString>("program");
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<QString>("readyFile"); // relative to ISOLATION_HOME: exists once it is running
    QTest::newRow("isolation-server up")
        << test::serverBinary() << QStringList {QStringLiteral("up"), QStringLiteral("--credential-store"), QStringLiteral("file")}
        << QStringLiteral("run/engine.sock");
    QTest::newRow("isolation-tray") << test::trayBinary() << QStringList {} << QStringLiteral("run/engine.sock");
    // `write` waits for the secret on standard input, which stays open.
    QTest::newRow("isolation-keychain write")
        << QStringLiteral(ISOLATION_KEYCHAIN_BIN)
        << QStringList {QStringLiteral("write"), QStringLiteral("io.isolation.test"), QStringLiteral("key")}
        << QString();
}

void tst_ProcessHardening::noCoreFromHelpers()
{
    QFETCH(QString, program);
    QFETCH(QStringList, args);
    QFETCH(QString, readyFile);
    QTemporaryDir home;
    QTemporaryDir cwd;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert(QStringLiteral("ISOLATION_HOME"), home.path());
    // ASan keeps its processes from dumping by itself (a release build does not): off, so what is
    // measured is the program's own doing.
    env.insert(QStringLiteral("ASAN_OPTIONS"),
        env.value(QStringLiteral("ASAN_OPTIONS")) + QStringLiteral(":disable_coredump=0"));
    // The tray starts an engine of its own, detached, which outlives the tray by design: stopped at
    // the end whatever happens (`down` on the same home), or every run leaves one behind.
    const auto stopEngine = qScopeGuard([&env] {
        QProcess down;
        down.setProcessEnvironment(env);
        down.start(test::serverBinary(), {QStringLiteral("down")});
        down.waitForFinished(30000);
    });
    QProcess p;
    p.setProcessEnvironment(env);
    p.setWorkingDirectory(cwd.path());
    p.start(program, args);
    QVERIFY2(p.waitForStarted(), qPrintable(p.errorString()));
    if (!readyFile.isEmpty())
        QTRY_VERIFY_WITH_TIMEOUT(QFileInfo::exists(home.filePath(readyFile)), 30000);
    QTRY_COMPARE_WITH_TIMEOUT(coreLimit(p.processId()), QByteArray("1 1 bytes"), 10000);
    QCOMPARE(p.state(), QProcess::Running);

    ::kill(pid_t(p.processId()), SIGABRT);
    QVERIFY(p.waitForFinished(30000));
    QCOMPARE(p.exitStatus(), QProcess::CrashExit);
    if (m_coresInCwd) {
        QTest::qWait(500); // a core is complete before the parent learns of the death; a margin anyway
        QVERIFY2(cores(cwd.path()).isEmpty(), qPrintable(cores(cwd.path()).join(QLatin1Char(' '))));
    }
}

QTEST_GUILESS_MAIN(tst_ProcessHardening)
#include "tst_processhardening.moc"
