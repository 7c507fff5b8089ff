// The doorman's local front door against real peers: the stand-in execd (requiring its access
// token) and a web application behind it, both local processes. Token exchange and cookie, a
// thousand mutated tokens, a corpus of ambiguous requests, path scope, header hygiene both ways,
// streaming, WebSockets (origin, expiry), the terminal and files views (the header rules alone:
// tst_headerpolicy) — and, for every refusal,
// that nothing reached the sandbox. No token may appear in a log line or an error page.
#include "doormanfixture.h"
#include "doorman/terminalrelays.h"

#include <QCryptographicHash>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRandomGenerator>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <QWebSocket>

#include <signal.h>

using namespace isolation;
using namespace isolation::test;

namespace {

QStringList g_log;
QtMessageHandler g_previous = nullptr;

void capture(QtMsgType type, const QMessageLogContext &context, const QString &message)
{
    g_log.append(message);
    if (g_previous)
        g_previous(type, context, message);
}

QJsonObject json(const QByteArray &body)
{
    return QJsonDocument::fromJson(body).object();
}

// The headers the application received, as (lower-case name, value) pairs.
QList<QPair<QString, QString>> seenHeaders(const QJsonObject &seen)
{
    QList<QPair<QString, QString>> out;
    for (const QJsonValue &v : seen.value(QStringLiteral("headers")).toArray())
        out.append({v.toArray().at(0).toString().toLower(), v.toArray().at(1).toString()});
    return out;
}

QString seenHeader(const QJsonObject &seen, const QString &name)
{
    for (const auto &[n, v] : seenHeaders(seen)) {
        if (n == name)
            return v;
    }
    return {};
}

} // namespace

class tst_Doorman final : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void cleanupTestCase();
    void tokenIsExchangedForACookie();
    void tokensAreSingleUse();
    void cookieOfOneViewDoesNotOpenAnother();
    void requestHeaderHygiene();
    void responseHeaderHygiene();
    void crossSiteSubresourcesRefused();
    void thousandMutatedTokensRefused();
    void ambiguousRequests_data();
    void ambiguousRequests();
    void pathScope_data();
    void pathScope();
    void streamsBothWays();
    void serverSentEvents();
    void webSockets();
    void webSocketClosesWhenTokenExpires();
    void terminalView();
    void terminalPtyThroughTheRelay();
    void editorView();
    void filesView();
    void execdRefusesWithoutItsToken();
    void tokensNeverLogged();

private:
    RawAnswer get(
        const QString &viewId, const QByteArray &cookie, const QByteArray &target, const QByteArray &extra = {});

    DoormanFixture m_f;
    QTemporaryDir m_files;
    QByteArray m_cookieA;
    QList<qint64> m_relayPids; // isolation-pty-relay processes started on this computer
    QList<QByteArray> m_tokens; // every token minted here, to look for in logs
};

void tst_Doorman::initTestCase()
{
    g_previous = qInstallMessageHandler(capture);
    QVERIFY(m_files.isValid());
    m_f.ptyRelay = QStringLiteral(ISOLATION_PTY_RELAY);
    QVERIFY(m_f.start(QDir(m_files.path()).canonicalPath()));
    m_cookieA = m_f.open(m_f.viewA, ViewKind::Preview, m_f.appPort);
    QVERIFY(m_cookieA.startsWith("__Host-isolation_view="));
}

void tst_Doorman::cleanupTestCase()
{
    // The relays this test's "sandbox" (this computer) ran would otherwise wait out their idle time.
    for (qint64 pid : std::as_const(m_relayPids))
        ::kill(pid_t(pid), SIGTERM);
    if (const QString copied = m_f.doorman->terminalRelays()->sandboxPath(); copied.contains(QLatin1String("-")))
        QFile::remove(copied);
    qInstallMessageHandler(g_previous);
}

RawAnswer tst_Doorman::get(
    const QString &viewId, const QByteArray &cookie, const QByteArray &target, const QByteArray &extra)
{
    return exchange(m_f.doorPort,
        "GET " + target + " HTTP/1.1\r\nHost: " + m_f.host(viewId) + "\r\n"
            + (cookie.isEmpty() ? QByteArray() : "Cookie: " + cookie + "\r\n") + extra + "\r\n");
}

void tst_Doorman::tokenIsExchangedForACookie()
{
    const QByteArray t = m_f.token(ViewKind::Preview, m_f.appPort, 600, m_f.viewB);
    m_tokens << t;
    const int before = m_f.appRequests();
    const RawAnswer a = get(m_f.viewB, {}, "/page?x=1&view_token=" + t + "&y=2");
    QCOMPARE(a.status, 200);
    QCOMPARE(a.header("referrer-policy"), QByteArray("no-referrer"));
    const QByteArray cookie = a.header("set-cookie");
    // "__Host-": the browser keeps it only with Secure, Path=/ and no Domain (host-only), so no
    // neighbouring view can toss one; Secure also over plain http (http://*.localhost is a secure
    // context).
    QVERIFY2(cookie.startsWith("__Host-isolation_view="), cookie.constData());
    QVERIFY(cookie.contains("; Path=/;"));
    QVERIFY(cookie.contains("; Secure"));
    QVERIFY(cookie.contains("; HttpOnly"));
    QVERIFY(cookie.contains("; SameSite=Strict"));
    QVERIFY(!cookie.contains("Domain="));
    const qint64 maxAge = cookie.mid(cookie.indexOf("Max-Age=") + 8).split(';').first().toLongLong();
    QVERIFY(maxAge > 0 && maxAge <= 600);
    QVERIFY(!cookie.contains(t));
    // It moves on to the same address without the token, a relative path on this origin only.
    QVERIFY2(a.body.contains("url=/page?x=1&amp;y=2\""), a.body.constData());
    QVERIFY(!a.body.contains(t));
    QVERIFY(!a.header("location").size());
    QCOMPARE(m_f.appRequests(), before); // the exchange itself reaches no sandbox

    const QByteArray value = cookie.left(cookie.indexOf(';'));
    const RawAnswer page = get(m_f.viewB, value, "/page?x=1&y=2");
    QCOMPARE(page.status, 200);
    QVERIFY(page.body.contains("Hello from the sandbox"));
    QCOMPARE(page.header("referrer-policy"), QByteArray("no-referrer"));
    QCOMPARE(m_f.appRequests(), before + 1);
}

