// The agent supervisor on a real sandbox (real dockerd, the stand-in images): output streams line
// by line while the agent runs; an agent that exits with 0 is done; one that crashes in a loop is
// restarted after growing backoff delays until it is given up; a long run forgives earlier
// failures; stop() interrupts it in the sandbox and nothing restarts it. Restart delays run on a
// ManualTimer and a ManualClock, so the test fires them itself.
#include "core/timer.h"
#include "runtime/lifecycleclient.h"
#include "sandbox/agentsupervisor.h"
#include "sandbox/sandboxlauncher.h"
#include "secrets/secretvault.h"

#include "runtimefixture.h"

#include <QNetworkAccessManager>
#include <QSignalSpy>

using namespace isolation;
using namespace isolation::test;

namespace {

using Lines = QList<QPair<CommandStream::Channel, QString>>;

AgentPolicy testPolicy(int maxFailures = 8)
{
    AgentPolicy p;
    p.backoff = {std::chrono::milliseconds(1000), std::chrono::milliseconds(60000), std::chrono::milliseconds(60000)};
    p.maxFailures = maxFailures;
    p.random01 = [] { return 0.5; }; // delays: half of each ceiling
    return p;
}

} // namespace

class tst_AgentSupervisor final : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void cleanupTestCase();
    void exitsByItself();
    void crashLoopBacksOffThenGivesUp();
    void longRunForgivesFailures();
    void streamsWhileRunningAndStopsForGood();
    void stopBeforeExecdNamedIt();
    void stopWhileWaiting();
    void splitsLinesAcrossChunks();
    void secretsInItsEnvironment();
    void adoptsARunOfAnEarlierEngine();
    void anAdoptedRunThatEndedIsRestarted();

private:
    bool waitFor(AgentSupervisor &agent, AgentState state, int timeoutMs = 30000);
    int sandboxCount(const QString &pattern);

    RuntimeFixture m_fixture;
    QNetworkAccessManager m_net;
    std::unique_ptr<RuntimeManager> m_runtime;
    std::unique_ptr<LifecycleClient> m_lifecycle;
    std::unique_ptr<SandboxLauncher> m_sandbox;
    ManualClock m_clock;
    ManualTimer m_timer;
};

bool tst_AgentSupervisor::waitFor(AgentSupervisor &agent, AgentState state, int timeoutMs)
{
    QElapsedTimer t;
    t.start();
    while (agent.state() != state && t.elapsed() < timeoutMs)
        QTest::qWait(20);
    if (agent.state() != state)
        qWarning().noquote() << "agent is" << agentStateName(agent.state()) << "not" << agentStateName(state) << ":"
                             << agent.reason();
    return agent.state() == state;
}

int tst_AgentSupervisor::sandboxCount(const QString &pattern)
{
    auto r = await<Result<CommandOutput, ExecdError>>(
        [&](auto done) { m_sandbox->execd()->runCommand(QStringLiteral("ps | grep -c '%1'").arg(pattern), {}, done); });
    return r && r->ok() ? r->value().stdOut.trimmed().toInt() : -1;
}

void tst_AgentSupervisor::initTestCase()
{
    const QString missing = RuntimeFixture::missing();
    QVERIFY2(missing.isEmpty(), qPrintable(missing));
    m_runtime = m_fixture.makeManager(QStringLiteral("agents"), kLifecycle);
    m_runtime->start();
    QVERIFY(RuntimeFixture::waitHealthy(m_runtime.get()));
    m_lifecycle = std::make_unique<LifecycleClient>(
        &m_net, m_runtime->lifecycleUrl(), m_runtime->apiKey(), &m_runtime->mountPolicy());
    m_sandbox = std::make_unique<SandboxLauncher>(&m_net, m_lifecycle.get());
    const QString worktree = m_fixture.root() + QStringLiteral("/agents/sessions/a1/workspace");
    QVERIFY(QDir().mkpath(worktree));
    LaunchRequest request;
    request.sessionId = QStringLiteral("a1");
    request.worktree = worktree;
    request.image = kSandbox;
    auto launched = await<Result<void, SandboxError>>([&](auto done) { m_sandbox->launch(request, nullptr, done); });
    QVERIFY(launched);
    QVERIFY2(launched->ok(), launched->ok() ? "" : qPrintable(launched->error().message));
}

