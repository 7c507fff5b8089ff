// Views through the hub: the real isolation-hub mints a view (`isolation-hub view`), a browser's
// requests on the preview origin ("<viewId>.preview.localhost") go over the real tunnel to a
// paired engine's doorman, and on to the stand-in execd and its application run locally.
#include "doormanfixture.h"
#include "hubprocess.h"
#include "pairedserver.h"

#include "crypto/ed25519.h"
#include "doorman/doorman.h"
#include "tunnel/tunnelclient.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QNetworkRequest>
#include <QRegularExpression>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <QUrlQuery>
#include <QWebSocket>

using namespace isolation;
using namespace isolation::test;

class tst_ViewHub final : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void cleanupTestCase();
    void hubMintsAViewUrl();
    void previewThroughTheHub();
    void webSocketThroughTheHub();
    void oneViewCannotReadAnother();
    void refusedBeforeTheTunnel_data();
    void refusedBeforeTheTunnel();
    void tokenNeverInLogs();

private:
    // `isolation-hub view ...`: the URL it printed.
    QUrl mint(const QStringList &args);
    // GET on the hub's preview port with the Host a browser would send for `url`.
    RawAnswer get(
        const QUrl &url, const QByteArray &target, const QByteArray &cookie = {}, const QByteArray &extra = {});
    // Opens `url` (with its token): the cookie it set ("__Host-isolation_view=...").
    QByteArray open(const QUrl &url);
    static QByteArray hostOf(const QUrl &url) { return url.host().toLatin1() + ':' + QByteArray::number(url.port()); }

    SystemClock m_clock;
    HubProcess m_hub;
    QTemporaryDir m_home;
    std::optional<ServerIdentity> m_identity;
    StandinProcess m_execd;
    StandinProcess m_app;
    StaticTargets m_targets;
    std::unique_ptr<TunnelClient> m_tunnel;
    std::unique_ptr<Doorman> m_doorman;
    QList<QByteArray> m_tokens;
    QUrl m_viewA;
    QByteArray m_cookieA;
};

void tst_ViewHub::initTestCase()
{
    QVERIFY(m_home.isValid());
    // The "sandbox": the stand-in execd (requiring its access token) and an application beside it.
    QVERIFY(startStandinSandbox(m_execd, m_app, m_targets));

    // The hub, and an engine paired with it: the doorman learns the hub's key from pairing.
    QVERIFY(m_hub.start());
    m_identity = pairServer(m_hub.appUrl(), m_home.path(), QStringLiteral("views"));
    QVERIFY(m_identity.has_value());
    QCOMPARE(m_identity->hubPublicKey.size(), 32);

    TunnelClient::Options t;
    t.hub = m_identity->hubUrl;
    t.serverId = m_identity->serverId;
    t.credential = m_identity->credential.toByteArray();
    const SecureBytes key = m_identity->ed25519Private;
    t.sign = [key](const QByteArray &message) { return ed25519Sign(key.view(), message).value(); };
    m_tunnel = std::make_unique<TunnelClient>(t, m_clock);

    Doorman::Options o;
    o.serverId = m_identity->serverId;
    o.hubPublicKey = m_identity->hubPublicKey;
    m_doorman = std::make_unique<Doorman>(o, m_clock, &m_targets);
    m_doorman->attach(m_tunnel.get());
    QVERIFY(m_tunnel->start());
    QTRY_VERIFY_WITH_TIMEOUT(m_tunnel->state() == TunnelState::Connected, 15000);

    m_viewA = mint({QStringLiteral("s1"), QStringLiteral("--kind"), QStringLiteral("preview"), QStringLiteral("--port"),
        QString::number(m_app.port)});
    QVERIFY(m_viewA.isValid());
    m_cookieA = open(m_viewA);
    QVERIFY2(m_cookieA.startsWith("__Host-isolation_view="), m_cookieA.constData());
}

void tst_ViewHub::cleanupTestCase()
{
    if (m_doorman)
        m_doorman->close();
    if (m_tunnel)
        m_tunnel->stop();
    m_doorman.reset();
    m_tunnel.reset();
    m_hub.stop();
}

QUrl tst_ViewHub::mint(const QStringList &args)
{
    QString out;
    QString err;
    const int rc = m_hub.admin(QStringList {QStringLiteral("view")} + args, &out, &err);
    if (rc != 0) {
        qWarning("isolation-hub view failed (%d): %s", rc, qPrintable(err));
        return {};
    }
    const QUrl url(out.trimmed());
    m_tokens << QUrlQuery(url).queryItemValue(QStringLiteral("view_token")).toLatin1();
    return url;
}