void tst_Doorman::tokensAreSingleUse()
{
    const QByteArray t = m_f.token(ViewKind::Preview, m_f.appPort);
    m_tokens << t;
    QCOMPARE(get(m_f.viewA, {}, "/?view_token=" + t).status, 200);
    const RawAnswer again = get(m_f.viewA, {}, "/?view_token=" + t);
    QCOMPARE(again.status, 401);
    QVERIFY(again.header("set-cookie").isEmpty());
    QVERIFY(!again.body.contains(t));
    // With the view's cookie, a token in the address is simply dropped.
    const RawAnswer withCookie = get(m_f.viewA, m_cookieA, "/?view_token=" + t);
    QCOMPARE(withCookie.status, 200);
    QVERIFY(withCookie.header("set-cookie").isEmpty());
    QVERIFY(withCookie.body.contains("url=/\""));
}

void tst_Doorman::cookieOfOneViewDoesNotOpenAnother()
{
    const int before = m_f.appRequests();
    QCOMPARE(get(m_f.viewB, m_cookieA, "/").status, 401);
    QCOMPARE(get(m_f.viewA, "__Host-isolation_view=AAAA", "/").status, 401);
    // The value under another name (as a neighbour's Domain cookie would be named) is no cookie of ours.
    QCOMPARE(get(m_f.viewA, m_cookieA.mid(m_cookieA.indexOf("isolation_view")), "/").status, 401);
    QCOMPARE(get(m_f.viewA, {}, "/").status, 401);
    // Two view cookies at once: ambiguous, refused.
    QCOMPARE(get(m_f.viewA, m_cookieA + "; " + m_cookieA, "/").status, 401);
    // Not a view host at all.
    QCOMPARE(
        exchange(m_f.doorPort, "GET / HTTP/1.1\r\nHost: localhost\r\nCookie: " + m_cookieA + "\r\n\r\n").status, 404);
    QCOMPARE(m_f.appRequests(), before);
}

void tst_Doorman::requestHeaderHygiene()
{
    const QByteArray t = m_f.token(ViewKind::Preview, m_f.appPort);
    m_tokens << t;
    const RawAnswer a = get(m_f.viewA, m_cookieA + "; app=kept", "/echo?q=1",
        "Authorization: Bearer sandbox-must-not-see\r\n"
        "Proxy-Authorization: Basic eA==\r\n"
        "Connection: keep-alive, X-Client-Secret\r\n"
        "X-Client-Secret: named-in-connection\r\n"
        "Keep-Alive: timeout=99\r\n"
        "TE: trailers\r\n"
        "X-Forwarded-For: 6.6.6.6\r\n"
        "X-Forwarded-Host: evil.example\r\n"
        "X-Forwarded-Proto: https\r\n"
        "Forwarded: for=6.6.6.6\r\n"
        "X-EXECD-ACCESS-TOKEN: guessed\r\n"
        "X-App-Header: kept\r\n");
    QCOMPARE(a.status, 200);
    const QJsonObject seen = json(a.body);
    QCOMPARE(seen.value(QStringLiteral("target")).toString(), QStringLiteral("/echo?q=1"));
    const QByteArray all = QJsonDocument(seen).toJson();
    for (const char *gone :
        {"authorization", "proxy-authorization", "x-client-secret", "te", "forwarded", "x-execd-access-token"})
        QVERIFY2(seenHeader(seen, QLatin1String(gone)).isEmpty(), gone);
    QVERIFY(!all.contains("sandbox-must-not-see"));
    QVERIFY(!all.contains("timeout=99"));
    QVERIFY(!all.contains("6.6.6.6"));
    QVERIFY(!all.contains("evil.example"));
    QVERIFY(!all.contains(m_f.accessToken));
    QVERIFY(!all.contains(m_cookieA.mid(m_cookieA.indexOf('=') + 1)));
    QCOMPARE(seenHeader(seen, QStringLiteral("cookie")), QStringLiteral("app=kept"));
    QCOMPARE(seenHeader(seen, QStringLiteral("x-forwarded-for")), QStringLiteral("127.0.0.1"));
    QCOMPARE(seenHeader(seen, QStringLiteral("x-forwarded-proto")), QStringLiteral("http"));
    QCOMPARE(seenHeader(seen, QStringLiteral("x-forwarded-host")), QString::fromLatin1(m_f.host(m_f.viewA)));
    QCOMPARE(seenHeader(seen, QStringLiteral("x-app-header")), QStringLiteral("kept"));
    // A view token in the address never travels on: with the cookie it is dropped by a page that
    // moves on without it; the sandbox sees nothing of it.
    const int before = m_f.appRequests();
    const RawAnswer withToken = get(m_f.viewA, m_cookieA, "/echo?view_token=" + t);
    QCOMPARE(withToken.status, 200);
    QVERIFY(!withToken.body.contains(t));
    QCOMPARE(m_f.appRequests(), before);
}

void tst_Doorman::responseHeaderHygiene()
{
    const RawAnswer a = get(m_f.viewA, m_cookieA, "/hostile");
    QCOMPARE(a.status, 200);
    // (execd's own hop already drops its Connection header and what it names: tst_headerpolicy.)
    for (const char *gone : {"keep-alive", "proxy-authenticate", "upgrade"})
        QVERIFY2(a.header(gone).isEmpty(), gone);
    const QList<QByteArray> cookies = a.all("set-cookie");
    QCOMPARE(cookies.size(), 1);
    QVERIFY(cookies.first().startsWith("app=kept"));
    QCOMPARE(a.all("referrer-policy"), QList<QByteArray> {"no-referrer"});
    QCOMPARE(a.header("x-app"), QByteArray("kept"));
}

