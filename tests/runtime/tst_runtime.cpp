// The pinned runtime on a real dockerd, with the offline stand-in images (tests/standin/, built by
// the standin_images fixture): start-up and hardening, the API key, restart when killed, digests,
// upgrade, stop, the CLI, and no secret in any log. Sandboxes: tst_sandbox.
#include "engineprobe.h"
#include "hubprocess.h"

#include "runtimefixture.h"

#include <QDateTime>
#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QTemporaryDir>
#include <QTest>

#include <sys/stat.h>

using namespace isolation;
using namespace isolation::test;

namespace {

// Every message the engine logs during the test, to look for secrets in.
QStringList g_messages;
QtMessageHandler g_previous = nullptr;
void keepMessage(QtMsgType type, const QMessageLogContext &context, const QString &message)
{
    g_messages.append(message);
    if (g_previous)
        g_previous(type, context, message);
}

int fileMode(const QString &path)
{
    struct stat st
    {
    };
    return ::stat(QFile::encodeName(path).constData(), &st) == 0 ? int(st.st_mode & 0777) : -1;
}

} // namespace

class tst_Runtime final : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void cleanupTestCase();
    void startsHealthy();
    void apiKeyEnforced_data();
    void apiKeyEnforced();
    void killedContainerIsRestarted();
    void digestMismatchRefused();
    void upgradeRemovesTheOldOnlyOnceTheNewIsHealthy();
    void cliStatusAndRestart();
    void stopDoesNotWaitForHealth();
    void apiKeyInNoLog();

private:
    QString lifecycleContainer() const { return RuntimeFixture::container(m_runtime.get()); }

    RuntimeFixture m_fixture;
    QString m_data;
    QNetworkAccessManager m_net;
    std::unique_ptr<RuntimeManager> m_runtime;
};

void tst_Runtime::initTestCase()
{
    g_previous = qInstallMessageHandler(keepMessage);
    const QString missing = RuntimeFixture::missing();
    QVERIFY2(missing.isEmpty(), qPrintable(missing));
    m_runtime = m_fixture.makeManager(QStringLiteral("a"), kLifecycle);
    m_data = m_fixture.root() + QStringLiteral("/a");
    m_runtime->start();
    QVERIFY(RuntimeFixture::waitHealthy(m_runtime.get()));
}

void tst_Runtime::cleanupTestCase()
{
    if (m_runtime)
        m_runtime->stop();
    m_runtime.reset();
    m_fixture.cleanup();
}

