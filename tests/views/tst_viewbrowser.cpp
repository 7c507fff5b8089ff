// Views in a real browser: headless Debian chromium (through chromedriver) opens views the real
// hub minted, on the hub's preview origin, over the real tunnel to the doorman and the stand-in
// execd and its application: the page renders, a WebSocket echoes, the terminal (in its line
// mode: this doorman has no PTY relay) runs `echo hello` and shows it, and a page of one view cannot read another view.
#include "viewhubrig.h"
#include "webdriver.h"


#include <QDir>
#include <QJsonArray>
#include <QTemporaryDir>
#include <QTest>
#include <QUrlQuery>

using namespace isolation;
using namespace isolation::test;

class tst_ViewBrowser final : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void cleanupTestCase();
    void previewPageRenders();
    void webSocketEchoes();
    void terminalShowsEchoHello();
    void oneViewCannotReadAnother();
    void tokenNeverLeaks();

private:
    QUrl mintPreview();
    // Navigates to a view's token URL and waits until the doorman moved the browser on (token gone).
    bool openInBrowser(const QUrl &tokenUrl);

    StandinProcess m_execd;
    StandinProcess m_app;
    StaticTargets m_targets;
    QTemporaryDir m_files;
    ViewHubRig m_rig;
    WebDriver m_browser;
    QUrl m_viewA;
};

void tst_ViewBrowser::initTestCase()
{
    const QString missing = WebDriver::missing();
    QVERIFY2(missing.isEmpty(), qPrintable(missing));
    QVERIFY(startStandinSandbox(m_execd, m_app, m_targets));
    // The "sandbox" runs on this machine here: its files root is a temporary directory.
    QVERIFY(m_files.isValid());
    QVERIFY(m_rig.start(&m_targets, QDir(m_files.path()).canonicalPath()));
    QVERIFY2(m_browser.start(), qPrintable(m_browser.lastError()));
    m_viewA = mintPreview();
    QVERIFY(m_viewA.isValid());
    QVERIFY(openInBrowser(m_viewA));
}

void tst_ViewBrowser::cleanupTestCase()
{ }

QUrl tst_ViewBrowser::mintPreview()
{
    return m_rig.mint({QStringLiteral("s1"), QStringLiteral("--kind"), QStringLiteral("preview"),
        QStringLiteral("--port"), QString::number(m_app.port)});
}

bool tst_ViewBrowser::openInBrowser(const QUrl &tokenUrl)
{
    if (!m_browser.navigate(tokenUrl)) {
        qWarning("navigate: %s", qPrintable(m_browser.lastError()));
        return false;
    }
    const bool moved = QTest::qWaitFor(
        [&] {
            const QUrl now = m_browser.currentUrl();
            return now.host() == tokenUrl.host() && !now.hasQuery();
        },
        15000);
    if (!moved)
        qWarning("the browser stayed on %s", qPrintable(m_browser.currentUrl().toString(QUrl::RemoveQuery)));
    return moved;
}

void tst_ViewBrowser::previewPageRenders()
{
    QVERIFY(m_browser.navigate(m_viewA.resolved(QUrl(QStringLiteral("/page")))));
    QCOMPARE(m_browser.title(), QStringLiteral("sandbox page"));
    QCOMPARE(m_browser.execute(QStringLiteral("return document.getElementById('hello').textContent")).toString(),
        QStringLiteral("Hello from the sandbox"));
    // The view's cookie is HttpOnly: the page's scripts never see it.
    QCOMPARE(m_browser.execute(QStringLiteral("return document.cookie")).toString(), QString());
    QCOMPARE(m_browser.currentUrl().host(), m_viewA.host());
}

