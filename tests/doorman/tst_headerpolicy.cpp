// The doorman's header rules on their own (HeaderPolicy): hop-by-hop and credential headers never
// cross, a view token goes no further in any header either way, the view cookie stays ours; which
// requests count as the view's own page's (Sec-Fetch-Site) and what body type they have.
#include "crypto/ed25519.h"
#include "doorman/headerpolicy.h"
#include "http/httprequest.h"
#include "views/viewtoken.h"

#include <QTest>

#include <tuple>

using namespace isolation;

class tst_HeaderPolicy final : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void rules_data();
    void rules();
    void viewCookieIsHostPrefixed();
    void sameOrigin_data();
    void sameOrigin();
    void mediaType_data();
    void mediaType();
};

void tst_HeaderPolicy::rules_data()
{
    QTest::addColumn<bool>("towardsSandbox");
    QTest::addColumn<QByteArray>("name");
    QTest::addColumn<QByteArray>("value");
    QTest::addColumn<bool>("kept");
    const QList<std::tuple<const char *, const char *, bool>> both {{"Connection", "keep-alive, X-Named", false},
        {"X-Named", "named in Connection", false}, {"Keep-Alive", "timeout=5", false}, {"TE", "trailers", false},
        {"Trailer", "X-T", false}, {"Transfer-Encoding", "chunked", false}, {"Upgrade", "h2c", false},
        {"Proxy-Authorization", "Basic eA==", false}, {"Proxy-Authenticate", "Basic", false},
        {"Authorization", "Bearer x", false}, {"X-EXECD-ACCESS-TOKEN", "t", false}, {"Content-Length", "5", false},
        {"X-Other", "kept", true}};
    for (const auto &[n, v, k] : both) {
        QTest::addRow("to sandbox: %s", n) << true << QByteArray(n) << QByteArray(v) << k;
        QTest::addRow("to browser: %s", n) << false << QByteArray(n) << QByteArray(v) << k;
    }
    // A view token goes no further in any header: a URL carrying one, or the bare token.
    ViewClaims c;
    c.viewId = QStringLiteral("v00000000000000000000000a");
    c.sessionId = QStringLiteral("s1");
    c.serverId = QStringLiteral("srv_test");
    c.port = 8000;
    c.issuedAt = 1'700'000'000;
    c.expiresAt = c.issuedAt + 60;
    c.nonce = ViewToken::newNonce();
    const QByteArray token = ViewToken::mint(c, ed25519Generate().privateKey.view()).value();
    const QList<std::pair<const char *, QByteArray>> tokens {{"Referer", "http://v.localhost/?a=1&view_token=" + token},
        {"Referer", "http://v.localhost/?VIEW_TOKEN=x"}, {"X-Token", token}, {"X-Token", "Bearer " + token + " more"}};
    for (const auto &[n, v] : tokens) {
        QTest::addRow("to sandbox: token in %s (%s)", n, v.left(20).constData()) << true << QByteArray(n) << v << false;
        QTest::addRow("to browser: token in %s (%s)", n, v.left(20).constData())
            << false << QByteArray(n) << v << false;
    }
    QTest::newRow("to sandbox: a long value that is no token")
        << true << QByteArray("X-Long") << QByteArray(QByteArray(120, 'a') + '.' + QByteArray(90, 'b')) << true;
    QTest::newRow("to sandbox: Referer without token")
        << true << QByteArray("Referer") << QByteArray("http://v.localhost/page") << true;
    QTest::newRow("to sandbox: X-Forwarded-For")
        << true << QByteArray("X-Forwarded-For") << QByteArray("6.6.6.6") << false;
    QTest::newRow("to sandbox: Forwarded") << true << QByteArray("Forwarded") << QByteArray("for=x") << false;
    QTest::newRow("to browser: Set-Cookie ours")
        << false << QByteArray("Set-Cookie") << QByteArray("isolation_view=x") << false;
    QTest::newRow("to browser: Set-Cookie ours, prefixed")
        << false << QByteArray("Set-Cookie") << QByteArray("__Host-isolation_view=x; Path=/; Secure") << false;
    QTest::newRow("to browser: Set-Cookie ours, for the whole preview domain")
        << false << QByteArray("Set-Cookie") << QByteArray("Isolation_View=x; Domain=preview.localhost") << false;
    QTest::newRow("to browser: Set-Cookie app") << false << QByteArray("Set-Cookie") << QByteArray("app=1") << true;
    QTest::newRow("to browser: Referrer-Policy")
        << false << QByteArray("Referrer-Policy") << QByteArray("unsafe-url") << false;
}