void tst_Doorman::crossSiteSubresourcesRefused()
{
    const int before = m_f.appRequests();
    // A page of another view (same site: *.localhost) fetching this one: refused.
    QCOMPARE(get(m_f.viewA, m_cookieA, "/", "Sec-Fetch-Site: same-site\r\nSec-Fetch-Mode: cors\r\n").status, 403);
    QCOMPARE(get(m_f.viewA, m_cookieA, "/", "Sec-Fetch-Site: cross-site\r\nSec-Fetch-Mode: no-cors\r\n").status, 403);
    QCOMPARE(m_f.appRequests(), before);
    // Navigations and the view's own requests pass.
    QCOMPARE(get(m_f.viewA, m_cookieA, "/", "Sec-Fetch-Site: same-site\r\nSec-Fetch-Mode: navigate\r\n").status, 200);
    QCOMPARE(get(m_f.viewA, m_cookieA, "/", "Sec-Fetch-Site: same-origin\r\nSec-Fetch-Mode: cors\r\n").status, 200);
}

void tst_Doorman::thousandMutatedTokensRefused()
{
    const int appBefore = m_f.appRequests();
    const quint64 forwardedBefore = m_f.doorman->forwarded();
    const Ed25519KeyPair otherHub = ed25519Generate();
    auto *rng = QRandomGenerator::global();
    QList<QPair<QByteArray, QByteArray>> cases; // (token, what it is)
    const auto fresh = [&] { return m_f.token(ViewKind::Preview, m_f.appPort); };
    for (int i = 0; i < 400; ++i) {
        QByteArray t = fresh();
        const qsizetype at = rng->bounded(int(t.size()));
        t[at] = char(t[at] ^ (1 << rng->bounded(8)));
        cases.append({t, "bit flip"});
    }
    for (int i = 0; i < 200; ++i) {
        const QByteArray t = fresh();
        cases.append({t.left(rng->bounded(1, int(t.size()))), "truncated"});
    }
    for (int i = 0; i < 100; ++i)
        cases.append({m_f.token(ViewKind::Preview, m_f.appPort, 3600, m_f.viewB), "another view's"});
    for (int i = 0; i < 100; ++i) {
        // Issued 3601 s ago, valid for an hour: expired by one second.
        ViewClaims c;
        c.viewId = m_f.viewA;
        c.sessionId = QStringLiteral("s1");
        c.serverId = QStringLiteral("srv_test");
        c.port = m_f.appPort;
        c.issuedAt = m_f.clock.unixSeconds() - 3601;
        c.expiresAt = m_f.clock.unixSeconds() - 1;
        c.nonce = ViewToken::newNonce();
        cases.append({ViewToken::mint(c, m_f.hub.privateKey.view()).value(), "expired by one second"});
    }
    for (int i = 0; i < 100; ++i) {
        // Claims changed after signing (another port, kind, session or a longer life).
        const QByteArray t = fresh();
        QJsonObject o
            = QJsonDocument::fromJson(QByteArray::fromBase64(t.split('.').first(), QByteArray::Base64UrlEncoding))
                  .object();
        switch (i % 4) {
        case 0:
            o.insert(QStringLiteral("port"), 22);
            break;
        case 1:
            o.insert(QStringLiteral("kind"), QStringLiteral("terminal"));
            o.insert(QStringLiteral("port"), 0);
            break;
        case 2:
            o.insert(QStringLiteral("session"), QStringLiteral("s2"));
            break;
        default:
            o.insert(QStringLiteral("exp"), o.value(QStringLiteral("exp")).toInteger() + 86400);
            break;
        }
        const QByteArray forged = QJsonDocument(o)
                                      .toJson(QJsonDocument::Compact)
                                      .toBase64(QByteArray::Base64UrlEncoding | QByteArray::OmitTrailingEquals);
        cases.append({forged + '.' + t.split('.').last(), "forged claims"});
    }
    for (int i = 0; i < 50; ++i)
        cases.append(
            {m_f.token(ViewKind::Preview, m_f.appPort, 3600, {}, QStringLiteral("srv_other")), "another server's"});
    for (int i = 0; i < 50; ++i)
        cases.append({m_f.token(ViewKind::Preview, m_f.appPort, 3600, {}, QStringLiteral("srv_test"),
                          otherHub.privateKey.toByteArray()),
            "another hub's"});
    QCOMPARE(cases.size(), 1000);

    QTcpSocket s;
    QVERIFY(connectSocket(s, m_f.doorPort));
    int refused = 0;
    for (const auto &[token, what] : std::as_const(cases)) {
        m_tokens << token;
        if (s.state() != QAbstractSocket::ConnectedState) {
            s.abort();
            QVERIFY(connectSocket(s, m_f.doorPort));
        }
        s.write("GET /?view_token=" + QUrl::toPercentEncoding(QString::fromLatin1(token))
            + " HTTP/1.1\r\nHost: " + m_f.host(m_f.viewA) + "\r\n\r\n");
        const RawAnswer a = readAnswer(s);
        QVERIFY2(a.status == 401 || a.status == 403,
            qPrintable(QStringLiteral("%1 got %2").arg(QLatin1String(what)).arg(a.status)));
        QVERIFY(a.header("set-cookie").isEmpty());
        QVERIFY(token.size() < 20 || !a.body.contains(token));
        ++refused;
    }
    QCOMPARE(refused, 1000);
    QCOMPARE(m_f.doorman->forwarded(), forwardedBefore);
    QCOMPARE(m_f.appRequests(), appBefore);
}