void tst_Runtime::startsHealthy()
{
    QTest::qWait(1200); // a couple of monitor ticks: what they report must agree with start-up's
    const QJsonObject s = m_runtime->status();
    QCOMPARE(s.value(QStringLiteral("state")).toString(), QStringLiteral("healthy"));
    QCOMPARE(s.value(QStringLiteral("image")).toString(), kLifecycle);
    QVERIFY(s.value(QStringLiteral("standin")).toBool());
    QCOMPARE(s.value(QStringLiteral("containerState")).toString(), QStringLiteral("running"));
    const QJsonObject image = dockerInspect(kLifecycle);
    QCOMPARE(s.value(QStringLiteral("digest")).toString(), image.value(QStringLiteral("Id")).toString());
    // The TOML holds the key: 0600, in a 0700 directory; the key is the one in the credential store.
    QCOMPARE(fileMode(m_data + QStringLiteral("/runtime/config.toml")), 0600);
    QCOMPARE(fileMode(m_data + QStringLiteral("/runtime")), 0700);
    QCOMPARE(fileMode(m_data + QStringLiteral("/credentials.runtime-api-key.json")), 0600);
    QFile key(m_data + QStringLiteral("/credentials.runtime-api-key.json"));
    QVERIFY(key.open(QIODevice::ReadOnly));
    QCOMPARE(key.readAll(), m_runtime->apiKey());
    QVERIFY(m_runtime->apiKey().size() >= 40);
    // The container as Docker sees it: labelled, hardened, the proxy mounted, the config read-only.
    const QJsonObject c = dockerInspect(lifecycleContainer());
    const QJsonObject labels = c.value(QStringLiteral("Config")).toObject().value(QStringLiteral("Labels")).toObject();
    QCOMPARE(labels.value(QStringLiteral("io.isolation.role")).toString(), QStringLiteral("lifecycle"));
    QCOMPARE(labels.value(QStringLiteral("io.isolation.engine")).toString(), m_runtime->engineId());
    const QJsonObject host = c.value(QStringLiteral("HostConfig")).toObject();
    QCOMPARE(host.value(QStringLiteral("CapDrop")).toArray(), QJsonArray {QStringLiteral("ALL")});
    QVERIFY(host.value(QStringLiteral("SecurityOpt")).toArray().contains(QStringLiteral("no-new-privileges")));
    QVERIFY(host.value(QStringLiteral("PidsLimit")).toInt() > 0);
    const QJsonArray binds = host.value(QStringLiteral("Binds")).toArray();
    QVERIFY(binds.contains(QString(m_data + QStringLiteral("/runtime:/etc/opensandbox:ro"))));
    // Docker only through the engine's proxy: its directory, never Docker's socket.
    QVERIFY(binds.contains(QString(m_data + QStringLiteral("/runtime-docker:/run/isolation-docker"))));
    for (const QJsonValue &b : binds)
        QVERIFY2(!b.toString().contains(QStringLiteral("docker.sock")), qPrintable(b.toString()));
    QVERIFY(c.value(QStringLiteral("Config"))
                .toObject()
                .value(QStringLiteral("Env"))
                .toArray()
                .contains(QStringLiteral("DOCKER_HOST=unix:///run/isolation-docker/docker.sock")));
    // The API key is on no command line and in no environment variable of the container.
    QVERIFY(!QJsonDocument(c).toJson().contains(m_runtime->apiKey()));
}

void tst_Runtime::apiKeyEnforced_data()
{
    QTest::addColumn<QByteArray>("key");
    QTest::addColumn<int>("status");
    QTest::newRow("no key") << QByteArray() << 401;
    QTest::newRow("wrong key") << QByteArray("not-the-key") << 401;
    QTest::newRow("the key with one byte changed") << QByteArray("!") << 401;
    QTest::newRow("the right key") << QByteArray("=") << 404; // authorised; no such sandbox
}

void tst_Runtime::apiKeyEnforced()
{
    QFETCH(QByteArray, key);
    QFETCH(int, status);
    if (key == "=")
        key = m_runtime->apiKey();
    else if (key == "!")
        key = m_runtime->apiKey().chopped(1) + (m_runtime->apiKey().endsWith('A') ? "B" : "A");
    QNetworkRequest r(QUrl(m_runtime->lifecycleUrl().toString() + QStringLiteral("/sandboxes/does-not-exist")));
    if (!key.isEmpty())
        r.setRawHeader("OPEN-SANDBOX-API-KEY", key);
    QNetworkReply *reply = m_net.get(r);
    QTRY_VERIFY_WITH_TIMEOUT(reply->isFinished(), 10000);
    QCOMPARE(reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt(), status);
    const QJsonObject body = QJsonDocument::fromJson(reply->readAll()).object();
    QVERIFY(body.contains(QStringLiteral("code")) && body.contains(QStringLiteral("message"))); // ErrorResponse
    reply->deleteLater();
    // /health needs no key.
    QNetworkReply *health = m_net.get(QNetworkRequest(
        QUrl(m_runtime->lifecycleUrl().toString().replace(QStringLiteral("/v1"), QStringLiteral("/health")))));
    QTRY_VERIFY_WITH_TIMEOUT(health->isFinished(), 10000);
    QCOMPARE(health->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt(), 200);
    health->deleteLater();
}

