// Who may ask the local hub (issue 20), against a real isolation-hub: a page that rebound its own
// name to the hub's address gets 421 and no page session on either origin; another site's form
// changes nothing (403); the approval page names the computer and when it asked; listening beyond
// loopback, the member pages want the sign-in token printed at first start.
#include "hubprocess.h"

#include <QDateTime>
#include <QEventLoop>
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QNetworkAccessManager>
#include <QNetworkCookieJar>
#include <QNetworkReply>
#include <QRegularExpression>
#include <QTest>
#include <QUrlQuery>

using namespace isolation::test;

class tst_HubGuards final : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void rebindingHostIsMisdirected_data();
    void rebindingHostIsMisdirected();
    void servedHostsAnswer_data();
    void servedHostsAnswer();
    void crossSitePostChangesNothing_data();
    void crossSitePostChangesNothing();
    void crossSiteApiPostIsRefused();
    void approvalPageShowsDeviceAndTime();
    void beyondLoopbackNeedsTheSignInToken();

private:
    struct Answer
    {
        int status = 0;
        QByteArray body;
        QByteArray setCookie;
        QByteArray location;
    };
    // One request; `headers` may set Host, Origin, Sec-Fetch-Site, Cookie (Qt keeps a Host given).
    static Answer send(QNetworkAccessManager &nam, const QByteArray &method, const QUrl &url,
        const QList<QPair<QByteArray, QByteArray>> &headers = {}, const QByteArray &body = {},
        const QByteArray &contentType = "application/x-www-form-urlencoded");
    QJsonObject startPairing(const QString &name, const QString &hostName);
    static QString csrfOf(const QByteArray &html);
    QByteArray appHost() const { return "127.0.0.1:" + QByteArray::number(m_hub.appUrl().port()); }
    QByteArray appOrigin() const { return "http://" + appHost(); }

    HubProcess m_hub;
};

tst_HubGuards::Answer tst_HubGuards::send(QNetworkAccessManager &nam, const QByteArray &method, const QUrl &url,
    const QList<QPair<QByteArray, QByteArray>> &headers, const QByteArray &body, const QByteArray &contentType)
{
    QNetworkRequest request(url);
    request.setAttribute(QNetworkRequest::RedirectPolicyAttribute, QNetworkRequest::ManualRedirectPolicy);
    for (const auto &[name, value] : headers)
        request.setRawHeader(name, value);
    if (!body.isEmpty())
        request.setHeader(QNetworkRequest::ContentTypeHeader, QString::fromLatin1(contentType));
    QNetworkReply *reply = nam.sendCustomRequest(request, method, body);
    QEventLoop loop;
    QObject::connect(reply, &QNetworkReply::finished, &loop, &QEventLoop::quit);
    loop.exec();
    Answer a {reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt(), reply->readAll(),
        reply->rawHeader("Set-Cookie"), reply->rawHeader("Location")};
    reply->deleteLater();
    return a;
}

QString tst_HubGuards::csrfOf(const QByteArray &html)
{
    static const QRegularExpression csrf(QStringLiteral("name=\"csrf\" value=\"([^\"]+)\""));
    return csrf.match(QString::fromUtf8(html)).captured(1);
}

QJsonObject tst_HubGuards::startPairing(const QString &name, const QString &hostName)
{
    // As an engine asks: no Origin, no cookie.
    QNetworkAccessManager nam;
    const QByteArray key = QByteArray(32, 'k').toBase64(QByteArray::Base64UrlEncoding | QByteArray::OmitTrailingEquals);
    const QJsonObject body {{QStringLiteral("name"), name}, {QStringLiteral("hostName"), hostName},
        {QStringLiteral("version"), QStringLiteral("9.9.9")}, {QStringLiteral("x25519Public"), QString::fromLatin1(key)},
        {QStringLiteral("ed25519Public"), QString::fromLatin1(key)}};
    const Answer a = send(nam, "POST", m_hub.appUrl().resolved(QUrl(QStringLiteral("/v1/pair/start"))), {},
        QJsonDocument(body).toJson(QJsonDocument::Compact), "application/json");
    return a.status == 200 ? QJsonDocument::fromJson(a.body).object() : QJsonObject();
}

