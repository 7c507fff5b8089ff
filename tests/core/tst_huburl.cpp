// HubUrl::check, the one rule for hub URLs (TLS, or plain only to this computer), and the engine's
// hub clients keeping it: a refused URL is refused before anything is sent. "Sent" is watched
// through a real listening socket set as the clients' HTTP proxy: every request the network stack
// makes for an http:// URL, whatever its host, would connect there first.
#include "core/huburl.h"
#include "crypto/securebytes.h"
#include "hubapi/hubclient.h"
#include "pairing/serveridentity.h"
#include "store/storeclient.h"

#include <QNetworkAccessManager>
#include <QNetworkProxy>
#include <QSignalSpy>
#include <QTcpServer>
#include <QTest>

#include <optional>

using namespace isolation;

class tst_HubUrl final : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void check_data();
    void check();
    void refusalSaysWhatToUse();
    void hubClientSendsNothingToARefusedHub_data();
    void hubClientSendsNothingToARefusedHub();
    void storeClientSendsNothingToARefusedHub();
    void loopbackHubIsStillCalled();

private:
    // A proxy that only counts connections: where the clients' requests would go.
    struct Watch
    {
        QTcpServer listener;
        QNetworkAccessManager network;
        int connections = 0;
    };
    static void watch(Watch &w);
};

void tst_HubUrl::check_data()
{
    QTest::addColumn<QString>("url");
    QTest::addColumn<bool>("allowed");
    QTest::newRow("https anywhere") << "https://hub.example.com" << true;
    QTest::newRow("https with a port and path") << "https://hub.example.com:8443/base" << true;
    QTest::newRow("wss anywhere") << "wss://hub.example.com" << true;
    QTest::newRow("http to 127.0.0.1") << "http://127.0.0.1:8470" << true;
    QTest::newRow("http to 127.1.2.3") << "http://127.1.2.3:8470" << true;
    QTest::newRow("http to ::1") << "http://[::1]:8470" << true;
    QTest::newRow("http to localhost") << "http://localhost:8470/" << true;
    QTest::newRow("http to LOCALHOST") << "http://LOCALHOST:8470" << true;
    QTest::newRow("ws to 127.0.0.1") << "ws://127.0.0.1:8470" << true;
    QTest::newRow("http to a name") << "http://example.com" << false;
    QTest::newRow("http to an unresolvable name") << "http://example.invalid:8470" << false;
    QTest::newRow("http to a LAN address") << "http://10.0.0.7:8470" << false;
    QTest::newRow("http to 0.0.0.0") << "http://0.0.0.0:8470" << false;
    QTest::newRow("http to ::2") << "http://[::2]:8470" << false;
    QTest::newRow("http to 127.0.0.1 mapped into IPv6") << "http://[::ffff:127.0.0.1]:8470" << true;
    QTest::newRow("http to a LAN address mapped into IPv6") << "http://[::ffff:10.0.0.7]:8470" << false;
    QTest::newRow("http to a look-alike of 127.0.0.1") << "http://127.0.0.1.example.com" << false;
    QTest::newRow("http to a look-alike of localhost") << "http://localhost.example.com" << false;
    QTest::newRow("http to a subdomain of localhost") << "http://hub.localhost:8470" << false;
    QTest::newRow("ws to a name") << "ws://hub.example.com" << false;
    QTest::newRow("ftp to 127.0.0.1") << "ftp://127.0.0.1" << false;
    QTest::newRow("file") << "file:///tmp/hub" << false;
    QTest::newRow("credentials in the URL") << "https://user:secret@hub.example.com" << false;
    QTest::newRow("empty") << "" << false;
    QTest::newRow("no host") << "http:///v1" << false;
}

void tst_HubUrl::check()
{
    QFETCH(QString, url);
    QFETCH(bool, allowed);
    const auto checked = HubUrl::check(QUrl(url));
    QCOMPARE(checked.ok(), allowed);
    if (allowed) {
        QCOMPARE(checked.value(), QUrl(url));
        return;
    }
    QCOMPARE(checked.error().code, Error::Code::InvalidInput);
    QVERIFY(!checked.error().message.isEmpty());
    QVERIFY2(!checked.error().message.contains(QLatin1String("secret")), qPrintable(checked.error().message));
}

