#include "engineprocess.h"

#include "childprocess.h"
#include "hubprocess.h"

#include <QDeadlineTimer>
#include <QTest>

#include <csignal>

namespace isolation::test {

EngineProcess::EngineProcess(QString home)
    : m_home(std::move(home))
    , m_env(QProcessEnvironment::systemEnvironment())
{
    m_env.insert(QStringLiteral("ISOLATION_HOME"), m_home);
    // English whatever the machine's locale (`up` speaks the user's language); a test may set another.
    m_env.remove(QStringLiteral("LANGUAGE"));
    m_env.insert(QStringLiteral("LC_ALL"), QStringLiteral("C.UTF-8"));
    if (!m_env.contains(QStringLiteral("ISOLATION_RUNTIME")))
        m_env.insert(QStringLiteral("ISOLATION_RUNTIME"), QStringLiteral("off"));
    m_process.setProcessChannelMode(QProcess::MergedChannels);
}

EngineProcess::~EngineProcess()
{
    if (running())
        stop();
}

bool EngineProcess::start(int timeoutMs)
{
    m_process.setProcessEnvironment(m_env);
    endWithTheTest(m_process);
    m_process.start(serverBinary(), {QStringLiteral("up"), QStringLiteral("--credential-store"), QStringLiteral("file")});
    if (!m_process.waitForStarted(10000))
        return false;
    QDeadlineTimer deadline(timeoutMs);
    while (!deadline.hasExpired()) {
        if (!running())
            return false;
        if (cli({QStringLiteral("status")}, nullptr, 5000) == 0)
            return true;
        QTest::qWait(50);
    }
    return false;
}

int EngineProcess::stop(int timeoutMs)
{
    if (!running()) // it ended by itself (a shutdown asked through the LocalAPI): how
        return m_process.exitStatus() == QProcess::NormalExit ? m_process.exitCode() : -1;
    ::kill(pid_t(m_process.processId()), SIGTERM);
    if (!m_process.waitForFinished(timeoutMs)) {
        m_process.kill();
        m_process.waitForFinished(5000);
        return -1;
    }
    return m_process.exitStatus() == QProcess::NormalExit ? m_process.exitCode() : -1;
}

void EngineProcess::kill()
{
    if (!running())
        return;
    m_process.kill();
    m_process.waitForFinished(5000);
}

QString EngineProcess::output() const
{
    auto *self = const_cast<EngineProcess *>(this);
    return QString::fromUtf8(self->m_process.readAll());
}

int EngineProcess::cli(const QStringList &args, QString *out, int timeoutMs) const
{
    QProcess p;
    p.setProcessEnvironment(m_env);
    p.start(serverBinary(), args);
    if (!p.waitForFinished(timeoutMs)) {
        p.kill();
        p.waitForFinished(2000);
        return -1;
    }
    if (out)
        *out = QString::fromUtf8(p.readAllStandardOutput());
    return p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1;
}

} // namespace isolation::test
