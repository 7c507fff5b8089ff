// The terminal view's pseudo-terminal end to end (docs/protocol.md, "The PTY relay"): the real hub
// mints a terminal view of a session a real `isolation-server up` runs in a sandbox of the stand-in
// runtime on a real dockerd; headless Chromium opens it on the hub's preview origin, through the
// tunnel and the doorman, to the relay the engine copied into the sandbox. In it `vi` edits a file
// (which then is in the session's changes), Ctrl-C stops `sleep 100`, and a resize reaches
// `stty size`. The relay's secret is on no command line and in no environment in the sandbox.
#include "dockertestsupport.h"
#include "runtimefixture.h"
#include "sessionfixture.h"
#include "webdriver.h"

#include <QDeadlineTimer>
#include <QJsonArray>
#include <QJsonDocument>
#include <QRegularExpression>
#include <QTest>

using namespace isolation::test;

class tst_TerminalView final : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void cleanupTestCase();
    void viCtrlCAndResizeInTheBrowser();

private:
    // Types into the terminal (WebDriver keys: \uE007 Enter, \uE00C Escape, \uE009 Control).
    bool type(const QString &keys);
    // Waits until a line of the terminal matches `pattern`; the lines when it does not.
    bool waitForLine(const QRegularExpression &pattern, int ms, QStringList *lines = nullptr);

    RuntimeFixture m_docker;
    std::unique_ptr<SessionFixture> m_fx;
    QString m_server;
    WebDriver m_browser;
};

void tst_TerminalView::initTestCase()
{
    QString missing = RuntimeFixture::missing();
    if (missing.isEmpty())
        missing = WebDriver::missing();
    QVERIFY2(missing.isEmpty(), qPrintable(missing));
    m_fx = std::make_unique<SessionFixture>();
    QVERIFY(m_fx->start(1));
    QProcessEnvironment env;
    env.insert(QStringLiteral("ISOLATION_RUNTIME"), QStringLiteral("on"));
    env.insert(QStringLiteral("ISOLATION_RUNTIME_LIFECYCLE_IMAGE"), kLifecycle);
    env.insert(QStringLiteral("ISOLATION_RUNTIME_EXECD_IMAGE"), kExecd);
    env.insert(QStringLiteral("ISOLATION_SANDBOX_IMAGE"), kSandbox);
    QVERIFY(m_fx->startEngine(0, env));
    QJsonObject runtime;
    QDeadlineTimer deadline(120000);
    while (!deadline.hasExpired()) {
        runtime = m_fx->cli(0, {QStringLiteral("runtime"), QStringLiteral("status"), QStringLiteral("--json")}).json();
        if (runtime.value(QStringLiteral("state")).toString() == QLatin1String("healthy"))
            break;
        QTest::qWait(500);
    }
    QCOMPARE(runtime.value(QStringLiteral("state")).toString(), QStringLiteral("healthy"));
    const QString engineId = dockerInspect(runtime.value(QStringLiteral("container")).toString())
                                 .value(QStringLiteral("Config"))
                                 .toObject()
                                 .value(QStringLiteral("Labels"))
                                 .toObject()
                                 .value(QStringLiteral("io.isolation.engine"))
                                 .toString();
    QVERIFY(!engineId.isEmpty());
    m_docker.addEngine(engineId);
    m_server = m_fx->cli(0, {QStringLiteral("status"), QStringLiteral("--json")})
                   .json()
                   .value(QStringLiteral("serverId"))
                   .toString();
    QVERIFY(!m_server.isEmpty());
    QVERIFY2(m_browser.start(), qPrintable(m_browser.lastError()));
}

void tst_TerminalView::cleanupTestCase()
{
    if (m_fx)
        m_fx->stopEngine(0);
    m_docker.cleanup();
    m_fx.reset();
}

bool tst_TerminalView::type(const QString &keys)
{
    if (m_browser.type(QStringLiteral(".xterm-helper-textarea"), keys))
        return true;
    qWarning("typing failed: %s", qPrintable(m_browser.lastError()));
    return false;
}

bool tst_TerminalView::waitForLine(const QRegularExpression &pattern, int ms, QStringList *lines)
{
    QStringList seen;
    const bool found = QTest::qWaitFor(
        [&] {
            seen = m_browser.terminalLines();
            return !seen.filter(pattern).isEmpty();
        },
        ms);
    if (lines)
        *lines = seen;
    if (!found)
        qWarning().noquote() << "no line matches" << pattern.pattern() << "in:\n" << seen.join(QLatin1Char('\n'));
    return found;
}

