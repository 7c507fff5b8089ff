// A session's sandbox launched on a real dockerd (the stand-in images): devcontainer.json chooses
// image, environment and postCreateCommand; launch secrets sealed by the hub reach the processes in
// the sandbox (environment and a tmpfs file) and, after a whole session — postCreate, an agent, a
// save, pause and resume — appear in no file of the engine, no temporary file, no git object
// (unreachable ones included), no bundle, no log line, no Docker config or log of the sandbox, no
// file of its writable layer, and no /proc/*/cmdline. Launches that cannot work are refused or
// undone: a mount outside the session directory, a worktree the sandbox cannot write, a failing
// postCreateCommand, secrets asked into a directory that is not tmpfs, a removal mid-launch, a
// launcher destroyed mid-create.
#include "canaryscan.h"
#include "core/logging.h"
#include "core/timer.h"
#include "crypto/random.h"
#include "crypto/x25519.h"
#include "launchsecretsealer.h"
#include "runtime/lifecycleclient.h"
#include "sandbox/agentsupervisor.h"
#include "sandbox/sandboxlauncher.h"
#include "secrets/launchsecrets.h"
#include "secrets/secretvault.h"
#include "testsession.h"

#include "runtimefixture.h"

#include <QBuffer>
#include <QCryptographicHash>
#include <QNetworkAccessManager>
#include <QSignalSpy>
#include <QTemporaryDir>

#include <unistd.h>

using namespace isolation;
using namespace isolation::test;

class tst_SandboxLaunch final : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void cleanupTestCase();
    void wholeSessionLeavesNoCanary();
    void mountOutsideTheSessionDirectoryRefused();
    void worktreeTheSandboxCannotWrite();
    void failingPostCreateUndoesTheLaunch();
    void secretsOnlyIntoTmpfs();
    void removeDuringLaunch();

private:
    Result<void, SandboxError> launch(
        SandboxLauncher &launcher, const LaunchRequest &request, const SecretVault *vault);
    QString worktree(const QString &session);
    int sandboxes() const; // containers the lifecycle stand-in made and that still exist
    int deletes() const;
    QStringList dockerFiles(const QString &container, const CanaryScan &scan, int *scanned);

    RuntimeFixture m_fixture;
    QString m_data;
    QNetworkAccessManager m_net;
    std::unique_ptr<RuntimeManager> m_runtime;
    std::unique_ptr<LifecycleClient> m_lifecycle;
    QString m_logFile;
    QDateTime m_started;
};

void tst_SandboxLaunch::initTestCase()
{
    m_started = QDateTime::currentDateTime().addSecs(-1);
    const QString missing = RuntimeFixture::missing();
    QVERIFY2(missing.isEmpty(), qPrintable(missing));
    m_runtime = m_fixture.makeManager(QStringLiteral("launch"), kLifecycle);
    m_data = m_fixture.root() + QStringLiteral("/launch");
    // The engine's log, where the engine keeps it (Paths: DIR/state/engine.log).
    QVERIFY(QDir().mkpath(m_data + QStringLiteral("/state")));
    m_logFile = m_data + QStringLiteral("/state/engine.log");
    QVERIFY(logging::install(m_logFile));
    m_runtime->start();
    QVERIFY(RuntimeFixture::waitHealthy(m_runtime.get()));
    m_lifecycle = std::make_unique<LifecycleClient>(
        &m_net, m_runtime->lifecycleUrl(), m_runtime->apiKey(), &m_runtime->mountPolicy());
}

void tst_SandboxLaunch::cleanupTestCase()
{
    m_lifecycle.reset();
    if (m_runtime)
        m_runtime->stop();
    m_runtime.reset();
    m_fixture.cleanup();
    logging::uninstall();
}

Result<void, SandboxError> tst_SandboxLaunch::launch(
    SandboxLauncher &launcher, const LaunchRequest &request, const SecretVault *vault)
{
    auto r = await<Result<void, SandboxError>>([&](auto done) { launcher.launch(request, vault, done); }, 180000);
    return r ? *r : Result<void, SandboxError>(SandboxError::failed(QStringLiteral("the launch never answered")));
}

QString tst_SandboxLaunch::worktree(const QString &session)
{
    const QString path = m_data + QStringLiteral("/sessions/") + session + QStringLiteral("/workspace");
    QDir().mkpath(path);
    return path;
}