void tst_Doorman::ambiguousRequests_data()
{
    QTest::addColumn<QByteArray>("head"); // after the request line and Host
    QTest::addColumn<int>("status");
    QTest::newRow("two Content-Length") << QByteArray("Content-Length: 3\r\nContent-Length: 4\r\n\r\nabcd") << 400;
    QTest::newRow("two equal Content-Length") << QByteArray("Content-Length: 3\r\nContent-Length: 3\r\n\r\nabc") << 400;
    QTest::newRow("Content-Length list") << QByteArray("Content-Length: 3, 3\r\n\r\nabc") << 400;
    QTest::newRow("negative Content-Length") << QByteArray("Content-Length: -1\r\n\r\n") << 400;
    QTest::newRow("plus Content-Length") << QByteArray("Content-Length: +3\r\n\r\nabc") << 400;
    QTest::newRow("hex Content-Length") << QByteArray("Content-Length: 0x3\r\n\r\nabc") << 400;
    QTest::newRow("Content-Length and chunked")
        << QByteArray("Content-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n") << 400;
    QTest::newRow("gzip coding") << QByteArray("Transfer-Encoding: gzip\r\n\r\n") << 400;
    QTest::newRow("gzip then chunked") << QByteArray("Transfer-Encoding: gzip, chunked\r\n\r\n0\r\n\r\n") << 400;
    QTest::newRow("chunked twice") << QByteArray(
        "Transfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n")
                                   << 400;
    QTest::newRow("identity coding") << QByteArray("Transfer-Encoding: identity\r\n\r\n") << 400;
    QTest::newRow("chunked with junk") << QByteArray("Transfer-Encoding: xchunked\r\n\r\n") << 400;
    QTest::newRow("obs-fold space") << QByteArray("X-A: 1\r\n  continued\r\n\r\n") << 400;
    QTest::newRow("obs-fold tab") << QByteArray("X-A: 1\r\n\tcontinued\r\n\r\n") << 400;
    QTest::newRow("bare CR in value") << QByteArray("X-A: a\rb\r\n\r\n") << 400;
    QTest::newRow("bare LF line end") << QByteArray("X-A: a\nX-B: b\r\n\r\n") << 400;
    QTest::newRow("NUL in value") << QByteArray("X-A: a\0b\r\n\r\n", 12) << 400;
    QTest::newRow("NUL in name") << QByteArray("X-\0A: a\r\n\r\n", 11) << 400;
    QTest::newRow("control byte in value") << QByteArray("X-A: a\x01 b\r\n\r\n") << 400;
    QTest::newRow("space before colon") << QByteArray("X-A : a\r\n\r\n") << 400;
    QTest::newRow("tab before colon") << QByteArray("X-A\t: a\r\n\r\n") << 400;
    QTest::newRow("space in name") << QByteArray("X A: a\r\n\r\n") << 400;
    QTest::newRow("no colon") << QByteArray("X-A a\r\n\r\n") << 400;
    QTest::newRow("two Host") << QByteArray("Host: other.localhost\r\n\r\n") << 400;
    QTest::newRow("chunk size garbage") << QByteArray("Transfer-Encoding: chunked\r\n\r\nzz\r\nabc\r\n0\r\n\r\n")
                                        << 400;
    QTest::newRow("chunk extension LF only")
        << QByteArray("Transfer-Encoding: chunked\r\n\r\n3\nabc\r\n0\r\n\r\n") << 400;
    QTest::newRow("header too large") << QByteArray("X-A: " + QByteArray(20000, 'a') + "\r\n\r\n") << 431;
    QByteArray many;
    for (int i = 0; i < 80; ++i)
        many += "X-H" + QByteArray::number(i) + ": v\r\n";
    QTest::newRow("too many headers") << QByteArray(many + "\r\n") << 431;
}

void tst_Doorman::ambiguousRequests()
{
    QFETCH(QByteArray, head);
    QFETCH(int, status);
    const int appBefore = m_f.appRequests();
    const quint64 forwardedBefore = m_f.doorman->forwarded();
    const RawAnswer a = exchange(m_f.doorPort,
        "POST /echo HTTP/1.1\r\nHost: " + m_f.host(m_f.viewA) + "\r\nCookie: " + m_cookieA + "\r\n" + head);
    QCOMPARE(a.status, status);
    QVERIFY2(a.closed, "the connection stays open after an ambiguous request");
    QCOMPARE(m_f.doorman->forwarded(), forwardedBefore);
    QTest::qWait(50);
    QCOMPARE(m_f.appRequests(), appBefore);
}

void tst_Doorman::pathScope_data()
{
    QTest::addColumn<QByteArray>("target");
    QTest::addColumn<int>("status");
    QTest::addColumn<QString>("seen"); // the target the application saw, for 200
    QTest::newRow("plain") << QByteArray("/a/b") << 200 << "/a/b";
    QTest::newRow("dot segments inside") << QByteArray("/a/./b/../c") << 200 << "/a/c";
    QTest::newRow("empty segments") << QByteArray("/a//b") << 200 << "/a/b";
    QTest::newRow("encoded letters decoded once") << QByteArray("/%61%62") << 200 << "/ab";
    QTest::newRow("double encoding stays") << QByteArray("/%252F") << 200 << "/%252F";
    QTest::newRow("encoded space") << QByteArray("/a%20b") << 200 << "/a%20b";
    QTest::newRow("query kept") << QByteArray("/q?a=%2F&b") << 200 << "/q?a=%2F&b";
    QTest::newRow("dot-dot leaves") << QByteArray("/../secret") << 400 << "";
    QTest::newRow("deep dot-dot leaves") << QByteArray("/a/../../secret") << 400 << "";
    QTest::newRow("encoded dot-dot") << QByteArray("/%2e%2e/secret") << 400 << "";
    QTest::newRow("encoded slash") << QByteArray("/a%2Fb") << 400 << "";
    QTest::newRow("encoded backslash") << QByteArray("/a%5Cb") << 400 << "";
    QTest::newRow("encoded NUL") << QByteArray("/a%00b") << 400 << "";
    QTest::newRow("bad escape") << QByteArray("/a%zz") << 400 << "";
    QTest::newRow("short escape") << QByteArray("/a%4") << 400 << "";
    QTest::newRow("absolute form") << QByteArray("http://evil.example/") << 400 << "";
    QTest::newRow("protocol-relative") << QByteArray("//evil.example/") << 400 << "";
    QTest::newRow("two tokens") << QByteArray("/?view_token=a&view_token=b") << 400 << "";
}

