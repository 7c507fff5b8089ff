// The runtime on a real dockerd, with the offline stand-in images (tests/standin/, built by the
// standin_images fixture): the pinned-runtime machinery, the lifecycle and execd clients against
// the specs, and the security properties (API key, mounts, 127.0.0.1 only, digests).
#include "engine.h"
#include "hubprocess.h"
#include "pairing/credentialstore.h"
#include "runtime/execdclient.h"
#include "runtime/lifecycleclient.h"
#include "runtime/runtimemanager.h"

#include "dockertestsupport.h"

#include <QDateTime>
#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <QWebSocket>

#include <sys/stat.h>

using namespace isolation;
using namespace isolation::test;

namespace {

const QString kTag = QStringLiteral(ISOLATION_STANDIN_TAG);
const QString kLifecycle = QStringLiteral("isolation-standin/lifecycle:") + kTag;
const QString kExecd = QStringLiteral("isolation-standin/execd:") + kTag;
const QString kSandbox = QStringLiteral("isolation-standin/sandbox:") + kTag;
const QString kExecdLoader
    = QStringLiteral("/opt/isolation-standin/lib/ld-linux-x86-64.so.2 --library-path "
                     "/opt/isolation-standin/lib /opt/isolation-standin/bin/isolation-standin-execd");

// Runs an asynchronous operation to completion while the event loop turns.
template<typename R, typename F>
std::optional<R> await(F start, int timeoutMs = 60000)
{
    std::optional<R> out;
    start([&out](R r) { out.emplace(std::move(r)); });
    QElapsedTimer t;
    t.start();
    while (!out && t.elapsed() < timeoutMs)
        QTest::qWait(20);
    return out;
}

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
    void mountsRefusedBeforeSending_data();
    void mountsRefusedBeforeSending();
    void sandboxEndToEnd();
    void killedContainerIsRestarted();
    void digestMismatchRefused();
    void upgradeRemovesTheOldOnlyOnceTheNewIsHealthy();
    void cliStatusAndRestart();
    void stopDoesNotWaitForHealth();
    void apiKeyInNoLog();

private:
    std::unique_ptr<RuntimeManager> makeManager(const QString &dataDir, const QString &lifecycleImage);
    bool waitHealthy(RuntimeManager *m, int timeoutMs = 90000);
    int recordedRequests(const QString &method, const QString &path) const;
    QString lifecycleContainer() const;

    QTemporaryDir m_tmp;
    QString m_data;
    QNetworkAccessManager m_net;
    std::unique_ptr<RuntimeManager> m_runtime;
    QStringList m_engineIds; // every engine whose containers the test made
    QStringList m_tags; // image tags the test made
};

std::unique_ptr<RuntimeManager> tst_Runtime::makeManager(const QString &dataDir, const QString &lifecycleImage)
{
    QDir().mkpath(dataDir);
    RuntimeConfig c;
    c.dataDir = dataDir;
    c.sessionDir = dataDir + QStringLiteral("/sessions");
    c.lifecycleImage = lifecycleImage;
    c.execdImage = kExecd;
    c.healthIntervalMs = 500;
    auto m = std::make_unique<RuntimeManager>(c,
        std::make_unique<FileCredentialStore>(
            dataDir + QStringLiteral("/credentials.json"), QStringLiteral("runtime-api-key")));
    m_engineIds << m->engineId();
    return m;
}

bool tst_Runtime::waitHealthy(RuntimeManager *m, int timeoutMs)
{
    QElapsedTimer t;
    t.start();
    while (m->state() != RuntimeState::Healthy && t.elapsed() < timeoutMs)
        QTest::qWait(50);
    if (m->state() != RuntimeState::Healthy)
        qWarning() << "runtime not healthy:" << m->status();
    return m->state() == RuntimeState::Healthy;
}

QString tst_Runtime::lifecycleContainer() const
{
    return m_runtime->status().value(QStringLiteral("container")).toString();
}

int tst_Runtime::recordedRequests(const QString &method, const QString &path) const
{
    const Run logs = docker({QStringLiteral("logs"), lifecycleContainer()});
    int n = 0;
    for (const QByteArray &line : logs.out.split('\n')) {
        const qsizetype at = line.indexOf("ISOLATION-STANDIN-REQUEST ");
        if (at < 0)
            continue;
        const QJsonObject r = QJsonDocument::fromJson(line.mid(at + 26)).object();
        n += r.value(QStringLiteral("method")).toString() == method
            && r.value(QStringLiteral("path")).toString() == path;
    }
    return n;
}