void tst_AgentSupervisor::cleanupTestCase()
{
    if (m_sandbox && m_sandbox->state() == SandboxState::Running)
        await<Result<void, SandboxError>>([&](auto done) { m_sandbox->remove(done); });
    m_sandbox.reset();
    m_lifecycle.reset();
    if (m_runtime)
        m_runtime->stop();
    m_runtime.reset();
    m_fixture.cleanup();
}

void tst_AgentSupervisor::exitsByItself()
{
    AgentSupervisor agent(m_sandbox->execd(), {QStringLiteral("echo one; echo two >&2; pwd; exit 0")}, nullptr, m_clock,
        m_timer, testPolicy());
    QSignalSpy lines(&agent, &AgentSupervisor::line);
    QSignalSpy ended(&agent, &AgentSupervisor::runEnded);
    const int starts = m_timer.starts();
    agent.start();
    QCOMPARE(agent.state(), AgentState::Running);
    QVERIFY(waitFor(agent, AgentState::Exited));
    QCOMPARE(ended.count(), 1);
    QCOMPARE(ended.first().first().toInt(), 0);
    QCOMPARE(agent.runs(), 1);
    QCOMPARE(m_timer.starts(), starts); // no restart was even scheduled
    QVERIFY(!m_timer.isActive());
    QStringList recent = agent.recentLines();
    QVERIFY2(recent.contains(QStringLiteral("out: one")), qPrintable(recent.join(QLatin1Char('|'))));
    QVERIFY(recent.contains(QStringLiteral("err: two")));
    QVERIFY(recent.contains(QStringLiteral("out: /workspace"))); // it runs in the worktree
    QCOMPARE(lines.count(), 3);
}

void tst_AgentSupervisor::crashLoopBacksOffThenGivesUp()
{
    AgentSupervisor agent(
        m_sandbox->execd(), {QStringLiteral("echo crashing; exit 7")}, nullptr, m_clock, m_timer, testPolicy(4));
    QSignalSpy scheduled(&agent, &AgentSupervisor::restartScheduled);
    agent.start();
    const QList<qint64> expected {500, 1000, 2000}; // half of 1 s, 2 s, 4 s
    for (int i = 0; i < expected.size(); ++i) {
        QVERIFY(waitFor(agent, AgentState::Waiting));
        QCOMPARE(agent.lastExitCode(), 7);
        QCOMPARE(agent.failures(), i + 1);
        QCOMPARE(scheduled.count(), i + 1);
        QCOMPARE(scheduled.last().at(1).toLongLong(), expected.at(i));
        QCOMPARE(m_timer.delay(), std::chrono::milliseconds(expected.at(i)));
        QVERIFY(agent.reason().contains(QStringLiteral("status 7")));
        QVERIFY(m_timer.fire()); // the delay has passed
        QCOMPARE(agent.state(), AgentState::Running);
        QCOMPARE(agent.runs(), i + 2);
    }
    QVERIFY(waitFor(agent, AgentState::Failed));
    QCOMPARE(agent.runs(), 4);
    QCOMPARE(agent.restarts(), 3);
    QVERIFY(!m_timer.isActive());
    QVERIFY2(agent.reason().contains(QStringLiteral("4 times in a row")), qPrintable(agent.reason()));

    // start() again is a fresh start.
    agent.start();
    QVERIFY(waitFor(agent, AgentState::Waiting));
    QCOMPARE(agent.failures(), 1);
    QCOMPARE(m_timer.delay(), std::chrono::milliseconds(500));
    agent.stop();
    QCOMPARE(agent.state(), AgentState::Stopped);
}

void tst_AgentSupervisor::longRunForgivesFailures()
{
    // Runs 1 and 2 crash at once, run 3 lasts until the clock says a minute went by.
    const QString command
        = QStringLiteral("n=$(cat /tmp/forgive 2>/dev/null || echo 0); n=$((n+1)); echo $n > /tmp/forgive; "
                         "if [ $n -ge 3 ]; then echo long; sleep 2; fi; exit 5");
    AgentSupervisor agent(m_sandbox->execd(), {command}, nullptr, m_clock, m_timer, testPolicy());
    QSignalSpy lines(&agent, &AgentSupervisor::line);
    agent.start();
    QVERIFY(waitFor(agent, AgentState::Waiting));
    QVERIFY(m_timer.fire());
    QVERIFY(waitFor(agent, AgentState::Waiting));
    QCOMPARE(agent.failures(), 2);
    QCOMPARE(m_timer.delay(), std::chrono::milliseconds(1000));
    QVERIFY(m_timer.fire());
    QTRY_VERIFY_WITH_TIMEOUT(!lines.isEmpty() && lines.last().at(1).toString() == QLatin1String("long"), 10000);
    m_clock.advance(std::chrono::seconds(61)); // it has been up for longer than resetAfter
    QVERIFY(waitFor(agent, AgentState::Waiting));
    QCOMPARE(agent.failures(), 1);
    QCOMPARE(m_timer.delay(), std::chrono::milliseconds(500)); // back to the first delay
    agent.stop();
    QCOMPARE(agent.state(), AgentState::Stopped);
}

