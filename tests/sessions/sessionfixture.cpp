#include "sessionfixture.h"

#include "childprocess.h"
#include "pairedserver.h"

#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QJsonDocument>
#include <QTest>

#include <csignal>
#include <poll.h>
#include <pty.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <vector>

namespace isolation::test {

QJsonObject CliRun::json() const
{
    return QJsonDocument::fromJson(out).object();
}

QString CliRun::describe() const
{
    return QStringLiteral("exit %1\nstdout: %2\nstderr: %3")
        .arg(exitCode)
        .arg(QString::fromUtf8(out), QString::fromUtf8(err));
}

SessionFixture::SessionFixture()
{
    // For a post-mortem: keep the engines' homes and logs.
    if (qEnvironmentVariableIsSet("ISOLATION_TEST_KEEP")) {
        m_dir.setAutoRemove(false);
        qInfo() << "keeping" << m_dir.path();
    }
}

SessionFixture::~SessionFixture()
{
    for (int i = 0; i < int(m_up.size()); ++i)
        stopEngine(i);
}

bool SessionFixture::start(int engines)
{
    if (!m_hub.start({}, {QStringLiteral("--poll-interval"), QStringLiteral("1")}))
        return false;
    for (int i = 0; i < engines; ++i) {
        if (!pairServer(m_hub.appUrl(), home(i), QStringLiteral("engine-%1").arg(i)))
            return false;
        m_up.push_back(std::make_unique<QProcess>());
    }
    m_engines = engines;
    return true;
}

QString SessionFixture::home(int i) const
{
    return m_dir.filePath(QStringLiteral("engine%1").arg(i));
}

QProcessEnvironment SessionFixture::env(int i) const
{
    QProcessEnvironment e = QProcessEnvironment::systemEnvironment();
    e.insert(QStringLiteral("ISOLATION_HOME"), home(i));
    e.remove(QStringLiteral("ISOLATION_TEST_CRASH_AT"));
    return e;
}

bool SessionFixture::startEngine(int i, const QProcessEnvironment &extraEnv, const QStringList &extraArgs)
{
    QProcess &up = *m_up.at(i);
    QProcessEnvironment e = env(i);
    for (const QString &k : extraEnv.keys())
        e.insert(k, extraEnv.value(k));
    up.setProcessEnvironment(e);
    up.setProcessChannelMode(QProcess::MergedChannels);
    up.setStandardOutputFile(m_dir.filePath(QStringLiteral("up%1.log").arg(i)), QIODevice::Append);
    endWithTheTest(up);
    const QStringList args = QStringList {QStringLiteral("up"), QStringLiteral("--credential-store"), QStringLiteral("file")} + extraArgs;
    if (m_wrapper.isEmpty())
        up.start(serverBinary(), args);
    else
        up.start(m_wrapper.first(), m_wrapper.mid(1) + QStringList {serverBinary()} + args);
    if (!up.waitForStarted())
        return false;
    QDeadlineTimer deadline(30000);
    while (!deadline.hasExpired()) {
        const CliRun s = cli(i, {QStringLiteral("status"), QStringLiteral("--json")});
        if (s.exitCode == 0 && s.json().value(QStringLiteral("state")).toString() == QLatin1String("online"))
            return true;
        QTest::qWait(100);
    }
    qWarning() << "engine" << i << "did not come online:" << engineLog(i);
    return false;
}

int SessionFixture::stopEngine(int i)
{
    QProcess &up = *m_up.at(i);
    if (up.state() == QProcess::NotRunning)
        return up.exitCode();
    ::kill(pid_t(up.processId()), SIGTERM);
    if (!up.waitForFinished(30000)) {
        up.kill();
        up.waitForFinished();
        return -1;
    }
    if (up.exitCode() != 0)
        qWarning().noquote() << "engine" << i << "exited with" << up.exitCode() << "; its log ends:\n"
                             << engineLog(i).right(12000);
    return up.exitCode();
}

bool SessionFixture::waitKilled(int i, int ms)
{
    QProcess &up = *m_up.at(i);
    if (up.state() != QProcess::NotRunning && !up.waitForFinished(ms))
        return false;
    return up.exitStatus() == QProcess::CrashExit;
}

QString SessionFixture::engineLog(int i) const
{
    QFile f(m_dir.filePath(QStringLiteral("up%1.log").arg(i)));
    return f.open(QIODevice::ReadOnly) ? QString::fromUtf8(f.readAll()) : QString();
}

CliRun SessionFixture::cli(int i, const QStringList &args, const QString &cwd) const
{
    QProcess p;
    p.setProcessEnvironment(env(i));
    p.setWorkingDirectory(cwd.isEmpty() ? m_dir.path() : cwd);
    p.start(serverBinary(), args);
    CliRun run;
    if (!p.waitForFinished(300000)) {
        run.err = "did not finish: " + p.errorString().toUtf8();
        p.kill();
        p.waitForFinished();
        return run;
    }
    run.exitCode = p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1;
    run.out = p.readAllStandardOutput();
    run.err = p.readAllStandardError();
    return run;
}

void SessionFixture::startCli(int i, const QStringList &args, QProcess &p) const
{
    p.setProcessEnvironment(env(i));
    p.setWorkingDirectory(m_dir.path());
    p.start(serverBinary(), args);
}

CliRun SessionFixture::cliOnTerminal(int i, const QStringList &args, int columns) const
{
    QProcessEnvironment e = env(i);
    e.insert(QStringLiteral("TERM"), QStringLiteral("xterm"));
    // Everything the child needs is made before the fork: after it, only exec.
    std::vector<QByteArray> strings;
    strings.push_back(serverBinary().toLocal8Bit());
    for (const QString &a : args)
        strings.push_back(a.toLocal8Bit());
    const size_t argc = strings.size();
    for (const QString &kv : e.toStringList())
        strings.push_back(kv.toLocal8Bit());
    std::vector<char *> argv;
    std::vector<char *> envp;
    for (size_t k = 0; k < strings.size(); ++k)
        (k < argc ? argv : envp).push_back(strings[k].data());
    argv.push_back(nullptr);
    envp.push_back(nullptr);
    const QByteArray cwd = m_dir.path().toLocal8Bit();

    CliRun run;
    winsize size {};
    size.ws_row = 24;
    size.ws_col = static_cast<unsigned short>(columns);
    int terminal = -1;
    const pid_t pid = forkpty(&terminal, nullptr, nullptr, &size);
    if (pid < 0) {
        run.err = "forkpty: " + QByteArray(strerror(errno));
        return run;
    }
    if (pid == 0) {
        if (chdir(cwd.constData()) == 0)
            execve(argv[0], argv.data(), envp.data());
        _exit(127);
    }
    QElapsedTimer clock;
    clock.start();
    char buffer[4096];
    for (;;) {
        pollfd p {terminal, POLLIN, 0};
        const int ready = poll(&p, 1, 1000);
        if (ready < 0 && errno == EINTR)
            continue;
        if (ready > 0) {
            const ssize_t n = read(terminal, buffer, sizeof buffer);
            if (n > 0) {
                run.out.append(buffer, n);
                continue;
            }
            if (n < 0 && errno == EINTR)
                continue;
            break; // EIO: the child and every holder of the terminal are gone
        }
        if (clock.elapsed() > 300000) {
            run.err = "did not finish";
            kill(pid, SIGKILL);
            break;
        }
    }
    close(terminal);
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    if (run.err.isEmpty())
        run.exitCode = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    return run;
}

QJsonObject SessionFixture::newSession(int i, const QString &workspace) const
{
    const CliRun r = cli(i,
        {QStringLiteral("session"), QStringLiteral("new"), QStringLiteral("--workspace"), workspace,
            QStringLiteral("--json")});
    if (r.exitCode != 0) {
        qWarning().noquote() << "session new failed:" << r.describe();
        return {};
    }
    return r.json();
}

QString SessionFixture::createWorkspace(const QString &name) const
{
    QString out;
    if (m_hub.admin({QStringLiteral("workspace"), QStringLiteral("create"), name}, &out) != 0)
        return {};
    return out.trimmed();
}

QByteArray SessionFixture::hubManifest(const QString &workspaceId) const
{
    QFile f(m_hub.dataDir() + QStringLiteral("/workspaces/") + workspaceId + QStringLiteral("/manifest"));
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

QStringList SessionFixture::hubSegments(const QString &workspaceId) const
{
    return QDir(m_hub.dataDir() + QStringLiteral("/workspaces/") + workspaceId + QStringLiteral("/segments"))
        .entryList(QDir::Files, QDir::Name);
}

} // namespace isolation::test
