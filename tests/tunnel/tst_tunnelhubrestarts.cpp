// The tunnel between a paired engine and the real isolation-hub process survives 20 restarts of
// the hub while 200 calls per round are in flight: every call is answered with its own reply or
// fails explicitly; none gets another call's answer.
#include "browserapproval.h"
#include "hubprocess.h"

#include "core/paths.h"
#include "engineprobe.h"

#include <QEventLoop>
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QRandomGenerator>
#include <QTemporaryDir>
#include <QTest>

#include <memory>

using namespace isolation;
using namespace isolation::test;
using namespace std::chrono_literals;

class tst_TunnelHubRestarts final : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void twentyRestartsUnderLoad();

private:
    struct Tally
    {
        int answered = 0;
        int failed = 0;
        int mismatched = 0;
        int pending = 0;
    };
    void fire(QNetworkAccessManager &nam, const QUrl &url, const QByteArray &token, const QString &nonce, Tally &tally);
    static bool callPing(const HubProcess &hub, const QString &server);
};

void tst_TunnelHubRestarts::fire(
    QNetworkAccessManager &nam, const QUrl &url, const QByteArray &token, const QString &nonce, Tally &tally)
{
    QNetworkRequest request(url);
    request.setRawHeader("Authorization", "Bearer " + token);
    request.setHeader(QNetworkRequest::ContentTypeHeader, QStringLiteral("application/json"));
    const QJsonObject body {{QStringLiteral("method"), QStringLiteral("ping")},
        {QStringLiteral("params"), QJsonObject {{QStringLiteral("echo"), nonce}}},
        {QStringLiteral("timeoutMs"), 10000}};
    QNetworkReply *reply = nam.post(request, QJsonDocument(body).toJson(QJsonDocument::Compact));
    ++tally.pending;
    connect(reply, &QNetworkReply::finished, this, [reply, nonce, &tally] {
        reply->deleteLater();
        --tally.pending;
        const int status = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
        const QByteArray bytes = reply->readAll();
        const QJsonObject o = QJsonDocument::fromJson(bytes).object();
        const auto mismatch = [&] {
            ++tally.mismatched;
            qWarning("mismatched answer: HTTP %d, %s, body %s", status, qPrintable(reply->errorString()),
                bytes.left(200).constData());
        };
        // The connection refused, or cut mid-answer by the restart (a 200 head whose body never
        // came whole): the caller is told, so it is an explicit failure, not a wrong answer.
        const bool cut
            = reply->error() > QNetworkReply::NoError && reply->error() < QNetworkReply::ProxyConnectionRefusedError;
        if (status == 0 || cut) {
            ++tally.failed;
            return;
        }
        if (status == 200) {
            const QString echo = o.value(QStringLiteral("result")).toObject().value(QStringLiteral("echo")).toString();
            if (echo == nonce)
                ++tally.answered;
            else
                mismatch();
            return;
        }
        // An explicit failure: an error body from the hub, either a call's error object or the
        // HTTP server's own refusal (`503 {"error":"unavailable"}` with Retry-After when the
        // restarted hub's per-peer connection limit is reached while QNAM reconnects).
        const QJsonValue error = o.value(QStringLiteral("error"));
        if (error.isObject() || (status == 503 && error.isString() && reply->hasRawHeader("Retry-After")))
            ++tally.failed;
        else
            mismatch();
    });
}

bool tst_TunnelHubRestarts::callPing(const HubProcess &hub, const QString &server)
{
    // Through the admin API with this process's event loop running: the engine answering the call
    // lives here too, so a blocking `isolation-hub call` would wait on itself.
    QFile adminFile(hub.dataDir() + QStringLiteral("/admin.json"));
    if (!adminFile.open(QIODevice::ReadOnly))
        return false;
    const QByteArray token
        = QJsonDocument::fromJson(adminFile.readAll()).object().value(QStringLiteral("token")).toString().toLatin1();
    QUrl url = hub.appUrl();
    url.setPath(QStringLiteral("/v1/admin/servers/%1/call").arg(server));
    QNetworkAccessManager nam;
    QNetworkRequest request(url);
    request.setRawHeader("Authorization", "Bearer " + token);
    request.setHeader(QNetworkRequest::ContentTypeHeader, QStringLiteral("application/json"));
    QNetworkReply *reply = nam.post(request, R"({"method":"ping","params":{"echo":"probe"},"timeoutMs":5000})");
    QEventLoop loop;
    connect(reply, &QNetworkReply::finished, &loop, &QEventLoop::quit);
    loop.exec();
    reply->deleteLater();
    return reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt() == 200
        && QJsonDocument::fromJson(reply->readAll())
               .object()
               .value(QStringLiteral("result"))
               .toObject()
               .value(QStringLiteral("echo"))
               .toString()
        == QLatin1String("probe");
}

