// execd is closed to everyone but the engine (issue 20, point 1), on a real dockerd with the
// stand-in runtime, which passes the create request's environment on and asks for execd's port
// on every interface, as the pinned runtime does. Two sessions' sandboxes A and B:
// - A's port is published on 127.0.0.1 only (the engine's Docker proxy); A's execd refuses a
//   request without a token, and one with B's token, from the host by that port and by its
//   container address; it answers A's token;
// - code in B, holding B's own token (it is in execd's environment, as with the real execd),
//   cannot reach A's container at all (inter-container traffic off on the engine's network), nor
//   A's published port by the host's address on that network;
// - the tokens appear in no line of the engine's log and no process's command line;
// - an engine restart re-derives the token and adopts A; a sandbox whose execd has no token (an
//   older engine's) is not adopted, and stays; a runtime without an API key launches nothing;
// - a restarted engine serves the adopted runtime container's Docker again.
#include "core/logging.h"
#include "runtime/execdclient.h"
#include "runtime/execdtoken.h"
#include "runtime/lifecycleclient.h"
#include "sandbox/sandboxlauncher.h"

#include "runtimefixture.h"

#include <QDirIterator>
#include <QNetworkAccessManager>

using namespace isolation;
using namespace isolation::test;

class tst_ExecdGuard final : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void cleanupTestCase();
    void closedToOtherTokensFromTheHost();
    void closedToTheOtherSandbox();
    void tokensInNoLogAndNoCommandLine();
    void adoptionRederivesTheToken();
    void openExecdIsNotAdopted();
    void noRuntimeKeyNoLaunch();
    void restartedEngineKeepsTheRuntimesDocker();

private:
    std::unique_ptr<SandboxLauncher> launch(const QString &session);
    int ping(const QUrl &base, const QByteArray &token);
    QString containerOf(const SandboxLauncher &launcher) const;
    CommandOutput run(SandboxLauncher &launcher, const QString &command);

    RuntimeFixture m_fixture;
    QString m_data;
    QString m_logFile;
    QNetworkAccessManager m_net;
    std::unique_ptr<RuntimeManager> m_runtime;
    std::unique_ptr<RuntimeManager> m_stopped; // the engine before a restart
    std::unique_ptr<LifecycleClient> m_lifecycle;
    std::unique_ptr<SandboxLauncher> m_a;
    std::unique_ptr<SandboxLauncher> m_b;
};

void tst_ExecdGuard::initTestCase()
{
    const QString missing = RuntimeFixture::missing();
    QVERIFY2(missing.isEmpty(), qPrintable(missing));
    m_runtime = m_fixture.makeManager(QStringLiteral("guard"), kLifecycle);
    m_data = m_fixture.root() + QStringLiteral("/guard");
    QVERIFY(QDir().mkpath(m_data + QStringLiteral("/state")));
    m_logFile = m_data + QStringLiteral("/state/engine.log");
    QVERIFY(logging::install(m_logFile));
    m_runtime->start();
    QVERIFY(RuntimeFixture::waitHealthy(m_runtime.get()));
    m_lifecycle = std::make_unique<LifecycleClient>(
        &m_net, m_runtime->lifecycleUrl(), m_runtime->apiKey(), &m_runtime->mountPolicy());
    m_a = launch(QStringLiteral("guard-a"));
    QVERIFY(m_a);
    m_b = launch(QStringLiteral("guard-b"));
    QVERIFY(m_b);
}

void tst_ExecdGuard::cleanupTestCase()
{
    for (auto *launcher : {m_a.get(), m_b.get()}) {
        if (launcher)
            await<Result<void, SandboxError>>([&](auto done) { launcher->remove(done); });
    }
    m_a.reset();
    m_b.reset();
    m_lifecycle.reset();
    if (m_runtime)
        m_runtime->stop();
    m_runtime.reset();
    m_stopped.reset();
    m_fixture.cleanup();
    logging::uninstall();
}

std::unique_ptr<SandboxLauncher> tst_ExecdGuard::launch(const QString &session)
{
    const QString worktree = m_data + QStringLiteral("/sessions/") + session + QStringLiteral("/workspace");
    QDir().mkpath(worktree);
    auto request = LaunchRequest::fromWorkspace(session, worktree, kSandbox);
    if (!request)
        return nullptr;
    request.value().secretsDirectory.clear();
    auto launcher = std::make_unique<SandboxLauncher>(&m_net, m_lifecycle.get());
    auto r = await<Result<void, SandboxError>>(
        [&](auto done) { launcher->launch(request.value(), nullptr, done); }, 180000);
    if (!r || !*r) {
        qWarning() << "launch of" << session << "failed:" << (r ? r->error().message : QStringLiteral("no answer"));
        return nullptr;
    }
    return launcher;
}