void tst_HubGuards::initTestCase()
{
    QVERIFY2(m_hub.start(), qPrintable(m_hub.output()));
}

void tst_HubGuards::rebindingHostIsMisdirected_data()
{
    QTest::addColumn<bool>("preview");
    QTest::addColumn<QByteArray>("method");
    QTest::addColumn<QString>("path");
    QTest::addColumn<QByteArray>("host");
    QTest::newRow("approval page") << false << QByteArray("GET") << QStringLiteral("/pair")
                                   << QByteArray("rebind.attacker.test");
    QTest::newRow("sessions page") << false << QByteArray("GET") << QStringLiteral("/sessions")
                                   << QByteArray("rebind.attacker.test");
    QTest::newRow("views page") << false << QByteArray("GET") << QStringLiteral("/views")
                                << QByteArray("rebind.attacker.test");
    QTest::newRow("API") << false << QByteArray("GET") << QStringLiteral("/v1/health")
                         << QByteArray("rebind.attacker.test");
    QTest::newRow("pairing start") << false << QByteArray("POST") << QStringLiteral("/v1/pair/start")
                                   << QByteArray("rebind.attacker.test");
    QTest::newRow("a name ending in localhost") << false << QByteArray("GET") << QStringLiteral("/pair")
                                                << QByteArray("evil-localhost");
    QTest::newRow("two names") << false << QByteArray("GET") << QStringLiteral("/pair")
                               << QByteArray("user@127.0.0.1");
    QTest::newRow("preview origin") << true << QByteArray("GET") << QStringLiteral("/")
                                    << QByteArray("rebind.attacker.test");
    QTest::newRow("preview: the app's name") << true << QByteArray("GET") << QStringLiteral("/")
                                             << QByteArray("127.0.0.1");
    QTest::newRow("preview: not a view id") << true << QByteArray("GET") << QStringLiteral("/")
                                            << QByteArray("x.y.preview.localhost");
}

void tst_HubGuards::rebindingHostIsMisdirected()
{
    QFETCH(bool, preview);
    QFETCH(QByteArray, method);
    QFETCH(QString, path);
    QFETCH(QByteArray, host);
    const QUrl base = preview ? QUrl(QStringLiteral("http://127.0.0.1:%1").arg(m_hub.previewUrl().port()))
                              : m_hub.appUrl();
    const QByteArray port = QByteArray::number(base.port());
    QNetworkAccessManager nam;
    const Answer a = send(nam, method, base.resolved(QUrl(path)), {{"Host", host + ':' + port}},
        method == "POST" ? QByteArray("{}") : QByteArray(), "application/json");
    QCOMPARE(a.status, 421);
    QVERIFY2(!a.body.contains("csrf"), a.body.constData());
    QVERIFY(a.setCookie.isEmpty());
}

void tst_HubGuards::servedHostsAnswer_data()
{
    QTest::addColumn<bool>("preview");
    QTest::addColumn<QByteArray>("host");
    QTest::addColumn<int>("status");
    QTest::newRow("127.0.0.1") << false << QByteArray("127.0.0.1") << 200;
    QTest::newRow("localhost") << false << QByteArray("localhost") << 200;
    QTest::newRow("LocalHost") << false << QByteArray("LocalHost") << 200;
    QTest::newRow("[::1]") << false << QByteArray("[::1]") << 200;
    // Served names on the preview origin get as far as the view lookup.
    QTest::newRow("preview.localhost") << true << QByteArray("preview.localhost") << 404;
    QTest::newRow("a view's name") << true << QByteArray("v000000000000000000000bad.preview.localhost") << 404;
}