void tst_AgentSupervisor::streamsWhileRunningAndStopsForGood()
{
    AgentSupervisor agent(
        m_sandbox->execd(), {QStringLiteral("echo up; exec sleep 3600")}, nullptr, m_clock, m_timer, testPolicy());
    QSignalSpy lines(&agent, &AgentSupervisor::line);
    QSignalSpy stopped(&agent, &AgentSupervisor::stopped);
    const int starts = m_timer.starts();
    agent.start();
    // The line arrives while the agent still runs: streamed, not collected at the end.
    QVERIFY(lines.wait(15000));
    QCOMPARE(lines.first().at(1).toString(), QStringLiteral("up"));
    QCOMPARE(agent.state(), AgentState::Running);
    QVERIFY(!agent.commandId().isEmpty());
    QCOMPARE(sandboxCount(QStringLiteral("[s]leep 3600")), 1);

    agent.stop();
    QCOMPARE(agent.state(), AgentState::Stopping);
    QVERIFY(stopped.wait(15000));
    QCOMPARE(agent.state(), AgentState::Stopped);
    QCOMPARE(agent.runs(), 1);
    QCOMPARE(m_timer.starts(), starts); // nothing restarts a stopped agent
    QCOMPARE(sandboxCount(QStringLiteral("[s]leep 3600")), 0);
}

void tst_AgentSupervisor::stopBeforeExecdNamedIt()
{
    AgentSupervisor agent(
        m_sandbox->execd(), {QStringLiteral("exec sleep 3599")}, nullptr, m_clock, m_timer, testPolicy());
    QSignalSpy stopped(&agent, &AgentSupervisor::stopped);
    agent.start();
    agent.stop(); // execd has not even answered yet
    QCOMPARE(agent.state(), AgentState::Stopping);
    QVERIFY(stopped.count() == 1 || stopped.wait(15000));
    QCOMPARE(agent.state(), AgentState::Stopped);
    QTRY_COMPARE_WITH_TIMEOUT(sandboxCount(QStringLiteral("[s]leep 3599")), 0, 10000);
}

void tst_AgentSupervisor::stopWhileWaiting()
{
    AgentSupervisor agent(m_sandbox->execd(), {QStringLiteral("exit 1")}, nullptr, m_clock, m_timer, testPolicy());
    agent.start();
    QVERIFY(waitFor(agent, AgentState::Waiting));
    QVERIFY(m_timer.isActive());
    agent.stop();
    QCOMPARE(agent.state(), AgentState::Stopped);
    QVERIFY(!m_timer.isActive());
    QVERIFY(!m_timer.fire());
    QCOMPARE(agent.runs(), 1);
}

void tst_AgentSupervisor::splitsLinesAcrossChunks()
{
    AgentSupervisor agent(m_sandbox->execd(),
        {QStringLiteral("printf 'par'; sleep 0.3; printf 'tial\\nnext\\r\\n'; sleep 0.3; printf 'no newline'")},
        nullptr, m_clock, m_timer, testPolicy());
    QSignalSpy lines(&agent, &AgentSupervisor::line);
    agent.start();
    QVERIFY(waitFor(agent, AgentState::Exited));
    QStringList texts;
    for (const QList<QVariant> &l : lines)
        texts << l.at(1).toString();
    QCOMPARE(texts, (QStringList {QStringLiteral("partial"), QStringLiteral("next"), QStringLiteral("no newline")}));
}

