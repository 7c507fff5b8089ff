// Pairing, heartbeat and revocation end to end: the real engine against the real isolation-hub
// over real sockets; approvals through the hub's page (as a browser) or its admin verbs.
#include "browserapproval.h"
#include "hubprocess.h"

#include "core/logging.h"
#include "core/paths.h"
#include "engine.h"
#include "http/httpserver.h"

#include <QDir>
#include <QDirIterator>
#include <QEventLoop>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

using namespace isolation;
using namespace isolation::test;

class tst_Pairing final : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void pairThroughTheApprovalPage();
    void pairingSurvivesAnEngineRestart();
    void slowDownAddsFiveSecondsForGood();
    void codeExpires();
    void sixthWrongGuessIsRefused();
    void denied();
    void revokeWhileOnline();
    void heartbeatOnlineThenOffline();
    void unpairTellsTheHub();
    void hubAnsweringGarbage();
    void codeFormat();
    void noSecretInAnyLog();

private:
    struct Setup
    {
        QTemporaryDir home;
        HubProcess hub;
        std::unique_ptr<Engine> engine;
    };
    static std::unique_ptr<Engine> makeEngine(const QString &home);
    static bool startHub(HubProcess &hub, const QStringList &extra = {});
    // Starts pairing in the engine and returns the code it shows.
    static QString beginPairing(Engine &engine, const QUrl &hub);
    static QJsonObject servers(const HubProcess &hub);
    static bool pairFully(Setup &s);
    QString m_logFile;
    QTemporaryDir m_logDir;
};

std::unique_ptr<Engine> tst_Pairing::makeEngine(const QString &home)
{
    QProcessEnvironment env;
    env.insert(QStringLiteral("ISOLATION_HOME"), home);
    EngineOptions options;
    options.credentialStore = CredentialStoreKind::File;
    return std::make_unique<Engine>(Paths::resolve(env).value(), options);
}

bool tst_Pairing::startHub(HubProcess &hub, const QStringList &extra)
{
    return hub.start({},
        QStringList {QStringLiteral("--poll-interval"), QStringLiteral("1"), QStringLiteral("--heartbeat-interval"),
            QStringLiteral("1")}
            + extra);
}

QString tst_Pairing::beginPairing(Engine &engine, const QUrl &hub)
{
    if (!engine.startPairing(hub, QStringLiteral("test-laptop")).ok())
        return {};
    QDeadlineTimer deadline(20000);
    while (!deadline.hasExpired()) {
        const QJsonObject s = engine.pairingStatus();
        if (s.value(QStringLiteral("state")).toString() == QLatin1String("waiting_for_approval"))
            return s.value(QStringLiteral("userCode")).toString();
        QTest::qWait(20);
    }
    return {};
}

QJsonObject tst_Pairing::servers(const HubProcess &hub)
{
    QString out;
    hub.admin({QStringLiteral("servers"), QStringLiteral("--json")}, &out);
    return QJsonDocument::fromJson(out.toUtf8()).object();
}

bool tst_Pairing::pairFully(Setup &s)
{
    if (!startHub(s.hub))
        return false;
    s.engine = makeEngine(s.home.path());
    if (!s.engine->start().ok())
        return false;
    const QString code = beginPairing(*s.engine, s.hub.appUrl());
    if (code.isEmpty() || submitApprovalPage(s.hub.appUrl(), code).status != 200)
        return false;
    QDeadlineTimer deadline(20000);
    while (!deadline.hasExpired() && s.engine->state() != EngineState::Online)
        QTest::qWait(20);
    return s.engine->state() == EngineState::Online;
}

void tst_Pairing::initTestCase()
{
    // Everything the engine logs in this process goes to one file, grepped at the end.
    m_logFile = m_logDir.path() + QStringLiteral("/engine-test.log");
    QVERIFY(logging::install(m_logFile));
}

