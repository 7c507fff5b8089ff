// What the sessions' end-to-end tests share: a real isolation-hub, engines paired with it and
// running as real `isolation-server up` processes (file credential store, one ISOLATION_HOME
// each), the CLI run against them, and the hub's workspace directory to inspect.
#pragma once

#include "hubprocess.h"

#include <QJsonObject>
#include <QProcess>
#include <QProcessEnvironment>
#include <QTemporaryDir>

#include <memory>
#include <vector>

namespace isolation::test {

struct CliRun
{
    int exitCode = -1;
    QByteArray out;
    QByteArray err;
    QJsonObject json() const; // stdout parsed (with --json)
    QString describe() const;
};

class SessionFixture
{
public:
    SessionFixture();
    ~SessionFixture();

    // Starts the hub and pairs `engines` engines with it (not started yet: startEngine()).
    bool start(int engines);
    // Runs `isolation-server up` for engine `i` (`extraEnv` added, e.g. ISOLATION_TEST_CRASH_AT;
    // `extraArgs` after `up`) and waits until it is online.
    bool startEngine(int i, const QProcessEnvironment &extraEnv = {}, const QStringList &extraArgs = {});
    // Engines started from now on run under `command` (say `setpriv --bounding-set=...`): the
    // program, then its arguments, then `isolation-server up ...`. Empty: run directly.
    void setEngineWrapper(const QStringList &command) { m_wrapper = command; }
    // SIGTERM and wait; the exit code.
    int stopEngine(int i);
    // Waits until engine `i` exited by itself (a crash hook); true when it was killed by SIGKILL.
    bool waitKilled(int i, int ms = 60000);

    // `isolation-server args...` against engine `i`, in `cwd` (the test's directory when empty).
    CliRun cli(int i, const QStringList &args, const QString &cwd = {}) const;
    // The same on a pseudo-terminal `columns` wide (TERM=xterm): stdout and stderr both in `out`,
    // as a terminal shows them ("\r\n" for "\n").
    CliRun cliOnTerminal(int i, const QStringList &args, int columns = 80) const;
    // `isolation-server args...` against engine `i`, started and left running in `p` (for a test
    // that reads its output as it comes, or signals it).
    void startCli(int i, const QStringList &args, QProcess &p) const;
    // session new --workspace W --json; the session's JSON (empty when it failed).
    QJsonObject newSession(int i, const QString &workspace) const;

    // `isolation-hub workspace create NAME`; the new id, or empty.
    QString createWorkspace(const QString &name) const;
    // The hub's stored state of a workspace: the manifest's bytes and the segment names.
    QByteArray hubManifest(const QString &workspaceId) const;
    QStringList hubSegments(const QString &workspaceId) const;

    QString home(int i) const;
    QString dir() const { return m_dir.path(); }
    HubProcess &hub() { return m_hub; }
    QString engineLog(int i) const; // what `up` printed so far

private:
    QProcessEnvironment env(int i) const;

    QTemporaryDir m_dir;
    HubProcess m_hub;
    int m_engines = 0;
    std::vector<std::unique_ptr<QProcess>> m_up;
    QStringList m_wrapper;
};

} // namespace isolation::test