void tst_Doorman::pathScope()
{
    QFETCH(QByteArray, target);
    QFETCH(int, status);
    QFETCH(QString, seen);
    const int before = m_f.appRequests();
    const RawAnswer a = get(m_f.viewA, m_cookieA, target);
    QCOMPARE(a.status, status);
    if (status == 200) {
        QCOMPARE(json(a.body).value(QStringLiteral("target")).toString(), seen);
        QCOMPARE(m_f.appRequests(), before + 1);
    } else {
        QCOMPARE(m_f.appRequests(), before);
    }
}

void tst_Doorman::streamsBothWays()
{
    // A large upload streams through (chunked from the client) and arrives whole.
    QByteArray body(6 * 1024 * 1024, 'u');
    for (qsizetype i = 0; i < body.size(); i += 4096)
        body[i] = char('a' + (i / 4096) % 26);
    QByteArray chunked;
    for (qsizetype i = 0; i < body.size(); i += 100000) {
        const QByteArray piece = body.mid(i, 100000);
        chunked += QByteArray::number(piece.size(), 16) + "\r\n" + piece + "\r\n";
    }
    chunked += "0\r\n\r\n";
    const RawAnswer up = exchange(m_f.doorPort,
        "POST /upload HTTP/1.1\r\nHost: " + m_f.host(m_f.viewA) + "\r\nCookie: " + m_cookieA
            + "\r\nTransfer-Encoding: chunked\r\n\r\n" + chunked,
        30000);
    QCOMPARE(up.status, 200);
    const QJsonObject seen = json(up.body);
    QCOMPARE(seen.value(QStringLiteral("bodyBytes")).toInteger(), body.size());
    QCOMPARE(seen.value(QStringLiteral("bodySha256")).toString(),
        QString::fromLatin1(QCryptographicHash::hash(body, QCryptographicHash::Sha256).toHex()));
    // A large answer comes back whole.
    const RawAnswer down = get(m_f.viewA, m_cookieA, "/big?n=8388608");
    QCOMPARE(down.status, 200);
    QCOMPARE(down.body.size(), 8388608);
    QVERIFY(down.body == QByteArray(8388608, 'x'));
    // HEAD: a head, no body, the connection still good.
    const RawAnswer head = exchange(
        m_f.doorPort, "HEAD /page HTTP/1.1\r\nHost: " + m_f.host(m_f.viewA) + "\r\nCookie: " + m_cookieA + "\r\n\r\n");
    QCOMPARE(head.status, 200);
    QVERIFY(head.body.isEmpty());
}

void tst_Doorman::serverSentEvents()
{
    QTcpSocket s;
    QVERIFY(connectSocket(s, m_f.doorPort));
    s.write("GET /sse HTTP/1.1\r\nHost: " + m_f.host(m_f.viewA) + "\r\nCookie: " + m_cookieA
        + "\r\nAccept: text/event-stream\r\n\r\n");
    // The first event arrives before the stream ends (the stand-in app ticks every 50 ms).
    QByteArray in;
    QElapsedTimer t;
    t.start();
    QSignalSpy readable(&s, &QIODevice::readyRead);
    while (!in.contains("tick 1") && t.elapsed() < 10000) {
        readable.wait(100);
        in += s.readAll();
    }
    QVERIFY2(in.contains("tick 1"), in.constData());
    QVERIFY(in.contains("text/event-stream"));
    while (!in.contains("\r\n0\r\n\r\n") && t.elapsed() < 10000) {
        readable.wait(100);
        in += s.readAll();
    }
    QVERIFY(in.contains("tick 3"));
    QVERIFY2(in.endsWith("\r\n0\r\n\r\n"), in.constData()); // and the stream ended
}

void tst_Doorman::webSockets()
{
    HostRewriter relay(m_f.doorPort, m_f.host(m_f.viewA));
    const QString url = QStringLiteral("ws://127.0.0.1:%1/ws").arg(relay.port());
    const auto open = [&](const QByteArray &origin, const QByteArray &cookie) {
        auto ws = std::make_unique<QWebSocket>(QString::fromLatin1(origin));
        QNetworkRequest r {QUrl(url)};
        if (!cookie.isEmpty())
            r.setRawHeader("Cookie", cookie);
        ws->open(r);
        return ws;
    };
    const QByteArray origin = "http://" + m_f.host(m_f.viewA);
    auto ws = open(origin, m_cookieA);
    QSignalSpy connected(ws.get(), &QWebSocket::connected);
    QVERIFY(connected.wait(10000));
    QSignalSpy message(ws.get(), &QWebSocket::textMessageReceived);
    ws->sendTextMessage(QStringLiteral("hi"));
    QVERIFY(message.wait(5000));
    QCOMPARE(message.first().first().toString(), QStringLiteral("echo: hi"));
    ws->close();

    const int before = m_f.appRequests();
    const QList<QByteArray> bads {
        QByteArray("http://" + m_f.host(m_f.viewB)), QByteArray("http://evil.example"), QByteArray()};
    for (const QByteArray &bad : bads) {
        auto refused = open(bad, m_cookieA);
        QSignalSpy gone(refused.get(), &QWebSocket::disconnected);
        QVERIFY(gone.wait(10000));
        QVERIFY(refused->state() != QAbstractSocket::ConnectedState);
    }
    auto noCookie = open(origin, {});
    QSignalSpy gone(noCookie.get(), &QWebSocket::disconnected);
    QVERIFY(gone.wait(10000));
    QCOMPARE(m_f.appRequests(), before);
}

