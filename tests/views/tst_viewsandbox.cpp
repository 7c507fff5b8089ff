// Views the whole way, on a real dockerd: a browser's requests on the real hub's preview origin
// go over the real tunnel to the paired engine's doorman, which resolves the session's sandbox
// through the lifecycle API (stand-in images) and forwards to execd inside it with the access
// token only the doorman knows. Preview, WebSocket, terminal and files views.
#include "doorman/lifecycleviewtargets.h"
#include "runtime/execdclient.h"
#include "runtime/lifecycleclient.h"

#include "runtimefixture.h"
#include "viewhubrig.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QSignalSpy>
#include <QWebSocket>

using namespace isolation;
using namespace isolation::test;

namespace {

// The stand-in execd binary inside every sandbox, started through its own loader.
const QStringList kStandin {QStringLiteral("/opt/isolation-standin/lib/ld-linux-x86-64.so.2"),
    QStringLiteral("--library-path"), QStringLiteral("/opt/isolation-standin/lib"),
    QStringLiteral("/opt/isolation-standin/bin/isolation-standin-execd")};

} // namespace

class tst_ViewSandbox final : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void cleanupTestCase();
    void previewOfASandboxPort();
    void webSocketInTheSandbox();
    void terminalInTheSandbox();
    void filesOfTheSandbox();
    void execdRefusesAnyoneElse();

private:
    QByteArray runInTerminal(const QByteArray &command);

    RuntimeFixture m_fixture;
    QNetworkAccessManager m_net;
    std::unique_ptr<RuntimeManager> m_runtime;
    std::unique_ptr<LifecycleClient> m_lifecycle;
    std::unique_ptr<LifecycleViewTargets> m_targets;
    ViewHubRig m_rig;
    QString m_workspace;
    QString m_sandbox;
    QByteArray m_access;
    QString m_execdWhere;
    QUrl m_preview;
    QByteArray m_cookie;
    QUrl m_terminal;
    QByteArray m_terminalCookie;
};

void tst_ViewSandbox::initTestCase()
{
    const QString missing = RuntimeFixture::missing();
    QVERIFY2(missing.isEmpty(), qPrintable(missing));
    m_runtime = m_fixture.makeManager(QStringLiteral("views"), kLifecycle);
    m_runtime->start();
    QVERIFY(RuntimeFixture::waitHealthy(m_runtime.get()));
    m_lifecycle = std::make_unique<LifecycleClient>(
        &m_net, m_runtime->lifecycleUrl(), m_runtime->apiKey(), &m_runtime->mountPolicy());

    // A sandbox for session s1 whose entry process is a small web application on port 8000,
    // execd inside it requiring an access token the doorman alone knows.
    m_workspace = m_fixture.root() + QStringLiteral("/views/sessions/s1");
    QVERIFY(QDir().mkpath(m_workspace));
    m_access = LifecycleViewTargets::newAccessToken();
    SandboxSpec spec;
    spec.image = kSandbox;
    spec.entrypoint = kStandin + QStringList {QStringLiteral("--echo-http"), QStringLiteral("8000")};
    spec.env = {{QStringLiteral("EXECD_ACCESS_TOKEN"), QString::fromLatin1(m_access)}};
    spec.metadata = {{QStringLiteral("session"), QStringLiteral("s1")}};
    spec.mounts = {{QStringLiteral("workspace"), m_workspace, QStringLiteral("/workspace"), false}};
    auto created
        = await<Result<QJsonObject, LifecycleError>>([&](auto done) { m_lifecycle->createSandbox(spec, done); });
    QVERIFY(created);
    QVERIFY2(created->ok(), created->ok() ? "" : qPrintable(created->error().message));
    m_sandbox = created->value().value(QStringLiteral("id")).toString();
    m_targets = std::make_unique<LifecycleViewTargets>(m_lifecycle.get());
    m_targets->add(QStringLiteral("s1"), m_sandbox, m_access);

    // execd up (asked with its token, as the doorman will).
    auto endpoint = await<Result<QJsonObject, LifecycleError>>(
        [&](auto done) { m_lifecycle->endpoint(m_sandbox, ExecdClient::Port, done); });
    QVERIFY(endpoint && endpoint->ok());
    m_execdWhere = endpoint->value().value(QStringLiteral("endpoint")).toString();
    bool up = false;
    for (int i = 0; i < 150 && !up; ++i) {
        QNetworkRequest r(QUrl(QStringLiteral("http://%1/proxy/8000/page").arg(m_execdWhere)));
        r.setRawHeader("X-EXECD-ACCESS-TOKEN", m_access);
        QNetworkReply *reply = m_net.get(r);
        QTRY_VERIFY_WITH_TIMEOUT(reply->isFinished(), 10000);
        up = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt() == 200;
        reply->deleteLater();
        if (!up)
            QTest::qWait(100);
    }
    QVERIFY2(up, "the sandbox's application never answered through execd");

    QVERIFY(m_rig.start(m_targets.get()));
    m_preview = m_rig.mint({QStringLiteral("s1"), QStringLiteral("--kind"), QStringLiteral("preview"),
        QStringLiteral("--port"), QStringLiteral("8000")});
    QVERIFY(m_preview.isValid());
    m_cookie = m_rig.open(m_preview);
    QVERIFY(m_cookie.startsWith("__Host-isolation_view="));
    m_terminal = m_rig.mint({QStringLiteral("s1"), QStringLiteral("--kind"), QStringLiteral("terminal")});
    m_terminalCookie = m_rig.open(m_terminal);
    QVERIFY(m_terminalCookie.startsWith("__Host-isolation_view="));
}