void tst_Runtime::initTestCase()
{
    g_previous = qInstallMessageHandler(keepMessage);
    QVERIFY2(docker({QStringLiteral("info")}).exitCode == 0, "no Docker daemon answers (./dev test starts dockerd)");
    for (const QString &image : {kLifecycle, kExecd, kSandbox})
        QVERIFY2(docker({QStringLiteral("image"), QStringLiteral("inspect"), image}).exitCode == 0,
            qPrintable(image + QStringLiteral(" is missing: the standin_images fixture builds it")));
    m_data = QDir(m_tmp.path()).canonicalPath() + QStringLiteral("/a");
    m_runtime = makeManager(m_data, kLifecycle);
    m_runtime->start();
    QVERIFY(waitHealthy(m_runtime.get()));
}

void tst_Runtime::cleanupTestCase()
{
    if (m_runtime)
        m_runtime->stop();
    m_runtime.reset();
    for (const QString &id : std::as_const(m_engineIds)) {
        for (const QString &c : containersWithLabel(QStringLiteral("io.isolation.engine=") + id))
            docker({QStringLiteral("rm"), QStringLiteral("-f"), c});
    }
    for (const QString &tag : std::as_const(m_tags))
        docker({QStringLiteral("rmi"), QStringLiteral("-f"), tag});
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
    // The container as Docker sees it: labelled, hardened, the socket mounted, the config read-only.
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
    QVERIFY(binds.contains(QStringLiteral("/var/run/docker.sock:/var/run/docker.sock")));
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

void tst_Runtime::mountsRefusedBeforeSending_data()
{
    QTest::addColumn<QString>("hostPath");
    const QString sessions = m_data + QStringLiteral("/sessions");
    QDir().mkpath(sessions + QStringLiteral("/s-mounts"));
    QDir().mkpath(m_data + QStringLiteral("/elsewhere"));
    QFile::link(m_data + QStringLiteral("/elsewhere"), sessions + QStringLiteral("/s-mounts/escape"));
    QTest::newRow("outside the session directory") << m_data + QStringLiteral("/elsewhere");
    QTest::newRow("the Docker socket") << QStringLiteral("/var/run/docker.sock");
    QTest::newRow("a symlink escaping the session directory") << sessions + QStringLiteral("/s-mounts/escape");
    QTest::newRow("the root") << QStringLiteral("/");
}

void tst_Runtime::mountsRefusedBeforeSending()
{
    QFETCH(QString, hostPath);
    const int before = recordedRequests(QStringLiteral("POST"), QStringLiteral("/v1/sandboxes"));
    LifecycleClient client(&m_net, m_runtime->lifecycleUrl(), m_runtime->apiKey(), &m_runtime->mountPolicy());
    SandboxSpec spec;
    spec.image = kSandbox;
    spec.entrypoint = {QStringLiteral("sleep"), QStringLiteral("60")};
    spec.mounts = {{QStringLiteral("workspace"), hostPath, QStringLiteral("/workspace"), false}};
    auto r = await<Result<QJsonObject, LifecycleError>>([&](auto done) { client.createSandbox(spec, done); });
    QVERIFY(r);
    QVERIFY(!r->ok());
    QCOMPARE(r->error().code, LifecycleError::Code::Refused);
    QVERIFY2(r->error().message.contains(QStringLiteral("refusing to mount")), qPrintable(r->error().message));
    // Nothing reached the runtime.
    QCOMPARE(recordedRequests(QStringLiteral("POST"), QStringLiteral("/v1/sandboxes")), before);
}

void tst_Runtime::sandboxEndToEnd()
{
    const QString workspace = m_data + QStringLiteral("/sessions/s1");
    QVERIFY(QDir().mkpath(workspace));
    LifecycleClient lifecycle(&m_net, m_runtime->lifecycleUrl(), m_runtime->apiKey(), &m_runtime->mountPolicy());
    SandboxSpec spec;
    spec.image = kSandbox;
    spec.entrypoint = {QStringLiteral("sleep"), QStringLiteral("3600")};
    spec.env = {{QStringLiteral("GREETING"), QStringLiteral("hello")}};
    spec.metadata = {{QStringLiteral("session"), QStringLiteral("s1")}};
    spec.mounts = {{QStringLiteral("workspace"), workspace, QStringLiteral("/workspace"), false}};
    auto created = await<Result<QJsonObject, LifecycleError>>([&](auto done) { lifecycle.createSandbox(spec, done); });
    QVERIFY(created);
    QVERIFY2(created->ok(), created->ok() ? "" : qPrintable(created->error().message));
    const QString id = created->value().value(QStringLiteral("id")).toString();
    QVERIFY(!id.isEmpty());
    const QString container = QStringLiteral("isolation-standin-sandbox-") + id;

    QString state;
    for (int i = 0; i < 100 && state != QLatin1String("Running"); ++i) {
        auto got = await<Result<QJsonObject, LifecycleError>>([&](auto done) { lifecycle.getSandbox(id, done); });
        QVERIFY(got && got->ok());
        state = got->value().value(QStringLiteral("status")).toObject().value(QStringLiteral("state")).toString();
        QCOMPARE(got->value().value(QStringLiteral("metadata")).toObject().value(QStringLiteral("session")).toString(),
            QStringLiteral("s1"));
        if (state != QLatin1String("Running"))
            QTest::qWait(100);
    }
    QCOMPARE(state, QStringLiteral("Running"));

    auto endpoint = await<Result<QJsonObject, LifecycleError>>(
        [&](auto done) { lifecycle.endpoint(id, ExecdClient::Port, done); });
    QVERIFY(endpoint && endpoint->ok());
    const QString where = endpoint->value().value(QStringLiteral("endpoint")).toString();
    QVERIFY2(where.startsWith(QStringLiteral("127.0.0.1:")), qPrintable(where));
    ExecdClient execd(&m_net, QUrl(QStringLiteral("http://") + where));

    bool up = false;
    for (int i = 0; i < 150 && !up; ++i) {
        auto ping = await<Result<bool, ExecdError>>([&](auto done) { execd.ping(done); });
        up = ping && ping->ok();
        if (!up)
            QTest::qWait(100);
    }
    QVERIFY2(up, "execd in the sandbox never answered /ping");

    // A command with output on both streams and an exit code; the environment and the mount are there.
    auto run = await<Result<CommandOutput, ExecdError>>([&](auto done) {
        execd.runCommand(QStringLiteral("echo \"$GREETING from $(pwd)\"; echo oops >&2; exit 3"),
            QStringLiteral("/workspace"), done);
    });
    QVERIFY(run && run->ok());
    QCOMPARE(run->value().stdOut, QByteArray("hello from /workspace\n"));
    QCOMPARE(run->value().stdErr, QByteArray("oops\n"));
    QCOMPARE(run->value().exitCode, 3);
    QVERIFY(!run->value().id.isEmpty());

    // Upload lands in the session directory on the host (the bind mount), download gives it back.
    const QByteArray content = "hello from the engine\n";
    auto uploaded = await<Result<bool, ExecdError>>(
        [&](auto done) { execd.upload(QStringLiteral("/workspace/hello.txt"), content, 644, done); });
    QVERIFY(uploaded && uploaded->ok());
    QFile onHost(workspace + QStringLiteral("/hello.txt"));
    QVERIFY(onHost.open(QIODevice::ReadOnly));
    QCOMPARE(onHost.readAll(), content);
    auto downloaded = await<Result<QByteArray, ExecdError>>(
        [&](auto done) { execd.download(QStringLiteral("/workspace/hello.txt"), done); });
    QVERIFY(downloaded && downloaded->ok());
    QCOMPARE(downloaded->value(), content);
    auto missing = await<Result<QByteArray, ExecdError>>(
        [&](auto done) { execd.download(QStringLiteral("/workspace/none"), done); });
    QVERIFY(missing && !missing->ok());
    QCOMPARE(missing->error().status, 404);

    // HTTP through /proxy/8000 to busybox httpd inside the sandbox.
    auto httpd = await<Result<CommandOutput, ExecdError>>(
        [&](auto done) { execd.runCommand(QStringLiteral("httpd -p 127.0.0.1:8000 -h /workspace"), {}, done); });
    QVERIFY(httpd && httpd->ok());
    QByteArray served;
    for (int i = 0; i < 50 && served != content; ++i) {
        QNetworkReply *reply = m_net.get(QNetworkRequest(execd.proxyUrl(8000, QStringLiteral("/hello.txt"))));
        QTRY_VERIFY_WITH_TIMEOUT(reply->isFinished(), 10000);
        served = reply->readAll();
        reply->deleteLater();
        if (served != content)
            QTest::qWait(100);
    }
    QCOMPARE(served, content);

    // WebSocket through /proxy/8001 to an echo server inside the sandbox.
    auto echo = await<Result<CommandOutput, ExecdError>>([&](auto done) {
        execd.runCommand(
            kExecdLoader + QStringLiteral(" --echo-websocket 8001 </dev/null >/dev/null 2>&1 &"), {}, done);
    });
    QVERIFY(echo && echo->ok());
    QString answer;
    for (int i = 0; i < 50 && answer.isEmpty(); ++i) {
        QWebSocket ws;
        QUrl url = execd.proxyUrl(8001, QStringLiteral("/"));
        url.setScheme(QStringLiteral("ws"));
        ws.open(url);
        QSignalSpy connected(&ws, &QWebSocket::connected);
        if (!connected.wait(2000)) {
            QTest::qWait(100);
            continue;
        }
        QSignalSpy message(&ws, &QWebSocket::textMessageReceived);
        ws.sendTextMessage(QStringLiteral("hi"));
        QVERIFY(message.wait(5000));
        answer = message.first().first().toString();
        ws.close();
    }
    QCOMPARE(answer, QStringLiteral("echo: hi"));

    // Pause and resume.
    auto paused = await<Result<QJsonObject, LifecycleError>>([&](auto done) { lifecycle.pauseSandbox(id, done); });
    QVERIFY(paused && paused->ok());
    auto got = await<Result<QJsonObject, LifecycleError>>([&](auto done) { lifecycle.getSandbox(id, done); });
    QCOMPARE(got->value().value(QStringLiteral("status")).toObject().value(QStringLiteral("state")).toString(),
        QStringLiteral("Paused"));
    auto resumed = await<Result<QJsonObject, LifecycleError>>([&](auto done) { lifecycle.resumeSandbox(id, done); });
    QVERIFY(resumed && resumed->ok());
    got = await<Result<QJsonObject, LifecycleError>>([&](auto done) { lifecycle.getSandbox(id, done); });
    QCOMPARE(got->value().value(QStringLiteral("status")).toObject().value(QStringLiteral("state")).toString(),
        QStringLiteral("Running"));

    // Bind audit: every port the runtime and the sandbox publish is on 127.0.0.1, by Docker's
    // account and by what actually listens on the host.
    const QJsonObject sandbox = dockerInspect(container);
    QCOMPARE(sandbox.value(QStringLiteral("HostConfig")).toObject().value(QStringLiteral("CapDrop")).toArray(),
        QJsonArray {QStringLiteral("ALL")});
    QVERIFY(sandbox.value(QStringLiteral("HostConfig"))
                .toObject()
                .value(QStringLiteral("SecurityOpt"))
                .toArray()
                .contains(QStringLiteral("no-new-privileges")));
    int audited = 0;
    for (const QJsonObject &inspected : {dockerInspect(lifecycleContainer()), sandbox}) {
        for (const auto &[ip, port] : publishedPorts(inspected)) {
            QCOMPARE(ip, QStringLiteral("127.0.0.1"));
            const QStringList listening = listeners(port);
            QVERIFY2(!listening.isEmpty(), qPrintable(QStringLiteral("nothing listens on published port ") + port));
            for (const QString &address : listening)
                QCOMPARE(address, QStringLiteral("127.0.0.1:") + port);
            ++audited;
        }
    }
    QCOMPARE(audited, 2);

    // Every request the engine's clients sent, checked against the OpenAPI specs.
    const Run sandboxLogs = docker({QStringLiteral("logs"), container});
    const Run lifecycleLogs = docker({QStringLiteral("logs"), lifecycleContainer()});
    QTemporaryDir logDir;
    QFile log(logDir.filePath(QStringLiteral("requests.log")));
    QVERIFY(log.open(QIODevice::WriteOnly));
    log.write(lifecycleLogs.out + sandboxLogs.out);
    log.close();
    const Run checked = runProgram(QStringLiteral(ISOLATION_PYTHON3),
        {QStringLiteral(ISOLATION_CHECK_REQUESTS), QStringLiteral(ISOLATION_TEST_DATA "/opensandbox"), log.fileName(),
            QStringLiteral("--min"), QStringLiteral("15")});
    QVERIFY2(checked.exitCode == 0, QByteArray(checked.out + checked.err).constData());
    qInfo().noquote() << "requests checked against the specs:\n" << checked.out;
    QVERIFY(checked.out.contains("lifecycle POST /v1/sandboxes"));
    QVERIFY(checked.out.contains("execd POST /files/upload"));

    auto deleted = await<Result<QJsonObject, LifecycleError>>([&](auto done) { lifecycle.deleteSandbox(id, done); });
    QVERIFY(deleted && deleted->ok());
    auto gone = await<Result<QJsonObject, LifecycleError>>([&](auto done) { lifecycle.getSandbox(id, done); });
    QVERIFY(gone && !gone->ok());
    QCOMPARE(gone->error().status, 404);
    QCOMPARE(docker({QStringLiteral("inspect"), container}).exitCode, 1);
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
    m_tags << probe;
    QCOMPARE(docker({QStringLiteral("tag"), kLifecycle, probe}).exitCode, 0);
    const QString data = QDir(m_tmp.path()).canonicalPath() + QStringLiteral("/digest");
    auto first = makeManager(data, probe);
    first->start();
    QVERIFY(waitHealthy(first.get()));
    const QString recorded = first->status().value(QStringLiteral("digest")).toString();
    auto removed = await<Status>([&](auto done) { first->remove(done); });
    QVERIFY(removed && removed->ok());
    first.reset();

    // Same name, other content: refused before any container exists.
    QCOMPARE(docker({QStringLiteral("tag"), kSandbox, probe}).exitCode, 0);
    auto second = makeManager(data, probe);
    second->start();
    QTRY_VERIFY_WITH_TIMEOUT(second->state() == RuntimeState::Failed, 30000);
    QVERIFY2(second->reason().contains(QStringLiteral("differs from ") + recorded), qPrintable(second->reason()));
    QVERIFY(containersWithLabel(QStringLiteral("io.isolation.engine=") + second->engineId()).isEmpty());
    second->stop();
}

void tst_Runtime::upgradeRemovesTheOldOnlyOnceTheNewIsHealthy()
{
    const QString data = QDir(m_tmp.path()).canonicalPath() + QStringLiteral("/upgrade");
    auto before = makeManager(data, kLifecycle);
    before->start();
    QVERIFY(waitHealthy(before.get()));
    const QString oldName = before->status().value(QStringLiteral("container")).toString();
    const QString engineId = before->engineId();
    before->stop();
    before.reset();

    // A new pinned image: the same server, another image id.
    const QString next = QStringLiteral("isolation-standin/lifecycle:upgrade-") + kTag;
    const QString broken = QStringLiteral("isolation-standin/lifecycle:broken-") + kTag;
    m_tags << next << broken;
    QCOMPARE(docker({QStringLiteral("commit"), QStringLiteral("--change"),
                        QStringLiteral("LABEL io.isolation.test=upgrade"), oldName, next})
                 .exitCode,
        0);
    QCOMPARE(docker({QStringLiteral("commit"), QStringLiteral("--change"),
                        QStringLiteral("ENTRYPOINT [\"/nonexistent\"]"), oldName, broken})
                 .exitCode,
        0);

    auto upgraded = makeManager(data, next);
    bool sawUpgrading = false;
    connect(upgraded.get(), &RuntimeManager::stateChanged, this,
        [&] { sawUpgrading = sawUpgrading || upgraded->state() == RuntimeState::Upgrading; });
    const qint64 since = QDateTime::currentSecsSinceEpoch() - 1;
    upgraded->start();
    QVERIFY(waitHealthy(upgraded.get()));
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
    auto failing = makeManager(data, broken);
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
    QVERIFY(engine.runtime());
    m_engineIds << engine.runtime()->engineId();
    QVERIFY(waitHealthy(engine.runtime()));

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
    const QString startedBefore = engine.runtime()->status().value(QStringLiteral("startedAt")).toString();
    QTest::qWait(1100); // StartedAt has a resolution of a second in the status
    QCOMPARE(cli({QStringLiteral("runtime"), QStringLiteral("restart")}, &out), 0);
    QVERIFY2(out.contains("healthy"), out.constData());
    QVERIFY(engine.runtime()->status().value(QStringLiteral("startedAt")).toString() != startedBefore);
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
    m_tags << mute;
    const Run made = docker({QStringLiteral("create"), kSandbox, QStringLiteral("true")});
    QCOMPARE(made.exitCode, 0);
    const QString id = QString::fromUtf8(made.out.trimmed());
    QCOMPARE(docker({QStringLiteral("commit"), QStringLiteral("--change"),
                        QStringLiteral("ENTRYPOINT [\"sleep\", \"3600\"]"), id, mute})
                 .exitCode,
        0);
    docker({QStringLiteral("rm"), id});
    auto m = makeManager(QDir(m_tmp.path()).canonicalPath() + QStringLiteral("/mute"), mute);
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
