#include "hubprocess.h"

#include "childprocess.h"

#include <QDeadlineTimer>
#include <QEventLoop>
#include <QRegularExpression>
#include <QTimer>

#include <csignal>

namespace isolation::test {

QString hubBinary()
{
    return QStringLiteral(ISOLATION_HUB_BIN);
}

QString serverBinary()
{
    return QStringLiteral(ISOLATION_SERVER_BIN);
}

QString engineBinary()
{
    return QStringLiteral(ISOLATION_ENGINE_BIN);
}

QString trayBinary()
{
    return QStringLiteral(ISOLATION_TRAY_BIN);
}

HubProcess::HubProcess() = default;

HubProcess::~HubProcess()
{
    if (m_process.state() != QProcess::NotRunning)
        stop();
}

bool HubProcess::restart()
{
    stop();
    QStringList args = m_extra;
    // The hub re-binds the same ports; a restart is the same hub to its servers.
    args << QStringLiteral("--listen") << QStringLiteral("127.0.0.1:%1").arg(m_app.port())
         << QStringLiteral("--preview") << QStringLiteral("127.0.0.1:%1").arg(m_preview.port());
    return start(m_dataDir, args);
}

bool HubProcess::start(const QString &dataDir, const QStringList &extraArgs)
{
    if (dataDir.isEmpty()) {
        m_tmp = std::make_unique<QTemporaryDir>();
        m_dataDir = m_tmp->path() + QStringLiteral("/hub");
    } else {
        m_dataDir = dataDir;
    }
    m_out.clear();
    m_process.setProcessChannelMode(QProcess::SeparateChannels);
    m_process.setProgram(hubBinary());
    // restart() passes the old ports; remember only the caller's own options.
    if (!extraArgs.contains(QStringLiteral("--listen")))
        m_extra = extraArgs;
    QStringList args {QStringLiteral("serve"), QStringLiteral("--data"), m_dataDir};
    if (!extraArgs.contains(QStringLiteral("--listen")))
        args << QStringLiteral("--listen") << QStringLiteral("127.0.0.1:0");
    if (!extraArgs.contains(QStringLiteral("--preview")))
        args << QStringLiteral("--preview") << QStringLiteral("127.0.0.1:0");
    m_process.setArguments(args + extraArgs);
    endWithTheTest(m_process);
    m_process.start();
    if (!m_process.waitForStarted(10000))
        return false;
    static const QRegularExpression app(QStringLiteral("app origin:\\s+(\\S+)"));
    static const QRegularExpression preview(QStringLiteral("preview origin:\\s+(\\S+)"));
    QDeadlineTimer deadline(30000);
    while (!deadline.hasExpired()) {
        m_process.waitForReadyRead(200);
        m_out += m_process.readAllStandardOutput();
        const QString text = QString::fromUtf8(m_out);
        const auto a = app.match(text);
        const auto p = preview.match(text);
        if (a.hasMatch() && p.hasMatch() && text.contains(QStringLiteral("admin token"))) {
            m_app = QUrl(a.captured(1));
            m_app.setPath(QString());
            m_preview = QUrl(p.captured(1));
            m_preview.setPath(QString());
            return true;
        }
        if (m_process.state() == QProcess::NotRunning)
            return false;
    }
    return false;
}

int HubProcess::stop()
{
    if (m_process.state() == QProcess::NotRunning)
        return m_process.exitCode();
    ::kill(pid_t(m_process.processId()), SIGTERM);
    if (!m_process.waitForFinished(15000)) {
        m_process.kill();
        m_process.waitForFinished(5000);
        return -1;
    }
    m_out += m_process.readAllStandardOutput();
    return m_process.exitStatus() == QProcess::NormalExit ? m_process.exitCode() : -1;
}

void HubProcess::kill()
{
    m_process.kill();
    m_process.waitForFinished(5000);
}

QString HubProcess::output() const
{
    return QString::fromUtf8(m_out);
}

int HubProcess::admin(const QStringList &args, QString *out, QString *err) const
{
    // Waits in an event loop, not in waitForFinished(): the engines of most tests live in the
    // test's own thread, and a blocked loop starves their heartbeats and tunnels. Under a loaded
    // CI machine one admin call took seconds, long enough for the hub to call an engine offline.
    QProcess p;
    QEventLoop loop;
    QObject::connect(&p, &QProcess::finished, &loop, &QEventLoop::quit);
    QObject::connect(&p, &QProcess::errorOccurred, &loop, [&loop](QProcess::ProcessError e) {
        if (e == QProcess::FailedToStart)
            loop.quit();
    });
    QTimer::singleShot(60000, &loop, &QEventLoop::quit);
    p.start(hubBinary(), QStringList {QStringLiteral("--data"), m_dataDir} + args);
    if (p.state() != QProcess::NotRunning)
        loop.exec();
    if (p.state() != QProcess::NotRunning) {
        p.kill();
        p.waitForFinished();
        return -1;
    }
    if (p.error() == QProcess::FailedToStart)
        return -1;
    if (out)
        *out = QString::fromUtf8(p.readAllStandardOutput());
    if (err)
        *err = QString::fromUtf8(p.readAllStandardError());
    return p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1;
}

} // namespace isolation::test