void tst_AgentSupervisor::secretsInItsEnvironment()
{
    SecretVault vault;
    QVERIFY(vault.insert(QStringLiteral("AGENT_SECRET"), SecureBytes(QByteArrayView("s3cr3t-value"))).ok());
    AgentSpec spec {QStringLiteral("[ \"$AGENT_SECRET\" = s3cr3t-value ] && echo has-secret; echo \"$PLAIN\"")};
    spec.env.insert(QStringLiteral("PLAIN"), QStringLiteral("plain-value"));
    AgentSupervisor agent(m_sandbox->execd(), spec, &vault, m_clock, m_timer, testPolicy());
    agent.start();
    QVERIFY(waitFor(agent, AgentState::Exited));
    QCOMPARE(
        agent.recentLines(), (QStringList {QStringLiteral("out: has-secret"), QStringLiteral("out: plain-value")}));
}

// An engine that exits leaves its agent's run going (the supervisor's destructor does not interrupt
// it); the next engine takes it over by its id: running, polled, and stopped for real by stop().
void tst_AgentSupervisor::adoptsARunOfAnEarlierEngine()
{
    const AgentSpec spec {QStringLiteral("exec sleep 3598")};
    QString id;
    {
        AgentSupervisor first(m_sandbox->execd(), spec, nullptr, m_clock, m_timer, testPolicy());
        QSignalSpy started(&first, &AgentSupervisor::runStarted);
        first.start();
        QVERIFY(started.wait(15000));
        id = started.first().at(0).toString();
    }
    QVERIFY(!id.isEmpty());
    QCOMPARE(sandboxCount(QStringLiteral("[s]leep 3598")), 1);

    AgentSupervisor second(m_sandbox->execd(), spec, nullptr, m_clock, m_timer, testPolicy());
    QSignalSpy stopped(&second, &AgentSupervisor::stopped);
    second.adopt(id);
    QCOMPARE(second.state(), AgentState::Running);
    QVERIFY(second.adopted());
    QCOMPARE(second.commandId(), id);
    QCOMPARE(second.runs(), 1);
    // execd says it runs: looked at again after the poll interval, nothing started.
    QTRY_VERIFY_WITH_TIMEOUT(m_timer.isActive(), 10000);
    QCOMPARE(m_timer.delay(), std::chrono::milliseconds(5000));
    QVERIFY(m_timer.fire());
    QTRY_VERIFY_WITH_TIMEOUT(m_timer.isActive(), 10000);
    QCOMPARE(second.state(), AgentState::Running);
    QCOMPARE(sandboxCount(QStringLiteral("[s]leep 3598")), 1);

    second.stop();
    QCOMPARE(second.state(), AgentState::Stopping);
    QTRY_VERIFY_WITH_TIMEOUT((m_timer.fire(), stopped.count() == 1), 15000);
    QCOMPARE(second.state(), AgentState::Stopped);
    QVERIFY(!second.adopted());
    QCOMPARE(sandboxCount(QStringLiteral("[s]leep 3598")), 0);
    QCOMPARE(second.runs(), 1);
}

// A run that ended while no engine watched (or that execd does not know) counts as an unexpected
// end: the agent is started again after the backoff delay, a fresh run streamed as usual.
void tst_AgentSupervisor::anAdoptedRunThatEndedIsRestarted()
{
    auto ran = std::make_unique<AgentSupervisor>(
        m_sandbox->execd(), AgentSpec {QStringLiteral("exit 5")}, nullptr, m_clock, m_timer, testPolicy());
    QSignalSpy started(ran.get(), &AgentSupervisor::runStarted);
    ran->start();
    QVERIFY(started.wait(15000));
    const QString id = started.first().at(0).toString();
    QVERIFY(waitFor(*ran, AgentState::Waiting));
    ran.reset();

    for (const QString &adopted : {id, QStringLiteral("cmd-never-ran")}) {
        AgentSupervisor agent(
            m_sandbox->execd(), {QStringLiteral("echo again; exit 0")}, nullptr, m_clock, m_timer, testPolicy());
        QSignalSpy ended(&agent, &AgentSupervisor::runEnded);
        agent.adopt(adopted);
        QVERIFY(waitFor(agent, AgentState::Waiting));
        QCOMPARE(ended.first().at(0).toInt(), adopted == id ? 5 : -1);
        QCOMPARE(m_timer.delay(), std::chrono::milliseconds(500));
        QVERIFY(m_timer.fire());
        QVERIFY(waitFor(agent, AgentState::Exited));
        QCOMPARE(agent.runs(), 2);
        QCOMPARE(agent.recentLines(), QStringList {QStringLiteral("out: again")});
    }
}

QTEST_GUILESS_MAIN(tst_AgentSupervisor)
#include "tst_agentsupervisor.moc"