int tst_SandboxLaunch::sandboxes() const
{
    const QString id = dockerInspect(RuntimeFixture::container(m_runtime.get())).value(QStringLiteral("Id")).toString();
    return containersWithLabel(QStringLiteral("io.isolation.standin.by=") + id.left(12)).size();
}

// The files Docker keeps for a container: its directory (config.v2.json, hostconfig.json, the
// json log...) except the tmpfs mounts under mounts/ (memory, where the secrets are meant to be),
// and its writable layer.
QStringList tst_SandboxLaunch::dockerFiles(const QString &container, const CanaryScan &scan, int *scanned)
{
    const QJsonObject inspected = dockerInspect(container);
    const QString id = inspected.value(QStringLiteral("Id")).toString();
    const QString root = QString::fromUtf8(
        docker({QStringLiteral("info"), QStringLiteral("-f"), QStringLiteral("{{.DockerRootDir}}")}).out.trimmed());
    const QString dir = root + QStringLiteral("/containers/") + id;
    if (id.isEmpty() || !QFile::exists(dir + QStringLiteral("/config.v2.json")))
        return {QStringLiteral("no config.v2.json for %1 in %2: nothing was checked").arg(container, dir)};
    QStringList hits;
    const int before = *scanned;
    const QFileInfoList entries = QDir(dir).entryInfoList(QDir::AllEntries | QDir::NoDotAndDotDot | QDir::Hidden);
    for (const QFileInfo &entry : entries) {
        if (entry.fileName() == QLatin1String("mounts"))
            continue;
        if (entry.isDir() && !entry.isSymLink()) {
            hits << scan.files(entry.filePath(), scanned);
        } else if (entry.isFile() && !entry.isSymLink()) {
            QFile f(entry.filePath());
            if (!f.open(QIODevice::ReadOnly))
                continue;
            ++*scanned;
            if (scan.holds(f.readAll()))
                hits << entry.filePath();
        }
    }
    if (*scanned - before < 3) // config.v2.json, hostconfig.json, the log at least
        hits << QStringLiteral("too few files in %1").arg(dir);
    const QString upper = inspected.value(QStringLiteral("GraphDriver"))
                              .toObject()
                              .value(QStringLiteral("Data"))
                              .toObject()
                              .value(QStringLiteral("UpperDir"))
                              .toString();
    if (!upper.isEmpty())
        hits << scan.files(upper, scanned);
    return hits;
}

