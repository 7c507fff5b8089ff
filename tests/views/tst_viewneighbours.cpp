// Views against their neighbours, in a real browser: headless Debian chromium (through
// chromedriver) holds two views the real hub minted, a preview A and a terminal B, both on the
// hub's preview origin (http://<view>.preview.localhost:<port>: one site, so A's pages may set
// cookies for the whole preview.localhost and their form posts carry B's SameSite=Strict cookie).
// A page of A posts a command to B's terminal (a text/plain form shaped as JSON, a no-cors fetch,
// a JSON fetch) and tosses cookies meant to shadow B's: B's terminal runs none of it, and B keeps
// working; the files view's own page still uploads. The page's scripts run in A's page (WebDriver's execute), with nothing more than any
// script a sandbox's page carries could do.
#include "viewhubrig.h"
#include "webdriver.h"


#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QTemporaryDir>
#include <QTest>

using namespace isolation;
using namespace isolation::test;

class tst_ViewNeighbours final : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void neighbourCannotRunInTheTerminal();
    void neighbourCannotShadowTheCookie();
    void ownFilesPageStillUploads();

private:
    // Navigates to a view's token URL and waits until the doorman moved the browser on (token gone).
    bool openInBrowser(const QUrl &tokenUrl);
    // Goes to the terminal view B, runs `command` by typing it, and waits for `expected` in its lines.
    bool terminalShows(const QString &command, const QString &expected);
    bool goToPageOfA();

    StandinProcess m_execd;
    StandinProcess m_app;
    StaticTargets m_targets;
    QTemporaryDir m_files;
    QString m_root;
    ViewHubRig m_rig;
    WebDriver m_browser;
    QUrl m_viewA;
    QUrl m_terminalB;
};

void tst_ViewNeighbours::initTestCase()
{
    const QString missing = WebDriver::missing();
    QVERIFY2(missing.isEmpty(), qPrintable(missing));
    QVERIFY(startStandinSandbox(m_execd, m_app, m_targets));
    // The "sandbox" runs on this machine here: its files root is a temporary directory.
    QVERIFY(m_files.isValid());
    m_root = QDir(m_files.path()).canonicalPath();
    QVERIFY(m_rig.start(&m_targets, m_root));
    QVERIFY2(m_browser.start(), qPrintable(m_browser.lastError()));
    m_viewA = m_rig.mint({QStringLiteral("s1"), QStringLiteral("--kind"), QStringLiteral("preview"),
        QStringLiteral("--port"), QString::number(m_app.port)});
    QVERIFY(m_viewA.isValid());
    QVERIFY(m_viewA.host().endsWith(QLatin1String(".preview.localhost")));
    m_terminalB = m_rig.mint({QStringLiteral("s1"), QStringLiteral("--kind"), QStringLiteral("terminal")});
    QVERIFY(m_terminalB.isValid());
    QVERIFY(openInBrowser(m_viewA));
    QVERIFY(openInBrowser(m_terminalB));
    // B works, from its own page.
    QVERIFY(terminalShows(QStringLiteral("echo mine"), QStringLiteral("mine")));
}

bool tst_ViewNeighbours::openInBrowser(const QUrl &tokenUrl)
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

bool tst_ViewNeighbours::terminalShows(const QString &command, const QString &expected)
{
    if (!m_browser.navigate(m_terminalB.resolved(QUrl(QStringLiteral("/"))).adjusted(QUrl::RemoveQuery)))
        return false;
    if (!QTest::qWaitFor(
            [&] { return m_browser.execute(QStringLiteral("return !!window.isolationTerminal")).toBool(); }, 15000)) {
        qWarning("B's terminal page did not come up: %s",
            qPrintable(m_browser.execute(QStringLiteral("return document.body.innerText")).toString().left(300)));
        return false;
    }
    if (!m_browser.type(QStringLiteral(".xterm-helper-textarea"), command + QChar(0xE007)))
        return false;
    QStringList lines;
    const bool shown = QTest::qWaitFor(
        [&] {
            lines = m_browser.terminalLines();
            return lines.contains(expected);
        },
        15000);
    if (!shown)
        qWarning("B's terminal shows: %s", qPrintable(lines.join(QLatin1Char('|'))));
    return shown;
}

bool tst_ViewNeighbours::goToPageOfA()
{
    return m_browser.navigate(m_viewA.resolved(QUrl(QStringLiteral("/page"))).adjusted(QUrl::RemoveQuery))
        && m_browser.title() == QStringLiteral("sandbox page");
}

