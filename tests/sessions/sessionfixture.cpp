#include "sessionfixture.h"

#include "childprocess.h"
#include "pairedserver.h"

#include <QDir>
#include <QFile>
#include <QJsonDocument>
#include <QTest>

#include <csignal>
#include <sys/wait.h>

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
