// The views of a session's sandbox in a real browser, end to end: the real hub mints a view of a
// session a real `isolation-server up` runs in a sandbox of the stand-in runtime on a real dockerd;
// headless Chromium opens it on the hub's preview origin, through the tunnel and the doorman.
// - The terminal's pseudo-terminal (docs/protocol.md, "The PTY relay"): `vi` edits a file (which
//   then is in the session's changes), Ctrl-C stops `sleep 100`, and a resize reaches `stty size`.
//   The relay's secret is on no command line and in no environment in the sandbox.
// - The code editor: a file opened from the tree is highlighted as its language, edited and saved
//   (then in the changes); a file changed on disk since it was opened is refused, not overwritten.
// - The agent conversation: the lines the agent prints appear, a line typed in the box reaches the
//   agent's input and its answer appears; closing the page leaves the agent running.
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

class tst_SandboxViews final : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void cleanupTestCase();
    void viCtrlCAndResizeInTheBrowser();
    void editorSavesAndRefusesAChangedFile();
    void agentConversationInTheBrowser();

private:
    // A session launched by the hub on the engine (with `agent` kept running when given), and its
    // sandbox's container; false on failure.
    bool launch(const QString &workspace, QString *session, QString *container, const QString &agent = {});
    // Mints a view of `kind` and opens it in the browser (the token gone from the URL).
    bool openView(const QString &session, const QString &kind);
    // Types into the terminal (WebDriver keys: \uE007 Enter, \uE00C Escape, \uE009 Control).
    bool type(const QString &keys);
    // Waits for the shell's prompt, then types `line` and Enter, as a member would: typed ahead of
    // the prompt, the terminal's answer to busybox's cursor query would reach the tty while the
    // command runs, and be echoed into its output.
    bool command(const QString &line);
    // Waits until a line of the terminal matches `pattern`; the lines when it does not.
    bool waitForLine(const QRegularExpression &pattern, int ms, QStringList *lines = nullptr);

    RuntimeFixture m_docker;
    std::unique_ptr<SessionFixture> m_fx;
    QString m_server;
    WebDriver m_browser;
};

void tst_SandboxViews::initTestCase()
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

void tst_SandboxViews::cleanupTestCase()
{
    if (m_fx)
        m_fx->stopEngine(0);
    m_docker.cleanup();
    m_fx.reset();
}

bool tst_SandboxViews::launch(const QString &workspace, QString *session, QString *container, const QString &agent)
{
    if (m_fx->createWorkspace(workspace).isEmpty())
        return false;
    QString out, err;
    QStringList args {QStringLiteral("launch"), QStringLiteral("--server"), m_server, QStringLiteral("--workspace"),
        workspace, QStringLiteral("--json")};
    if (!agent.isEmpty())
        args << QStringLiteral("--agent") << agent;
    const int rc = m_fx->hub().admin(args, &out, &err);
    if (rc != 0) {
        qWarning().noquote() << "launch failed:" << err << m_fx->engineLog(0).right(3000);
        return false;
    }
    *session = QJsonDocument::fromJson(out.toUtf8()).object().value(QStringLiteral("id")).toString();
    const QJsonObject sessions = m_fx->cli(0, {QStringLiteral("sessions"), QStringLiteral("--json")}).json();
    for (const QJsonValue s : sessions.value(QStringLiteral("sessions")).toArray()) {
        if (s.toObject().value(QStringLiteral("id")).toString() != *session)
            continue;
        const QString sandbox
            = s.toObject().value(QStringLiteral("sandbox")).toObject().value(QStringLiteral("id")).toString();
        const QStringList found = containersWithLabel(QStringLiteral("io.isolation.standin.sandbox=") + sandbox);
        if (found.size() == 1)
            *container = found.first();
    }
    return !session->isEmpty() && !container->isEmpty();
}

