// Runs a real `isolation-server up` for a test, as a process of its own (the engine a tray
// attaches to): its state directory, its environment (the file credential store, the runtime off
// unless asked for, English unless LC_ALL is set otherwise), and the CLI against it. Stopped (SIGTERM) when it goes out of scope.
#pragma once

#include <QProcess>
#include <QProcessEnvironment>
#include <QString>
#include <QStringList>

namespace isolation::test {

class EngineProcess
{
public:
    // `home`: its ISOLATION_HOME. The hub URL (ISOLATION_HUB_URL) is the configured one unless set.
    explicit EngineProcess(QString home);
    ~EngineProcess();

    QProcessEnvironment &environment() { return m_env; }
    void setHub(const QString &url) { m_env.insert(QStringLiteral("ISOLATION_HUB_URL"), url); }
    void setRuntime(bool on) { m_env.insert(QStringLiteral("ISOLATION_RUNTIME"), on ? QStringLiteral("on") : QStringLiteral("off")); }

    // Starts it and waits until its LocalAPI answers (`status` exits 0).
    bool start(int timeoutMs = 30000);
    // SIGTERM and wait; the exit code (-1 when it had to be killed or crashed). When it ended by
    // itself already: that exit code.
    int stop(int timeoutMs = 15000);
    void kill();
    bool running() const { return m_process.state() != QProcess::NotRunning; }
    qint64 pid() const { return m_process.processId(); }
    QString home() const { return m_home; }
    QString socketPath() const { return m_home + QStringLiteral("/run/engine.sock"); }
    QString output() const; // what it printed so far (stdout and stderr)

    // `isolation-server ARGS` against this engine: the exit code, its stdout in *out.
    int cli(const QStringList &args, QString *out = nullptr, int timeoutMs = 60000) const;

private:
    QString m_home;
    QProcessEnvironment m_env;
    QProcess m_process;
};

} // namespace isolation::test