void tst_ViewNeighbours::neighbourCannotRunInTheTerminal()
{
    const QString run = m_terminalB.resolved(QUrl(QStringLiteral("/_view/terminal/run")))
                            .adjusted(QUrl::RemoveQuery)
                            .toString();
    const QString byFetch = m_root + QStringLiteral("/ran-by-fetch");
    const QString byJsonFetch = m_root + QStringLiteral("/ran-by-json-fetch");
    const QString byForm = m_root + QStringLiteral("/ran-by-form");

    // Fetches from A's page: no-cors with a text/plain body (sent without a preflight), and JSON
    // (a preflight the doorman never answers).
    QVERIFY(goToPageOfA());
    const QJsonValue fetched = m_browser.executeAsync(QStringLiteral(R"(
        const done = arguments[arguments.length - 1];
        const [url, one, two] = arguments;
        const out = {};
        (async () => {
          try {
            const r = await fetch(url, { method: 'POST', mode: 'no-cors', credentials: 'include',
                                         body: JSON.stringify({ command: 'echo a > ' + one }) });
            out.nocors = r.type;
          } catch (e) { out.nocors = 'blocked'; }
          try {
            const r = await fetch(url, { method: 'POST', credentials: 'include',
                                         headers: { 'Content-Type': 'application/json' },
                                         body: JSON.stringify({ command: 'echo a > ' + two }) });
            out.json = 'status ' + r.status;
          } catch (e) { out.json = 'blocked'; }
          done(out);
        })();
    )"),
        QJsonArray {run, byFetch, byJsonFetch});
    QCOMPARE(fetched.toObject().value(QStringLiteral("json")).toString(), QStringLiteral("blocked"));

    // A form of A's page posts to B's terminal: a navigation, same site, text/plain shaped as JSON
    // ({"command":"...","x":"="}), which carries B's SameSite=Strict cookie.
    QVERIFY(goToPageOfA());
    const QJsonValue submitted = m_browser.execute(QStringLiteral(R"(
        const [url, marker] = arguments;
        const form = document.createElement('form');
        form.method = 'POST';
        form.enctype = 'text/plain';
        form.action = url;
        const field = document.createElement('input');
        field.name = '{"command":"echo a > ' + marker + '","x":"';
        field.value = '"}';
        form.appendChild(field);
        document.body.appendChild(form);
        form.submit();
        return true;
    )"),
        QJsonArray {run, byForm});
    QVERIFY(submitted.toBool());
    // The browser went to B's run address and shows the doorman's answer.
    QString shown;
    QVERIFY(QTest::qWaitFor(
        [&] {
            if (m_browser.currentUrl().path() != QStringLiteral("/_view/terminal/run"))
                return false;
            shown = m_browser.execute(QStringLiteral("return document.body ? document.body.innerText : ''")).toString();
            return !shown.isEmpty();
        },
        15000));
    QVERIFY2(shown.contains(QStringLiteral("forbidden")), qPrintable(shown.left(300)));

    QTest::qWait(1000);
    for (const QString &marker : {byFetch, byJsonFetch, byForm})
        QVERIFY2(!QFile::exists(marker), qPrintable(marker + QStringLiteral(": B's terminal ran A's command")));
    // B still runs what its own page sends.
    QVERIFY(terminalShows(QStringLiteral("echo still mine"), QStringLiteral("still mine")));
}

void tst_ViewNeighbours::neighbourCannotShadowTheCookie()
{
    QVERIFY(goToPageOfA());
    // Cookies for the whole preview domain, named like B's: the old name, the "__Host-" name
    // (which a browser takes from no page with a Domain), a nameless one whose value looks like it.
    const QJsonValue jar = m_browser.execute(QStringLiteral(R"(
        document.cookie = 'isolation_view=tossed; domain=preview.localhost; path=/';
        document.cookie = '__Host-isolation_view=tossed; domain=preview.localhost; path=/; secure';
        document.cookie = '=__Host-isolation_view=tossed; domain=preview.localhost; path=/';
        document.cookie = '__host-isolation_view=tossed; domain=preview.localhost; path=/; secure';
        document.cookie = 'isolation_view_junk=tossed; domain=preview.localhost; path=/';
        return document.cookie;
    )"));
    // The toss took (the browser keeps a Domain cookie of the old name for every view) ...
    QVERIFY2(jar.toString().contains(QStringLiteral("isolation_view=tossed")), qPrintable(jar.toString()));
    // ... but none of the "__Host-" name.
    QVERIFY2(!jar.toString().contains(QStringLiteral("__Host-isolation_view")), qPrintable(jar.toString()));

    // B still opens and runs its own commands.
    QVERIFY(terminalShows(QStringLiteral("echo after the toss"), QStringLiteral("after the toss")));
    const QJsonValue status = m_browser.executeAsync(QStringLiteral(R"(
        const done = arguments[arguments.length - 1];
        fetch('/_view/assets/view.css').then((r) => done(r.status)).catch((e) => done(String(e)));
    )"));
    QCOMPARE(status.toInt(), 200);
}

void tst_ViewNeighbours::ownFilesPageStillUploads()
{
    // The files view's own page uploads as before (same-origin, application/octet-stream).
    const QUrl files = m_rig.mint({QStringLiteral("s1"), QStringLiteral("--kind"), QStringLiteral("files")});
    QVERIFY(files.isValid());
    QVERIFY(openInBrowser(files));
    QTemporaryDir local;
    QVERIFY(local.isValid());
    const QString source = local.path() + QStringLiteral("/from-the-page.txt");
    QFile f(source);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write("uploaded by the files page\n");
    f.close();
    // The page lists the directory in its address's fragment (here the "sandbox's" root).
    QUrl page = files.adjusted(QUrl::RemoveQuery);
    page.setPath(QStringLiteral("/"));
    page.setFragment(QString::fromLatin1(QUrl::toPercentEncoding(m_root)));
    QVERIFY(m_browser.navigate(page));
    QVERIFY2(m_browser.type(QStringLiteral("#file"), source), qPrintable(m_browser.lastError()));
    m_browser.execute(QStringLiteral("document.getElementById('upload').requestSubmit(); return true;"));
    QString status;
    QVERIFY2(QTest::qWaitFor(
                 [&] {
                     status = m_browser.execute(QStringLiteral("return document.getElementById('status').textContent"))
                                  .toString();
                     return status.startsWith(QLatin1String("uploaded")) || status.contains(QLatin1String("failed"));
                 },
                 15000),
        qPrintable(status));
    QCOMPARE(status, QStringLiteral("uploaded from-the-page.txt"));
    QFile landed(m_root + QStringLiteral("/from-the-page.txt"));
    QVERIFY(landed.open(QIODevice::ReadOnly));
    QCOMPARE(landed.readAll(), QByteArray("uploaded by the files page\n"));
}

QTEST_GUILESS_MAIN(tst_ViewNeighbours)
#include "tst_viewneighbours.moc"