bool tst_SandboxViews::openView(const QString &session, const QString &kind)
{
    QString out, err;
    const int rc = m_fx->hub().admin(
        {QStringLiteral("view"), session, QStringLiteral("--kind"), kind, QStringLiteral("--server"), m_server}, &out,
        &err);
    if (rc != 0) {
        qWarning().noquote() << "isolation-hub view:" << err;
        return false;
    }
    const QUrl view(out.trimmed());
    if (!m_browser.navigate(view)) {
        qWarning().noquote() << m_browser.lastError();
        return false;
    }
    return QTest::qWaitFor(
        [&] {
            const QUrl now = m_browser.currentUrl();
            return now.host() == view.host() && !now.hasQuery();
        },
        30000);
}

bool tst_SandboxViews::type(const QString &keys)
{
    if (m_browser.type(QStringLiteral(".xterm-helper-textarea"), keys))
        return true;
    qWarning("typing failed: %s", qPrintable(m_browser.lastError()));
    return false;
}

bool tst_SandboxViews::command(const QString &line)
{
    if (!QTest::qWaitFor([&] { return m_browser.terminalAtPrompt(); }, 20000)) {
        qWarning().noquote() << "no prompt to type" << line << "at:\n"
                             << m_browser.terminalLines().join(QLatin1Char('\n'));
        return false;
    }
    return type(line + QChar(0xE007));
}

bool tst_SandboxViews::waitForLine(const QRegularExpression &pattern, int ms, QStringList *lines)
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

void tst_SandboxViews::viCtrlCAndResizeInTheBrowser()
{
    QString session, container;
    QVERIFY(launch(QStringLiteral("typed"), &session, &container));
    QVERIFY(openView(session, QStringLiteral("terminal")));

    // The pseudo-terminal runs, and the page says so.
    QString mode;
    const bool settled = QTest::qWaitFor(
        [&] {
            mode = m_browser.execute(QStringLiteral("return window.isolationTerminalMode || ''")).toString();
            return mode == QLatin1String("pty") || mode == QLatin1String("line");
        },
        60000);
    QVERIFY2(
        settled && mode == QLatin1String("pty"), qPrintable(mode + QLatin1Char('\n') + m_fx->engineLog(0).right(3000)));
    QCOMPARE(m_browser.execute(QStringLiteral("return document.getElementById('status').textContent")).toString(),
        QStringLiteral("Terminal in the sandbox"));

    // A resize reaches the terminal: `stty size` says rows and columns as the page set them.
    QVERIFY(command(QStringLiteral("stty size")));
    const QJsonArray size
        = m_browser.execute(QStringLiteral("return [isolationTerminal.rows, isolationTerminal.cols]")).toArray();
    QVERIFY(waitForLine(
        QRegularExpression(QStringLiteral("^%1 %2$").arg(size.at(0).toInt()).arg(size.at(1).toInt())), 20000));
    m_browser.execute(QStringLiteral("isolationTerminal.resize(97, 31)"));
    QVERIFY(command(QStringLiteral("stty size")));
    QVERIFY(waitForLine(QRegularExpression(QStringLiteral("^31 97$")), 20000));

    // Ctrl-C stops a running command: the next one runs long before `sleep 100` would end.
    QVERIFY(command(QStringLiteral("sleep 100")));
    QTest::qWait(500); // the shell has started sleep; Ctrl-C now goes to it, not to the prompt
    QVERIFY(type(QStringLiteral("\uE009c\uE000")));
    QVERIFY(command(QStringLiteral("echo after-$((6*7))")));
    QVERIFY(waitForLine(QRegularExpression(QStringLiteral("^after-42$")), 10000));

    // vi, a full-screen program: open a file, insert a line, :wq.
    QVERIFY(command(QStringLiteral("vi notes.txt")));
    QVERIFY(waitForLine(QRegularExpression(QStringLiteral("^~")), 20000)); // vi's empty-line markers
    QVERIFY(type(QStringLiteral("ihello from vi\uE00C")));
    QVERIFY(type(QStringLiteral(":wq\uE007")));
    QVERIFY(command(QStringLiteral("echo saved-$?")));
    QVERIFY(waitForLine(QRegularExpression(QStringLiteral("^saved-0$")), 20000));

    // The file is in the session's worktree, with what was typed, and in its changes.
    const QJsonObject changes = m_fx->cli(0, {QStringLiteral("changes"), session, QStringLiteral("--json")}).json();
    QStringList files;
    for (const QJsonValue f : changes.value(QStringLiteral("files")).toArray())
        files << f.toObject().value(QStringLiteral("path")).toString();
    QVERIFY2(files.contains(QStringLiteral("notes.txt")), QJsonDocument(changes).toJson().constData());
    const Run content
        = docker({QStringLiteral("exec"), container, QStringLiteral("cat"), QStringLiteral("/workspace/notes.txt")});
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
    QVERIFY2(!QRegularExpression(QStringLiteral("ISOLATION_PTY_SECRET=[0-9a-f]"))
                  .match(QString::fromUtf8(environments.out))
                  .hasMatch(),
        environments.out.constData());
    QVERIFY(!QJsonDocument(dockerInspect(container)).toJson().contains("ISOLATION_PTY_SECRET"));

    QCOMPARE(m_fx->cli(0, {QStringLiteral("finish"), session, QStringLiteral("--discard")}).exitCode, 0);
}