void tst_Doorman::webSocketClosesWhenTokenExpires()
{
    const QString view = QStringLiteral("v0000000000000000000000ee");
    const QByteArray t = m_f.token(ViewKind::Preview, m_f.appPort, 3, view); // issued a second ago: 2 s left
    m_tokens << t;
    const RawAnswer a = get(view, {}, "/?view_token=" + t);
    const QByteArray cookie = a.header("set-cookie").split(';').first();
    HostRewriter relay(m_f.doorPort, m_f.host(view));
    QWebSocket ws(QStringLiteral("http://") + QString::fromLatin1(m_f.host(view)));
    QNetworkRequest r {QUrl(QStringLiteral("ws://127.0.0.1:%1/").arg(relay.port()))};
    r.setRawHeader("Cookie", cookie);
    ws.open(r);
    QSignalSpy connected(&ws, &QWebSocket::connected);
    QVERIFY(connected.wait(5000));
    QSignalSpy disconnected(&ws, &QWebSocket::disconnected);
    QElapsedTimer timer;
    timer.start();
    QVERIFY(disconnected.wait(10000));
    QVERIFY2(timer.elapsed() > 1000 && timer.elapsed() < 4000, qPrintable(QString::number(timer.elapsed())));
    // The cookie is worth nothing past the expiry either.
    m_f.clock.advance(std::chrono::seconds(3));
    QCOMPARE(get(view, cookie, "/").status, 401);
}

void tst_Doorman::terminalView()
{
    const QString view = QStringLiteral("v0000000000000000000000f1");
    const QByteArray cookie = m_f.open(view, ViewKind::Terminal, 0);
    QVERIFY(!cookie.isEmpty());
    const RawAnswer page = get(view, cookie, "/");
    QCOMPARE(page.status, 200);
    QVERIFY(page.body.contains("xterm.js"));
    QVERIFY(page.header("content-security-policy").contains("default-src 'self'"));
    const RawAnswer xterm = get(view, cookie, "/_view/assets/xterm.js");
    QCOMPARE(xterm.status, 200);
    QVERIFY(xterm.body.size() > 100000);
    const auto run = [&](const QByteArray &command) {
        const QByteArray body = QJsonDocument(QJsonObject {{QStringLiteral("command"), QString::fromUtf8(command)}})
                                    .toJson(QJsonDocument::Compact);
        return exchange(m_f.doorPort,
            "POST /_view/terminal/run HTTP/1.1\r\nHost: " + m_f.host(view) + "\r\nCookie: " + cookie
                + "\r\nSec-Fetch-Site: same-origin\r\nContent-Type: application/json\r\nContent-Length: "
                + QByteArray::number(body.size())
                + "\r\n\r\n" + body);
    };
    const RawAnswer hello = run("echo hello");
    QCOMPARE(hello.status, 200);
    QVERIFY2(hello.body.contains("\"text\":\"hello\\n\""), hello.body.constData());
    // Its own process: the shell keeps its state from one line to the next.
    QCOMPARE(run("cd /tmp && export GREETING=kept").status, 200);
    const RawAnswer state = run("echo \"$GREETING in $(pwd)\"");
    QVERIFY2(state.body.contains("kept in /tmp"), state.body.constData());
    // The terminal's routes are not a preview's: nothing else is proxied.
    QCOMPARE(get(view, cookie, "/anything").status, 404);
}

