// The engine-side controls a LocalAPI client (the tray, the CLI) uses (issue 21), against a real
// `isolation-server up` and a real isolation-hub: disconnect / connect (the hub sees the server go
// offline and come back; a restarted engine stays disconnected), GET/PUT /v1/settings, the diff
// route's refusals, and `down` (the process exits 0, the socket goes).
#include "engineprocess.h"
#include "hubprocess.h"

#include <QDeadlineTimer>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QTest>

using namespace isolation::test;

class tst_EngineControl : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void disconnectAndConnect();
    void settingsAndDiffRefusals();
    void down();

private:
    QJsonObject status() const;
    bool hubOnline() const;

    QTemporaryDir m_home;
    std::unique_ptr<HubProcess> m_hub;
    std::unique_ptr<EngineProcess> m_engine;
    QString m_serverId;
};

QJsonObject tst_EngineControl::status() const
{
    QString out;
    if (m_engine->cli({QStringLiteral("status"), QStringLiteral("--json")}, &out) != 0)
        return {};
    return QJsonDocument::fromJson(out.toUtf8()).object();
}

bool tst_EngineControl::hubOnline() const
{
    QString out;
    m_hub->admin({QStringLiteral("servers"), QStringLiteral("--json")}, &out);
    for (const QJsonValue &v : QJsonDocument::fromJson(out.toUtf8()).object().value(QStringLiteral("servers")).toArray())
        if (v.toObject().value(QStringLiteral("id")).toString() == m_serverId)
            return v.toObject().value(QStringLiteral("online")).toBool();
    return false;
}

void tst_EngineControl::initTestCase()
{
    QVERIFY(m_home.isValid());
    m_hub = std::make_unique<HubProcess>();
    // Heartbeats every second: offline is three missed ones.
    QVERIFY(m_hub->start({}, {QStringLiteral("--heartbeat-interval"), QStringLiteral("1")}));
    m_engine = std::make_unique<EngineProcess>(m_home.path());
    m_engine->setHub(m_hub->appUrl().toString());
    QVERIFY(m_engine->start());

    // Not paired yet: disconnect is refused (409 not_paired -> exit code of a conflict, not 0).
    QVERIFY(m_engine->cli({QStringLiteral("disconnect")}) != 0);

    QProcess pair;
    pair.setProcessEnvironment(m_engine->environment());
    pair.start(serverBinary(),
        {QStringLiteral("pair"), QStringLiteral("--no-qr"), QStringLiteral("--name"), QStringLiteral("control")});
    static const QRegularExpression codeFormat(
        QStringLiteral("\\b([BCDFGHJKLMNPQRSTVWXZ]{4}-[BCDFGHJKLMNPQRSTVWXZ]{4})\\b"));
    QString code;
    QByteArray printed;
    QDeadlineTimer deadline(30000);
    while (code.isEmpty() && !deadline.hasExpired() && pair.state() != QProcess::NotRunning) {
        pair.waitForReadyRead(100);
        printed += pair.readAllStandardOutput();
        code = codeFormat.match(QString::fromUtf8(printed)).captured(1);
    }
    QVERIFY2(!code.isEmpty(), printed.constData());
    QCOMPARE(m_hub->admin({QStringLiteral("approve"), code}), 0);
    QVERIFY(pair.waitForFinished(30000));
    QCOMPARE(pair.exitCode(), 0);
    QTRY_COMPARE_WITH_TIMEOUT(status().value(QStringLiteral("state")).toString(), QStringLiteral("online"), 20000);
    m_serverId = status().value(QStringLiteral("serverId")).toString();
    QVERIFY(!m_serverId.isEmpty());
    QTRY_VERIFY_WITH_TIMEOUT(hubOnline(), 10000);
}

void tst_EngineControl::disconnectAndConnect()
{
    QString out;
    QCOMPARE(m_engine->cli({QStringLiteral("disconnect"), QStringLiteral("--json")}, &out), 0);
    const QJsonObject s = QJsonDocument::fromJson(out.toUtf8()).object();
    QCOMPARE(s.value(QStringLiteral("state")).toString(), QStringLiteral("disconnected"));
    QCOMPARE(s.value(QStringLiteral("connected")).toBool(true), false);
    QCOMPARE(s.value(QStringLiteral("paired")).toBool(), true);
    QTRY_VERIFY_WITH_TIMEOUT(!hubOnline(), 15000);

    // A restarted engine stays disconnected.
    QCOMPARE(m_engine->stop(), 0);
    QVERIFY(m_engine->start());
    QTRY_COMPARE_WITH_TIMEOUT(
        status().value(QStringLiteral("state")).toString(), QStringLiteral("disconnected"), 10000);
    QTest::qWait(4000); // longer than three heartbeats: still offline
    QVERIFY(!hubOnline());

    QCOMPARE(m_engine->cli({QStringLiteral("connect")}), 0);
    QTRY_COMPARE_WITH_TIMEOUT(status().value(QStringLiteral("state")).toString(), QStringLiteral("online"), 20000);
    QCOMPARE(status().value(QStringLiteral("connected")).toBool(), true);
    QTRY_VERIFY_WITH_TIMEOUT(hubOnline(), 15000);
}

void tst_EngineControl::settingsAndDiffRefusals()
{
    auto curl = [this](const QStringList &args, QString *body) {
        QProcess p;
        p.start(QStringLiteral("curl"),
            QStringList {QStringLiteral("-s"), QStringLiteral("-w"), QStringLiteral("\n%{http_code}"),
                QStringLiteral("--unix-socket"), m_engine->socketPath()}
                + args);
        p.waitForFinished(10000);
        const QString out = QString::fromUtf8(p.readAllStandardOutput());
        *body = out.section(QLatin1Char('\n'), 0, -2);
        return out.section(QLatin1Char('\n'), -1).toInt();
    };
    QString body;
    QCOMPARE(curl({QStringLiteral("http://local/v1/settings")}, &body), 200);
    QCOMPARE(QJsonDocument::fromJson(body.toUtf8()).object().value(QStringLiteral("hubUrl")).toString(),
        m_hub->appUrl().toString());
    // Paired: the hub is the paired one's.
    QCOMPARE(curl({QStringLiteral("-X"), QStringLiteral("PUT"), QStringLiteral("-d"),
                  QStringLiteral("{\"hubUrl\":\"http://127.0.0.1:1\"}"), QStringLiteral("http://local/v1/settings")},
                 &body),
        409);
    QCOMPARE(curl({QStringLiteral("http://local/v1/sessions/nope/diff?path=a.txt")}, &body), 404);
    QCOMPARE(curl({QStringLiteral("http://local/v1/sessions/nope/diff")}, &body), 400);
    QCOMPARE(curl({QStringLiteral("http://local/v1/sessions/nope/diff?path=../etc/passwd")}, &body), 400);
}

void tst_EngineControl::down()
{
    QVERIFY(m_engine->running());
    QCOMPARE(m_engine->cli({QStringLiteral("down")}), 0);
    QTRY_VERIFY_WITH_TIMEOUT(!m_engine->running(), 10000);
    QCOMPARE(m_engine->stop(), 0); // it ended by itself: its exit code
    QVERIFY(!QFile::exists(m_engine->socketPath()));
    QCOMPARE(m_engine->cli({QStringLiteral("down")}), 3); // none runs
}

QTEST_GUILESS_MAIN(tst_EngineControl)
#include "tst_enginecontrol.moc"