void tst_TerminalView::viCtrlCAndResizeInTheBrowser()
{
    QVERIFY(!m_fx->createWorkspace(QStringLiteral("typed")).isEmpty());
    QString out, err;
    int rc = m_fx->hub().admin({QStringLiteral("launch"), QStringLiteral("--server"), m_server,
                                   QStringLiteral("--workspace"), QStringLiteral("typed"), QStringLiteral("--json")},
        &out, &err);
    QVERIFY2(rc == 0, qPrintable(err + m_fx->engineLog(0).right(3000)));
    const QString session = QJsonDocument::fromJson(out.toUtf8()).object().value(QStringLiteral("id")).toString();
    QVERIFY(!session.isEmpty());
    rc = m_fx->hub().admin(
        {QStringLiteral("view"), session, QStringLiteral("--kind"), QStringLiteral("terminal"), QStringLiteral("--server"),
            m_server},
        &out, &err);
    QVERIFY2(rc == 0, qPrintable(err));
    const QUrl view(out.trimmed());
    QVERIFY2(m_browser.navigate(view), qPrintable(m_browser.lastError()));
    QVERIFY(QTest::qWaitFor(
        [&] {
            const QUrl now = m_browser.currentUrl();
            return now.host() == view.host() && !now.hasQuery();
        },
        30000));

    // The pseudo-terminal runs, and the page says so.
    QString mode;
    const bool settled = QTest::qWaitFor(
        [&] {
            mode = m_browser.execute(QStringLiteral("return window.isolationTerminalMode || ''")).toString();
            return mode == QLatin1String("pty") || mode == QLatin1String("line");
        },
        60000);
    QVERIFY2(settled && mode == QLatin1String("pty"), qPrintable(mode + QLatin1Char('\n') + m_fx->engineLog(0).right(3000)));
    QCOMPARE(m_browser.execute(QStringLiteral("return document.getElementById('status').textContent")).toString(),
        QStringLiteral("Terminal in the sandbox"));

    // A resize reaches the terminal: `stty size` says rows and columns as the page set them.
    QVERIFY(type(QStringLiteral("stty size\uE007")));
    const QJsonArray size = m_browser.execute(QStringLiteral("return [isolationTerminal.rows, isolationTerminal.cols]")).toArray();
    QVERIFY(waitForLine(QRegularExpression(QStringLiteral("^%1 %2$").arg(size.at(0).toInt()).arg(size.at(1).toInt())), 20000));
    m_browser.execute(QStringLiteral("isolationTerminal.resize(97, 31)"));
    QVERIFY(type(QStringLiteral("stty size\uE007")));
    QVERIFY(waitForLine(QRegularExpression(QStringLiteral("^31 97$")), 20000));

    // Ctrl-C stops a running command: the next one runs long before `sleep 100` would end.
    QVERIFY(type(QStringLiteral("sleep 100\uE007")));
    QTest::qWait(500); // the shell has started sleep; Ctrl-C now goes to it, not to the prompt
    QVERIFY(type(QStringLiteral("\uE009c\uE000")));
    QVERIFY(type(QStringLiteral("echo after-$((6*7))\uE007")));
    QVERIFY(waitForLine(QRegularExpression(QStringLiteral("^after-42$")), 10000));

    // vi, a full-screen program: open a file, insert a line, :wq.
    QVERIFY(type(QStringLiteral("vi notes.txt\uE007")));
    QVERIFY(waitForLine(QRegularExpression(QStringLiteral("^~")), 20000)); // vi's empty-line markers
    QVERIFY(type(QStringLiteral("ihello from vi\uE00C")));
    QVERIFY(type(QStringLiteral(":wq\uE007")));
    QVERIFY(type(QStringLiteral("echo saved-$?\uE007")));
    QVERIFY(waitForLine(QRegularExpression(QStringLiteral("^saved-0$")), 20000));

    // The file is in the session's worktree, with what was typed, and in its changes.
    const QJsonObject changes = m_fx->cli(0, {QStringLiteral("changes"), session, QStringLiteral("--json")}).json();
    QStringList files;
    for (const QJsonValue f : changes.value(QStringLiteral("files")).toArray())
        files << f.toObject().value(QStringLiteral("path")).toString();
    QVERIFY2(files.contains(QStringLiteral("notes.txt")), QJsonDocument(changes).toJson().constData());
    const QJsonObject inSession = m_fx->cli(0, {QStringLiteral("sessions"), QStringLiteral("--json")}).json();
    QString container;
    for (const QJsonValue s : inSession.value(QStringLiteral("sessions")).toArray()) {
        if (s.toObject().value(QStringLiteral("id")).toString() == session) {
            const QString sandbox
                = s.toObject().value(QStringLiteral("sandbox")).toObject().value(QStringLiteral("id")).toString();
            const QStringList found = containersWithLabel(QStringLiteral("io.isolation.standin.sandbox=") + sandbox);
            if (found.size() == 1)
                container = found.first();
        }
    }
    QVERIFY(!container.isEmpty());
    const Run content = docker({QStringLiteral("exec"), container, QStringLiteral("cat"), QStringLiteral("/workspace/notes.txt")});
    QCOMPARE(content.out.trimmed(), QByteArray("hello from vi"));

    // The relay's secret: not on the relay's command line nor in its environment, in no other
    // process's environment either.
    const Run relay = docker({QStringLiteral("exec"), container, QStringLiteral("sh"), QStringLiteral("-c"),
        QStringLiteral("for p in /proc/[0-9]*; do if grep -q '^/tmp/[.]isolation-pty-relay-' $p/cmdline; then "
                       "tr '\\0' ' ' < $p/cmdline; echo; tr '\\0' '\\n' < $p/environ; fi; done")});
    QVERIFY2(relay.out.startsWith("/tmp/.isolation-pty-relay-"), relay.out.constData());
    QVERIFY2(!QRegularExpression(QStringLiteral("[0-9a-f]{64}")).match(QString::fromUtf8(relay.out)).hasMatch(),
        relay.out.constData());
    const Run environments = docker({QStringLiteral("exec"), container, QStringLiteral("sh"), QStringLiteral("-c"),
        QStringLiteral("cat /proc/[0-9]*/environ | tr '\\0' '\\n'")});
    QVERIFY2(!QRegularExpression(QStringLiteral("ISOLATION_PTY_SECRET=[0-9a-f]")).match(QString::fromUtf8(environments.out)).hasMatch(),
        environments.out.constData());
    QVERIFY(!QJsonDocument(dockerInspect(container)).toJson().contains("ISOLATION_PTY_SECRET"));

    QCOMPARE(m_fx->cli(0, {QStringLiteral("finish"), session, QStringLiteral("--discard")}).exitCode, 0);
}

QTEST_GUILESS_MAIN(tst_TerminalView)
#include "tst_terminalview.moc"