void tst_Pairing::pairThroughTheApprovalPage()
{
    Setup s;
    QVERIFY(startHub(s.hub));
    s.engine = makeEngine(s.home.path());
    QVERIFY(s.engine->start().ok());
    QTRY_COMPARE(s.engine->state(), EngineState::NotPaired);

    const QString code = beginPairing(*s.engine, s.hub.appUrl());
    QVERIFY(!code.isEmpty());
    QCOMPARE(s.engine->state(), EngineState::Pairing);
    const QJsonObject pairing = s.engine->pairingStatus();
    QVERIFY(pairing.value(QStringLiteral("verificationUriComplete")).toString().contains(code));

    // The member types the code in lower case, without the dash: still the same code.
    const PageAnswer page = submitApprovalPage(s.hub.appUrl(), code.toLower().remove(QLatin1Char('-')));
    QCOMPARE(page.status, 200);
    QVERIFY(page.html.contains(QStringLiteral("Computer approved")));

    QTRY_COMPARE_WITH_TIMEOUT(s.engine->state(), EngineState::Online, 20000);
    const QJsonObject status = s.engine->status();
    const QString serverId = status.value(QStringLiteral("serverId")).toString();
    QVERIFY(serverId.startsWith(QStringLiteral("srv_")));
    QCOMPARE(status.value(QStringLiteral("serverName")).toString(), QStringLiteral("test-laptop"));

    const QJsonArray list = servers(s.hub).value(QStringLiteral("servers")).toArray();
    QCOMPARE(list.size(), 1);
    QCOMPARE(list.at(0).toObject().value(QStringLiteral("id")).toString(), serverId);
    QTRY_VERIFY_WITH_TIMEOUT(servers(s.hub)
                                 .value(QStringLiteral("servers"))
                                 .toArray()
                                 .at(0)
                                 .toObject()
                                 .value(QStringLiteral("online"))
                                 .toBool(),
        10000);

    // Headless file store: one file, private to the user.
    QFile credentials(s.home.path() + QStringLiteral("/data/credentials.json"));
    QVERIFY(credentials.exists());
    QCOMPARE(credentials.permissions() & ~(QFileDevice::ReadUser | QFileDevice::WriteUser),
        QFileDevice::ReadOwner | QFileDevice::WriteOwner);
}

void tst_Pairing::pairingSurvivesAnEngineRestart()
{
    Setup s;
    QVERIFY(pairFully(s));
    const QString id = s.engine->status().value(QStringLiteral("serverId")).toString();
    s.engine.reset();
    s.engine = makeEngine(s.home.path());
    QVERIFY(s.engine->start().ok());
    QTRY_COMPARE_WITH_TIMEOUT(s.engine->state(), EngineState::Online, 20000);
    QCOMPARE(s.engine->status().value(QStringLiteral("serverId")).toString(), id);
}

void tst_Pairing::slowDownAddsFiveSecondsForGood()
{
    HubProcess hub;
    QVERIFY(startHub(hub));
    QNetworkAccessManager nam;
    auto post = [&](const QString &path, const QJsonObject &body) {
        QUrl url = hub.appUrl();
        url.setPath(path);
        QNetworkRequest r(url);
        r.setHeader(QNetworkRequest::ContentTypeHeader, QStringLiteral("application/json"));
        QNetworkReply *reply = nam.post(r, QJsonDocument(body).toJson());
        QEventLoop loop;
        connect(reply, &QNetworkReply::finished, &loop, &QEventLoop::quit);
        loop.exec();
        const QJsonObject o = QJsonDocument::fromJson(reply->readAll()).object();
        reply->deleteLater();
        return o;
    };
    const QString key = QString::fromLatin1(
        QByteArray(32, 'k').toBase64(QByteArray::Base64UrlEncoding | QByteArray::OmitTrailingEquals));
    const QJsonObject started = post(QStringLiteral("/v1/pair/start"),
        {{QStringLiteral("name"), QStringLiteral("x")}, {QStringLiteral("x25519Public"), key},
            {QStringLiteral("ed25519Public"), key}});
    QCOMPARE(started.value(QStringLiteral("interval")).toInt(), 1);
    const QJsonObject token {{QStringLiteral("device_code"), started.value(QStringLiteral("device_code"))}};
    auto code = [](const QJsonObject &o) {
        return o.value(QStringLiteral("error")).toObject().value(QStringLiteral("code")).toString();
    };

    QCOMPARE(code(post(QStringLiteral("/v1/pair/token"), token)), QStringLiteral("authorization_pending"));
    QCOMPARE(code(post(QStringLiteral("/v1/pair/token"), token)),
        QStringLiteral("slow_down")); // at once: too fast; interval 6
    QTest::qWait(1300); // the old interval has passed, the new one (6 s) has not
    QCOMPARE(code(post(QStringLiteral("/v1/pair/token"), token)), QStringLiteral("slow_down")); // interval 11
    QTest::qWait(6300); // 6 s would have been enough before the second slow_down; 11 s is the rule now
    QCOMPARE(code(post(QStringLiteral("/v1/pair/token"), token)), QStringLiteral("slow_down"));
}