void tst_ViewSandbox::cleanupTestCase()
{
    if (m_lifecycle && !m_sandbox.isEmpty())
        await<Result<QJsonObject, LifecycleError>>([&](auto done) { m_lifecycle->deleteSandbox(m_sandbox, done); });
    if (m_runtime)
        m_runtime->stop();
    m_runtime.reset();
    m_fixture.cleanup();
}

void tst_ViewSandbox::previewOfASandboxPort()
{
    const RawAnswer page = m_rig.get(m_preview, "/page", m_cookie);
    QCOMPARE(page.status, 200);
    QVERIFY2(page.body.contains("Hello from the sandbox"), page.body.constData());
    QCOMPARE(page.header("referrer-policy"), QByteArray("no-referrer"));
    // What the application saw: no credential of ours, the forwarding headers of the view.
    const RawAnswer echo = m_rig.get(m_preview, "/echo?x=1", m_cookie, "Authorization: Bearer secret\r\n");
    QCOMPARE(echo.status, 200);
    const QJsonObject seen = QJsonDocument::fromJson(echo.body).object();
    QCOMPARE(seen.value(QStringLiteral("target")).toString(), QStringLiteral("/echo?x=1"));
    QHash<QString, QString> headers;
    for (const QJsonValue &h : seen.value(QStringLiteral("headers")).toArray())
        headers.insert(h.toArray().at(0).toString().toLower(), h.toArray().at(1).toString());
    QVERIFY(!headers.contains(QStringLiteral("cookie")));
    QVERIFY(!headers.contains(QStringLiteral("authorization")));
    QVERIFY(!headers.contains(QStringLiteral("x-execd-access-token")));
    QCOMPARE(headers.value(QStringLiteral("x-forwarded-host")), QString::fromLatin1(ViewHubRig::hostOf(m_preview)));
    // Server-sent events stream through hub, tunnel, doorman and execd.
    const RawAnswer sse = m_rig.get(m_preview, "/sse", m_cookie, "Accept: text/event-stream\r\n");
    QCOMPARE(sse.status, 200);
    QVERIFY2(sse.body.contains("data: tick 3"), sse.body.constData());
    // A large answer arrives whole.
    const RawAnswer big = m_rig.get(m_preview, "/big?n=2000000", m_cookie);
    QCOMPARE(big.status, 200);
    QCOMPARE(big.body.size(), 2000000);
}

void tst_ViewSandbox::webSocketInTheSandbox()
{
    HostRewriter relay(m_rig.previewPort(), ViewHubRig::hostOf(m_preview));
    QWebSocket ws(QStringLiteral("http://") + QString::fromLatin1(ViewHubRig::hostOf(m_preview)));
    QNetworkRequest r {QUrl(QStringLiteral("ws://127.0.0.1:%1/ws").arg(relay.port()))};
    r.setRawHeader("Cookie", m_cookie);
    QSignalSpy connected(&ws, &QWebSocket::connected);
    ws.open(r);
    QVERIFY(connected.wait(15000));
    QSignalSpy message(&ws, &QWebSocket::textMessageReceived);
    ws.sendTextMessage(QStringLiteral("from the browser"));
    QVERIFY(message.wait(10000));
    QCOMPARE(message.first().first().toString(), QStringLiteral("echo: from the browser"));
    ws.close();
}