int tst_ExecdGuard::ping(const QUrl &base, const QByteArray &token)
{
    ExecdClient client(&m_net, base, token);
    client.setTimeout(10000);
    auto r = await<Result<bool, ExecdError>>([&](auto done) { client.ping(done); });
    if (!r)
        return -1;
    return r->ok() ? 200 : r->error().status;
}

QString tst_ExecdGuard::containerOf(const SandboxLauncher &launcher) const
{
    const QStringList ids = containersWithLabel(QStringLiteral("io.isolation.standin.sandbox=") + launcher.sandboxId());
    return ids.value(0);
}

CommandOutput tst_ExecdGuard::run(SandboxLauncher &launcher, const QString &command)
{
    auto r = await<Result<CommandOutput, ExecdError>>(
        [&](auto done) { launcher.execd()->runCommand(command, QStringLiteral("/"), done); });
    if (!r || !*r)
        return CommandOutput {{}, {}, r ? r->error().message.toUtf8() : QByteArray("no answer"), -1, {}};
    return r->value();
}

void tst_ExecdGuard::closedToOtherTokensFromTheHost()
{
    const QByteArray tokenA = m_a->execd()->accessToken();
    const QByteArray tokenB = m_b->execd()->accessToken();
    QCOMPARE(tokenA.size(), 43); // 32 bytes, base64url
    QVERIFY(tokenA != tokenB);
    QCOMPARE(tokenA, execdAccessToken(m_runtime->apiKey(), QStringLiteral("guard-a")));

    // By the published port, as the engine reaches it: on 127.0.0.1 only, although the runtime
    // asked Docker for every interface (the engine's Docker proxy moved it).
    const QList<QPair<QString, QString>> ports = publishedPorts(dockerInspect(containerOf(*m_a)));
    QCOMPARE(ports.size(), 1);
    QCOMPARE(ports.first().first, QStringLiteral("127.0.0.1"));
    for (const QString &address : listeners(ports.first().second))
        QCOMPARE(address, QStringLiteral("127.0.0.1:") + ports.first().second);
    QVERIFY(m_runtime->status()
                .value(QStringLiteral("dockerProxy"))
                .toObject()
                .value(QStringLiteral("rewrittenCreates"))
                .toInt()
        >= 2);
    const QUrl published = m_a->execd()->base();
    QCOMPARE(ping(published, {}), 401);
    QCOMPARE(ping(published, tokenB), 401);
    QCOMPARE(ping(published, tokenA.left(42) + (tokenA.endsWith('A') ? "B" : "A")), 401);
    QCOMPARE(ping(published, tokenA), 200);

    // By the container's own address on the engine's network.
    const QJsonObject inspected = dockerInspect(containerOf(*m_a));
    const QJsonObject networks
        = inspected.value(QStringLiteral("NetworkSettings")).toObject().value(QStringLiteral("Networks")).toObject();
    const QString network = RuntimeManager::sandboxNetwork();
    QVERIFY2(networks.contains(network), qPrintable(networks.keys().join(QLatin1Char(','))));
    const QString address = networks.value(network).toObject().value(QStringLiteral("IPAddress")).toString();
    QVERIFY(!address.isEmpty());
    const QUrl direct(QStringLiteral("http://%1:%2").arg(address).arg(ExecdClient::Port));
    QCOMPARE(ping(direct, {}), 401);
    QCOMPARE(ping(direct, tokenB), 401);
    QCOMPARE(ping(direct, tokenA), 200);
}