void tst_Pairing::codeExpires()
{
    Setup s;
    QVERIFY(startHub(s.hub, {QStringLiteral("--code-lifetime"), QStringLiteral("2")}));
    s.engine = makeEngine(s.home.path());
    QVERIFY(s.engine->start().ok());
    const QString code = beginPairing(*s.engine, s.hub.appUrl());
    QVERIFY(!code.isEmpty());
    QTRY_COMPARE_WITH_TIMEOUT(
        s.engine->pairingStatus().value(QStringLiteral("state")).toString(), QStringLiteral("expired"), 15000);
    QCOMPARE(s.engine->state(), EngineState::NotPaired);
    // Approving now is too late.
    QString err;
    QCOMPARE(s.hub.admin({QStringLiteral("approve"), code}, nullptr, &err), 1);
}

void tst_Pairing::sixthWrongGuessIsRefused()
{
    Setup s;
    QVERIFY(startHub(s.hub));
    s.engine = makeEngine(s.home.path());
    QVERIFY(s.engine->start().ok());
    const QString code = beginPairing(*s.engine, s.hub.appUrl());
    QVERIFY(!code.isEmpty());
    for (int i = 0; i < 5; ++i) {
        QString err;
        QCOMPARE(
            s.hub.admin({QStringLiteral("approve"), QStringLiteral("BBBB-BBB") + QChar(u'C' + i)}, nullptr, &err), 1);
        QVERIFY2(err.contains(QStringLiteral("no pending pairing")), qPrintable(err));
    }
    // The sixth guess is refused, even with the right code, and through the page as well.
    QString err;
    QCOMPARE(s.hub.admin({QStringLiteral("approve"), code}, nullptr, &err), 1);
    QVERIFY2(err.contains(QStringLiteral("too many")), qPrintable(err));
    QCOMPARE(submitApprovalPage(s.hub.appUrl(), code).status, 429);
    QTRY_COMPARE_WITH_TIMEOUT(
        s.engine->pairingStatus().value(QStringLiteral("state")).toString(), QStringLiteral("denied"), 15000);
    QVERIFY(s.engine->pairingStatus().value(QStringLiteral("reason")).toString().contains(QStringLiteral("too many")));
    QVERIFY(servers(s.hub).value(QStringLiteral("servers")).toArray().isEmpty());
}

void tst_Pairing::denied()
{
    Setup s;
    QVERIFY(startHub(s.hub));
    s.engine = makeEngine(s.home.path());
    QVERIFY(s.engine->start().ok());
    const QString code = beginPairing(*s.engine, s.hub.appUrl());
    QCOMPARE(s.hub.admin({QStringLiteral("deny"), code}), 0);
    QTRY_COMPARE_WITH_TIMEOUT(
        s.engine->pairingStatus().value(QStringLiteral("state")).toString(), QStringLiteral("denied"), 15000);
    QCOMPARE(s.engine->state(), EngineState::NotPaired);
    QVERIFY(!QFile::exists(s.home.path() + QStringLiteral("/data/credentials.json")));
}

void tst_Pairing::revokeWhileOnline()
{
    Setup s;
    QVERIFY(pairFully(s));
    const QString id = s.engine->status().value(QStringLiteral("serverId")).toString();
    QCOMPARE(s.hub.admin({QStringLiteral("revoke"), id}), 0);
    QTRY_COMPARE_WITH_TIMEOUT(s.engine->state(), EngineState::NotPaired, 15000);
    QVERIFY2(s.engine->stateReason().contains(QStringLiteral("revoked")), qPrintable(s.engine->stateReason()));
    QTRY_VERIFY(!QFile::exists(s.home.path() + QStringLiteral("/data/credentials.json")));
    // A restart does not bring the pairing back.
    s.engine.reset();
    s.engine = makeEngine(s.home.path());
    QVERIFY(s.engine->start().ok());
    QTRY_COMPARE(s.engine->state(), EngineState::NotPaired);
    QString log;
    s.hub.admin({QStringLiteral("log")}, &log);
    QVERIFY(log.contains(QStringLiteral("server.revoked")));
}

void tst_Pairing::heartbeatOnlineThenOffline()
{
    Setup s;
    QVERIFY(pairFully(s));
    auto online = [&] {
        return servers(s.hub)
            .value(QStringLiteral("servers"))
            .toArray()
            .at(0)
            .toObject()
            .value(QStringLiteral("online"))
            .toBool();
    };
    QTRY_VERIFY_WITH_TIMEOUT(online(), 10000);
    const QJsonObject report = servers(s.hub)
                                   .value(QStringLiteral("servers"))
                                   .toArray()
                                   .at(0)
                                   .toObject()
                                   .value(QStringLiteral("report"))
                                   .toObject();
    for (const char *field : {"version", "hostName", "capacity", "sessions", "runtime", "cache"})
        QVERIFY2(report.contains(QLatin1String(field)), field);
    s.engine->stop();
    // Offline after 3 missed intervals (1 s each here).
    QTRY_VERIFY_WITH_TIMEOUT(!online(), 10000);
    QString log;
    QTRY_VERIFY_WITH_TIMEOUT(
        (s.hub.admin({QStringLiteral("log")}, &log), log.contains(QStringLiteral("server.offline"))), 5000);
}

