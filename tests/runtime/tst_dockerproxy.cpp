// The engine's Docker proxy (engine/runtime/dockerproxy.h) between the docker CLI and a real dockerd:
// everything the CLI does works through it — plain calls, a run that attaches (the connection
// switches protocols), a copy in and out of a 16 MiB file (a streamed, chunked body each way) — and
// a container asked to publish on every interface is published on 127.0.0.1. The socket is the
// user's alone; a request that is not HTTP gets an error and the proxy goes on serving; without a
// Docker to reach, a client is told so.
#include "runtime/dockerproxy.h"

#include "crypto/random.h"
#include "runtimefixture.h"

#include <QCryptographicHash>
#include <QFileInfo>
#include <QLocalSocket>
#include <QTemporaryDir>

#include <sys/stat.h>
#include <unistd.h>

using namespace isolation;
using namespace isolation::test;

class tst_DockerProxy final : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void cleanupTestCase();
    void rewriteRules_data();
    void rewriteRules();
    void socketIsTheUsersAlone();
    void cliThroughTheProxy();
    void publishedOnLoopback();
    void attachAndStreamedCopies();
    void garbageIsRefusedAndServingGoesOn();
    void dockerUnreachableIsSaid();

private:
    // The docker CLI through the proxy, run while the event loop turns (the proxy lives on it).
    Run viaProxy(const QStringList &args, int timeoutMs = 120000);
    // One request written raw to a unix socket, and all that came back until it closed (5 s at most).
    static QByteArray exchange(const QString &socket, const QByteArray &request);

    QTemporaryDir m_dir;
    std::unique_ptr<DockerProxy> m_proxy;
    QStringList m_containers;
};

void tst_DockerProxy::initTestCase()
{
    const QString missing = RuntimeFixture::missing();
    QVERIFY2(missing.isEmpty(), qPrintable(missing));
    m_proxy = std::make_unique<DockerProxy>(QStringLiteral("/var/run/docker.sock"));
    auto listening = m_proxy->listen(m_dir.filePath(QStringLiteral("runtime-docker")));
    QVERIFY2(listening, listening ? "" : qPrintable(listening.error().message));
}

void tst_DockerProxy::cleanupTestCase()
{
    for (const QString &c : std::as_const(m_containers))
        docker({QStringLiteral("rm"), QStringLiteral("-f"), c});
    m_proxy.reset();
}

Run tst_DockerProxy::viaProxy(const QStringList &args, int timeoutMs)
{
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert(QStringLiteral("DOCKER_HOST"), QStringLiteral("unix://") + m_proxy->socketPath());
    return runProgramTurning(QStringLiteral("docker"), args, env, timeoutMs);
}

QByteArray tst_DockerProxy::exchange(const QString &socket, const QByteArray &request)
{
    QLocalSocket s;
    s.connectToServer(socket);
    if (!s.waitForConnected(2000))
        return "not connected: " + s.errorString().toUtf8();
    s.write(request);
    QByteArray answer;
    QElapsedTimer t;
    t.start();
    while (s.state() == QLocalSocket::ConnectedState && t.elapsed() < 5000) {
        QTest::qWait(10);
        answer += s.readAll();
    }
    return answer + s.readAll();
}

