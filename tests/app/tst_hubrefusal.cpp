// `isolation-server pair` with a hub that is neither https:// nor on this computer: refused, with
// a message that says why and what to use, whether the hub came as `--hub` or as the engine's
// ISOLATION_HUB_URL, and nothing sent there. "Nothing sent" is watched with a real listener on one
// of this machine's own non-loopback addresses, given as the hub.
#include "hubprocess.h"

#include <QNetworkInterface>
#include <QProcess>
#include <QScopeGuard>
#include <QTcpServer>
#include <QTemporaryDir>
#include <QTest>

#include <csignal>

using namespace isolation::test;

class tst_HubRefusal final : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void pairRefusesAPlainRemoteHub_data();
    void pairRefusesAPlainRemoteHub();

private:
    QTcpServer m_remote; // a "remote" hub: this machine, on an address that is not loopback
    int m_connections = 0;
};

void tst_HubRefusal::initTestCase()
{
    QHostAddress lan;
    for (const QHostAddress &a : QNetworkInterface::allAddresses()) {
        if (a.protocol() == QAbstractSocket::IPv4Protocol && !a.isLoopback() && !a.isLinkLocal()) {
            lan = a;
            break;
        }
    }
    QVERIFY2(!lan.isNull(), "this machine has no non-loopback IPv4 address to play a remote hub on");
    QVERIFY(m_remote.listen(lan));
    connect(&m_remote, &QTcpServer::newConnection, this, [this] {
        while (QTcpSocket *s = m_remote.nextPendingConnection()) {
            ++m_connections;
            s->close();
            s->deleteLater();
        }
    });
}

void tst_HubRefusal::pairRefusesAPlainRemoteHub_data()
{
    QTest::addColumn<QString>("hub");
    QTest::addColumn<bool>("fromEnvironment"); // else --hub
    const QString lan = QStringLiteral("http://%1:%2").arg(m_remote.serverAddress().toString()).arg(m_remote.serverPort());
    QTest::newRow("--hub, a name") << QStringLiteral("http://example.invalid:8470") << false;
    QTest::newRow("--hub, a LAN address") << lan << false;
    QTest::newRow("ISOLATION_HUB_URL, a name") << QStringLiteral("http://example.invalid:8470") << true;
    QTest::newRow("ISOLATION_HUB_URL, a LAN address") << lan << true;
}

void tst_HubRefusal::pairRefusesAPlainRemoteHub()
{
    QFETCH(QString, hub);
    QFETCH(bool, fromEnvironment);
    m_connections = 0;
    QTemporaryDir home;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert(QStringLiteral("ISOLATION_HOME"), home.path());
    env.insert(QStringLiteral("ISOLATION_RUNTIME"), QStringLiteral("off"));
    if (fromEnvironment)
        env.insert(QStringLiteral("ISOLATION_HUB_URL"), hub);
    else
        env.remove(QStringLiteral("ISOLATION_HUB_URL"));
    QProcess up;
    up.setProcessEnvironment(env);
    up.start(serverBinary(), {QStringLiteral("up"), QStringLiteral("--credential-store"), QStringLiteral("file")});
    QVERIFY(up.waitForStarted());
    const auto stop = qScopeGuard([&up] {
        ::kill(pid_t(up.processId()), SIGTERM);
        up.waitForFinished(20000);
    });
    QTRY_VERIFY_WITH_TIMEOUT(QFile::exists(home.path() + QStringLiteral("/run/engine.sock")), 20000);

    QProcess pair;
    pair.setProcessEnvironment(env);
    QStringList args {QStringLiteral("pair"), QStringLiteral("--no-qr")};
    if (!fromEnvironment)
        args << QStringLiteral("--hub") << hub;
    pair.start(serverBinary(), args);
    QVERIFY(pair.waitForFinished(30000));
    const QString err = QString::fromUtf8(pair.readAllStandardError());
    const QString out = QString::fromUtf8(pair.readAllStandardOutput());
    QCOMPARE(pair.exitCode(), 2); // the engine's 400 bad_request: the caller's mistake
    const QString expected = QStringLiteral("refusing hub %1: a hub must be https:// or on this computer "
                                            "(127.0.0.1, ::1, localhost); use https://")
                                 .arg(hub);
    QVERIFY2(err.contains(expected), qPrintable(err + out));
    QVERIFY2(!out.contains(QStringLiteral("To pair this computer")), qPrintable(out));

    // The engine is not pairing, and kept no refused hub in its settings.
    QProcess status;
    status.setProcessEnvironment(env);
    status.start(serverBinary(), {QStringLiteral("status")});
    QVERIFY(status.waitForFinished(30000));
    const QString shown = QString::fromUtf8(status.readAllStandardOutput());
    QVERIFY2(!shown.contains(QStringLiteral("Pairing")), qPrintable(shown));
    if (!fromEnvironment)
        QVERIFY2(!shown.contains(hub), qPrintable(shown));
    QTest::qWait(500);
    QCOMPARE(m_connections, 0);
}

QTEST_GUILESS_MAIN(tst_HubRefusal)
#include "tst_hubrefusal.moc"