void tst_Runtime::killedContainerIsRestarted()
{
    const int before = m_runtime->restarts();
    const QString name = lifecycleContainer();
    QCOMPARE(docker({QStringLiteral("kill"), name}).exitCode, 0);
    QTRY_VERIFY_WITH_TIMEOUT(m_runtime->restarts() > before && m_runtime->state() == RuntimeState::Healthy, 60000);
    QCOMPARE(
        dockerInspect(name).value(QStringLiteral("State")).toObject().value(QStringLiteral("Running")).toBool(), true);
    QNetworkReply *health = m_net.get(QNetworkRequest(
        QUrl(m_runtime->lifecycleUrl().toString().replace(QStringLiteral("/v1"), QStringLiteral("/health")))));
    QTRY_VERIFY_WITH_TIMEOUT(health->isFinished(), 10000);
    QCOMPARE(health->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt(), 200);
    health->deleteLater();
}

void tst_Runtime::digestMismatchRefused()
{
    const QString probe = QStringLiteral("isolation-standin/digest-probe:") + kTag;
    m_fixture.addTag(probe);
    QCOMPARE(docker({QStringLiteral("tag"), kLifecycle, probe}).exitCode, 0);
    auto first = m_fixture.makeManager(QStringLiteral("digest"), probe);
    first->start();
    QVERIFY(RuntimeFixture::waitHealthy(first.get()));
    const QString recorded = first->status().value(QStringLiteral("digest")).toString();
    auto removed = await<Status>([&](auto done) { first->remove(done); });
    QVERIFY(removed && removed->ok());
    first.reset();

    // Same name, other content: refused before any container exists.
    QCOMPARE(docker({QStringLiteral("tag"), kSandbox, probe}).exitCode, 0);
    auto second = m_fixture.makeManager(QStringLiteral("digest"), probe);
    second->start();
    QTRY_VERIFY_WITH_TIMEOUT(second->state() == RuntimeState::Failed, 30000);
    QVERIFY2(second->reason().contains(QStringLiteral("differs from ") + recorded), qPrintable(second->reason()));
    QVERIFY(containersWithLabel(QStringLiteral("io.isolation.engine=") + second->engineId()).isEmpty());
    second->stop();
}

