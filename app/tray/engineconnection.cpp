#include "engineconnection.h"

#include <QCoreApplication>
#include <QFileInfo>
#include <QProcess>
#include <QStandardPaths>

namespace isolation {

namespace {

QString defaultProgram()
{
    const QString beside = QCoreApplication::applicationDirPath() + QStringLiteral("/isolation-server");
    if (QFileInfo(beside).isExecutable())
        return beside;
    const QString found = QStandardPaths::findExecutable(QStringLiteral("isolation-server"));
    return found.isEmpty() ? QStringLiteral("isolation-server") : found;
}

} // namespace

EngineConnection::EngineConnection(QString socketPath, QObject *parent)
    : QObject(parent)
    , m_socketPath(socketPath)
    , m_program(defaultProgram())
    , m_arguments {QStringLiteral("up")}
    , m_follower(std::move(socketPath))
{
    m_startTimer.setSingleShot(true);
    m_startTimer.setInterval(20000);
    connect(&m_startTimer, &QTimer::timeout, this, [this] {
        if (m_state == State::Starting)
            setState(State::Down,
                tr("The engine was started but did not answer within %1 s; its log (engine.log in its state "
                   "directory) says why")
                    .arg(m_startTimer.interval() / 1000));
    });
    connect(&m_follower, &EventFollower::subscribed, this, [this] {
        m_startTimer.stop();
        m_follower.setRetryDelay(250);
        setState(State::Attached, QString());
    });
    connect(&m_follower, &EventFollower::disconnected, this, [this](const QString &why) {
        // While a started engine comes up its socket is not there yet: that is no news.
        if (m_state != State::Starting)
            setState(State::Down, why);
    });
    connect(&m_follower, &EventFollower::event, this, &EngineConnection::event);
}

void EngineConnection::setProgram(const QString &program, const QStringList &arguments)
{
    m_program = program;
    m_arguments = arguments;
}

void EngineConnection::attach()
{
    setState(State::Connecting, QString());
    m_follower.start(m_follower.lastEventId());
}

void EngineConnection::startEngine(WhileStarting whileStarting)
{
    if (m_state == State::Attached || (m_state == State::Starting && whileStarting == WhileStarting::Skip))
        return;
    // A session of its own: no signal the tray's terminal or process group gets reaches it, and
    // it stays when the tray quits. Its output goes nowhere; the engine keeps its own log.
    QProcess process;
    process.setProgram(QStringLiteral("setsid"));
    process.setArguments(QStringList {m_program} + m_arguments);
    process.setStandardInputFile(QProcess::nullDevice());
    process.setStandardOutputFile(QProcess::nullDevice());
    process.setStandardErrorFile(QProcess::nullDevice());
    qint64 pid = 0;
    if (!process.startDetached(&pid)) {
        setState(State::Down, tr("Cannot start the engine (%1): %2").arg(m_program, process.errorString()));
        return;
    }
    Q_EMIT engineStarted(pid);
    expectEngine(tr("Starting the engine"));
}

void EngineConnection::expectEngine(const QString &how)
{
    if (m_state == State::Attached)
        return;
    setState(State::Starting, how);
    m_startTimer.start();
    // Look for it at once and often while it comes up, not at the follower's slow pace.
    m_follower.setRetryDelay(100);
    m_follower.start(m_follower.lastEventId());
}

void EngineConnection::setState(State state, const QString &reason)
{
    if (state == m_state && reason == m_reason)
        return;
    m_state = state;
    m_reason = reason;
    Q_EMIT stateChanged(state, reason);
}

} // namespace isolation
