// Sandboxes through the engine's clients, on a real dockerd with the offline stand-in images
// (tests/standin/, built by the standin_images fixture): host mounts refused before anything is
// sent, a sandbox end to end (execd commands, files, HTTP and WebSocket through /proxy), the bind
// audit, and every request the clients sent checked against the OpenSandbox specs.
#include "runtime/execdclient.h"
#include "runtime/lifecycleclient.h"

#include "runtimefixture.h"

#include <QFile>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QWebSocket>

using namespace isolation;
using namespace isolation::test;

namespace {

const QString kExecdLoader
    = QStringLiteral("/opt/isolation-standin/lib/ld-linux-x86-64.so.2 --library-path "
                     "/opt/isolation-standin/lib /opt/isolation-standin/bin/isolation-standin-execd");

} // namespace

class tst_Sandbox final : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void cleanupTestCase();
    void mountsRefusedBeforeSending_data();
    void mountsRefusedBeforeSending();
    void sandboxEndToEnd();

private:
    RuntimeFixture m_fixture;
    QString m_data;
    QNetworkAccessManager m_net;
    std::unique_ptr<RuntimeManager> m_runtime;
};

void tst_Sandbox::initTestCase()
{
    const QString missing = RuntimeFixture::missing();
    QVERIFY2(missing.isEmpty(), qPrintable(missing));
    m_runtime = m_fixture.makeManager(QStringLiteral("sandbox"), kLifecycle);
    m_data = m_fixture.root() + QStringLiteral("/sandbox");
    m_runtime->start();
    QVERIFY(RuntimeFixture::waitHealthy(m_runtime.get()));
}

void tst_Sandbox::cleanupTestCase()
{
    if (m_runtime)
        m_runtime->stop();
    m_runtime.reset();
    m_fixture.cleanup();
}

void tst_Sandbox::mountsRefusedBeforeSending_data()
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

void tst_Sandbox::mountsRefusedBeforeSending()
{
    QFETCH(QString, hostPath);
    const int before
        = RuntimeFixture::recordedRequests(m_runtime.get(), QStringLiteral("POST"), QStringLiteral("/v1/sandboxes"));
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
    QCOMPARE(RuntimeFixture::recordedRequests(m_runtime.get(), QStringLiteral("POST"), QStringLiteral("/v1/sandboxes")),
        before);
}

void tst_Sandbox::sandboxEndToEnd()
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
    // Its status afterwards (how an engine learns of a run started before it restarted).
    auto status = await<Result<CommandStatus, ExecdError>>(
        [&](auto done) { execd.commandStatus(run->value().id, done); });
    QVERIFY(status && status->ok());
    QVERIFY(!status->value().running);
    QCOMPARE(status->value().exitCode, std::optional<int>(3));
    auto unknown = await<Result<CommandStatus, ExecdError>>(
        [&](auto done) { execd.commandStatus(QStringLiteral("cmd-none"), done); });
    QVERIFY(unknown && !unknown->ok());
    QCOMPARE(unknown->error().status, 404);

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
    // account and by what actually listens on the host. The stand-in lifecycle asks for the
    // sandbox's execd on 0.0.0.0, as the pinned runtime does: the engine's Docker proxy moved it.
    const QJsonObject sandbox = dockerInspect(container);
    QCOMPARE(sandbox.value(QStringLiteral("HostConfig")).toObject().value(QStringLiteral("CapDrop")).toArray(),
        QJsonArray {QStringLiteral("ALL")});
    QVERIFY(sandbox.value(QStringLiteral("HostConfig"))
                .toObject()
                .value(QStringLiteral("SecurityOpt"))
                .toArray()
                .contains(QStringLiteral("no-new-privileges")));
    int audited = 0;
    for (const QJsonObject &inspected : {dockerInspect(RuntimeFixture::container(m_runtime.get())), sandbox}) {
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
    const Run lifecycleLogs = docker({QStringLiteral("logs"), RuntimeFixture::container(m_runtime.get())});
    QTemporaryDir logDir;
    QFile log(logDir.filePath(QStringLiteral("requests.log")));
    QVERIFY(log.open(QIODevice::WriteOnly));
    log.write(lifecycleLogs.out + sandboxLogs.out);
    log.close();
    const Run checked = runProgram(QStringLiteral(ISOLATION_PYTHON3),
        {QStringLiteral(ISOLATION_CHECK_REQUESTS), QStringLiteral(ISOLATION_TEST_DATA "/opensandbox"), log.fileName(),
            QStringLiteral("--min"), QStringLiteral("14")});
    QVERIFY2(checked.exitCode == 0, QByteArray(checked.out + checked.err).constData());
    qInfo().noquote() << "requests checked against the specs:\n" << checked.out;
    QVERIFY(checked.out.contains("lifecycle POST /v1/sandboxes"));
    QVERIFY(checked.out.contains("execd POST /files/upload"));
    QVERIFY(checked.out.contains("execd GET /command/status/"));

    auto deleted = await<Result<QJsonObject, LifecycleError>>([&](auto done) { lifecycle.deleteSandbox(id, done); });
    QVERIFY(deleted && deleted->ok());
    auto gone = await<Result<QJsonObject, LifecycleError>>([&](auto done) { lifecycle.getSandbox(id, done); });
    QVERIFY(gone && !gone->ok());
    QCOMPARE(gone->error().status, 404);
    QCOMPARE(docker({QStringLiteral("inspect"), container}).exitCode, 1);
}

QTEST_GUILESS_MAIN(tst_Sandbox)
#include "tst_sandbox.moc"