void tst_SandboxLaunch::wholeSessionLeavesNoCanary()
{
    // Canaries, fresh for this run, sealed by the hub to this server for this session.
    const QByteArray token = "canary-token-" + randomBytes(16).toHex();
    const QByteArray apiKey = "canary-key-" + randomBytes(16).toHex();
    const CanaryScan scan({token, apiKey});
    const X25519KeyPair server = x25519Generate();
    const QString session = QStringLiteral("s-canary");
    auto sealed = hub::LaunchSecretSealer::seal(server.publicKey, QStringLiteral("srv-1"), session,
        QDateTime::currentSecsSinceEpoch() + 600,
        {{QStringLiteral("CANARY_TOKEN"), token}, {QStringLiteral("CANARY_KEY"), apiKey}});
    QVERIFY(sealed.ok());
    auto opened = LaunchSecrets::open(
        sealed.value(), server.privateKey.view(), QStringLiteral("srv-1"), session, QDateTime::currentSecsSinceEpoch());
    QVERIFY2(opened.ok(), opened.ok() ? "" : qPrintable(opened.error().message));
    SecretVault vault;
    vault.adopt(std::move(opened.value()));

    // The session: its git data and worktree as the engine lays them out, a devcontainer.json in it.
    SystemClock clock;
    TestSession ws = TestSession::open(m_data, session, clock);
    QVERIFY(ws.valid());
    QVERIFY(ws.write(QStringLiteral(".devcontainer/devcontainer.json"),
        QByteArray(R"({
        // The stand-in sandbox image, offline.
        "image": ")")
            + kSandbox.toUtf8() + QByteArray(R"(",
        "containerEnv": { "GREETING": "hello from devcontainer", },
        /* The secrets are there for postCreate too, without being printed. */
        "postCreateCommand": "echo \"$GREETING\" > greeting.txt; [ -n \"$CANARY_TOKEN\" ] && echo token-present >> greeting.txt",
    })")));
    auto request = LaunchRequest::fromWorkspace(session, ws.work, QStringLiteral("debian:12"));
    QVERIFY2(request.ok(), request.ok() ? "" : qPrintable(request.error().message));
    QCOMPARE(request.value().image, kSandbox);

    SandboxLauncher launcher(&m_net, m_lifecycle.get());
    QSignalSpy states(&launcher, &SandboxLauncher::stateChanged);
    auto launched = launch(launcher, request.value(), &vault);
    QVERIFY2(launched.ok(), launched.ok() ? "" : qPrintable(launched.error().message));
    QCOMPARE(launcher.state(), SandboxState::Running);
    QList<SandboxState> seen;
    for (const QList<QVariant> &s : states)
        seen << s.first().value<SandboxState>();
    QCOMPARE(seen,
        (QList<SandboxState> {
            SandboxState::Creating, SandboxState::Starting, SandboxState::Preparing, SandboxState::Running}));
    const QString container = QStringLiteral("isolation-standin-sandbox-") + launcher.sandboxId();
    QCOMPARE(ws.read(QStringLiteral("greeting.txt")), QByteArray("hello from devcontainer\ntoken-present\n"));

    // Inside: the value in the environment of the commands the engine starts, and in a tmpfs file
    // (0400); compared by hash so the value itself never comes back out.
    const QByteArray hash = QCryptographicHash::hash(token, QCryptographicHash::Sha256).toHex();
    auto inside = await<Result<CommandOutput, ExecdError>>([&](auto done) {
        launcher.execd()->runCommand(
            launcher.command(
                QStringLiteral("printf %s \"$CANARY_TOKEN\" | sha256sum; sha256sum < "
                               "/dev/shm/isolation-secrets/CANARY_TOKEN; stat -c %a "
                               "/dev/shm/isolation-secrets/CANARY_TOKEN; stat -f -c %T /dev/shm/isolation-secrets")),
            done);
    });
    QVERIFY(inside && inside->ok());
    QCOMPARE(inside->value().stdOut, QByteArray(hash + "  -\n" + hash + "  -\n400\ntmpfs\n"));
    // Not in the container's own environment: a command started without them does not see them.
    auto plain = await<Result<CommandOutput, ExecdError>>([&](auto done) {
        launcher.execd()->runCommand(
            QStringLiteral("echo \"${CANARY_TOKEN+set}${CANARY_TOKEN-unset} ${CANARY_KEY-unset} $GREETING\""), {},
            done);
    });
    QVERIFY(plain && plain->ok());
    QCOMPARE(plain->value().stdOut, QByteArray("unset unset hello from devcontainer\n"));

    // An agent using the secret, streamed; every command line read while it runs.
    SystemTimer timer;
    AgentSupervisor agent(launcher.execd(),
        {QStringLiteral("while true; do printf %s \"$CANARY_TOKEN\" | sha256sum; sleep 0.2; done")}, &vault, clock,
        timer);
    QSignalSpy lines(&agent, &AgentSupervisor::line);
    agent.start();
    QVERIFY(lines.wait(15000));
    QCOMPARE(lines.first().at(1).toString().toUtf8(), QByteArray(hash + "  -"));
    QStringList hits = scan.commandLines();
    // A careless log line: the redactor takes the value out before it is written.
    qCWarning(lcSandbox).noquote() << "the agent printed" << QString::fromUtf8(token) << "and"
                                   << QString::fromUtf8(apiKey);

    // A save of everything that changed: commit, merge, the segment (a plain git bundle).
    QVERIFY(ws.write(QStringLiteral("notes.txt"), "the session's notes\n"));
    const QByteArray segment = ws.save(QStringLiteral("a save"));
    QVERIFY(!segment.isEmpty());
    QVERIFY(!scan.holds(segment));
    QBuffer exported;
    QVERIFY(exported.open(QIODevice::WriteOnly));
    QVERIFY(ws.ws->exportBundle(exported).ok());
    QVERIFY(exported.data().size() > 100);
    QVERIFY(!scan.holds(exported.data()));

    // Pause and resume: the tmpfs file is still there afterwards.
    auto paused = await<Result<void, SandboxError>>([&](auto done) { launcher.pause(done); });
    QVERIFY(paused && paused->ok());
    QCOMPARE(launcher.state(), SandboxState::Paused);
    QCOMPARE(
        dockerInspect(container).value(QStringLiteral("State")).toObject().value(QStringLiteral("Status")).toString(),
        QStringLiteral("paused"));
    auto resumed = await<Result<void, SandboxError>>([&](auto done) { launcher.resume(done); });
    QVERIFY2(resumed && resumed->ok(), resumed && !resumed->ok() ? qPrintable(resumed->error().message) : "");
    QCOMPARE(launcher.state(), SandboxState::Running);
    auto again = await<Result<CommandOutput, ExecdError>>([&](auto done) {
        launcher.execd()->runCommand(QStringLiteral("sha256sum < /dev/shm/isolation-secrets/CANARY_TOKEN"), {}, done);
    });
    QVERIFY(again && again->ok());
    QCOMPARE(again->value().stdOut, QByteArray(hash + "  -\n"));
    hits << scan.commandLines();

    agent.stop();
    QTRY_COMPARE_WITH_TIMEOUT(agent.state(), AgentState::Stopped, 15000);

    // Now look everywhere, while the sandbox and its Docker files still exist.
    int files = 0;
    hits << scan.commandLines();
    hits << scan.files(m_fixture.root(), &files); // the engine's directories, its log and the worktree
    hits << scan.temporaryFiles(m_started, &files);
    int objects = 0;
    hits << scan.gitObjects(ws.gitDir, &objects);
    int dockerScanned = 0;
    hits << dockerFiles(container, scan, &dockerScanned);
    hits << dockerFiles(RuntimeFixture::container(m_runtime.get()), scan, &dockerScanned);
    const Run sandboxLog = docker({QStringLiteral("logs"), container});
    const Run lifecycleLog = docker({QStringLiteral("logs"), RuntimeFixture::container(m_runtime.get())});
    if (scan.holds(sandboxLog.out + sandboxLog.err) || scan.holds(lifecycleLog.out + lifecycleLog.err))
        hits << QStringLiteral("docker logs");
    // Every request of the session checked against the OpenAPI specs: commands with envs, the
    // agent's streamed command and its interrupt, the secrets' uploads, pause and resume.
    QTemporaryDir logDir;
    QFile requests(logDir.filePath(QStringLiteral("requests.log")));
    QVERIFY(requests.open(QIODevice::WriteOnly));
    requests.write(lifecycleLog.out + sandboxLog.out);
    requests.close();
    const Run checked = runProgram(QStringLiteral(ISOLATION_PYTHON3),
        {QStringLiteral(ISOLATION_CHECK_REQUESTS), QStringLiteral(ISOLATION_TEST_DATA "/opensandbox"),
            requests.fileName(), QStringLiteral("--min"), QStringLiteral("10")});
    QVERIFY2(checked.exitCode == 0, QByteArray(checked.out + checked.err).constData());
    const QByteArray id = launcher.sandboxId().toUtf8();
    const QList<QByteArray> expected {"execd POST /command", "execd DELETE /command", "execd POST /files/upload",
        QByteArray("lifecycle POST /v1/sandboxes/" + id + "/pause"),
        QByteArray("lifecycle POST /v1/sandboxes/" + id + "/resume")};
    for (const QByteArray &request : expected)
        QVERIFY2(checked.out.contains(request), qPrintable(QString::fromUtf8(checked.out)));
    QVERIFY2(hits.isEmpty(), qPrintable(hits.join(QLatin1Char('\n'))));
    qInfo() << "searched" << files << "files," << objects << "git objects," << dockerScanned << "Docker files";
    QVERIFY(objects > 5);
    QVERIFY(dockerScanned >= 4);

    // The log has the line, redacted.
    QFile log(m_logFile);
    QVERIFY(log.open(QIODevice::ReadOnly));
    QVERIFY(log.readAll().contains("the agent printed [redacted] and [redacted]"));

    auto removed = await<Result<void, SandboxError>>([&](auto done) { launcher.remove(done); });
    QVERIFY(removed && removed->ok());
    QCOMPARE(launcher.state(), SandboxState::Deleted);
    QCOMPARE(docker({QStringLiteral("inspect"), container}).exitCode, 1);
}

void tst_SandboxLaunch::mountOutsideTheSessionDirectoryRefused()
{
    const int before
        = RuntimeFixture::recordedRequests(m_runtime.get(), QStringLiteral("POST"), QStringLiteral("/v1/sandboxes"));
    const QString elsewhere = m_data + QStringLiteral("/elsewhere");
    QVERIFY(QDir().mkpath(elsewhere));
    LaunchRequest request;
    request.sessionId = QStringLiteral("s-out");
    request.worktree = elsewhere;
    request.image = kSandbox;
    SandboxLauncher launcher(&m_net, m_lifecycle.get());
    auto r = launch(launcher, request, nullptr);
    QVERIFY(!r.ok());
    QCOMPARE(r.error().code, SandboxError::Code::Refused);
    QVERIFY2(r.error().message.contains(QStringLiteral("refusing to mount")), qPrintable(r.error().message));
    QCOMPARE(launcher.state(), SandboxState::Failed);
    QCOMPARE(RuntimeFixture::recordedRequests(m_runtime.get(), QStringLiteral("POST"), QStringLiteral("/v1/sandboxes")),
        before);
}

void tst_SandboxLaunch::worktreeTheSandboxCannotWrite()
{
    // What a non-root engine with rootful Docker sees: the worktree belongs to a user that the
    // sandbox's root (without capabilities) is not. Here: owned by nobody.
    QCOMPARE(::geteuid(), uid_t(0)); // the docker tests run as root, as ./dev test does
    const QString work = worktree(QStringLiteral("s-nobody"));
    QVERIFY(::chown(QFile::encodeName(work).constData(), 65534, 65534) == 0);
    const int before = sandboxes();
    LaunchRequest request;
    request.sessionId = QStringLiteral("s-nobody");
    request.worktree = work;
    request.image = kSandbox;
    SandboxLauncher launcher(&m_net, m_lifecycle.get());
    auto r = launch(launcher, request, nullptr);
    QVERIFY(!r.ok());
    QCOMPARE(r.error().code, SandboxError::Code::Failed);
    QVERIFY2(r.error().message.contains(QStringLiteral("cannot write to /workspace")), qPrintable(r.error().message));
    QCOMPARE(launcher.state(), SandboxState::Failed);
    QTRY_COMPARE_WITH_TIMEOUT(sandboxes(), before, 30000); // the sandbox it made is gone again
    QVERIFY(QDir(work).entryList(QDir::AllEntries | QDir::NoDotAndDotDot | QDir::Hidden).isEmpty());
}

void tst_SandboxLaunch::failingPostCreateUndoesTheLaunch()
{
    const int before = sandboxes();
    LaunchRequest request;
    request.sessionId = QStringLiteral("s-post");
    request.worktree = worktree(QStringLiteral("s-post"));
    request.image = kSandbox;
    request.postCreateCommands = {QStringLiteral("echo fine"), QStringLiteral("echo broken >&2; exit 4"),
        QStringLiteral("echo never > never.txt")};
    SandboxLauncher launcher(&m_net, m_lifecycle.get());
    auto r = launch(launcher, request, nullptr);
    QVERIFY(!r.ok());
    QCOMPARE(r.error().code, SandboxError::Code::Failed);
    QVERIFY2(r.error().message.contains(QStringLiteral("postCreateCommand 2 failed with status 4")),
        qPrintable(r.error().message));
    QVERIFY(r.error().message.contains(QStringLiteral("broken")));
    QVERIFY(!QFile::exists(request.worktree + QStringLiteral("/never.txt")));
    QTRY_COMPARE_WITH_TIMEOUT(sandboxes(), before, 30000);
}

void tst_SandboxLaunch::secretsOnlyIntoTmpfs()
{
    const int before = sandboxes();
    SecretVault vault;
    const QByteArray value = "canary-" + randomBytes(8).toHex();
    QVERIFY(vault.insert(QStringLiteral("TOKEN"), SecureBytes(QByteArrayView(value))).ok());
    LaunchRequest request;
    request.sessionId = QStringLiteral("s-disk");
    request.worktree = worktree(QStringLiteral("s-disk"));
    request.image = kSandbox;
    request.secretsDirectory = QStringLiteral("/workspace/secrets"); // the bind-mounted worktree: a disk
    SandboxLauncher launcher(&m_net, m_lifecycle.get());
    auto r = launch(launcher, request, &vault);
    QVERIFY(!r.ok());
    QVERIFY2(r.error().message.contains(QStringLiteral("not tmpfs")), qPrintable(r.error().message));
    QVERIFY(!QFileInfo::exists(request.worktree + QStringLiteral("/secrets")));
    QVERIFY(CanaryScan({value}).files(request.worktree).isEmpty());
    QTRY_COMPARE_WITH_TIMEOUT(sandboxes(), before, 30000); // the sandbox it made is gone again

    // A secret's name in the container's environment is refused before anything is sent.
    request.secretsDirectory.clear();
    request.env.insert(QStringLiteral("TOKEN"), QStringLiteral("not the secret"));
    auto clash = launch(launcher, request, &vault);
    QVERIFY(!clash.ok());
    QCOMPARE(clash.error().code, SandboxError::Code::Refused);
}

int tst_SandboxLaunch::deletes() const
{
    // DELETE /v1/sandboxes/{id} requests the lifecycle stand-in accepted.
    const Run logs = docker({QStringLiteral("logs"), RuntimeFixture::container(m_runtime.get())});
    int n = 0;
    for (const QByteArray &line : logs.out.split('\n'))
        n += line.contains("ISOLATION-STANDIN-REQUEST ") && line.contains("\"method\":\"DELETE\"")
            && line.contains("\"path\":\"/v1/sandboxes/");
    return n;
}

void tst_SandboxLaunch::removeDuringLaunch()
{
    const int before = sandboxes();
    const int deletesBefore = deletes();
    LaunchRequest request;
    request.sessionId = QStringLiteral("s-gone");
    request.worktree = worktree(QStringLiteral("s-gone"));
    request.image = kSandbox;
    SandboxLauncher launcher(&m_net, m_lifecycle.get());
    std::optional<Result<void, SandboxError>> launched;
    launcher.launch(request, nullptr, [&launched](Result<void, SandboxError> r) { launched.emplace(std::move(r)); });
    QTRY_VERIFY_WITH_TIMEOUT(launcher.state() == SandboxState::Starting, 60000);
    auto removed = await<Result<void, SandboxError>>([&](auto done) { launcher.remove(done); });
    QVERIFY(removed && removed->ok());
    QTRY_VERIFY(launched.has_value());
    QCOMPARE(launched->error().code, SandboxError::Code::Cancelled);
    QCOMPARE(launcher.state(), SandboxState::Deleted);
    QCOMPARE(deletes(), deletesBefore + 1);
    QTRY_COMPARE_WITH_TIMEOUT(sandboxes(), before, 30000);

    // Removed while the create request is still out: what it made is deleted once it answers.
    std::optional<Result<void, SandboxError>> early;
    launcher.launch(request, nullptr, [&early](Result<void, SandboxError> r) { early.emplace(std::move(r)); });
    QCOMPARE(launcher.state(), SandboxState::Creating);
    auto removedEarly = await<Result<void, SandboxError>>([&](auto done) { launcher.remove(done); });
    QVERIFY(removedEarly && removedEarly->ok());
    QTRY_VERIFY(early.has_value());
    QCOMPARE(early->error().code, SandboxError::Code::Cancelled);
    QTRY_COMPARE_WITH_TIMEOUT(deletes(), deletesBefore + 2, 60000);
    QTRY_COMPARE_WITH_TIMEOUT(sandboxes(), before, 30000);

    // The launcher destroyed while the create request is still out: nothing would ever know the
    // sandbox, so it is deleted once the answer comes.
    {
        SandboxLauncher gone(&m_net, m_lifecycle.get());
        gone.launch(request, nullptr, [](Result<void, SandboxError>) { QFAIL("a destroyed launcher answered"); });
        QCOMPARE(gone.state(), SandboxState::Creating);
    }
    QTRY_COMPARE_WITH_TIMEOUT(deletes(), deletesBefore + 3, 60000);
    QTRY_COMPARE_WITH_TIMEOUT(sandboxes(), before, 30000);
}

QTEST_GUILESS_MAIN(tst_SandboxLaunch)
#include "tst_sandboxlaunch.moc"