void tst_SandboxViews::editorSavesAndRefusesAChangedFile()
{
    QString session, container;
    QVERIFY(launch(QStringLiteral("edited"), &session, &container));
    const auto inSandbox = [&](const QString &shell) {
        return docker({QStringLiteral("exec"), container, QStringLiteral("sh"), QStringLiteral("-c"), shell});
    };
    QCOMPARE(inSandbox(QStringLiteral("printf 'def main():\\n    print(1)\\n' > /workspace/app.py")).exitCode, 0);
    QVERIFY(openView(session, QStringLiteral("editor")));

    // The tree lists the file; a click opens it, highlighted as Python.
    const QString link = QStringLiteral("a[data-path=\"/workspace/app.py\"]");
    QVERIFY(QTest::qWaitFor(
        [&] {
            return m_browser.execute(QStringLiteral("return !!document.querySelector(arguments[0])"), {link}).toBool();
        },
        20000));
    m_browser.execute(QStringLiteral("document.querySelector(arguments[0]).click()"), {link});
    QVERIFY(QTest::qWaitFor(
        [&] {
            return m_browser.execute(QStringLiteral("return isolationEditor.editor.getValue()")).toString()
                == QLatin1String("def main():\n    print(1)\n");
        },
        20000));
    QVERIFY(QTest::qWaitFor(
        [&] {
            return m_browser.execute(QStringLiteral("return isolationEditor.editor.session.getMode().$id")).toString()
                == QLatin1String("ace/mode/python");
        },
        20000));
    // Highlighted: the keyword is drawn as one.
    QVERIFY(QTest::qWaitFor(
        [&] {
            return m_browser
                .execute(QStringLiteral(
                    "return [...document.querySelectorAll('.ace_keyword')].some(e => e.textContent === 'def')"))
                .toBool();
        },
        10000));

    // Typed at the top, saved with the button: in the sandbox, and in the session's changes.
    QVERIFY(m_browser.type(QStringLiteral(".ace_text-input"), QStringLiteral("# edited in the browser\uE007")));
    m_browser.execute(QStringLiteral("document.getElementById('save').click()"));
    QVERIFY(QTest::qWaitFor(
        [&] {
            return m_browser.execute(QStringLiteral("return document.getElementById('status').textContent")).toString()
                == QLatin1String("Saved");
        },
        20000));
    QCOMPARE(inSandbox(QStringLiteral("cat /workspace/app.py")).out,
        QByteArray("# edited in the browser\ndef main():\n    print(1)\n"));
    const QJsonObject changes = m_fx->cli(0, {QStringLiteral("changes"), session, QStringLiteral("--json")}).json();
    QStringList files;
    for (const QJsonValue f : changes.value(QStringLiteral("files")).toArray())
        files << f.toObject().value(QStringLiteral("path")).toString();
    QVERIFY2(files.contains(QStringLiteral("app.py")), QJsonDocument(changes).toJson().constData());

    // Changed underneath (an agent wrote it): the next save is refused and the file is as the agent left it.
    QCOMPARE(inSandbox(QStringLiteral("echo 'written by the agent' > /workspace/app.py")).exitCode, 0);
    QVERIFY(m_browser.type(QStringLiteral(".ace_text-input"), QStringLiteral("# second edit\uE007")));
    m_browser.execute(QStringLiteral("document.getElementById('save').click()"));
    QString said;
    QVERIFY2(QTest::qWaitFor(
                 [&] {
                     said = m_browser.execute(QStringLiteral("return document.getElementById('status').textContent"))
                                .toString();
                     return said.startsWith(QLatin1String("Not saved"));
                 },
                 20000),
        qPrintable(said));
    QVERIFY2(said.contains(QLatin1String("changed on disk")), qPrintable(said));
    QCOMPARE(inSandbox(QStringLiteral("cat /workspace/app.py")).out, QByteArray("written by the agent\n"));
    // The edits are still in the editor.
    QVERIFY(m_browser.execute(QStringLiteral("return isolationEditor.editor.getValue()"))
                .toString()
                .contains(QLatin1String("# second edit")));

    QCOMPARE(m_fx->cli(0, {QStringLiteral("finish"), session, QStringLiteral("--discard")}).exitCode, 0);
}