void tst_HubGuards::servedHostsAnswer()
{
    QFETCH(bool, preview);
    QFETCH(QByteArray, host);
    QFETCH(int, status);
    const int port = preview ? m_hub.previewUrl().port() : m_hub.appUrl().port();
    QNetworkAccessManager nam;
    const Answer a = send(nam, "GET", QUrl(QStringLiteral("http://127.0.0.1:%1/pair").arg(port)),
        {{"Host", host + ':' + QByteArray::number(port)}});
    QCOMPARE(a.status, status);
    if (!preview)
        QVERIFY(!csrfOf(a.body).isEmpty());
}

void tst_HubGuards::crossSitePostChangesNothing_data()
{
    QTest::addColumn<QByteArray>("origin");
    QTest::addColumn<QByteArray>("fetchSite");
    QTest::newRow("Origin evil.test") << QByteArray("http://evil.test") << QByteArray();
    QTest::newRow("Origin null") << QByteArray("null") << QByteArray();
    QTest::newRow("another port of this host") << QByteArray("http://127.0.0.1:1") << QByteArray();
    QTest::newRow("Sec-Fetch-Site cross-site") << QByteArray() << QByteArray("cross-site");
    QTest::newRow("Sec-Fetch-Site same-site") << QByteArray() << QByteArray("same-site");
    QTest::newRow("cross-site with our Origin") << QByteArray("ours") << QByteArray("cross-site");
    QTest::newRow("neither header") << QByteArray() << QByteArray();
}

void tst_HubGuards::crossSitePostChangesNothing()
{
    QFETCH(QByteArray, origin);
    QFETCH(QByteArray, fetchSite);
    const QJsonObject started = startPairing(QStringLiteral("victim"), QStringLiteral("victim.lan"));
    const QString code = started.value(QStringLiteral("user_code")).toString();
    QVERIFY(!code.isEmpty());

    QNetworkAccessManager nam; // its cookie jar holds the member's page session
    nam.setCookieJar(new QNetworkCookieJar(&nam));
    const QUrl page = m_hub.appUrl().resolved(QUrl(QStringLiteral("/pair")));
    const Answer form = send(nam, "GET", page);
    QCOMPARE(form.status, 200);
    const QString csrf = csrfOf(form.body);
    QVERIFY(!csrf.isEmpty());
    QUrlQuery fields;
    fields.addQueryItem(QStringLiteral("csrf"), csrf);
    fields.addQueryItem(QStringLiteral("user_code"), code);
    fields.addQueryItem(QStringLiteral("action"), QStringLiteral("approve"));
    const QByteArray body = fields.toString(QUrl::FullyEncoded).toUtf8();

    QList<QPair<QByteArray, QByteArray>> headers;
    if (!origin.isEmpty())
        headers.append({"Origin", origin == "ours" ? appOrigin() : origin});
    if (!fetchSite.isEmpty())
        headers.append({"Sec-Fetch-Site", fetchSite});
    const Answer refused = send(nam, "POST", page, headers, body);
    QCOMPARE(refused.status, 403);

    // Nothing changed: the same form from the hub's own page still finds the code pending.
    const Answer own = send(nam, "POST", page, {{"Origin", appOrigin()}}, body);
    QCOMPARE(own.status, 200);
    QVERIFY2(own.body.contains("Computer approved"), own.body.constData());
    // And a browser that says only Sec-Fetch-Site: same-origin is one too.
    const QJsonObject second = startPairing(QStringLiteral("other"), QStringLiteral("other.lan"));
    fields.removeAllQueryItems(QStringLiteral("user_code"));
    fields.addQueryItem(QStringLiteral("user_code"), second.value(QStringLiteral("user_code")).toString());
    const Answer fetchOnly
        = send(nam, "POST", page, {{"Sec-Fetch-Site", "same-origin"}}, fields.toString(QUrl::FullyEncoded).toUtf8());
    QCOMPARE(fetchOnly.status, 200);
    // Our pages are Referrer-Policy: no-referrer, so a real browser posts their forms with
    // "Origin: null" beside Sec-Fetch-Site: same-origin: that is our own page.
    const QJsonObject third = startPairing(QStringLiteral("third"), QStringLiteral("third.lan"));
    fields.removeAllQueryItems(QStringLiteral("user_code"));
    fields.addQueryItem(QStringLiteral("user_code"), third.value(QStringLiteral("user_code")).toString());
    const Answer nullOrigin = send(nam, "POST", page, {{"Origin", "null"}, {"Sec-Fetch-Site", "same-origin"}},
        fields.toString(QUrl::FullyEncoded).toUtf8());
    QCOMPARE(nullOrigin.status, 200);
}