void tst_ExecdGuard::closedToTheOtherSandbox()
{
    const QString network = RuntimeManager::sandboxNetwork();
    const QJsonObject net
        = QJsonDocument::fromJson(docker({QStringLiteral("network"), QStringLiteral("inspect"), network}).out)
              .array()
              .first()
              .toObject();
    QCOMPARE(net.value(QStringLiteral("Options"))
                 .toObject()
                 .value(QStringLiteral("com.docker.network.bridge.enable_icc"))
                 .toString(),
        QStringLiteral("false"));
    const QString gateway = net.value(QStringLiteral("IPAM"))
                                .toObject()
                                .value(QStringLiteral("Config"))
                                .toArray()
                                .first()
                                .toObject()
                                .value(QStringLiteral("Gateway"))
                                .toString();
    QVERIFY(!gateway.isEmpty());
    const QString addressA = dockerInspect(containerOf(*m_a))
                                 .value(QStringLiteral("NetworkSettings"))
                                 .toObject()
                                 .value(QStringLiteral("Networks"))
                                 .toObject()
                                 .value(network)
                                 .toObject()
                                 .value(QStringLiteral("IPAddress"))
                                 .toString();

    // Code in B reads B's own token, as code in any sandbox can.
    const CommandOutput own = run(*m_b, QStringLiteral("printf %s \"$EXECD_ACCESS_TOKEN\""));
    QCOMPARE(own.stdOut, m_b->execd()->accessToken());

    // A's container cannot be reached from B at all. (busybox nc: its wget crashes on a refused
    // connection.) `ask HOST PORT [TOKEN]` prints the status line execd answers /ping with, if any.
    const QString ask
        = QStringLiteral("ask() { { printf 'GET /ping HTTP/1.1\\r\\nHost: %s\\r\\nConnection: close\\r\\n' \"$1\"; "
                         "[ -n \"$3\" ] && printf 'X-EXECD-ACCESS-TOKEN: %s\\r\\n' \"$3\"; printf '\\r\\n'; sleep 3; } "
                         "| nc -w 3 \"$1\" \"$2\" 2>&1 | head -1; }; ");
    const CommandOutput direct = run(
        *m_b, ask + QStringLiteral("ask %1 %2 \"$EXECD_ACCESS_TOKEN\"; echo end").arg(addressA).arg(ExecdClient::Port));
    QVERIFY2(direct.stdOut.endsWith("end\n"), direct.stdOut.constData());
    QVERIFY2(!direct.stdOut.contains("HTTP/1.1"), direct.stdOut.constData()); // not even an answer
    // A control: B's own execd answers B's token on its own address, so the silence above is the network's.
    const CommandOutput self
        = run(*m_b, ask + QStringLiteral("ask 127.0.0.1 %1 \"$EXECD_ACCESS_TOKEN\"").arg(ExecdClient::Port));
    QVERIFY2(self.stdOut.startsWith("HTTP/1.1 200"), self.stdOut.constData());

    // Nor through A's published port by the host's address on this network: the stand-in asks
    // for 0.0.0.0 as the pinned runtime does, and the engine's Docker proxy published it on
    // 127.0.0.1, which is the sandbox's own loopback from inside it.
    const int portA = m_a->execd()->base().port();
    const CommandOutput published
        = run(*m_b, ask + QStringLiteral("ask %1 %2 \"$EXECD_ACCESS_TOKEN\"; echo end").arg(gateway).arg(portA));
    QVERIFY2(published.stdOut.endsWith("end\n"), published.stdOut.constData());
    QVERIFY2(!published.stdOut.contains("HTTP/1.1"), published.stdOut.constData());
}

void tst_ExecdGuard::tokensInNoLogAndNoCommandLine()
{
    const QList<QByteArray> tokens {m_a->execd()->accessToken(), m_b->execd()->accessToken()};
    QList<QByteArray> forms;
    for (const QByteArray &t : tokens)
        forms << t << t.toBase64() << QByteArray::fromBase64(t, QByteArray::Base64UrlEncoding).toHex();
    qInfo() << "a line after the launches"; // the log is there and written
    QFile log(m_logFile);
    QVERIFY(log.open(QIODevice::ReadOnly));
    const QByteArray text = log.readAll();
    QVERIFY(text.contains("guard-a"));
    for (const QByteArray &form : std::as_const(forms))
        QVERIFY2(!text.contains(form), form.constData());

    int scanned = 0;
    QDirIterator procs(QStringLiteral("/proc"), QDir::Dirs | QDir::NoDotAndDotDot);
    while (procs.hasNext()) {
        const QString dir = procs.next();
        QFile cmdline(dir + QStringLiteral("/cmdline"));
        if (!cmdline.open(QIODevice::ReadOnly))
            continue;
        const QByteArray line = cmdline.readAll();
        ++scanned;
        for (const QByteArray &t : tokens)
            QVERIFY2(!line.contains(t), qPrintable(dir));
    }
    QVERIFY(scanned > 10);
}

void tst_ExecdGuard::adoptionRederivesTheToken()
{
    // A new launcher (an engine restarted) knows A only by its session and sandbox id.
    const QString worktree = m_data + QStringLiteral("/sessions/guard-a/workspace");
    auto request = LaunchRequest::fromWorkspace(QStringLiteral("guard-a"), worktree, kSandbox);
    QVERIFY(request);
    SandboxLauncher again(&m_net, m_lifecycle.get());
    auto r = await<Result<void, SandboxError>>(
        [&](auto done) { again.adopt(request.value(), m_a->sandboxId(), nullptr, done); });
    QVERIFY(r);
    QVERIFY2(*r, r->ok() ? "" : qPrintable(r->error().message));
    QCOMPARE(again.state(), SandboxState::Running);
    QCOMPARE(again.execd()->accessToken(), m_a->execd()->accessToken());
    QCOMPARE(ping(again.execd()->base(), again.execd()->accessToken()), 200);
}