void tst_ViewBrowser::webSocketEchoes()
{
    QVERIFY(m_browser.navigate(m_viewA.resolved(QUrl(QStringLiteral("/page")))));
    const QJsonValue answer = m_browser.executeAsync(QStringLiteral(R"(
        const done = arguments[arguments.length - 1];
        const ws = new WebSocket('ws://' + location.host + '/ws');
        const timer = setTimeout(() => done('timeout'), 10000);
        ws.onopen = () => ws.send('from chromium');
        ws.onmessage = (e) => { clearTimeout(timer); ws.close(); done(e.data); };
        ws.onerror = () => { clearTimeout(timer); done('error'); };
    )"));
    QCOMPARE(answer.toString(), QStringLiteral("echo: from chromium"));
}

void tst_ViewBrowser::terminalShowsEchoHello()
{
    const QUrl terminal = m_rig.mint({QStringLiteral("s1"), QStringLiteral("--kind"), QStringLiteral("terminal")});
    QVERIFY(terminal.isValid());
    QVERIFY(openInBrowser(terminal));
    QVERIFY(QTest::qWaitFor(
        [&] { return m_browser.execute(QStringLiteral("return !!window.isolationTerminal")).toBool(); }, 15000));
    // This doorman has no PTY relay to start: the page falls back to the line mode, and says so.
    QVERIFY(QTest::qWaitFor(
        [&] { return m_browser.execute(QStringLiteral("return window.isolationTerminalMode")).toString() == QLatin1String("line"); },
        15000));
    QVERIFY(m_browser.execute(QStringLiteral("return document.getElementById('status').textContent"))
                .toString()
                .startsWith(QStringLiteral("Line mode")));
    QVERIFY2(m_browser.type(QStringLiteral(".xterm-helper-textarea"), QStringLiteral("echo hello\uE007")),
        qPrintable(m_browser.lastError()));
    // What the terminal shows: the command line, then its output on a line of its own.
    QStringList lines;
    const bool shown = QTest::qWaitFor(
        [&] {
            lines = m_browser.terminalLines();
            return lines.contains(QStringLiteral("hello"));
        },
        15000);
    QVERIFY2(shown, qPrintable(lines.join(QLatin1Char('|'))));
    QVERIFY2(lines.contains(QStringLiteral("$ echo hello")), qPrintable(lines.join(QLatin1Char('|'))));
    QVERIFY2(lines.contains(QStringLiteral("hello")), qPrintable(lines.join(QLatin1Char('|'))));
}

void tst_ViewBrowser::oneViewCannotReadAnother()
{
    // The browser holds view B's cookie too (it opened B), then a page of view A tries B.
    const QUrl viewB = mintPreview();
    QVERIFY(viewB.isValid());
    QVERIFY(openInBrowser(viewB));
    // The application reports each request on stdout; the browser asks for /favicon.ico of each
    // page whenever it likes, so those lines are left out.
    const auto pageRequests = [&] {
        QList<QByteArray> out;
        for (const QByteArray &line : m_app.lines("ISOLATION-STANDIN-APP ")) {
            if (!line.contains("\"target\":\"/favicon.ico\""))
                out.append(line);
        }
        return out;
    };
    const auto pageLoads = [&] {
        const QList<QByteArray> lines = pageRequests();
        return std::count_if(lines.cbegin(), lines.cend(),
            [](const QByteArray &line) { return line.contains("\"target\":\"/page\""); });
    };
    const auto loadsBefore = pageLoads();
    QVERIFY(m_browser.navigate(m_viewA.resolved(QUrl(QStringLiteral("/page")))));
    QTRY_COMPARE_WITH_TIMEOUT(pageLoads(), loadsBefore + 1, 5000);
    QTest::qWait(300);
    const qsizetype before = pageRequests().size();
    const QString bPage = viewB.resolved(QUrl(QStringLiteral("/page"))).toString(QUrl::RemoveQuery);
    const QJsonValue result = m_browser.executeAsync(QStringLiteral(R"(
        const done = arguments[arguments.length - 1];
        const url = arguments[0];
        const out = {};
        (async () => {
          try { const r = await fetch(url, { credentials: 'include' }); out.cors = 'read ' + (await r.text()); }
          catch (e) { out.cors = 'blocked'; }
          try { const r = await fetch(url, { credentials: 'include', mode: 'no-cors' });
                out.nocors = r.type + ':' + r.status + ':' + (await r.text()); }
          catch (e) { out.nocors = 'blocked'; }
          const frame = document.createElement('iframe');
          frame.src = url;
          document.body.appendChild(frame);
          await new Promise((resolve) => { frame.onload = resolve; setTimeout(resolve, 5000); });
          try { out.frame = 'read ' + frame.contentDocument.body.innerHTML; }
          catch (e) { out.frame = 'blocked'; }
          done(out);
        })();
    )"),
        QJsonArray {bPage});
    const QJsonObject r = result.toObject();
    QCOMPARE(r.value(QStringLiteral("cors")).toString(), QStringLiteral("blocked"));
    QVERIFY2(r.value(QStringLiteral("nocors")).toString() == QStringLiteral("blocked")
            || r.value(QStringLiteral("nocors")).toString() == QStringLiteral("opaque:0:"),
        qPrintable(r.value(QStringLiteral("nocors")).toString()));
    QCOMPARE(r.value(QStringLiteral("frame")).toString(), QStringLiteral("blocked"));
    // The fetches never reached the sandbox (the doorman refused them); only the frame's navigation may.
    QTest::qWait(300);
    const QList<QByteArray> after = pageRequests().mid(before);
    QVERIFY2(after.size() <= 1, after.join('\n').constData());
}

void tst_ViewBrowser::tokenNeverLeaks()
{
    // No request that reached the application carried a token (in its target or a Referer).
    const QList<QByteArray> lines = m_app.lines("ISOLATION-STANDIN-APP ");
    QVERIFY(!lines.isEmpty());
    for (const QByteArray &line : lines) {
        QVERIFY2(!line.contains("view_token"), line.constData());
        for (const QByteArray &t : std::as_const(m_rig.tokens))
            QVERIFY(!line.contains(t.left(40)));
    }
    const QString hubLog = m_rig.hub.output();
    for (const QByteArray &t : std::as_const(m_rig.tokens))
        QVERIFY(!hubLog.contains(QString::fromLatin1(t.left(40))));
}

QTEST_GUILESS_MAIN(tst_ViewBrowser)
#include "tst_viewbrowser.moc"