void tst_HubUrl::refusalSaysWhatToUse()
{
    QCOMPARE(HubUrl::check(QUrl(QStringLiteral("http://example.com"))).error().message,
        QStringLiteral("refusing hub http://example.com: a hub must be https:// or on this computer (127.0.0.1, "
                       "::1, localhost); use https://example.com"));
    QCOMPARE(HubUrl::check(QUrl(QStringLiteral("http://hub.example.com:8470/x"))).error().message,
        QStringLiteral("refusing hub http://hub.example.com:8470/x: a hub must be https:// or on this computer "
                       "(127.0.0.1, ::1, localhost); use https://hub.example.com:8470"));
}

void tst_HubUrl::watch(Watch &w)
{
    QVERIFY(w.listener.listen(QHostAddress::LocalHost));
    connect(&w.listener, &QTcpServer::newConnection, &w.listener, [&w] {
        while (QTcpSocket *s = w.listener.nextPendingConnection()) {
            ++w.connections;
            s->close();
            s->deleteLater();
        }
    });
    w.network.setProxy(QNetworkProxy(QNetworkProxy::HttpProxy, QStringLiteral("127.0.0.1"), w.listener.serverPort()));
}

void tst_HubUrl::hubClientSendsNothingToARefusedHub_data()
{
    QTest::addColumn<QString>("hub");
    QTest::newRow("pairing's and the heartbeat's hub") << "http://example.invalid:8470";
    QTest::newRow("a LAN hub") << "http://192.0.2.10:8470";
}

void tst_HubUrl::hubClientSendsNothingToARefusedHub()
{
    QFETCH(QString, hub);
    Watch w;
    watch(w);
    HubClient client(&w.network);
    client.setBaseUrl(QUrl(hub));
    client.setCredential("the-server-credential");
    std::optional<Result<QJsonObject, HubError>> answer;
    client.call("POST", QStringLiteral("/v1/heartbeat"), {}, [&](Result<QJsonObject, HubError> r) { answer = r; });
    QVERIFY(!answer); // never inside call()
    QTRY_VERIFY(answer.has_value());
    QVERIFY(!answer->ok());
    QCOMPARE(answer->error().code, HubError::Code::Refused);
    QVERIFY(!answer->error().retryable());
    QVERIFY2(answer->error().message.startsWith(QStringLiteral("refusing hub ") + hub),
        qPrintable(answer->error().message));
    QTest::qWait(300);
    QCOMPARE(w.connections, 0);
}

void tst_HubUrl::storeClientSendsNothingToARefusedHub()
{
    Watch w;
    watch(w);
    ServerIdentity server;
    server.credential = SecureBytes("credential");
    StoreClient client(&w.network, QUrl(QStringLiteral("http://example.invalid:8470")), server);
    client.addSession(QStringLiteral("ws_00000000000000000001"), QStringLiteral("s000000000001"));
    std::optional<StoreResult<QList<StoreClient::Workspace>>> list;
    client.listWorkspaces([&](StoreResult<QList<StoreClient::Workspace>> r) { list = r; });
    std::optional<StoreResult<StoreClient::ManifestReply>> manifest;
    client.getManifest(QStringLiteral("ws_00000000000000000001"), {},
        [&](StoreResult<StoreClient::ManifestReply> r) { manifest = r; });
    client.endSession(QStringLiteral("s000000000001"));
    QTRY_VERIFY(list.has_value() && manifest.has_value());
    QVERIFY(!list->ok());
    QVERIFY(!manifest->ok());
    QVERIFY2(list->error().message.startsWith(QStringLiteral("refusing hub http://example.invalid:8470")),
        qPrintable(list->error().message));
    QCOMPARE(manifest->error().message, list->error().message);
    QVERIFY(!manifest->error().retryable());
    QTest::qWait(300);
    QCOMPARE(w.connections, 0);
}

void tst_HubUrl::loopbackHubIsStillCalled()
{
    // The watch itself: a loopback hub's request does go out (here, to the proxy).
    Watch w;
    watch(w);
    HubClient client(&w.network);
    client.setBaseUrl(QUrl(QStringLiteral("http://localhost:9")));
    client.setTimeout(5000);
    bool answered = false;
    client.call("GET", QStringLiteral("/v1/health"), {}, [&](Result<QJsonObject, HubError>) { answered = true; });
    QTRY_VERIFY(answered);
    QVERIFY(w.connections >= 1);
}

QTEST_GUILESS_MAIN(tst_HubUrl)
#include "tst_huburl.moc"