// The terminal's pseudo-terminal (docs/protocol.md, "The PTY relay"): the doorman copies the relay
// into the "sandbox" through execd's file API, starts it through its command API, and forwards
// the page's WebSocket to it through execd's port proxy, with the view's secret. The window size
// and a resize reach the terminal. The secret is in no log and not in the relay's environment, and
// a browser cannot send it: a preview of the relay's port with the right secret is refused.
void tst_Doorman::terminalPtyThroughTheRelay()
{
    const QString view = QStringLiteral("v0000000000000000000000f3");
    const QByteArray cookie = m_f.open(view, ViewKind::Terminal, 0);
    QVERIFY(!cookie.isEmpty());
    HostRewriter rewriter(m_f.doorPort, m_f.host(view));
    const auto open = [&](const QString &path, const QString &origin, const QByteArray &withCookie,
                          const QByteArray &secret = {}) {
        auto ws = std::make_unique<QWebSocket>(origin);
        QNetworkRequest r {QUrl(QStringLiteral("ws://127.0.0.1:%1%2").arg(rewriter.port()).arg(path))};
        r.setRawHeader("Cookie", withCookie);
        if (!secret.isEmpty())
            r.setRawHeader("X-Isolation-Relay-Secret", secret);
        ws->open(r);
        return ws;
    };
    auto ws = open(QStringLiteral("/_view/terminal/pty?cols=91&rows=23"), QString::fromLatin1("http://" + m_f.host(view)),
        cookie);
    QSignalSpy connected(ws.get(), &QWebSocket::connected);
    QVERIFY2(connected.wait(20000), qPrintable(ws->errorString()));
    QByteArray output;
    connect(ws.get(), &QWebSocket::binaryMessageReceived, this, [&](const QByteArray &m) { output += m; });
    const auto typed = [&](const QByteArray &text) { ws->sendBinaryMessage(QByteArray(1, '\0') + text); };
    typed("stty size; echo $((6*7))-done\n");
    QVERIFY2(QTest::qWaitFor([&] { return output.contains("42-done"); }, 15000), output.constData());
    QVERIFY2(output.contains("23 91"), output.constData());
    // Resize: 0x01, columns and rows as big-endian 16-bit numbers.
    ws->sendBinaryMessage(QByteArray::fromHex("01006e001f"));
    typed("stty size; echo $((7*7))-done\n");
    QVERIFY2(QTest::qWaitFor([&] { return output.contains("49-done"); }, 15000), output.constData());
    QVERIFY2(output.contains("31 110"), output.constData());

    const auto relay = m_f.doorman->terminalRelays()->running(view);
    QVERIFY(relay);
    QCOMPARE(relay->secret.size(), 64);
    QVERIFY(!g_log.join(QLatin1Char('\n')).contains(QString::fromLatin1(relay->secret)));
    // The relay's process: its command line has no secret, nor has its environment any more.
    const QString copied = m_f.doorman->terminalRelays()->sandboxPath();
    for (const QString &pid : QDir(QStringLiteral("/proc")).entryList(QDir::Dirs)) {
        QFile cmdline(QStringLiteral("/proc/%1/cmdline").arg(pid));
        if (!cmdline.open(QIODevice::ReadOnly) || !cmdline.readAll().startsWith(copied.toUtf8()))
            continue;
        m_relayPids << pid.toLongLong();
        QFile environ(QStringLiteral("/proc/%1/environ").arg(pid));
        QVERIFY(environ.open(QIODevice::ReadOnly));
        const QByteArray env = environ.readAll();
        QVERIFY(!env.contains(relay->secret));
        QVERIFY(env.contains(QByteArray("ISOLATION_PTY_SECRET=\0", 22))); // the name stays, its value overwritten
    }
    QVERIFY(!m_relayPids.isEmpty());

    // A preview view of the relay's port, with the right secret from the browser: the doorman
    // drops the header, the relay refuses.
    const QString preview = QStringLiteral("v0000000000000000000000f4");
    const QByteArray previewCookie = m_f.open(preview, ViewKind::Preview, relay->port);
    QVERIFY(!previewCookie.isEmpty());
    HostRewriter previewRewriter(m_f.doorPort, m_f.host(preview));
    QWebSocket sneaky(QString::fromLatin1("http://" + m_f.host(preview)));
    QNetworkRequest r {QUrl(QStringLiteral("ws://127.0.0.1:%1/pty").arg(previewRewriter.port()))};
    r.setRawHeader("Cookie", previewCookie);
    r.setRawHeader("X-Isolation-Relay-Secret", relay->secret);
    sneaky.open(r);
    QSignalSpy sneakyGone(&sneaky, &QWebSocket::disconnected);
    QVERIFY(sneakyGone.wait(10000));
    QVERIFY(sneaky.state() != QAbstractSocket::ConnectedState);

    // The shell ends: the relay closes the WebSocket with its exit status.
    QSignalSpy closed(ws.get(), &QWebSocket::disconnected);
    typed("exit 3\n");
    QVERIFY(closed.wait(10000));
    QCOMPARE(ws->closeReason(), QStringLiteral("exit 3"));
    // A second WebSocket of the view uses the same relay, with a new shell.
    auto again = open(QStringLiteral("/_view/terminal/pty"), QString::fromLatin1("http://" + m_f.host(view)), cookie);
    QSignalSpy againConnected(again.get(), &QWebSocket::connected);
    QVERIFY2(againConnected.wait(20000), qPrintable(again->errorString()));
    QCOMPARE(m_f.doorman->terminalRelays()->running(view)->port, relay->port);
    // From another origin: refused by the doorman.
    auto foreign = open(QStringLiteral("/_view/terminal/pty"), QStringLiteral("http://evil.example"), cookie);
    QSignalSpy foreignGone(foreign.get(), &QWebSocket::disconnected);
    QVERIFY(foreignGone.wait(10000));
    QVERIFY(foreign->state() != QAbstractSocket::ConnectedState);
}

// The editor view: its page and Ace's files by plain name only; saves go through only with
// If-Match naming the SHA-256 of the file as it is now (412 when it changed, 428 without).
void tst_Doorman::editorView()
{
    const QString root = QDir(m_files.path()).canonicalPath();
    const QString view = QStringLiteral("v0000000000000000000000f5");
    const QByteArray cookie = m_f.open(view, ViewKind::Editor, 0);
    QVERIFY(!cookie.isEmpty());
    const RawAnswer page = get(view, cookie, "/");
    QCOMPARE(page.status, 200);
    QVERIFY(page.body.contains("/_view/assets/ace/ace.js"));
    QCOMPARE(get(view, cookie, "/_view/assets/ace/ace.js").status, 200);
    const RawAnswer mode = get(view, cookie, "/_view/assets/ace/mode-python.js");
    QCOMPARE(mode.status, 200);
    QVERIFY(mode.header("content-type").startsWith("text/javascript"));
    for (const QByteArray &missing : {QByteArray("/_view/assets/ace/mode-nosuch.js"),
             QByteArray("/_view/assets/ace/ACE.JS"), QByteArray("/_view/assets/ace/sub/ace.js"),
             QByteArray("/_view/assets/xterm.js")})
        QCOMPARE(get(view, cookie, missing).status, 404);
    QCOMPARE(get(view, cookie, "/_view/assets/ace/..%2Fterminal.js").status, 400); // an encoded slash: ambiguous

    const QString file = root + QStringLiteral("/edited.py");
    QFile onDisk(file);
    QVERIFY(onDisk.open(QIODevice::WriteOnly));
    onDisk.write("print(1)\n");
    onDisk.close();
    const QByteArray path = QUrl::toPercentEncoding(file);
    const auto put = [&](const QByteArray &content, const QByteArray &ifMatch) {
        return exchange(m_f.doorPort,
            "PUT /_view/files/upload?path=" + path + " HTTP/1.1\r\nHost: " + m_f.host(view) + "\r\nCookie: " + cookie
                + "\r\nSec-Fetch-Site: same-origin\r\nContent-Type: application/octet-stream\r\n"
                + (ifMatch.isEmpty() ? QByteArray() : "If-Match: " + ifMatch + "\r\n")
                + "Content-Length: " + QByteArray::number(content.size()) + "\r\n\r\n" + content);
    };
    const auto version = [](const QByteArray &content) -> QByteArray {
        return "\"sha256:" + QCryptographicHash::hash(content, QCryptographicHash::Sha256).toHex() + '"';
    };
    const auto contentNow = [&] {
        QFile f(file);
        return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray("(unreadable)");
    };
    const RawAnswer opened = get(view, cookie, "/_view/files/download?path=" + path);
    QCOMPARE(opened.body, QByteArray("print(1)\n"));
    QCOMPARE(put("print(2)\n", {}).status, 428);
    QCOMPARE(put("print(2)\n", "\"sha256:abc\"").status, 428);
    QCOMPARE(contentNow(), QByteArray("print(1)\n"));
    // An executable script stays one (the files view's uploads write 644).
    QVERIFY(QFile::setPermissions(file, QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner | QFile::ReadGroup
            | QFile::ExeGroup | QFile::ReadOther | QFile::ExeOther));
    QCOMPARE(put("print(2)\n", version(opened.body)).status, 200);
    QCOMPARE(contentNow(), QByteArray("print(2)\n"));
    QVERIFY(QFileInfo(file).permissions().testFlag(QFile::ExeOwner));
    QVERIFY(QFileInfo(file).permissions().testFlag(QFile::ExeOther));
    // Saved again over the version first opened: it changed since, refused, nothing written.
    const RawAnswer stale = put("print(3)\n", version(opened.body));
    QCOMPARE(stale.status, 412);
    QVERIFY2(stale.body.contains("changed_on_disk"), stale.body.constData());
    QCOMPARE(contentNow(), QByteArray("print(2)\n"));
    // Deleted since: refused too, not written back.
    QVERIFY(QFile::remove(file));
    QCOMPARE(put("print(4)\n", version("print(2)\n")).status, 412);
    QVERIFY(!QFile::exists(file));
}