void tst_ExecdGuard::openExecdIsNotAdopted()
{
    // What an engine before this change made: a sandbox whose execd has no token.
    const QString worktree = m_data + QStringLiteral("/sessions/guard-old/workspace");
    QVERIFY(QDir().mkpath(worktree));
    SandboxSpec spec;
    spec.image = kSandbox;
    spec.entrypoint = {QStringLiteral("tail"), QStringLiteral("-f"), QStringLiteral("/dev/null")};
    spec.mounts = {{QStringLiteral("workspace"), worktree, QStringLiteral("/workspace"), false}};
    auto created
        = await<Result<QJsonObject, LifecycleError>>([&](auto done) { m_lifecycle->createSandbox(spec, done); });
    QVERIFY(created && created->ok());
    const QString id = created->value().value(QStringLiteral("id")).toString();
    QVERIFY(!id.isEmpty());

    auto request = LaunchRequest::fromWorkspace(QStringLiteral("guard-old"), worktree, kSandbox);
    QVERIFY(request);
    SandboxLauncher launcher(&m_net, m_lifecycle.get());
    auto r = await<Result<void, SandboxError>>(
        [&](auto done) { launcher.adopt(request.value(), id, nullptr, done); }, 90000);
    QVERIFY(r);
    QVERIFY(!*r);
    QVERIFY2(r->error().message.contains(QStringLiteral("answers without its access token")),
        qPrintable(r->error().message));
    QCOMPARE(launcher.state(), SandboxState::Failed);
    // Not deleted: it may hold a member's running work.
    auto still = await<Result<QJsonObject, LifecycleError>>([&](auto done) { m_lifecycle->getSandbox(id, done); });
    QVERIFY(still && still->ok());
    await<Result<QJsonObject, LifecycleError>>([&](auto done) { m_lifecycle->deleteSandbox(id, done); });
}

void tst_ExecdGuard::noRuntimeKeyNoLaunch()
{
    LifecycleClient keyless(&m_net, m_runtime->lifecycleUrl(), {}, &m_runtime->mountPolicy());
    const QString worktree = m_data + QStringLiteral("/sessions/guard-keyless/workspace");
    QVERIFY(QDir().mkpath(worktree));
    auto request = LaunchRequest::fromWorkspace(QStringLiteral("guard-keyless"), worktree, kSandbox);
    QVERIFY(request);
    SandboxLauncher launcher(&m_net, &keyless);
    auto r = await<Result<void, SandboxError>>([&](auto done) { launcher.launch(request.value(), nullptr, done); });
    QVERIFY(r);
    QVERIFY(!*r);
    QVERIFY2(r->error().message.contains(QStringLiteral("no API key")), qPrintable(r->error().message));
    QVERIFY(launcher.sandboxId().isEmpty()); // nothing was asked of the runtime
}

// The runtime's container outlives the engine; the engine that comes back serves its Docker proxy
// again at the same place (a new socket in the mounted directory), and the adopted container
// creates sandboxes through it, published on 127.0.0.1 still.
void tst_ExecdGuard::restartedEngineKeepsTheRuntimesDocker()
{
    const QString before = RuntimeFixture::container(m_runtime.get());
    QVERIFY(!before.isEmpty());
    m_runtime->stop();
    m_stopped = std::move(m_runtime); // its mount policy stays, for the client A and B use
    m_runtime = m_fixture.makeManager(QStringLiteral("guard"), kLifecycle);
    m_runtime->start();
    QVERIFY(RuntimeFixture::waitHealthy(m_runtime.get()));
    QCOMPARE(RuntimeFixture::container(m_runtime.get()), before); // adopted, not made again
    // The launchers of A and B keep this client: it is pointed at the runtime as it is now.
    m_lifecycle->setEndpoint(m_runtime->lifecycleUrl(), m_runtime->apiKey());
    auto c = launch(QStringLiteral("guard-c"));
    QVERIFY(c);
    const auto ports = publishedPorts(dockerInspect(containerOf(*c)));
    QCOMPARE(ports.size(), 1);
    QCOMPARE(ports.first().first, QStringLiteral("127.0.0.1"));
    QCOMPARE(ping(c->execd()->base(), c->execd()->accessToken()), 200);
    await<Result<void, SandboxError>>([&](auto done) { c->remove(done); });
}

QTEST_GUILESS_MAIN(tst_ExecdGuard)
#include "tst_execdguard.moc"