QByteArray tst_ViewSandbox::runInTerminal(const QByteArray &command)
{
    const QByteArray body = QJsonDocument(QJsonObject {{QStringLiteral("command"), QString::fromUtf8(command)}})
                                .toJson(QJsonDocument::Compact);
    const RawAnswer a = m_rig.send(m_terminal, "POST /_view/terminal/run HTTP/1.1",
        "Cookie: " + m_terminalCookie
            + "\r\nSec-Fetch-Site: same-origin\r\nContent-Type: application/json\r\nContent-Length: "
            + QByteArray::number(body.size()) + "\r\n",
        body);
    return a.status == 200 ? a.body : QByteArray("status ") + QByteArray::number(a.status);
}

void tst_ViewSandbox::terminalInTheSandbox()
{
    const RawAnswer page = m_rig.get(m_terminal, "/", m_terminalCookie);
    QCOMPARE(page.status, 200);
    QVERIFY(page.body.contains("xterm.js"));
    const QByteArray hello = runInTerminal("echo hello");
    QVERIFY2(hello.contains("\"text\":\"hello\\n\""), hello.constData());
    // It runs in the sandbox (the workspace mount is there), in a shell of its own that keeps state.
    const QByteArray cd = runInTerminal("cd /workspace && export MARK=kept");
    QVERIFY2(!cd.startsWith("status "), cd.constData());
    const QByteArray where = runInTerminal("echo \"$MARK in $(pwd)\"; ls /opt/isolation-standin/bin");
    QVERIFY2(where.contains("kept in /workspace"), where.constData());
    QVERIFY2(where.contains("isolation-standin-execd"), where.constData());
}

void tst_ViewSandbox::filesOfTheSandbox()
{
    const QUrl files = m_rig.mint({QStringLiteral("s1"), QStringLiteral("--kind"), QStringLiteral("files")});
    const QByteArray cookie = m_rig.open(files);
    QVERIFY(cookie.startsWith("__Host-isolation_view="));
    const QByteArray content = "uploaded through the hub into the sandbox\n";
    const RawAnswer up = m_rig.send(files, "PUT /_view/files/upload?path=%2Fworkspace%2Fnote.txt HTTP/1.1",
        "Cookie: " + cookie
            + "\r\nSec-Fetch-Site: same-origin\r\nContent-Type: application/octet-stream\r\nContent-Length: "
            + QByteArray::number(content.size()) + "\r\n",
        content);
    QCOMPARE(up.status, 200);
    // It landed in the session's directory on this machine (the sandbox's bind mount).
    QFile onHost(m_workspace + QStringLiteral("/note.txt"));
    QVERIFY(onHost.open(QIODevice::ReadOnly));
    QCOMPARE(onHost.readAll(), content);
    const RawAnswer list = m_rig.get(files, "/_view/files/list?path=%2Fworkspace", cookie);
    QCOMPARE(list.status, 200);
    QVERIFY2(list.body.contains("/workspace/note.txt"), list.body.constData());
    const RawAnswer down = m_rig.get(files, "/_view/files/download?path=%2Fworkspace%2Fnote.txt", cookie);
    QCOMPARE(down.status, 200);
    QCOMPARE(down.body, content);
    // Outside the files root: refused.
    const RawAnswer outside = m_rig.get(files, "/_view/files/download?path=%2Fetc%2Fpasswd", cookie);
    QVERIFY2(outside.status == 403 || outside.status == 400, qPrintable(QString::number(outside.status)));
}

void tst_ViewSandbox::execdRefusesAnyoneElse()
{
    // Straight to execd's published port, without the doorman's token: refused, nothing proxied.
    QNetworkReply *reply
        = m_net.get(QNetworkRequest(QUrl(QStringLiteral("http://%1/proxy/8000/page").arg(m_execdWhere))));
    QTRY_VERIFY_WITH_TIMEOUT(reply->isFinished(), 10000);
    QCOMPARE(reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt(), 401);
    QVERIFY(!reply->readAll().contains("Hello from the sandbox"));
    reply->deleteLater();
    QNetworkRequest wrong(QUrl(QStringLiteral("http://%1/ping").arg(m_execdWhere)));
    wrong.setRawHeader("X-EXECD-ACCESS-TOKEN", "not-the-token");
    QNetworkReply *second = m_net.get(wrong);
    QTRY_VERIFY_WITH_TIMEOUT(second->isFinished(), 10000);
    QCOMPARE(second->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt(), 401);
    second->deleteLater();
}

QTEST_GUILESS_MAIN(tst_ViewSandbox)
#include "tst_viewsandbox.moc"