void tst_Doorman::filesView()
{
    const QString root = QDir(m_files.path()).canonicalPath();
    QDir().mkpath(root + QStringLiteral("/sub"));
    const QString view = QStringLiteral("v0000000000000000000000f2");
    const QByteArray cookie = m_f.open(view, ViewKind::Files, 0);
    QVERIFY(!cookie.isEmpty());
    QCOMPARE(get(view, cookie, "/").status, 200);
    const QByteArray content = "uploaded through the files view\n";
    const QByteArray path = QUrl::toPercentEncoding(root + QStringLiteral("/sub/note.txt"));
    const RawAnswer up = exchange(m_f.doorPort,
        "PUT /_view/files/upload?path=" + path + " HTTP/1.1\r\nHost: " + m_f.host(view) + "\r\nCookie: " + cookie
            + "\r\nSec-Fetch-Site: same-origin\r\nContent-Type: application/octet-stream\r\nContent-Length: "
            + QByteArray::number(content.size()) + "\r\n\r\n" + content);
    QCOMPARE(up.status, 200);
    QFile onDisk(root + QStringLiteral("/sub/note.txt"));
    QVERIFY(onDisk.open(QIODevice::ReadOnly));
    QCOMPARE(onDisk.readAll(), content);
    const RawAnswer list
        = get(view, cookie, "/_view/files/list?path=" + QUrl::toPercentEncoding(root + QStringLiteral("/sub")));
    QCOMPARE(list.status, 200);
    const QJsonArray entries = QJsonDocument::fromJson(list.body).array();
    QCOMPARE(entries.size(), 1);
    QCOMPARE(
        entries.first().toObject().value(QStringLiteral("path")).toString(), root + QStringLiteral("/sub/note.txt"));
    const RawAnswer down = get(view, cookie, "/_view/files/download?path=" + path);
    QCOMPARE(down.status, 200);
    QCOMPARE(down.body, content);
    // Outside the files root, however it is spelled: refused before execd hears of it.
    const QStringList outsides {QStringLiteral("/etc/passwd"), root + QStringLiteral("/../etc"),
        root + QStringLiteral("x"), QStringLiteral("relative")};
    for (const QString &outside : outsides)
        QCOMPARE(get(view, cookie, "/_view/files/download?path=" + QUrl::toPercentEncoding(outside)).status, 403);
}

void tst_Doorman::execdRefusesWithoutItsToken()
{
    const int refusedBefore = m_f.execdRefused();
    const RawAnswer direct = exchange(m_f.targets.target.port,
        "GET /proxy/" + QByteArray::number(m_f.appPort) + "/page HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
    QCOMPARE(direct.status, 401);
    const RawAnswer wrong = exchange(
        m_f.targets.target.port, "GET /ping HTTP/1.1\r\nHost: 127.0.0.1\r\nX-EXECD-ACCESS-TOKEN: guessed\r\n\r\n");
    QCOMPARE(wrong.status, 401);
    QTest::qWait(50);
    QCOMPARE(m_f.execdRefused(), refusedBefore + 2);
}

void tst_Doorman::tokensNeverLogged()
{
    QVERIFY(m_tokens.size() > 1000);
    const QString log = g_log.join(QLatin1Char('\n'));
    QVERIFY(!log.isEmpty());
    for (const QByteArray &t : std::as_const(m_tokens)) {
        if (t.size() < 40)
            continue; // truncations down to a few characters would match anything
        QVERIFY2(!log.contains(QString::fromLatin1(t)), "a view token appeared in a log line");
    }
    QVERIFY(!log.contains(QString::fromLatin1(m_f.accessToken)));
    QVERIFY(!m_f.execdOutput().contains(m_f.accessToken));
}

QTEST_GUILESS_MAIN(tst_Doorman)
#include "tst_doorman.moc"
