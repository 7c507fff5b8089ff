#include "runtime/dockerclient.h"

#include "dockertestsupport.h"

#include <QDir>
#include <QLocalServer>
#include <QTcpServer>
#include <QTemporaryDir>
#include <QTest>
#include <QVersionNumber>

#include <grp.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

using namespace isolation;

class tst_DockerClient final : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void negotiatesTheApiVersion();
    void dockerHost_data();
    void dockerHost();
    void noDaemon_data();
    void noDaemon();
    void permissionDenied();
    void imageMissing();
    void portTaken();

private:
    DockerClient m_docker {QStringLiteral("/var/run/docker.sock")};
};

void tst_DockerClient::initTestCase()
{
    auto d = DockerClient::fromEnvironment();
    QVERIFY2(d.ok(), d.ok() ? "" : qPrintable(d.error().message));
    m_docker = d.value();
    auto v = m_docker.negotiate();
    QVERIFY2(v.ok(), v.ok() ? "" : qPrintable(v.error().message + QStringLiteral(" (./dev test starts dockerd)")));
}

void tst_DockerClient::negotiatesTheApiVersion()
{
    DockerClient d(m_docker.socketPath());
    auto v = d.negotiate();
    QVERIFY(v.ok());
    const auto server = QVersionNumber::fromString(v.value().value(QStringLiteral("ApiVersion")).toString());
    const auto ours = QVersionNumber::fromString(QLatin1String(DockerClient::MaxApiVersion));
    QCOMPARE(QVersionNumber::fromString(d.apiVersion()), server < ours ? server : ours);
    // The CLI, asked independently, reports the same server API version.
    const test::Run cli = test::docker(
        {QStringLiteral("version"), QStringLiteral("--format"), QStringLiteral("{{.Server.APIVersion}}")});
    QCOMPARE(cli.exitCode, 0);
    QCOMPARE(QString::fromUtf8(cli.out.trimmed()), server.toString());
    // Versioned calls work at the negotiated version.
    QVERIFY(d.call("GET", QStringLiteral("/info")).ok());
}

void tst_DockerClient::dockerHost_data()
{
    QTest::addColumn<QString>("host");
    QTest::addColumn<QString>("socket"); // empty: refused
    QTest::newRow("unset") << QString() << QStringLiteral("/var/run/docker.sock");
    QTest::newRow("unix") << QStringLiteral("unix:///run/user/1000/docker.sock")
                          << QStringLiteral("/run/user/1000/docker.sock");
    QTest::newRow("tcp") << QStringLiteral("tcp://127.0.0.1:2375") << QString();
    QTest::newRow("ssh") << QStringLiteral("ssh://me@host") << QString();
}

void tst_DockerClient::dockerHost()
{
    QFETCH(QString, host);
    QFETCH(QString, socket);
    QProcessEnvironment env;
    if (!host.isEmpty())
        env.insert(QStringLiteral("DOCKER_HOST"), host);
    auto d = DockerClient::fromEnvironment(env);
    QCOMPARE(d.ok(), !socket.isEmpty());
    if (d.ok())
        QCOMPARE(d.value().socketPath(), socket);
    else
        QVERIFY(d.error().message.contains(QStringLiteral("not supported")));
}

void tst_DockerClient::noDaemon_data()
{
    QTest::addColumn<bool>("staleSocket");
    QTest::newRow("no socket") << false;
    QTest::newRow("a socket nobody listens on") << true;
}

void tst_DockerClient::noDaemon()
{
    QFETCH(bool, staleSocket);
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("docker.sock"));
    if (staleSocket) {
        const int fd = ::socket(AF_UNIX, SOCK_STREAM, 0);
        sockaddr_un addr {};
        addr.sun_family = AF_UNIX;
        const QByteArray p = QFile::encodeName(path);
        std::memcpy(addr.sun_path, p.constData(), size_t(p.size()));
        QCOMPARE(::bind(fd, reinterpret_cast<sockaddr *>(&addr), sizeof addr), 0);
        ::close(fd);
    }
    QProcessEnvironment env;
    env.insert(QStringLiteral("DOCKER_HOST"), QStringLiteral("unix://") + path);
    auto d = DockerClient::fromEnvironment(env);
    QVERIFY(d.ok());
    auto v = d.value().negotiate();
    QVERIFY(!v.ok());
    QCOMPARE(v.error().code, DockerError::Code::NoDaemon);
    QVERIFY(v.error().retryable());
    QVERIFY2(v.error().message.contains(QStringLiteral("systemctl start docker")), qPrintable(v.error().message));
}