void tst_TunnelHubRestarts::twentyRestartsUnderLoad()
{
    HubProcess hub;
    QVERIFY(hub.start({}, {QStringLiteral("--poll-interval"), QStringLiteral("1")}));
    QTemporaryDir home;
    QProcessEnvironment env;
    env.insert(QStringLiteral("ISOLATION_HOME"), home.path());
    EngineOptions options;
    options.credentialStore = CredentialStoreKind::File;
    Engine engine(Paths::resolve(env).value(), options);
    QVERIFY(engine.start().ok());
    QVERIFY(engine.startPairing(hub.appUrl(), QStringLiteral("restarts")).ok());
    QTRY_COMPARE_WITH_TIMEOUT(engine.pairingStatus().value(QStringLiteral("state")).toString(),
        QStringLiteral("waiting_for_approval"), 10000);
    QCOMPARE(
        hub.admin({QStringLiteral("approve"), engine.pairingStatus().value(QStringLiteral("userCode")).toString()}), 0);
    QTRY_COMPARE_WITH_TIMEOUT(engine.state(), EngineState::Online, 20000);
    const QString server = engine.status().value(QStringLiteral("serverId")).toString();

    // The product's backoff (1 s base, 30 s cap, reset after 60 s up) would make twenty restarts in a
    // row take minutes; the same tunnel with a faster policy tests the same code.
    TunnelClient::Options fast = EngineProbe::tunnel(engine)->options();
    fast.backoff = {50ms, 500ms, 60s};
    QVERIFY(engine.openTunnel(fast).ok());
    QTRY_COMPARE_WITH_TIMEOUT(engine.state(), EngineState::Online, 10000);

    QUrl callUrl = hub.appUrl();
    callUrl.setPath(QStringLiteral("/v1/admin/servers/%1/call").arg(server));
    std::vector<std::unique_ptr<QNetworkAccessManager>> nams; // 6 connections each: 200 calls at once
    for (int i = 0; i < 34; ++i)
        nams.push_back(std::make_unique<QNetworkAccessManager>());

    Tally total;
    const int connectionsBefore = EngineProbe::tunnel(engine)->connectionCount();
    for (int round = 0; round < 20; ++round) {
        QTRY_VERIFY_WITH_TIMEOUT(callPing(hub, server), 20000);
        QFile adminFile(hub.dataDir() + QStringLiteral("/admin.json"));
        QVERIFY(adminFile.open(QIODevice::ReadOnly));
        const QByteArray token = QJsonDocument::fromJson(adminFile.readAll())
                                     .object()
                                     .value(QStringLiteral("token"))
                                     .toString()
                                     .toLatin1();
        Tally tally;
        for (int i = 0; i < 200; ++i)
            fire(*nams[size_t(i) % nams.size()], callUrl, token,
                QStringLiteral("r%1-c%2-%3").arg(round).arg(i).arg(QRandomGenerator::global()->generate()), tally);
        // Some calls done, some in flight. On a fast machine all 200 may be answered within the
        // longer waits, so every other round restarts almost at once: calls are then surely cut.
        QTest::qWait(round % 2 ? int(QRandomGenerator::global()->bounded(0, 30))
                               : int(QRandomGenerator::global()->bounded(300, 900)));
        QVERIFY2(hub.restart(), qPrintable(hub.output()));
        QTRY_VERIFY_WITH_TIMEOUT(tally.pending == 0, 60000);
        QCOMPARE(tally.mismatched, 0);
        QCOMPARE(tally.answered + tally.failed, 200);
        total.answered += tally.answered;
        total.failed += tally.failed;
    }
    QTRY_VERIFY_WITH_TIMEOUT(callPing(hub, server), 20000);
    qInfo("answered %d, failed explicitly %d, mismatched 0, tunnels %d", total.answered, total.failed,
        EngineProbe::tunnel(engine)->connectionCount() - connectionsBefore);
    QVERIFY(total.answered > 0);
    QVERIFY(total.failed > 0); // the restarts really cut calls
    QVERIFY(EngineProbe::tunnel(engine)->connectionCount() - connectionsBefore >= 20); // it reconnected after every restart
}

QTEST_GUILESS_MAIN(tst_TunnelHubRestarts)
#include "tst_tunnelhubrestarts.moc"