void tst_SandboxViews::agentConversationInTheBrowser()
{
    QString session, container;
    QVERIFY(launch(QStringLiteral("talked"), &session, &container,
        QStringLiteral("echo 'agent ready'; while IFS= read -r l; do echo \"agent heard: $l\"; done")));
    QVERIFY(openView(session, QStringLiteral("agent")));
    const auto entries = [&](const QString &kind) {
        return m_browser
            .execute(QStringLiteral(
                         "return [...document.querySelectorAll('#log .' + arguments[0])].map(e => e.textContent)"),
                {kind})
            .toVariant()
            .toStringList();
    };
    const auto waitFor = [&](const QString &kind, const QString &text) {
        QStringList seen;
        const bool found = QTest::qWaitFor(
            [&] {
                seen = entries(kind);
                return seen.contains(text);
            },
            20000);
        if (!found)
            qWarning().noquote() << "no" << kind << "entry" << text << "in" << seen;
        return found;
    };
    QVERIFY(waitFor(QStringLiteral("out"), QStringLiteral("agent ready")));
    QVERIFY(QTest::qWaitFor(
        [&] {
            return m_browser.execute(QStringLiteral("return document.getElementById('state').textContent")).toString()
                == QLatin1String("running");
        },
        10000));

    // A line typed in the box (Enter sends) reaches the agent's input; its answer comes back.
    QVERIFY(m_browser.type(QStringLiteral("#input"), QStringLiteral("hello from the browser\uE007")));
    QVERIFY(waitFor(QStringLiteral("in"), QStringLiteral("\u203A hello from the browser")));
    QVERIFY(waitFor(QStringLiteral("out"), QStringLiteral("agent heard: hello from the browser")));
    QCOMPARE(m_browser.execute(QStringLiteral("return document.getElementById('input').value")).toString(), QString());

    // The page closed, the agent goes on: it still runs and answers in a view opened later, which
    // shows the conversation so far.
    QVERIFY(m_browser.navigate(QUrl(QStringLiteral("about:blank"))));
    QTest::qWait(1000);
    const QJsonObject agent = m_fx->cli(0, {QStringLiteral("agent"), session, QStringLiteral("--json")}).json();
    QCOMPARE(agent.value(QStringLiteral("state")).toString(), QStringLiteral("running"));
    QCOMPARE(agent.value(QStringLiteral("runs")).toInt(), 1);
    QVERIFY(openView(session, QStringLiteral("agent")));
    QVERIFY(waitFor(QStringLiteral("out"), QStringLiteral("agent heard: hello from the browser")));
    QVERIFY(m_browser.type(QStringLiteral("#input"), QStringLiteral("still there?\uE007")));
    QVERIFY(waitFor(QStringLiteral("out"), QStringLiteral("agent heard: still there?")));

    QCOMPARE(m_fx->cli(0, {QStringLiteral("finish"), session, QStringLiteral("--discard")}).exitCode, 0);
}

QTEST_GUILESS_MAIN(tst_SandboxViews)
#include "tst_sandboxviews.moc"
