#include "engineprobe.h"
#include "hubprocess.h"
#include "credentials/credentialstore.h"
#include "runtime/runtimemanager.h"

#include <QElapsedTimer>
#include <QFile>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

using namespace isolation;

// The runtime without Docker: no daemon on the socket the environment names. Needs no dockerd.
class tst_RuntimeManager final : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void dockerMissing_data();
    void dockerMissing();
    void engineStartsWithoutDocker();
    void cliUsage_data();
    void cliUsage();
};

void tst_RuntimeManager::dockerMissing_data()
{
    QTest::addColumn<QString>("dockerHost"); // %1: a temporary directory
    QTest::addColumn<QString>("advice");
    QTest::newRow("no socket") << QStringLiteral("unix://%1/no-docker.sock")
                               << QStringLiteral("systemctl start docker");
    QTest::newRow("tcp") << QStringLiteral("tcp://127.0.0.1:2375") << QStringLiteral("unix socket");
}

void tst_RuntimeManager::dockerMissing()
{
    QFETCH(QString, dockerHost);
    QFETCH(QString, advice);
    QTemporaryDir dir;
    RuntimeConfig c;
    c.dataDir = dir.path();
    c.sessionDir = dir.filePath(QStringLiteral("sessions"));
    c.healthIntervalMs = 100;
    c.environment.insert(QStringLiteral("DOCKER_HOST"), dockerHost.arg(dir.path()));
    RuntimeManager m(c,
        std::make_unique<FileCredentialStore>(
            dir.filePath(QStringLiteral("credentials.json")), QStringLiteral("runtime-api-key")));
    QElapsedTimer t;
    t.start();
    m.start();
    QVERIFY(t.elapsed() < 500); // never waits for Docker
    QCOMPARE(m.state(), RuntimeState::Starting);
    QTRY_COMPARE(m.state(), RuntimeState::DockerMissing);
    QVERIFY2(m.reason().contains(advice), qPrintable(m.reason()));
    QCOMPARE(m.status().value(QStringLiteral("state")).toString(), QStringLiteral("docker_missing"));
    QVERIFY(m.lifecycleUrl().isEmpty());
    // No API key is minted (and no keychain touched) while there is no runtime to give it to.
    QTest::qWait(500); // a few monitor ticks: it keeps looking, and keeps saying why
    QCOMPARE(m.state(), RuntimeState::DockerMissing);
    QVERIFY(!QFile::exists(dir.filePath(QStringLiteral("credentials.runtime-api-key.json"))));
    QVERIFY(m.apiKey().isEmpty());
    m.stop();
}

void tst_RuntimeManager::engineStartsWithoutDocker()
{
    QTemporaryDir home;
    qunsetenv("ISOLATION_RUNTIME");
    qputenv("DOCKER_HOST", QByteArray("unix://") + QFile::encodeName(home.filePath(QStringLiteral("no-docker.sock"))));
    QProcessEnvironment env;
    env.insert(QStringLiteral("ISOLATION_HOME"), home.path());
    EngineOptions options;
    options.credentialStore = CredentialStoreKind::File;
    Engine engine(Paths::resolve(env).value(), options);
    QElapsedTimer t;
    t.start();
    QVERIFY(engine.start().ok());
    QVERIFY(t.elapsed() < 2000);
    QVERIFY(EngineProbe::runtime(engine));
    QTRY_COMPARE(engine.runtimeStatus().value(QStringLiteral("state")).toString(), QStringLiteral("docker_missing"));
    QVERIFY(engine.runtimeStatus()
                .value(QStringLiteral("reason"))
                .toString()
                .startsWith(QStringLiteral("Docker is not available")));
    QTRY_VERIFY(engine.stateReason().startsWith(QStringLiteral("Not paired"))); // the rest of the engine works
    QCOMPARE(engine.status().value(QStringLiteral("runtime")).toObject().value(QStringLiteral("state")).toString(),
        QStringLiteral("docker_missing"));
    engine.stop();
    qunsetenv("DOCKER_HOST");
    // Switched off, the engine has no runtime at all and says so.
    qputenv("ISOLATION_RUNTIME", "off");
    Engine off(Paths::resolve(env).value(), options);
    QVERIFY(off.start().ok());
    QVERIFY(!EngineProbe::runtime(off));
    QVERIFY(off.runtimeStatus().value(QStringLiteral("reason")).toString().contains(QStringLiteral("switched off")));
}

void tst_RuntimeManager::cliUsage_data()
{
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<int>("exitCode");
    QTest::newRow("status, no engine") << QStringList {QStringLiteral("runtime"), QStringLiteral("status")} << 3;
    QTest::newRow("restart, no engine") << QStringList {QStringLiteral("runtime"), QStringLiteral("restart")} << 3;
    QTest::newRow("unknown action") << QStringList {QStringLiteral("runtime"), QStringLiteral("frobnicate")} << 2;
    QTest::newRow("two actions") << QStringList {QStringLiteral("runtime"), QStringLiteral("status"),
        QStringLiteral("restart")}
                                 << 2;
    QTest::newRow("help") << QStringList {QStringLiteral("runtime"), QStringLiteral("--help")} << 0;
}

void tst_RuntimeManager::cliUsage()
{
    QFETCH(QStringList, args);
    QFETCH(int, exitCode);
    QTemporaryDir home;
    QProcess p;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert(QStringLiteral("ISOLATION_HOME"), home.path());
    p.setProcessEnvironment(env);
    p.start(test::serverBinary(), args);
    QVERIFY(p.waitForFinished(30000));
    QCOMPARE(p.exitCode(), exitCode);
    if (exitCode == 3)
        QVERIFY(p.readAllStandardError().contains("isolation-server up"));
}

QTEST_GUILESS_MAIN(tst_RuntimeManager)
#include "tst_runtimemanager.moc"