void tst_Pairing::unpairTellsTheHub()
{
    Setup s;
    QVERIFY(pairFully(s));
    QSignalSpy changed(s.engine.get(), &Engine::stateChanged);
    s.engine->unpair();
    QTRY_COMPARE_WITH_TIMEOUT(s.engine->state(), EngineState::NotPaired, 15000);
    QVERIFY(!QFile::exists(s.home.path() + QStringLiteral("/data/credentials.json")));
    QVERIFY(servers(s.hub)
                .value(QStringLiteral("servers"))
                .toArray()
                .at(0)
                .toObject()
                .value(QStringLiteral("revoked"))
                .toBool());
}

void tst_Pairing::hubAnsweringGarbage()
{
    // A web server that is not a hub: every answer is an HTML page.
    HttpServer notAHub;
    notAHub.setFallback([](const HttpRequest &, HttpReply reply) {
        reply.send(HttpResponse::text(200, "<html>hello</html>", "text/html"));
    });
    auto port = notAHub.listenTcp(QHostAddress::LocalHost, 0);
    QVERIFY(port.ok());
    QTemporaryDir home;
    auto engine = makeEngine(home.path());
    QVERIFY(engine->start().ok());
    QVERIFY(engine->startPairing(QUrl(QStringLiteral("http://127.0.0.1:%1").arg(port.value())), {}).ok());
    QTRY_COMPARE_WITH_TIMEOUT(
        engine->pairingStatus().value(QStringLiteral("state")).toString(), QStringLiteral("failed"), 15000);
    QVERIFY(engine->pairingStatus()
                .value(QStringLiteral("reason"))
                .toString()
                .contains(QStringLiteral("not the Isolation protocol")));
    QCOMPARE(engine->state(), EngineState::NotPaired);
}

void tst_Pairing::codeFormat()
{
    HubProcess hub;
    QVERIFY(startHub(hub));
    QTemporaryDir home;
    auto engine = makeEngine(home.path());
    QVERIFY(engine->start().ok());
    const QString code = beginPairing(*engine, hub.appUrl());
    QVERIFY(QRegularExpression(QStringLiteral("^[BCDFGHJKLMNPQRSTVWXZ]{4}-[BCDFGHJKLMNPQRSTVWXZ]{4}$"))
                .match(code)
                .hasMatch());
}

void tst_Pairing::noSecretInAnyLog()
{
    Setup s;
    QVERIFY(pairFully(s));
    QTest::qWait(2500); // a few heartbeats
    QFile file(s.home.path() + QStringLiteral("/data/credentials.json"));
    QVERIFY(file.open(QIODevice::ReadOnly));
    const QJsonObject blob = QJsonDocument::fromJson(file.readAll()).object();
    QList<QByteArray> needles;
    for (const char *field : {"credential", "x25519Private", "ed25519Private", "memberKey"}) {
        const QByteArray b64url = blob.value(QLatin1String(field)).toString().toLatin1();
        QVERIFY(b64url.size() >= 32);
        needles << b64url;
        if (qstrcmp(field, "credential") != 0) {
            const QByteArray raw = QByteArray::fromBase64(b64url, QByteArray::Base64UrlEncoding);
            needles << raw.toBase64() << raw.toHex() << raw;
        }
    }
    s.engine->stop();
    s.hub.stop();
    QStringList logs {m_logFile};
    QDirIterator it(s.hub.dataDir(), {QStringLiteral("*.log")}, QDir::Files, QDirIterator::Subdirectories);
    while (it.hasNext())
        logs << it.next();
    QDirIterator engineLogs(s.home.path() + QStringLiteral("/state"), QDir::Files, QDirIterator::Subdirectories);
    while (engineLogs.hasNext())
        logs << engineLogs.next();
    QVERIFY(logs.size() >= 3);
    qint64 scanned = 0;
    for (const QString &path : logs) {
        QFile log(path);
        QVERIFY(log.open(QIODevice::ReadOnly));
        const QByteArray text = log.readAll();
        scanned += text.size();
        for (const QByteArray &needle : needles)
            QVERIFY2(!text.contains(needle), qPrintable(QStringLiteral("a secret is in %1").arg(path)));
    }
    QVERIFY(scanned > 1000);
}

QTEST_GUILESS_MAIN(tst_Pairing)
#include "tst_pairing.moc"
