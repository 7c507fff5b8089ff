// `isolation-server pair` / `unpair` / `status` against a running engine and the real hub.
#include "hubprocess.h"

#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QTest>

#include <csignal>

using namespace isolation::test;

class tst_PairCli final : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void init();
    void cleanup();
    void pairStatusUnpair();
    void deniedExitCode();
    void expiredExitCode();

private:
    QProcessEnvironment env() const;
    QString waitForCode(QProcess &pair);
    std::unique_ptr<QTemporaryDir> m_home;
    std::unique_ptr<HubProcess> m_hub;
    QProcess m_up;
};

QProcessEnvironment tst_PairCli::env() const
{
    QProcessEnvironment e = QProcessEnvironment::systemEnvironment();
    e.insert(QStringLiteral("ISOLATION_HOME"), m_home->path());
    return e;
}

void tst_PairCli::init()
{
    m_home = std::make_unique<QTemporaryDir>();
    m_hub = std::make_unique<HubProcess>();
    const QString test = QString::fromLatin1(QTest::currentTestFunction());
    QStringList extra {QStringLiteral("--poll-interval"), QStringLiteral("1"), QStringLiteral("--heartbeat-interval"),
        QStringLiteral("1")};
    if (test == QLatin1String("expiredExitCode"))
        extra << QStringLiteral("--code-lifetime") << QStringLiteral("2");
    QVERIFY(m_hub->start({}, extra));
    m_up.setProcessEnvironment(env());
    m_up.start(serverBinary(), {QStringLiteral("up"), QStringLiteral("--credential-store"), QStringLiteral("file")});
    QVERIFY(m_up.waitForStarted());
    QTRY_VERIFY_WITH_TIMEOUT(QFile::exists(m_home->path() + QStringLiteral("/run/engine.sock")), 20000);
}

void tst_PairCli::cleanup()
{
    ::kill(pid_t(m_up.processId()), SIGTERM);
    m_up.waitForFinished(20000);
    m_hub.reset();
}

QString tst_PairCli::waitForCode(QProcess &pair)
{
    static const QRegularExpression code(QStringLiteral("\\b([BCDFGHJKLMNPQRSTVWXZ]{4}-[BCDFGHJKLMNPQRSTVWXZ]{4})\\b"));
    QByteArray out;
    QDeadlineTimer deadline(20000);
    while (!deadline.hasExpired()) {
        pair.waitForReadyRead(100);
        out += pair.readAllStandardOutput();
        const auto m = code.match(QString::fromUtf8(out));
        if (m.hasMatch() && out.contains("Waiting for approval"))
            return m.captured(1);
        if (pair.state() == QProcess::NotRunning)
            break;
    }
    qWarning() << "pair printed:" << out << pair.readAllStandardError();
    return {};
}

void tst_PairCli::pairStatusUnpair()
{
    QProcess pair;
    pair.setProcessEnvironment(env());
    pair.start(serverBinary(),
        {QStringLiteral("pair"), QStringLiteral("--hub"), m_hub->appUrl().toString(), QStringLiteral("--name"),
            QStringLiteral("cli-box")});
    const QString code = waitForCode(pair);
    QVERIFY(!code.isEmpty());
    QCOMPARE(m_hub->admin({QStringLiteral("approve"), code}), 0);
    QVERIFY(pair.waitForFinished(30000));
    QCOMPARE(pair.exitCode(), 0);
    const QString printed = QString::fromUtf8(pair.readAllStandardOutput());
    QVERIFY2(printed.contains(QStringLiteral("Paired")), qPrintable(printed));

    QProcess status;
    status.setProcessEnvironment(env());
    QJsonObject o;
    QTRY_VERIFY_WITH_TIMEOUT(
        (status.start(serverBinary(), {QStringLiteral("status"), QStringLiteral("--json")}), status.waitForFinished(),
            o = QJsonDocument::fromJson(status.readAllStandardOutput()).object(),
            o.value(QStringLiteral("state")).toString() == QLatin1String("online")),
        20000);
    QVERIFY(o.value(QStringLiteral("serverId")).toString().startsWith(QStringLiteral("srv_")));
    QCOMPARE(o.value(QStringLiteral("serverName")).toString(), QStringLiteral("cli-box"));
    QVERIFY(!o.value(QStringLiteral("heartbeat")).toObject().value(QStringLiteral("last")).toString().isEmpty());

    status.start(serverBinary(), {QStringLiteral("status")});
    QVERIFY(status.waitForFinished());
    const QString text = QString::fromUtf8(status.readAllStandardOutput());
    for (const char *line : {"Server:", "Heartbeat:", "Hub:"})
        QVERIFY2(text.contains(QLatin1String(line)), qPrintable(text));

    QProcess unpair;
    unpair.setProcessEnvironment(env());
    unpair.start(serverBinary(), {QStringLiteral("unpair")});
    QVERIFY(unpair.waitForFinished(30000));
    QCOMPARE(unpair.exitCode(), 0);
    unpair.start(serverBinary(), {QStringLiteral("unpair")});
    QVERIFY(unpair.waitForFinished(30000));
    QCOMPARE(unpair.exitCode(), 7); // not paired
}

void tst_PairCli::deniedExitCode()
{
    QProcess pair;
    pair.setProcessEnvironment(env());
    pair.start(serverBinary(),
        {QStringLiteral("pair"), QStringLiteral("--hub"), m_hub->appUrl().toString(), QStringLiteral("--no-qr")});
    const QString code = waitForCode(pair);
    QVERIFY(!code.isEmpty());
    QCOMPARE(m_hub->admin({QStringLiteral("deny"), code}), 0);
    QVERIFY(pair.waitForFinished(30000));
    QCOMPARE(pair.exitCode(), 5);
}

void tst_PairCli::expiredExitCode()
{
    QProcess pair;
    pair.setProcessEnvironment(env());
    pair.start(serverBinary(),
        {QStringLiteral("pair"), QStringLiteral("--hub"), m_hub->appUrl().toString(), QStringLiteral("--no-qr")});
    QVERIFY(!waitForCode(pair).isEmpty());
    QVERIFY(pair.waitForFinished(30000));
    QCOMPARE(pair.exitCode(), 6);
}

QTEST_GUILESS_MAIN(tst_PairCli)
#include "tst_paircli.moc"