void tst_Runtime::upgradeRemovesTheOldOnlyOnceTheNewIsHealthy()
{
    const QString data = QStringLiteral("upgrade");
    auto before = m_fixture.makeManager(data, kLifecycle);
    before->start();
    QVERIFY(RuntimeFixture::waitHealthy(before.get()));
    const QString oldName = before->status().value(QStringLiteral("container")).toString();
    const QString engineId = before->engineId();
    before->stop();
    before.reset();

    // A new pinned image: the same server, another image id.
    const QString next = QStringLiteral("isolation-standin/lifecycle:upgrade-") + kTag;
    const QString broken = QStringLiteral("isolation-standin/lifecycle:broken-") + kTag;
    m_fixture.addTag(next);
    m_fixture.addTag(broken);
    QCOMPARE(docker({QStringLiteral("commit"), QStringLiteral("--change"),
                        QStringLiteral("LABEL io.isolation.test=upgrade"), oldName, next})
                 .exitCode,
        0);
    QCOMPARE(docker({QStringLiteral("commit"), QStringLiteral("--change"),
                        QStringLiteral("ENTRYPOINT [\"/nonexistent\"]"), oldName, broken})
                 .exitCode,
        0);

    auto upgraded = m_fixture.makeManager(data, next);
    bool sawUpgrading = false;
    connect(upgraded.get(), &RuntimeManager::stateChanged, this,
        [&] { sawUpgrading = sawUpgrading || upgraded->state() == RuntimeState::Upgrading; });
    const qint64 since = QDateTime::currentSecsSinceEpoch() - 1;
    upgraded->start();
    QVERIFY(RuntimeFixture::waitHealthy(upgraded.get()));
    QVERIFY(sawUpgrading);
    const QString newName = upgraded->status().value(QStringLiteral("container")).toString();
    QVERIFY(newName != oldName);
    // Docker's own record of the order: the new container started before the old one was removed.
    const Run events = docker({QStringLiteral("events"), QStringLiteral("--since"), QString::number(since),
        QStringLiteral("--until"), QString::number(QDateTime::currentSecsSinceEpoch() + 1), QStringLiteral("--filter"),
        QStringLiteral("label=io.isolation.engine=") + engineId, QStringLiteral("--format"),
        QStringLiteral("{{.Action}} {{.Actor.Attributes.name}}")});
    const QStringList lines = QString::fromUtf8(events.out).split(QLatin1Char('\n'), Qt::SkipEmptyParts);
    const qsizetype newStarted = lines.indexOf(QStringLiteral("start ") + newName);
    const qsizetype oldDestroyed = lines.indexOf(QStringLiteral("destroy ") + oldName);
    QVERIFY2(newStarted >= 0 && oldDestroyed > newStarted, qPrintable(lines.join(QStringLiteral(" | "))));
    const QStringList after = containersWithLabel(QStringLiteral("io.isolation.engine=") + engineId);
    QCOMPARE(after.size(), 1);
    QCOMPARE(docker({QStringLiteral("inspect"), oldName}).exitCode, 1); // the old one is gone
    QCOMPARE(dockerInspect(newName)
                 .value(QStringLiteral("Config"))
                 .toObject()
                 .value(QStringLiteral("Labels"))
                 .toObject()
                 .value(QStringLiteral("io.isolation.image-id"))
                 .toString(),
        dockerInspect(next).value(QStringLiteral("Id")).toString());
    upgraded->stop();
    upgraded.reset();

    // An upgrade that cannot become healthy leaves the running runtime alone.
    auto failing = m_fixture.makeManager(data, broken);
    failing->start();
    QTRY_VERIFY_WITH_TIMEOUT(failing->state() == RuntimeState::Failed, 60000);
    QVERIFY2(
        failing->reason().contains(QStringLiteral("previous runtime keeps running")), qPrintable(failing->reason()));
    failing->stop(); // joins any retry in flight
    QCOMPARE(containersWithLabel(QStringLiteral("io.isolation.engine=") + engineId), QStringList {after.first()});
    QVERIFY(dockerInspect(newName).value(QStringLiteral("State")).toObject().value(QStringLiteral("Running")).toBool());
}