void tst_HeaderPolicy::rules()
{
    QFETCH(bool, towardsSandbox);
    QFETCH(QByteArray, name);
    QFETCH(QByteArray, value);
    QFETCH(bool, kept);
    HttpHeaders in {{"Connection", "X-Named"}, {name, value}};
    HeaderPolicy::Forwarding f {"127.0.0.1", "http", "v.localhost", "127.0.0.1:1", {}, {}};
    const HttpHeaders out = towardsSandbox ? HeaderPolicy::towardsSandbox(in, f) : HeaderPolicy::towardsBrowser(in);
    bool found = false;
    for (const auto &h : out)
        found = found || (h.first.compare(name, Qt::CaseInsensitive) == 0 && h.second == value);
    QCOMPARE(found, kept);
    if (!towardsSandbox)
        QCOMPARE(headerValue(out, "referrer-policy"), QByteArray("no-referrer"));
}

void tst_HeaderPolicy::viewCookieIsHostPrefixed()
{
    QCOMPARE(QByteArray(HeaderPolicy::CookieName), QByteArray("__Host-isolation_view"));
    // Only the prefixed name is ours; a neighbour's "isolation_view" (a Domain cookie) is not, and
    // with ours beside it the request is not ambiguous.
    QCOMPARE(HeaderPolicy::viewCookie({{"Cookie", "isolation_view=tossed; __Host-isolation_view=mine"}}),
        QByteArrayView("mine"));
    QCOMPARE(HeaderPolicy::viewCookie({{"Cookie", "isolation_view=tossed"}}), QByteArrayView());
    QCOMPARE(HeaderPolicy::viewCookie({{"Cookie", "__Host-isolation_view=a; __Host-isolation_view=b"}}),
        QByteArrayView());
    // Neither goes on to the sandbox, whatever its spelling.
    QCOMPARE(HeaderPolicy::cookieWithoutView("isolation_view=tossed; app=1; __Host-isolation_view=mine; ISOLATION_VIEW=x"),
        QByteArray("app=1"));
}

void tst_HeaderPolicy::sameOrigin_data()
{
    QTest::addColumn<HttpHeaders>("headers");
    QTest::addColumn<bool>("own");
    QTest::newRow("same-origin") << HttpHeaders {{"Sec-Fetch-Site", "same-origin"}} << true;
    QTest::newRow("any case") << HttpHeaders {{"sec-fetch-site", "Same-Origin"}} << true;
    QTest::newRow("absent") << HttpHeaders {} << false;
    QTest::newRow("same-site") << HttpHeaders {{"Sec-Fetch-Site", "same-site"}} << false;
    QTest::newRow("cross-site") << HttpHeaders {{"Sec-Fetch-Site", "cross-site"}} << false;
    QTest::newRow("none (typed address)") << HttpHeaders {{"Sec-Fetch-Site", "none"}} << false;
    QTest::newRow("twice") << HttpHeaders {{"Sec-Fetch-Site", "same-origin"}, {"Sec-Fetch-Site", "cross-site"}}
                           << false;
    QTest::newRow("empty") << HttpHeaders {{"Sec-Fetch-Site", ""}} << false;
}

void tst_HeaderPolicy::sameOrigin()
{
    QFETCH(HttpHeaders, headers);
    QFETCH(bool, own);
    QCOMPARE(HeaderPolicy::fromSameOrigin(headers), own);
}

void tst_HeaderPolicy::mediaType_data()
{
    QTest::addColumn<HttpHeaders>("headers");
    QTest::addColumn<bool>("json");
    QTest::newRow("json") << HttpHeaders {{"Content-Type", "application/json"}} << true;
    QTest::newRow("json with charset") << HttpHeaders {{"content-type", "Application/JSON ; charset=utf-8"}} << true;
    QTest::newRow("absent") << HttpHeaders {} << false;
    QTest::newRow("text/plain") << HttpHeaders {{"Content-Type", "text/plain;charset=UTF-8"}} << false;
    QTest::newRow("form") << HttpHeaders {{"Content-Type", "application/x-www-form-urlencoded"}} << false;
    QTest::newRow("multipart") << HttpHeaders {{"Content-Type", "multipart/form-data; boundary=x"}} << false;
    QTest::newRow("json-ish") << HttpHeaders {{"Content-Type", "application/jsonx"}} << false;
    QTest::newRow("twice")
        << HttpHeaders {{"Content-Type", "application/json"}, {"Content-Type", "text/plain"}} << false;
}

void tst_HeaderPolicy::mediaType()
{
    QFETCH(HttpHeaders, headers);
    QFETCH(bool, json);
    QCOMPARE(HeaderPolicy::hasMediaType(headers, "application/json"), json);
}

QTEST_GUILESS_MAIN(tst_HeaderPolicy)
#include "tst_headerpolicy.moc"