void tst_HubGuards::crossSiteApiPostIsRefused()
{
    // An engine sends no Origin (startPairing works); another site's page does, and is refused.
    QNetworkAccessManager nam;
    const QUrl start = m_hub.appUrl().resolved(QUrl(QStringLiteral("/v1/pair/start")));
    const Answer a = send(nam, "POST", start, {{"Origin", "http://evil.test"}}, "{}", "text/plain");
    QCOMPARE(a.status, 403);
    QVERIFY(!startPairing(QStringLiteral("engine"), QStringLiteral("engine.lan")).isEmpty());
}

void tst_HubGuards::approvalPageShowsDeviceAndTime()
{
    const QDateTime before = QDateTime::currentDateTimeUtc().addSecs(-1);
    const QJsonObject started = startPairing(QStringLiteral("Build box <7>"), QStringLiteral("buildbox7.lan"));
    const QDateTime after = QDateTime::currentDateTimeUtc().addSecs(1);
    const QString code = started.value(QStringLiteral("user_code")).toString();
    QVERIFY(!code.isEmpty());

    QNetworkAccessManager nam;
    nam.setCookieJar(new QNetworkCookieJar(&nam));
    const Answer form = send(nam, "GET", QUrl(started.value(QStringLiteral("verification_uri_complete")).toString()));
    QCOMPARE(form.status, 200);
    QUrlQuery fields;
    fields.addQueryItem(QStringLiteral("csrf"), csrfOf(form.body));
    fields.addQueryItem(QStringLiteral("user_code"), code);
    fields.addQueryItem(QStringLiteral("action"), QStringLiteral("review"));
    const QUrl page = m_hub.appUrl().resolved(QUrl(QStringLiteral("/pair")));
    const Answer review = send(nam, "POST", page, {{"Origin", appOrigin()}}, fields.toString(QUrl::FullyEncoded).toUtf8());
    QCOMPARE(review.status, 200);
    const QString html = QString::fromUtf8(review.body);
    QVERIFY2(html.contains(QStringLiteral("Build box &lt;7&gt;")), qPrintable(html));
    QVERIFY(html.contains(QStringLiteral("buildbox7.lan")));
    const QRegularExpressionMatch asked
        = QRegularExpression(QStringLiteral("<time datetime=\"([^\"]+)\">")).match(html);
    QVERIFY2(asked.hasMatch(), qPrintable(html));
    const QDateTime at = QDateTime::fromString(asked.captured(1), Qt::ISODate);
    QVERIFY2(at.isValid() && at >= before && at <= after, qPrintable(asked.captured(1)));
    // Reviewing decided nothing: the page's Approve still works.
    QVERIFY(html.contains(QStringLiteral("value=\"approve\"")));
    fields.removeAllQueryItems(QStringLiteral("action"));
    fields.addQueryItem(QStringLiteral("action"), QStringLiteral("approve"));
    const Answer approved = send(nam, "POST", page, {{"Origin", appOrigin()}}, fields.toString(QUrl::FullyEncoded).toUtf8());
    QCOMPARE(approved.status, 200);
    QVERIFY(approved.body.contains("Computer approved"));
}