void tst_Runtime::cliStatusAndRestart()
{
    // The engine creates its runtime at start; the CLI reads and restarts it over the LocalAPI.
    QTemporaryDir home;
    qunsetenv("ISOLATION_RUNTIME");
    qputenv("ISOLATION_RUNTIME_LIFECYCLE_IMAGE", kLifecycle.toUtf8());
    qputenv("ISOLATION_RUNTIME_EXECD_IMAGE", kExecd.toUtf8());
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert(QStringLiteral("ISOLATION_HOME"), home.path());
    EngineOptions options;
    options.credentialStore = CredentialStoreKind::File;
    Engine engine(Paths::resolve(env).value(), options);
    QVERIFY(engine.start().ok());
    QVERIFY(EngineProbe::runtime(engine));
    m_fixture.addEngine(EngineProbe::runtime(engine)->engineId());
    QVERIFY(RuntimeFixture::waitHealthy(EngineProbe::runtime(engine)));

    auto cli = [&](const QStringList &args, QByteArray *out) {
        QProcess p;
        p.setProcessEnvironment(env);
        p.start(serverBinary(), args);
        QElapsedTimer t;
        t.start();
        while (p.state() != QProcess::NotRunning && t.elapsed() < 90000)
            QTest::qWait(20);
        *out = p.readAllStandardOutput() + p.readAllStandardError();
        return p.exitCode();
    };
    QByteArray out;
    QCOMPARE(cli({QStringLiteral("runtime"), QStringLiteral("status"), QStringLiteral("--json")}, &out), 0);
    const QJsonObject s = QJsonDocument::fromJson(out).object();
    QCOMPARE(s.value(QStringLiteral("state")).toString(), QStringLiteral("healthy"));
    QCOMPARE(s.value(QStringLiteral("image")).toString(), kLifecycle);
    QVERIFY(s.value(QStringLiteral("digest")).toString().startsWith(QStringLiteral("sha256:")));
    QCOMPARE(s.value(QStringLiteral("containerState")).toString(), QStringLiteral("running"));
    QVERIFY(s.contains(QStringLiteral("uptimeSeconds")));
    QCOMPARE(cli({QStringLiteral("runtime"), QStringLiteral("status")}, &out), 0);
    QVERIFY2(out.contains("offline stand-in"), out.constData());
    QVERIFY(out.contains("Uptime:"));
    const QString startedBefore = EngineProbe::runtime(engine)->status().value(QStringLiteral("startedAt")).toString();
    QTest::qWait(1100); // StartedAt has a resolution of a second in the status
    QCOMPARE(cli({QStringLiteral("runtime"), QStringLiteral("restart")}, &out), 0);
    QVERIFY2(out.contains("healthy"), out.constData());
    QVERIFY(EngineProbe::runtime(engine)->status().value(QStringLiteral("startedAt")).toString() != startedBefore);
    // The engine's status carries the runtime too (and the heartbeat reports its state).
    QCOMPARE(engine.status().value(QStringLiteral("runtime")).toObject().value(QStringLiteral("state")).toString(),
        QStringLiteral("healthy"));
    engine.stop();
    qunsetenv("ISOLATION_RUNTIME_LIFECYCLE_IMAGE");
    qunsetenv("ISOLATION_RUNTIME_EXECD_IMAGE");
}

void tst_Runtime::stopDoesNotWaitForHealth()
{
    // A lifecycle image that runs but never answers /health: stop() (the GUI thread, in the tray)
    // must not wait out the start timeout.
    const QString mute = QStringLiteral("isolation-standin/mute:") + kTag;
    m_fixture.addTag(mute);
    const Run made = docker({QStringLiteral("create"), kSandbox, QStringLiteral("true")});
    QCOMPARE(made.exitCode, 0);
    const QString id = QString::fromUtf8(made.out.trimmed());
    QCOMPARE(docker({QStringLiteral("commit"), QStringLiteral("--change"),
                        QStringLiteral("ENTRYPOINT [\"sleep\", \"3600\"]"), id, mute})
                 .exitCode,
        0);
    docker({QStringLiteral("rm"), id});
    auto m = m_fixture.makeManager(QStringLiteral("mute"), mute);
    m->start();
    QTRY_VERIFY_WITH_TIMEOUT(
        !containersWithLabel(QStringLiteral("io.isolation.engine=") + m->engineId()).isEmpty(), 30000);
    QTest::qWait(500);
    QCOMPARE(m->state(), RuntimeState::Starting);
    QElapsedTimer t;
    t.start();
    m->stop();
    QVERIFY2(t.elapsed() < 5000, qPrintable(QString::number(t.elapsed())));
}

void tst_Runtime::apiKeyInNoLog()
{
    const QByteArray key = m_runtime->apiKey();
    QVERIFY(!key.isEmpty());
    QVERIFY(!g_messages.isEmpty());
    for (const QString &m : std::as_const(g_messages))
        QVERIFY2(!m.contains(QString::fromUtf8(key)), qPrintable(m));
    // Nor in what the runtime's container printed (the stand-in logs every request it accepted).
    const Run logs = docker({QStringLiteral("logs"), lifecycleContainer()});
    QVERIFY(logs.out.contains("ISOLATION-STANDIN-REQUEST"));
    QVERIFY(!logs.out.contains(key) && !logs.err.contains(key));
}

QTEST_GUILESS_MAIN(tst_Runtime)
#include "tst_runtime.moc"