RawAnswer tst_ViewHub::get(const QUrl &url, const QByteArray &target, const QByteArray &cookie, const QByteArray &extra)
{
    return exchange(quint16(m_hub.previewUrl().port()),
        "GET " + target + " HTTP/1.1\r\nHost: " + hostOf(url) + "\r\n"
            + (cookie.isEmpty() ? QByteArray() : "Cookie: " + cookie + "\r\n") + extra + "\r\n");
}

QByteArray tst_ViewHub::open(const QUrl &url)
{
    const RawAnswer a = get(url, url.toEncoded(QUrl::RemoveScheme | QUrl::RemoveAuthority));
    for (const QByteArray &c : a.all("set-cookie")) {
        if (c.startsWith("__Host-isolation_view="))
            return c.left(c.indexOf(';'));
    }
    qWarning("opening %s answered %d: %s\n%s", qPrintable(url.toString()), a.status, a.raw.left(600).constData(),
        qPrintable(m_hub.output()));
    return {};
}

void tst_ViewHub::hubMintsAViewUrl()
{
    // One origin per view, on the hub's preview port, never the app origin's host name.
    static const QRegularExpression host(QStringLiteral("^v[0-9a-f]{24}\\.preview\\.localhost$"));
    QVERIFY2(host.match(m_viewA.host()).hasMatch(), qPrintable(m_viewA.toString()));
    QCOMPARE(m_viewA.port(), m_hub.previewUrl().port());
    QVERIFY(m_viewA.host() != m_hub.appUrl().host());
    // The token inside verifies with the key the engine learned at pairing, for this server.
    const QByteArray token = m_tokens.first();
    auto claims = ViewToken::verify(token, m_identity->hubPublicKey, m_identity->serverId, m_clock.unixSeconds());
    QVERIFY(claims);
    QCOMPARE(claims.value().viewId + QStringLiteral(".preview.localhost"), m_viewA.host());
    QCOMPARE(claims.value().kind, ViewKind::Preview);
    QCOMPARE(claims.value().port, int(m_app.port));
    QVERIFY(claims.value().expiresAt - claims.value().issuedAt <= 3600);
    // The same token is refused for another server.
    auto other = ViewToken::verify(token, m_identity->hubPublicKey, QStringLiteral("srv_other"), m_clock.unixSeconds());
    QVERIFY(!other);
    QCOMPARE(other.error().httpStatus(), 403);
    // Impossible views are refused by the hub.
    QString out;
    QString err;
    QVERIFY(
        m_hub.admin({QStringLiteral("view"), QStringLiteral("s1"), QStringLiteral("--kind"), QStringLiteral("preview")},
            &out, &err)
        != 0);
    QVERIFY(
        m_hub.admin({QStringLiteral("view"), QStringLiteral("s1"), QStringLiteral("--kind"), QStringLiteral("shell")},
            &out, &err)
        != 0);
}

void tst_ViewHub::previewThroughTheHub()
{
    const int before = m_app.linesWith("ISOLATION-STANDIN-APP ");
    const RawAnswer page
        = get(m_viewA, "/page", m_cookieA, "X-Forwarded-For: 6.6.6.6\r\nAuthorization: Basic Zm9vOmJhcg==\r\n");
    QCOMPARE(page.status, 200);
    QVERIFY2(page.body.contains("Hello from the sandbox"), page.body.constData());
    QCOMPARE(page.header("referrer-policy"), QByteArray("no-referrer"));
    QCOMPARE(m_app.linesWith("ISOLATION-STANDIN-APP "), before + 1);
    // What reached the application: no view cookie, no Authorization, the hub's forwarding headers.
    const QByteArray line = m_app.lines("ISOLATION-STANDIN-APP ").last();
    const QJsonObject seen = QJsonDocument::fromJson(line.mid(line.indexOf(' ') + 1)).object();
    QCOMPARE(seen.value(QStringLiteral("target")).toString(), QStringLiteral("/page"));
    QHash<QString, QString> headers;
    for (const QJsonValue &h : seen.value(QStringLiteral("headers")).toArray())
        headers.insert(h.toArray().at(0).toString().toLower(), h.toArray().at(1).toString());
    QVERIFY(!headers.contains(QStringLiteral("cookie")));
    QVERIFY(!headers.contains(QStringLiteral("authorization")));
    QVERIFY(!headers.contains(QStringLiteral("x-execd-access-token")));
    QCOMPARE(headers.value(QStringLiteral("x-forwarded-for")), QStringLiteral("127.0.0.1"));
    QCOMPARE(headers.value(QStringLiteral("x-forwarded-host")), QString::fromLatin1(hostOf(m_viewA)));
    QCOMPARE(headers.value(QStringLiteral("x-forwarded-proto")), QStringLiteral("http"));

    // Streaming both ways across the tunnel: a large answer arrives whole.
    const RawAnswer big = get(m_viewA, "/big?n=3000000", m_cookieA);
    QCOMPARE(big.status, 200);
    QCOMPARE(big.body.size(), 3000000);
}