void tst_HubGuards::beyondLoopbackNeedsTheSignInToken()
{
    // 0.0.0.0 is not loopback: every address of this machine reaches it (always present, unlike a
    // LAN address). Its loopback names are served, so the test asks through 127.0.0.1.
    HubProcess hub;
    QVERIFY2(hub.start({}, {QStringLiteral("--listen"), QStringLiteral("0.0.0.0:0")}), qPrintable(hub.output()));
    const QRegularExpressionMatch printed
        = QRegularExpression(QStringLiteral("sign-in token:\\s+([A-Za-z0-9_-]{40,})")).match(hub.output());
    QVERIFY2(printed.hasMatch(), qPrintable(hub.output()));
    const QByteArray token = printed.captured(1).toLatin1();
    const QByteArray origin = "http://127.0.0.1:" + QByteArray::number(hub.appUrl().port());
    const QUrl pair(QString::fromLatin1(origin + "/pair"));
    const QUrl signin(QString::fromLatin1(origin + "/signin"));

    // The first visit is not signed in: a sign-in form, no page session, no CSRF token.
    QNetworkAccessManager nam;
    nam.setCookieJar(new QNetworkCookieJar(&nam));
    for (const char *path : {"/pair", "/sessions", "/views", "/"}) {
        const Answer first = send(nam, "GET", QUrl(QString::fromLatin1(origin + path)));
        QCOMPARE(first.status, 401);
        QVERIFY(first.setCookie.isEmpty());
        QVERIFY(csrfOf(first.body).isEmpty());
        QVERIFY(first.body.contains("name=\"token\""));
    }
    // The API does not depend on it (each call brings its bearer).
    QCOMPARE(send(nam, "GET", QUrl(QString::fromLatin1(origin + "/v1/health"))).status, 200);
    // A form posted without a page session changes nothing.
    QCOMPARE(send(nam, "POST", pair, {{"Origin", origin}}, "action=approve&user_code=BCDF-GHJK").status, 401);

    QCOMPARE(send(nam, "POST", signin, {{"Origin", origin}}, "token=not-the-token&next=/pair").status, 401);
    QCOMPARE(send(nam, "POST", signin, {{"Origin", "http://evil.test"}}, "token=" + token + "&next=/pair").status,
        403);
    const Answer in = send(nam, "POST", signin, {{"Origin", origin}}, "token=" + token + "&next=/pair");
    QCOMPARE(in.status, 303);
    QCOMPARE(in.location, QByteArray("/pair"));
    QVERIFY(in.setCookie.startsWith("isolation_member="));
    const Answer signedIn = send(nam, "GET", pair);
    QCOMPARE(signedIn.status, 200);
    QVERIFY(!csrfOf(signedIn.body).isEmpty());

    // Only the token's hash stays, readable by the hub's user alone; a restart prints no token.
    QFile kept(hub.dataDir() + QStringLiteral("/signin.json"));
    QVERIFY(kept.open(QIODevice::ReadOnly));
    QVERIFY(!kept.readAll().contains(token));
    QCOMPARE(kept.permissions() & (QFileDevice::ReadGroup | QFileDevice::ReadOther | QFileDevice::WriteGroup
                                      | QFileDevice::WriteOther),
        QFileDevice::Permissions());
    QCOMPARE(hub.stop(), 0);
    QVERIFY(hub.start(hub.dataDir(), {QStringLiteral("--listen"), QStringLiteral("0.0.0.0:0")}));
    QVERIFY(!hub.output().contains(QString::fromLatin1(token)));
    const QByteArray again = "http://127.0.0.1:" + QByteArray::number(hub.appUrl().port());
    QNetworkAccessManager fresh;
    fresh.setCookieJar(new QNetworkCookieJar(&fresh));
    QCOMPARE(send(fresh, "GET", QUrl(QString::fromLatin1(again + "/pair"))).status, 401);
    QCOMPARE(send(fresh, "POST", QUrl(QString::fromLatin1(again + "/signin")), {{"Origin", again}},
                 "token=" + token + "&next=/pair")
                 .status,
        303);
}

QTEST_GUILESS_MAIN(tst_HubGuards)
#include "tst_hubguards.moc"
