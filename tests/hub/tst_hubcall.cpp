// `isolation-hub --data DIR call SERVER METHOD` reaches the engine through the tunnel: the real
// isolation-hub binary as the admin client, against a hub whose server registry the test fills
// (until pairing provides one), with a real engine tunnel connected to it.
#include "core/paths.h"
#include "engine.h"
#include "hubprocess.h"
#include "tunneltestkit.h"

#include <QJsonDocument>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QProcess>
#include <QProcessEnvironment>
#include <QTest>

using namespace isolation;
using namespace isolation::test;

namespace {
const QByteArray kCredential = "cred-hubcall-6f0b2a8e3c";
const QString kServer = QStringLiteral("srv-cli");
} // namespace

class tst_HubCall final : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void cleanupTestCase();
    void callVerb_data();
    void callVerb();
    void adminRouteNeedsToken();

private:
    // Runs the verb while this process keeps serving the hub and the engine.
    int runHub(const QStringList &args, QString *out, QString *err);

    SystemClock m_clock;
    std::unique_ptr<TestKey> m_key;
    std::unique_ptr<TestHub> m_hub;
    QTemporaryDir m_home;
    std::unique_ptr<Engine> m_engine;
};

void tst_HubCall::initTestCase()
{
    m_key = std::make_unique<TestKey>();
    m_hub = std::make_unique<TestHub>(m_clock);
    m_hub->addServer(kServer, kCredential, m_key->publicKey());
    QVERIFY(m_hub->start());
    QProcessEnvironment env;
    env.insert(QStringLiteral("ISOLATION_HOME"), m_home.path());
    m_engine = std::make_unique<Engine>(Paths::resolve(env).value());
    QVERIFY(m_engine->start().ok());
    QVERIFY(m_engine->openTunnel(clientOptions(m_hub->url(), kServer, kCredential, *m_key)).ok());
    QTRY_VERIFY_WITH_TIMEOUT(m_hub->tunnels().tunnel(kServer) != nullptr, 5000);
}

void tst_HubCall::cleanupTestCase()
{
    m_engine.reset();
    m_hub.reset();
}

int tst_HubCall::runHub(const QStringList &args, QString *out, QString *err)
{
    QProcess p;
    p.start(hubBinary(), QStringList {QStringLiteral("--data"), m_hub->dataDir() + QStringLiteral("/hub")} + args);
    if (!QTest::qWaitFor([&] { return p.state() == QProcess::NotRunning; }, 60000)) {
        p.kill();
        p.waitForFinished();
        return -1;
    }
    *out = QString::fromUtf8(p.readAllStandardOutput());
    *err = QString::fromUtf8(p.readAllStandardError());
    return p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1;
}

void tst_HubCall::callVerb_data()
{
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<int>("exitCode");
    QTest::addColumn<QString>("expected"); // JSON printed on success, or a part of the error
    QTest::newRow("ping") << QStringList {"call", kServer, "ping"} << 0 << R"({"echo":null,"pong":true})";
    QTest::newRow("ping with params") << QStringList {"call", kServer, "ping", "--params",
        R"({"echo":"through the tunnel"})"}
                                      << 0 << R"({"echo":"through the tunnel","pong":true})";
    QTest::newRow("server.status") << QStringList {"call", kServer, "server.status"} << 0 << QString();
    QTest::newRow("unknown method") << QStringList {"call", kServer, "no.such"} << 1 << "no such method: no.such";
    QTest::newRow("server not connected")
        << QStringList {"call", "srv-elsewhere", "ping"} << 1 << "server srv-elsewhere is not connected";
    QTest::newRow("params not an object")
        << QStringList {"call", kServer, "ping", "--params", "[1]"} << 2 << "--params wants a JSON object";
    QTest::newRow("missing method") << QStringList {"call", kServer} << 2 << "call wants SERVER METHOD";
}

void tst_HubCall::callVerb()
{
    QFETCH(QStringList, args);
    QFETCH(int, exitCode);
    QFETCH(QString, expected);
    QString out, err;
    const int rc = runHub(args, &out, &err);
    QVERIFY2(rc == exitCode, qPrintable(QStringLiteral("exit %1, stderr: %2").arg(rc).arg(err)));
    if (exitCode != 0) {
        QVERIFY2(err.contains(expected), qPrintable(err));
        return;
    }
    QJsonParseError pe {};
    const QJsonDocument printed = QJsonDocument::fromJson(out.toUtf8(), &pe);
    QVERIFY2(pe.error == QJsonParseError::NoError && printed.isObject(), qPrintable(out));
    if (!expected.isEmpty()) {
        QCOMPARE(printed.object(), QJsonDocument::fromJson(expected.toUtf8()).object());
        return;
    }
    // server.status: the engine's own status, from inside this process.
    QCOMPARE(printed.object().value(QStringLiteral("state")).toString(), QStringLiteral("online"));
    QCOMPARE(printed.object().value(QStringLiteral("pid")).toInteger(), QCoreApplication::applicationPid());
}

void tst_HubCall::adminRouteNeedsToken()
{
    QNetworkAccessManager nam;
    QUrl url = m_hub->url();
    url.setPath(QStringLiteral("/v1/admin/servers/%1/call").arg(kServer));
    QNetworkRequest request(url);
    request.setHeader(QNetworkRequest::ContentTypeHeader, QStringLiteral("application/json"));
    QNetworkReply *reply = nam.post(request, R"({"method":"ping"})");
    QTRY_VERIFY(reply->isFinished());
    QCOMPARE(reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt(), 401);
    reply->deleteLater();
}

QTEST_GUILESS_MAIN(tst_HubCall)
#include "tst_hubcall.moc"