void tst_ViewHub::webSocketThroughTheHub()
{
    HostRewriter relay(quint16(m_hub.previewUrl().port()), hostOf(m_viewA));
    QWebSocket ws(QStringLiteral("http://") + QString::fromLatin1(hostOf(m_viewA)));
    QNetworkRequest r {QUrl(QStringLiteral("ws://127.0.0.1:%1/ws").arg(relay.port()))};
    r.setRawHeader("Cookie", m_cookieA);
    QSignalSpy connected(&ws, &QWebSocket::connected);
    ws.open(r);
    QVERIFY(connected.wait(10000));
    QSignalSpy message(&ws, &QWebSocket::textMessageReceived);
    ws.sendTextMessage(QStringLiteral("through the hub"));
    QVERIFY(message.wait(5000));
    QCOMPARE(message.first().first().toString(), QStringLiteral("echo: through the hub"));
    ws.close();

    // Another origin (even another view's) is refused.
    QWebSocket cross(QStringLiteral("http://evil.example"));
    QSignalSpy gone(&cross, &QWebSocket::disconnected);
    QSignalSpy crossConnected(&cross, &QWebSocket::connected);
    cross.open(r);
    QVERIFY(gone.wait(10000));
    QCOMPARE(crossConnected.size(), 0);
}

void tst_ViewHub::oneViewCannotReadAnother()
{
    const QUrl viewB = mint({QStringLiteral("s1"), QStringLiteral("--kind"), QStringLiteral("preview"),
        QStringLiteral("--port"), QString::number(m_app.port)});
    QVERIFY(viewB.isValid());
    QVERIFY(viewB.host() != m_viewA.host());
    const int before = m_app.linesWith("ISOLATION-STANDIN-APP ");
    // View A's cookie on view B's origin: refused, nothing reaches the sandbox.
    const RawAnswer a = get(viewB, "/page", m_cookieA);
    QVERIFY2(a.status == 401 || a.status == 403, qPrintable(QString::number(a.status)));
    QVERIFY(!a.body.contains("Hello from the sandbox"));
    // View A's token used on B's origin: refused too (the view id is part of the scope).
    const QByteArray tokenA = mint({QStringLiteral("s1"), QStringLiteral("--kind"), QStringLiteral("preview"),
                                       QStringLiteral("--port"), QString::number(m_app.port)})
                                  .query()
                                  .toLatin1();
    const RawAnswer b = get(viewB, "/?" + tokenA);
    QVERIFY2(b.status == 401 || b.status == 403, qPrintable(QString::number(b.status)));
    QCOMPARE(m_app.linesWith("ISOLATION-STANDIN-APP "), before);
    // B's own token works on B.
    QVERIFY(open(viewB).startsWith("__Host-isolation_view="));
}

void tst_ViewHub::refusedBeforeTheTunnel_data()
{
    QTest::addColumn<QByteArray>("host");
    QTest::addColumn<int>("status");
    QTest::newRow("unknown view") << QByteArray("v000000000000000000000bad.preview.localhost") << 404;
    QTest::newRow("no view label") << QByteArray("preview.localhost") << 404;
    QTest::newRow("the app's host name") << QByteArray("localhost") << 421; // not a name it serves
}

void tst_ViewHub::refusedBeforeTheTunnel()
{
    QFETCH(QByteArray, host);
    QFETCH(int, status);
    const int before = m_app.linesWith("ISOLATION-STANDIN-APP ");
    const RawAnswer a = exchange(quint16(m_hub.previewUrl().port()),
        "GET /page HTTP/1.1\r\nHost: " + host + ':' + QByteArray::number(m_hub.previewUrl().port())
            + "\r\nCookie: " + m_cookieA + "\r\n\r\n");
    QCOMPARE(a.status, status);
    QCOMPARE(m_app.linesWith("ISOLATION-STANDIN-APP "), before);
}

void tst_ViewHub::tokenNeverInLogs()
{
    const QString hubLog = m_hub.output();
    QVERIFY(!hubLog.isEmpty());
    for (const QByteArray &t : std::as_const(m_tokens)) {
        QVERIFY(!t.isEmpty());
        QVERIFY2(!hubLog.contains(QString::fromLatin1(t)), "a view token in the hub's log");
        QVERIFY2(!hubLog.contains(QString::fromLatin1(t.left(40))), "part of a view token in the hub's log");
    }
    const QByteArray cookieValue = m_cookieA.mid(m_cookieA.indexOf('=') + 1);
    QVERIFY(!hubLog.contains(QString::fromLatin1(cookieValue)));
    for (const QByteArray &line : m_app.lines(""))
        QVERIFY(!line.contains(cookieValue));
}

QTEST_GUILESS_MAIN(tst_ViewHub)
#include "tst_viewhub.moc"