void tst_DockerProxy::rewriteRules_data()
{
    QTest::addColumn<QByteArray>("body");
    QTest::addColumn<bool>("changed");
    QTest::addColumn<QStringList>("hostIps");
    const auto create = [](const QStringList &ips) {
        QJsonArray bindings;
        for (const QString &ip : ips)
            bindings.append(QJsonObject {{QStringLiteral("HostIp"), ip}, {QStringLiteral("HostPort"), QString()}});
        return QJsonDocument(QJsonObject {{QStringLiteral("Image"), QStringLiteral("x")},
                                 {QStringLiteral("HostConfig"),
                                     QJsonObject {{QStringLiteral("PortBindings"),
                                         QJsonObject {{QStringLiteral("44772/tcp"), bindings}}}}}})
            .toJson(QJsonDocument::Compact);
    };
    const QString lo = QStringLiteral("127.0.0.1");
    QTest::newRow("0.0.0.0, as the pinned runtime asks")
        << create({QStringLiteral("0.0.0.0")}) << true << QStringList {lo};
    QTest::newRow("no address") << create({QString()}) << true << QStringList {lo};
    QTest::newRow("::") << create({QStringLiteral("::")}) << true << QStringList {lo};
    QTest::newRow("an interface's address") << create({QStringLiteral("192.168.1.20")}) << true << QStringList {lo};
    QTest::newRow("loopback already") << create({lo, QStringLiteral("::1")}) << false
                                      << QStringList {lo, QStringLiteral("::1")};
    QTest::newRow("mixed") << create({lo, QStringLiteral("0.0.0.0")}) << true << QStringList {lo, lo};
    QTest::newRow("no bindings") << QByteArray(R"({"Image":"x","HostConfig":{}})") << false << QStringList();
    QTest::newRow("not JSON") << QByteArray("{\"Image\":") << false << QStringList();
}

void tst_DockerProxy::rewriteRules()
{
    QFETCH(QByteArray, body);
    QFETCH(bool, changed);
    QFETCH(QStringList, hostIps);
    const QByteArray before = body;
    QCOMPARE(publishOnLoopback(&body), changed);
    if (!changed)
        QCOMPARE(body, before);
    QStringList got;
    const QJsonObject ports = QJsonDocument::fromJson(body)
                                  .object()
                                  .value(QStringLiteral("HostConfig"))
                                  .toObject()
                                  .value(QStringLiteral("PortBindings"))
                                  .toObject();
    for (const QJsonValue &b : ports.value(QStringLiteral("44772/tcp")).toArray())
        got << b.toObject().value(QStringLiteral("HostIp")).toString();
    QCOMPARE(got, hostIps);
    QCOMPARE(QJsonDocument::fromJson(body).object().value(QStringLiteral("Image")).toString(),
        changed ? QStringLiteral("x")
                : QJsonDocument::fromJson(before).object().value(QStringLiteral("Image")).toString());
}

void tst_DockerProxy::socketIsTheUsersAlone()
{
    struct stat st
    {
    };
    QCOMPARE(::stat(QFile::encodeName(m_proxy->directory()).constData(), &st), 0);
    QCOMPARE(st.st_mode & 0777, mode_t(0700));
    QCOMPARE(::stat(QFile::encodeName(m_proxy->socketPath()).constData(), &st), 0);
    QVERIFY(S_ISSOCK(st.st_mode));
    QCOMPARE(st.st_mode & 077, mode_t(0)); // nothing for the group or others
    QCOMPARE(st.st_uid, ::getuid());
}

void tst_DockerProxy::cliThroughTheProxy()
{
    const Run version
        = viaProxy({QStringLiteral("version"), QStringLiteral("--format"), QStringLiteral("{{.Server.APIVersion}}")});
    QVERIFY2(version.exitCode == 0, version.err.constData());
    QVERIFY(!version.out.trimmed().isEmpty());
    const Run images = viaProxy({QStringLiteral("image"), QStringLiteral("inspect"), kSandbox});
    QVERIFY2(images.exitCode == 0, images.err.constData());
}

void tst_DockerProxy::publishedOnLoopback()
{
    const int before = m_proxy->rewrittenCreates();
    const Run run
        = viaProxy({QStringLiteral("run"), QStringLiteral("-d"), QStringLiteral("-p"), QStringLiteral("0.0.0.0::8000"),
            QStringLiteral("-p"), QStringLiteral(":8001"), kSandbox, QStringLiteral("sleep"), QStringLiteral("300")});
    QVERIFY2(run.exitCode == 0, run.err.constData());
    const QString id = QString::fromUtf8(run.out.trimmed());
    m_containers << id;
    QCOMPARE(m_proxy->rewrittenCreates(), before + 1);
    // Docker's own account, asked without the proxy, and what listens on the host.
    const auto ports = publishedPorts(dockerInspect(id));
    QCOMPARE(ports.size(), 2);
    for (const auto &[ip, port] : ports) {
        QCOMPARE(ip, QStringLiteral("127.0.0.1"));
        const QStringList listening = listeners(port);
        QVERIFY(!listening.isEmpty());
        for (const QString &address : listening)
            QCOMPARE(address, QStringLiteral("127.0.0.1:") + port);
    }
}