void tst_DockerClient::permissionDenied()
{
    // Root passes any file permission, so a root test drops to nobody in a child process and
    // tries the real Docker socket (root:docker 0660); a non-root test uses a socket of mode 0.
    QString socket = m_docker.socketPath();
    QTemporaryDir dir;
    std::unique_ptr<QLocalServer> closed;
    if (::geteuid() != 0) {
        closed = std::make_unique<QLocalServer>();
        socket = dir.filePath(QStringLiteral("closed.sock"));
        QVERIFY(closed->listen(socket));
        QVERIFY(QFile::setPermissions(socket, QFileDevice::Permissions()));
    }
    const pid_t child = ::fork();
    QVERIFY(child >= 0);
    if (child == 0) {
        if (::geteuid() == 0 && (::setgroups(0, nullptr) != 0 || ::setgid(65534) != 0 || ::setuid(65534) != 0))
            ::_exit(90);
        DockerClient d(socket, 5000);
        auto v = d.negotiate();
        if (v.ok())
            ::_exit(91);
        const bool ok = v.error().code == DockerError::Code::PermissionDenied
            && v.error().message.contains(QStringLiteral("docker group"));
        ::_exit(ok ? 0 : 92);
    }
    int status = 0;
    QCOMPARE(::waitpid(child, &status, 0), child);
    QVERIFY(WIFEXITED(status));
    QCOMPARE(WEXITSTATUS(status), 0);
}

void tst_DockerClient::imageMissing()
{
    const QString name = QStringLiteral("isolation-standin/no-such-image:none");
    auto i = m_docker.inspectImage(name);
    QVERIFY(!i.ok());
    QCOMPARE(i.error().code, DockerError::Code::NotFound);
    QVERIFY(i.error().message.contains(QStringLiteral("is not on this machine")));
    auto c = m_docker.createContainer({}, QJsonObject {{QStringLiteral("Image"), name}});
    QVERIFY(!c.ok());
    QCOMPARE(c.error().code, DockerError::Code::NotFound);
    QVERIFY2(c.error().message.contains(name), qPrintable(c.error().message));
}

void tst_DockerClient::portTaken()
{
    QTcpServer holder;
    QVERIFY(holder.listen(QHostAddress::LocalHost, 0));
    const QString port = QString::number(holder.serverPort());
    const QJsonObject spec {
        {QStringLiteral("Image"), QStringLiteral("isolation-standin/sandbox:" ISOLATION_STANDIN_TAG)},
        {QStringLiteral("Cmd"), QJsonArray {QStringLiteral("sleep"), QStringLiteral("30")}},
        {QStringLiteral("ExposedPorts"), QJsonObject {{QStringLiteral("80/tcp"), QJsonObject {}}}},
        {QStringLiteral("Labels"),
            QJsonObject {{QStringLiteral("io.isolation.test"), QStringLiteral("tst_dockerclient")}}},
        {QStringLiteral("HostConfig"),
            QJsonObject {{QStringLiteral("PortBindings"),
                QJsonObject {{QStringLiteral("80/tcp"),
                    QJsonArray {QJsonObject {{QStringLiteral("HostIp"), QStringLiteral("127.0.0.1")},
                        {QStringLiteral("HostPort"), port}}}}}}}},
    };
    auto id = m_docker.createContainer({}, spec);
    QVERIFY2(id.ok(), id.ok() ? "" : qPrintable(id.error().message));
    auto started = m_docker.startContainer(id.value());
    const bool refused = !started.ok();
    const DockerError e = refused ? started.error() : DockerError {};
    QVERIFY(m_docker.removeContainer(id.value()).ok());
    QVERIFY(refused);
    QCOMPARE(e.code, DockerError::Code::PortTaken);
    QVERIFY2(e.message.contains(QStringLiteral("already in use")), qPrintable(e.message));
}

QTEST_GUILESS_MAIN(tst_DockerClient)
#include "tst_dockerclient.moc"
