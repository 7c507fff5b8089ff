#include "hubprocess.h"

#include <QEventLoop>
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QTest>

using namespace isolation::test;

class tst_HubHealth final : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void healthOverHttp();
    void adminTokenFile();
    void adminVerb();
    void adminApiNeedsTheToken();
    void previewOriginIsSeparate();
    void badCommandLine();
    void stopsCleanly();

private:
    struct Answer
    {
        int status = 0;
        QByteArray body;
    };
    static Answer get(const QUrl &url, const QByteArray &bearer = {}, const QByteArray &host = {});
};

tst_HubHealth::Answer tst_HubHealth::get(const QUrl &url, const QByteArray &bearer, const QByteArray &host)
{
    QNetworkAccessManager nam;
    QNetworkRequest request(url);
    if (!host.isEmpty())
        request.setRawHeader("Host", host);
    if (!bearer.isEmpty())
        request.setRawHeader("Authorization", "Bearer " + bearer);
    QNetworkReply *reply = nam.get(request);
    QEventLoop loop;
    QObject::connect(reply, &QNetworkReply::finished, &loop, &QEventLoop::quit);
    loop.exec();
    Answer a {reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt(), reply->readAll()};
    reply->deleteLater();
    return a;
}

void tst_HubHealth::healthOverHttp()
{
    HubProcess hub;
    QVERIFY2(hub.start(), qPrintable(hub.output()));
    QCOMPARE(hub.appUrl().host(), QStringLiteral("127.0.0.1"));
    QVERIFY(hub.appUrl().port() > 0);
    const Answer a = get(hub.appUrl().resolved(QUrl(QStringLiteral("/v1/health"))));
    QCOMPARE(a.status, 200);
    const QJsonObject o = QJsonDocument::fromJson(a.body).object();
    QCOMPARE(o.value(QStringLiteral("status")).toString(), QStringLiteral("ok"));
    QCOMPARE(o.value(QStringLiteral("protocol")).toInt(), 1);
}

void tst_HubHealth::adminTokenFile()
{
    HubProcess hub;
    QVERIFY(hub.start());
    QFile file(hub.dataDir() + QStringLiteral("/admin.json"));
    QVERIFY(file.exists());
    QCOMPARE(file.permissions() & ~(QFileDevice::ReadUser | QFileDevice::WriteUser),
        QFileDevice::ReadOwner | QFileDevice::WriteOwner);
    QVERIFY(file.open(QIODevice::ReadOnly));
    const QJsonObject o = QJsonDocument::fromJson(file.readAll()).object();
    QVERIFY(o.value(QStringLiteral("token")).toString().size() >= 40);
    QCOMPARE(QUrl(o.value(QStringLiteral("url")).toString()), hub.appUrl());
}

void tst_HubHealth::adminVerb()
{
    HubProcess hub;
    QVERIFY(hub.start());
    QString out, err;
    QCOMPARE(hub.admin({QStringLiteral("status"), QStringLiteral("--json")}, &out, &err), 0);
    const QJsonObject o = QJsonDocument::fromJson(out.toUtf8()).object();
    QCOMPARE(QUrl(o.value(QStringLiteral("app")).toString()), hub.appUrl());
}

void tst_HubHealth::adminApiNeedsTheToken()
{
    HubProcess hub;
    QVERIFY(hub.start());
    const QUrl url = hub.appUrl().resolved(QUrl(QStringLiteral("/v1/admin/status")));
    QCOMPARE(get(url).status, 401);
    QCOMPARE(get(url, "not-the-token").status, 401);
    const Answer a = get(url, "x");
    QCOMPARE(QJsonDocument::fromJson(a.body)
                 .object()
                 .value(QStringLiteral("error"))
                 .toObject()
                 .value(QStringLiteral("code"))
                 .toString(),
        QStringLiteral("unauthorized"));
}

void tst_HubHealth::previewOriginIsSeparate()
{
    HubProcess hub;
    QVERIFY(hub.start());
    QVERIFY(hub.previewUrl().host().endsWith(QStringLiteral("preview.localhost")));
    QVERIFY(hub.previewUrl().port() != hub.appUrl().port());
    QUrl health(QStringLiteral("http://127.0.0.1/v1/health"));
    health.setPort(hub.previewUrl().port());
    // The preview origin serves views only: not the API, and not under the app's host name.
    QCOMPARE(get(health).status, 421);
    QCOMPARE(get(health, {}, "preview.localhost:" + QByteArray::number(hub.previewUrl().port())).status, 404);
}

void tst_HubHealth::badCommandLine()
{
    QProcess p;
    p.start(hubBinary(), {QStringLiteral("serve")});
    QVERIFY(p.waitForFinished(20000));
    QCOMPARE(p.exitCode(), 2);
    p.start(hubBinary(), {QStringLiteral("--help")});
    QVERIFY(p.waitForFinished(20000));
    QCOMPARE(p.exitCode(), 0);
    QVERIFY(p.readAllStandardOutput().contains("serve --data DIR"));
    QTemporaryDir empty;
    p.start(hubBinary(), {QStringLiteral("--data"), empty.path(), QStringLiteral("status")});
    QVERIFY(p.waitForFinished(20000));
    QCOMPARE(p.exitCode(), 1);
    QVERIFY(p.readAllStandardError().contains("no running hub"));
}

void tst_HubHealth::stopsCleanly()
{
    HubProcess hub;
    QVERIFY(hub.start());
    QCOMPARE(hub.stop(), 0);
    QVERIFY(QFile::exists(hub.dataDir() + QStringLiteral("/hub.log")));
}

QTEST_GUILESS_MAIN(tst_HubHealth)
#include "tst_hubhealth.moc"