void tst_DockerProxy::attachAndStreamedCopies()
{
    // An attached run: the CLI's attach request switches protocols, then the output comes back.
    const Run attached = viaProxy({QStringLiteral("run"), QStringLiteral("--rm"), kSandbox, QStringLiteral("sh"),
        QStringLiteral("-c"), QStringLiteral("echo through the proxy; echo to stderr >&2")});
    QVERIFY2(attached.exitCode == 0, attached.err.constData());
    QVERIFY2(attached.out == "through the proxy\n", QByteArray(attached.out + "|" + attached.err).constData());
    QCOMPARE(attached.err, QByteArray("to stderr\n"));

    const Run made = viaProxy(
        {QStringLiteral("run"), QStringLiteral("-d"), kSandbox, QStringLiteral("sleep"), QStringLiteral("300")});
    QVERIFY2(made.exitCode == 0, made.err.constData());
    const QString id = QString::fromUtf8(made.out.trimmed());
    m_containers << id;
    QTemporaryDir files;
    const QString in = files.filePath(QStringLiteral("in.bin"));
    QFile f(in);
    QVERIFY(f.open(QIODevice::WriteOnly));
    for (int i = 0; i < 16; ++i)
        f.write(randomBytes(1024 * 1024));
    f.close();
    const Run copyIn = viaProxy({QStringLiteral("cp"), in, id + QStringLiteral(":/tmp/in.bin")});
    QVERIFY2(copyIn.exitCode == 0, copyIn.err.constData());
    const QString out = files.filePath(QStringLiteral("out.bin"));
    const Run copyOut = viaProxy({QStringLiteral("cp"), id + QStringLiteral(":/tmp/in.bin"), out});
    QVERIFY2(copyOut.exitCode == 0, copyOut.err.constData());
    const auto digest = [](const QString &path) {
        QFile file(path);
        QCryptographicHash h(QCryptographicHash::Sha256);
        return file.open(QIODevice::ReadOnly) && h.addData(&file) ? h.result() : QByteArray();
    };
    QCOMPARE(QFileInfo(out).size(), qint64(16 * 1024 * 1024));
    QCOMPARE(digest(out), digest(in));
}

void tst_DockerProxy::garbageIsRefusedAndServingGoesOn()
{
    const QByteArray answer = exchange(m_proxy->socketPath(), "NOT HTTP AT ALL\r\n\r\n");
    QVERIFY2(answer.startsWith("HTTP/1.1 400"), answer.constData());
    QVERIFY(answer.contains("isolation docker proxy"));
    const Run version = viaProxy({QStringLiteral("version")});
    QVERIFY2(version.exitCode == 0, version.err.constData());
}

void tst_DockerProxy::dockerUnreachableIsSaid()
{
    QTemporaryDir dir;
    DockerProxy nowhere(dir.filePath(QStringLiteral("no-docker.sock")));
    QVERIFY(nowhere.listen(dir.filePath(QStringLiteral("proxy"))));
    const QByteArray answer = exchange(nowhere.socketPath(), "GET /_ping HTTP/1.1\r\nHost: docker\r\n\r\n");
    QVERIFY2(answer.startsWith("HTTP/1.1 502"), answer.constData());
    QVERIFY2(answer.contains("cannot reach Docker at"), answer.constData());
}

QTEST_GUILESS_MAIN(tst_DockerProxy)
#include "tst_dockerproxy.moc"
