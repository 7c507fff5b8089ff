// Sessions launched in sandboxes as the cloud asks, end to end on a real dockerd: the real hub
// (`isolation-hub launch`, a call over the tunnel, with a launch secret), two real
// `isolation-server up` engines running the stand-in runtime. The secret reaches the sandbox and
// no file of the engine or the hub. A command in the sandbox writes under /workspace; the file is in the
// session's worktree; finish is refused while it is unsaved (exit code 10), then save and finish
// (sandbox deleted, session gone); a launch on the second engine finds the file, in the worktree
// and in its sandbox; suspend pauses and resume brings it back; an engine restart adopts the
// running sandbox (the same container, no second session); a killed lifecycle container comes
// back and the session is still reachable; finish --discard drops work.
#include "../workspace/gitcli.h"
#include "dockertestsupport.h"
#include "runtimefixture.h"
#include "sessionfixture.h"
#include "webdriver.h"

#include <QDateTime>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QRegularExpression>
#include <QSet>
#include <QSignalSpy>
#include <QProcess>
#include <QTcpServer>
#include <QTemporaryDir>
#include <QTest>
#include <QUrlQuery>

#include <csignal>
#include <pwd.h>
#include <unistd.h>

using namespace isolation::test;

class tst_SessionLaunch final : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void cleanupTestCase();
    void launchSaveFinishLaunchElsewhere();
    void cliLaunchShowsItsProgress();
    void ctrlCCancelsALaunch();
    void hubPageLaunchesAndOpensATerminal();
    void inABrowserFromTheHubPageToATerminal();
    void launchClonesAndRunsAnAgent();
    void launchClonesOverSshWithoutGivingTheSandboxTheKey();
    void resumeOnAnotherServer();
    void anAgentSavesAndOutlivesAnEngineRestart();

private:
    // `isolation-hub launch` for engine `i`'s server; the session's JSON (empty on failure).
    QJsonObject hubLaunch(int i, const QString &workspace, const QStringList &more = {});
    QJsonObject sessionOf(int i, const QString &id) const;
    // The container of a sandbox (the stand-in labels it with the sandbox id).
    static QString containerOf(const QJsonObject &session);
    // The label the stand-in gives the containers of a session (the launch's metadata, as JSON).
    static QString sessionLabel(const QString &session)
    {
        return QStringLiteral("io.isolation.standin.metadata=")
            + QString::fromUtf8(
                QJsonDocument(QJsonObject {{QStringLiteral("session"), session}}).toJson(QJsonDocument::Compact));
    }
    static Run inSandbox(const QJsonObject &session, const QString &shell);

    RuntimeFixture m_docker;
    std::unique_ptr<SessionFixture> m_fx;
    QString m_server[2];
    QProcessEnvironment m_env;
};

void tst_SessionLaunch::initTestCase()
{
    const QString missing = RuntimeFixture::missing();
    QVERIFY2(missing.isEmpty(), qPrintable(missing));
    m_fx = std::make_unique<SessionFixture>();
    QVERIFY(m_fx->start(2));
    m_env.insert(QStringLiteral("ISOLATION_RUNTIME"), QStringLiteral("on"));
    m_env.insert(QStringLiteral("ISOLATION_RUNTIME_LIFECYCLE_IMAGE"), kLifecycle);
    m_env.insert(QStringLiteral("ISOLATION_RUNTIME_EXECD_IMAGE"), kExecd);
    m_env.insert(QStringLiteral("ISOLATION_SANDBOX_IMAGE"), kSandbox);
    for (int i : {0, 1}) {
        QVERIFY(m_fx->startEngine(i, m_env));
        QJsonObject runtime;
        QDeadlineTimer deadline(120000);
        while (!deadline.hasExpired()) {
            runtime = m_fx->cli(i, {QStringLiteral("runtime"), QStringLiteral("status"), QStringLiteral("--json")}).json();
            if (runtime.value(QStringLiteral("state")).toString() == QLatin1String("healthy"))
                break;
            QTest::qWait(500);
        }
        QCOMPARE(runtime.value(QStringLiteral("state")).toString(), QStringLiteral("healthy"));
        // For the clean-up: the engine id its lifecycle container carries.
        const QJsonObject inspected = dockerInspect(runtime.value(QStringLiteral("container")).toString());
        const QString engineId = inspected.value(QStringLiteral("Config"))
                                     .toObject()
                                     .value(QStringLiteral("Labels"))
                                     .toObject()
                                     .value(QStringLiteral("io.isolation.engine"))
                                     .toString();
        QVERIFY(!engineId.isEmpty());
        m_docker.addEngine(engineId);
        m_server[i] = m_fx->cli(i, {QStringLiteral("status"), QStringLiteral("--json")})
                          .json()
                          .value(QStringLiteral("serverId"))
                          .toString();
        QVERIFY(!m_server[i].isEmpty());
    }
}

void tst_SessionLaunch::cleanupTestCase()
{
    if (m_fx) {
        for (int i : {0, 1})
            m_fx->stopEngine(i);
    }
    m_docker.cleanup();
    m_fx.reset();
}

QJsonObject tst_SessionLaunch::hubLaunch(int i, const QString &workspace, const QStringList &more)
{
    QString out, err;
    const int rc = m_fx->hub().admin(QStringList {QStringLiteral("launch"), QStringLiteral("--server"), m_server[i],
                                         QStringLiteral("--workspace"), workspace, QStringLiteral("--json")}
            + more,
        &out, &err);
    if (rc != 0) {
        qWarning().noquote() << "launch failed:" << rc << err << "\n" << m_fx->engineLog(i).right(4000);
        return {};
    }
    return QJsonDocument::fromJson(out.toUtf8()).object();
}

QJsonObject tst_SessionLaunch::sessionOf(int i, const QString &id) const
{
    const QJsonArray list = m_fx->cli(i, {QStringLiteral("sessions"), QStringLiteral("--json")})
                                .json()
                                .value(QStringLiteral("sessions"))
                                .toArray();
    for (const QJsonValue v : list) {
        if (v.toObject().value(QStringLiteral("id")).toString() == id)
            return v.toObject();
    }
    return {};
}

QString tst_SessionLaunch::containerOf(const QJsonObject &session)
{
    const QString sandbox = session.value(QStringLiteral("sandbox")).toObject().value(QStringLiteral("id")).toString();
    const QStringList found = containersWithLabel(QStringLiteral("io.isolation.standin.sandbox=") + sandbox);
    return found.size() == 1 ? found.first() : QString();
}

Run tst_SessionLaunch::inSandbox(const QJsonObject &session, const QString &shell)
{
    return docker({QStringLiteral("exec"), containerOf(session), QStringLiteral("sh"), QStringLiteral("-c"), shell});
}

void tst_SessionLaunch::launchSaveFinishLaunchElsewhere()
{
    QVERIFY(!m_fx->createWorkspace(QStringLiteral("launched")).isEmpty());

    // The cloud launches a session on engine 0: a session of the workspace, in a running sandbox,
    // with a launch secret (sealed by the hub to engine 0's key; the value from the environment).
    const QByteArray canary = "canary-" + QByteArray::number(QDateTime::currentMSecsSinceEpoch(), 36) + "-secret";
    qputenv("ISOLATION_TEST_CANARY", canary);
    const QJsonObject launched
        = hubLaunch(0, QStringLiteral("launched"), {QStringLiteral("--secret"), QStringLiteral("ISOLATION_TEST_CANARY")});
    qunsetenv("ISOLATION_TEST_CANARY");
    const QString s0 = launched.value(QStringLiteral("id")).toString();
    QVERIFY(!s0.isEmpty());
    QJsonObject session = sessionOf(0, s0);
    QCOMPARE(session.value(QStringLiteral("sandbox")).toObject().value(QStringLiteral("state")).toString(),
        QStringLiteral("running"));
    QCOMPARE(session.value(QStringLiteral("sandbox")).toObject().value(QStringLiteral("image")).toString(), kSandbox);
    const QString container0 = containerOf(session);
    QVERIFY(!container0.isEmpty());
    const CliRun table = m_fx->cli(0, {QStringLiteral("sessions")});
    QVERIFY2(table.out.contains(s0.toUtf8()) && table.out.contains("running"), table.out.constData());

    // The secret reached the sandbox (a tmpfs file), and nowhere it must not be.
    const Run secret = inSandbox(session, QStringLiteral("cat /dev/shm/isolation-secrets/ISOLATION_TEST_CANARY"));
    QCOMPARE(secret.out, canary);
    QVERIFY(!QJsonDocument(dockerInspect(container0)).toJson().contains(canary));
    // Issue 20's first reproduction: another local process asks execd, on its published port, for
    // the secret's file. No token, no answer but 401.
    const auto ports = publishedPorts(dockerInspect(container0));
    QCOMPARE(ports.size(), 1);
    QCOMPARE(ports.first().first, QStringLiteral("127.0.0.1"));
    const Run stolen = runProgram(QStringLiteral("curl"),
        {QStringLiteral("-sS"), QStringLiteral("-w"), QStringLiteral("\nstatus=%{http_code}"), QStringLiteral("-X"),
            QStringLiteral("POST"), QStringLiteral("http://127.0.0.1:%1/command").arg(ports.first().second),
            QStringLiteral("-H"), QStringLiteral("Content-Type: application/json"), QStringLiteral("-d"),
            QStringLiteral("{\"command\":\"cat /dev/shm/isolation-secrets/*\"}")});
    QVERIFY2(stolen.out.endsWith("status=401"), stolen.out.constData());
    QVERIFY(!stolen.out.contains(canary));
    for (const QString &where : {m_fx->home(0), m_fx->hub().dataDir()}) {
        const Run grep = runProgram(QStringLiteral("grep"), {QStringLiteral("-rl"), QString::fromLatin1(canary), where});
        QVERIFY2(grep.exitCode == 1, grep.out.constData()); // 1: nothing found
    }

    // Work done in the sandbox lands in the session's worktree.
    const Run wrote = inSandbox(session, QStringLiteral("echo made-in-the-sandbox > /workspace/made.txt"));
    QVERIFY2(wrote.exitCode == 0, wrote.err.constData());
    const QString worktree = session.value(QStringLiteral("worktree")).toString();
    QFile made(worktree + QStringLiteral("/made.txt"));
    QVERIFY(made.open(QIODevice::ReadOnly));
    QCOMPARE(made.readAll(), QByteArray("made-in-the-sandbox\n"));

    // Unsaved work: finish is refused (exit code 10) and nothing goes.
    const CliRun refused = m_fx->cli(0, {QStringLiteral("finish"), s0});
    QCOMPARE(refused.exitCode, 10);
    QVERIFY2(refused.err.contains("unsaved"), refused.err.constData());
    QVERIFY(!sessionOf(0, s0).isEmpty());
    QCOMPARE(containerOf(session), container0);

    // Saved, it finishes: the sandbox deleted, the session and its directory gone.
    const CliRun saved = m_fx->cli(0, {QStringLiteral("save"), s0, QStringLiteral("-m"), QStringLiteral("from the sandbox")});
    QVERIFY2(saved.exitCode == 0, qPrintable(saved.describe()));
    const CliRun finished = m_fx->cli(0, {QStringLiteral("finish"), s0});
    QVERIFY2(finished.exitCode == 0, qPrintable(finished.describe()));
    QVERIFY(sessionOf(0, s0).isEmpty());
    QVERIFY(containersWithLabel(QStringLiteral("io.isolation.standin.sandbox=")
        + session.value(QStringLiteral("sandbox")).toObject().value(QStringLiteral("id")).toString())
                .isEmpty());
    QVERIFY(!QFileInfo::exists(QFileInfo(worktree).path()));

    // Launched on the other engine (another computer of the member): the file is there.
    const QJsonObject elsewhere = hubLaunch(1, QStringLiteral("launched"));
    const QString s1 = elsewhere.value(QStringLiteral("id")).toString();
    QVERIFY(!s1.isEmpty());
    session = sessionOf(1, s1);
    const Run read = inSandbox(session, QStringLiteral("cat /workspace/made.txt"));
    QVERIFY2(read.exitCode == 0, read.err.constData());
    QCOMPARE(read.out, QByteArray("made-in-the-sandbox\n"));

    // Suspend saves what changed, snapshots the sandbox and deletes it: nothing runs while the
    // session is suspended. Resume restores a sandbox from the snapshot: what was installed outside
    // the worktree is there again, and the work in it.
    QVERIFY(inSandbox(session, QStringLiteral("echo later > /workspace/later.txt")).exitCode == 0);
    QVERIFY(inSandbox(session, QStringLiteral("echo tool > /opt/installed-tool")).exitCode == 0);
    const QString asleepContainer = containerOf(session);
    const CliRun suspended = m_fx->cli(1, {QStringLiteral("suspend"), s1, QStringLiteral("--json")});
    QVERIFY2(suspended.exitCode == 0, qPrintable(suspended.describe()));
    const QJsonObject asleep = sessionOf(1, s1).value(QStringLiteral("sandbox")).toObject();
    QCOMPARE(asleep.value(QStringLiteral("state")).toString(), QStringLiteral("suspended"));
    const QString snapshot = asleep.value(QStringLiteral("snapshot")).toString();
    QVERIFY(!snapshot.isEmpty());
    QVERIFY(suspended.json().value(QStringLiteral("suspendSave")).toObject().value(QStringLiteral("published")).toBool());
    QCOMPARE(docker({QStringLiteral("inspect"), asleepContainer}).exitCode, 1); // the container is gone
    QCOMPARE(docker({QStringLiteral("image"), QStringLiteral("inspect"), QStringLiteral("isolation-standin-snapshot:") + snapshot}).exitCode, 0);
    QCOMPARE(m_fx->cli(1, {QStringLiteral("suspend"), s1}).exitCode, 10); // not running
    // On a terminal, the resume shows the sandbox's states as they come (it is created again from
    // the snapshot: creating, starting, preparing), then its result.
    const CliRun resumed = m_fx->cliOnTerminal(1, {QStringLiteral("resume"), s1});
    QVERIFY2(resumed.exitCode == 0, qPrintable(resumed.describe()));
    QVERIFY2(resumed.out.contains("\r\033[K[0:0") && resumed.out.contains("] Sandbox starting"), resumed.out.constData());
    QVERIFY2(resumed.out.endsWith(QByteArray(s1.toUtf8() + ": sandbox running\r\n")), resumed.out.constData());
    const QJsonObject awake = sessionOf(1, s1).value(QStringLiteral("sandbox")).toObject();
    QCOMPARE(awake.value(QStringLiteral("state")).toString(), QStringLiteral("running"));
    QVERIFY(!awake.contains(QStringLiteral("snapshot")));
    session = sessionOf(1, s1);
    QVERIFY(containerOf(session) != asleepContainer);
    QCOMPARE(inSandbox(session, QStringLiteral("cat /workspace/later.txt")).out, QByteArray("later\n"));
    QCOMPARE(inSandbox(session, QStringLiteral("cat /opt/installed-tool")).out, QByteArray("tool\n"));
    // The snapshot, consumed, is deleted (the restored sandbox keeps what it needs).
    QTRY_COMPARE_WITH_TIMEOUT(docker({QStringLiteral("image"), QStringLiteral("inspect"),
                                  QStringLiteral("isolation-standin-snapshot:") + snapshot})
                                  .exitCode,
        1, 10000);

    // The engine restarts: the session adopts the sandbox that kept running — the same one, no second.
    const QString container1 = containerOf(session);
    QCOMPARE(m_fx->stopEngine(1), 0);
    QVERIFY(m_fx->startEngine(1, m_env));
    QTRY_COMPARE_WITH_TIMEOUT(
        sessionOf(1, s1).value(QStringLiteral("sandbox")).toObject().value(QStringLiteral("state")).toString(),
        QStringLiteral("running"), 120000);
    QCOMPARE(containerOf(sessionOf(1, s1)), container1);
    QCOMPARE(m_fx->cli(1, {QStringLiteral("sessions"), QStringLiteral("--json")})
                 .json()
                 .value(QStringLiteral("sessions"))
                 .toArray()
                 .size(),
        1);
    const CliRun again = m_fx->cli(1, {QStringLiteral("suspend"), s1});
    QVERIFY2(again.exitCode == 0, qPrintable(again.describe()));
    QVERIFY(m_fx->cli(1, {QStringLiteral("resume"), s1}).exitCode == 0);

    // The lifecycle container dies: the engine brings it back, and the session is still reachable.
    const QJsonObject before
        = m_fx->cli(1, {QStringLiteral("runtime"), QStringLiteral("status"), QStringLiteral("--json")}).json();
    QCOMPARE(docker({QStringLiteral("kill"), before.value(QStringLiteral("container")).toString()}).exitCode, 0);
    QTRY_VERIFY_WITH_TIMEOUT(
        [&] {
            const QJsonObject now
                = m_fx->cli(1, {QStringLiteral("runtime"), QStringLiteral("status"), QStringLiteral("--json")}).json();
            return now.value(QStringLiteral("state")).toString() == QLatin1String("healthy")
                && now.value(QStringLiteral("startedAt")) != before.value(QStringLiteral("startedAt"));
        }(),
        120000);
    const CliRun afterKill = m_fx->cli(1, {QStringLiteral("suspend"), s1});
    QVERIFY2(afterKill.exitCode == 0, qPrintable(afterKill.describe()));
    QVERIFY(m_fx->cli(1, {QStringLiteral("resume"), s1}).exitCode == 0);
    session = sessionOf(1, s1); // resumed in a new sandbox
    QCOMPARE(inSandbox(session, QStringLiteral("cat /workspace/later.txt")).out, QByteArray("later\n"));
    // The suspend's save reached the hub: a sync of engine 0's view would see it. finish --discard
    // drops what is new since.
    QVERIFY(inSandbox(session, QStringLiteral("echo dropped > /workspace/dropped.txt")).exitCode == 0);
    QCOMPARE(m_fx->cli(1, {QStringLiteral("finish"), s1}).exitCode, 10);
    const CliRun discarded = m_fx->cli(1, {QStringLiteral("finish"), s1, QStringLiteral("--discard"), QStringLiteral("--json")});
    QVERIFY2(discarded.exitCode == 0, qPrintable(discarded.describe()));
    QCOMPARE(discarded.json().value(QStringLiteral("discarded")).toInt(), 1);
    QVERIFY(sessionOf(1, s1).isEmpty());
    QVERIFY(containerOf(session).isEmpty());
}

// `isolation-server launch` (the member's own launch, not the cloud's) shows how far it got: with
// --json --progress, the session's opening as progress events and each state its sandbox passes
// through as a line of its own, then the result; on a terminal, a line redrawn in place that names
// the sandbox's state, cleared before the result (issue 25, point 4).
void tst_SessionLaunch::cliLaunchShowsItsProgress()
{
    QVERIFY(!m_fx->createWorkspace(QStringLiteral("cli-launched")).isEmpty());
    const CliRun launched = m_fx->cli(0,
        {QStringLiteral("launch"), QStringLiteral("--workspace"), QStringLiteral("cli-launched"),
            QStringLiteral("--json"), QStringLiteral("--progress")});
    QVERIFY2(launched.exitCode == 0, qPrintable(launched.describe()));
    QByteArray rest = launched.out;
    QStringList states; // of the sandbox, in the order streamed
    QSet<QString> operations;
    QString session;
    while (rest.startsWith("{\"progress\":") || rest.startsWith("{\"sandbox\":")) {
        const qsizetype end = rest.indexOf('\n');
        QVERIFY(end > 0);
        QJsonParseError error;
        const QJsonObject line = QJsonDocument::fromJson(rest.left(end), &error).object();
        QVERIFY2(error.error == QJsonParseError::NoError, rest.left(end).constData());
        if (line.contains(QStringLiteral("sandbox"))) {
            const QJsonObject sandbox = line.value(QStringLiteral("sandbox")).toObject();
            session = sandbox.value(QStringLiteral("session")).toString();
            if (states.isEmpty() || states.last() != sandbox.value(QStringLiteral("state")).toString())
                states.append(sandbox.value(QStringLiteral("state")).toString());
        } else {
            const QJsonObject p = line.value(QStringLiteral("progress")).toObject();
            if (!p.value(QStringLiteral("operation")).toString().isEmpty())
                operations.insert(p.value(QStringLiteral("operation")).toString());
        }
        rest = rest.mid(end + 1);
    }
    QVERIFY2(operations.contains(QStringLiteral("open")), launched.out.constData());
    // The sandbox on its way: created, then started (what comes after "running" is the answer's).
    QVERIFY2(states.contains(QStringLiteral("creating")) && states.contains(QStringLiteral("starting"))
            && states.indexOf(QStringLiteral("creating")) < states.indexOf(QStringLiteral("starting")),
        qPrintable(states.join(QLatin1Char(','))));
    QJsonParseError error;
    const QJsonObject result = QJsonDocument::fromJson(rest, &error).object();
    QVERIFY2(error.error == QJsonParseError::NoError, rest.constData());
    QCOMPARE(result.value(QStringLiteral("id")).toString(), session);
    QCOMPARE(result.value(QStringLiteral("sandbox")).toObject().value(QStringLiteral("state")).toString(),
        QStringLiteral("running"));
    QCOMPARE(containersWithLabel(sessionLabel(session)).size(), 1); // as ctrlCCancelsALaunch looks for them

    // On a terminal: the line names the sandbox's state with the time in it, and only the result stays.
    const CliRun shown = m_fx->cliOnTerminal(
        0, {QStringLiteral("launch"), QStringLiteral("--workspace"), QStringLiteral("cli-launched")}, 100);
    QVERIFY2(shown.exitCode == 0, qPrintable(shown.describe()));
    bool sandboxLine = false;
    const QByteArray clear = "\r\033[K";
    for (qsizetype at = shown.out.indexOf(clear); at >= 0; at = shown.out.indexOf(clear, at + 1)) {
        const QByteArray drawn = shown.out.mid(at + clear.size(), 40);
        sandboxLine = sandboxLine
            || QRegularExpression(QStringLiteral("^\\[\\d+:\\d\\d\\] Sandbox (creating|starting)"))
                   .match(QString::fromUtf8(drawn))
                   .hasMatch();
    }
    QVERIFY2(sandboxLine, shown.out.constData());
    const QString tail = QString::fromUtf8(shown.out.mid(shown.out.lastIndexOf(clear) + clear.size()));
    const QRegularExpressionMatch answer
        = QRegularExpression(QStringLiteral("^(s[0-9a-f]{12})\r?\nsandbox \\S+ \\(%1\\), running\r?\n$")
                                 .arg(QRegularExpression::escape(kSandbox)))
              .match(tail);
    QVERIFY2(answer.hasMatch(), qPrintable(tail));

    for (const QString &id : {session, answer.captured(1)}) {
        const CliRun finished = m_fx->cli(0, {QStringLiteral("finish"), id, QStringLiteral("--discard")});
        QVERIFY2(finished.exitCode == 0, qPrintable(finished.describe()));
    }
}

// Ctrl-C of `launch` once the sandbox is being created: the engine deletes what the create makes
// (once its answer comes), the launch ends cancelled (exit 130), and nothing is left: no session,
// no container of it.
void tst_SessionLaunch::ctrlCCancelsALaunch()
{
    QVERIFY(!m_fx->createWorkspace(QStringLiteral("cli-cancelled")).isEmpty());
    QProcess cli;
    m_fx->startCli(0,
        {QStringLiteral("launch"), QStringLiteral("--workspace"), QStringLiteral("cli-cancelled"),
            QStringLiteral("--json"), QStringLiteral("--progress")},
        cli);
    QVERIFY(cli.waitForStarted());
    QByteArray out;
    QString session;
    QDeadlineTimer deadline(120000);
    while (session.isEmpty() && !deadline.hasExpired() && cli.state() == QProcess::Running) {
        cli.waitForReadyRead(100);
        out += cli.readAllStandardOutput();
        for (const QByteArray &line : out.split('\n')) {
            const QJsonObject sandbox
                = QJsonDocument::fromJson(line).object().value(QStringLiteral("sandbox")).toObject();
            if (sandbox.value(QStringLiteral("state")).toString() == QLatin1String("creating")) {
                session = sandbox.value(QStringLiteral("session")).toString();
                ::kill(pid_t(cli.processId()), SIGINT);
                break;
            }
        }
    }
    QVERIFY2(!session.isEmpty(), out.constData());
    QVERIFY(cli.waitForFinished(120000));
    out += cli.readAllStandardOutput();
    const QByteArray err = cli.readAllStandardError();
    QVERIFY2(cli.exitStatus() == QProcess::NormalExit && cli.exitCode() == 130,
        QByteArray(out.right(2000) + err).constData());
    QVERIFY2(err.contains("Cancelling"), err.constData());
    QVERIFY2(out.contains("\"code\": \"cancelled\""), out.right(2000).constData());
    QVERIFY(sessionOf(0, session).isEmpty());
    QTRY_VERIFY_WITH_TIMEOUT(containersWithLabel(sessionLabel(session)).isEmpty(), 30000);
}

// The member's page on the hub (/sessions): create a workspace, launch a session on a computer,
// see it running, open its terminal view (a redirect to the view's own preview origin); a form
// without the page's CSRF token is refused.
void tst_SessionLaunch::hubPageLaunchesAndOpensATerminal()
{
    QNetworkAccessManager net; // its cookie jar keeps the page session
    const QUrl base = m_fx->hub().appUrl();
    const auto get = [&](const QString &path, int *status) {
        QNetworkRequest request(base.resolved(QUrl(path)));
        request.setAttribute(QNetworkRequest::RedirectPolicyAttribute, QNetworkRequest::ManualRedirectPolicy);
        QNetworkReply *reply = net.get(request);
        QSignalSpy done(reply, &QNetworkReply::finished);
        done.wait(30000);
        *status = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
        const QByteArray body = reply->readAll();
        reply->deleteLater();
        return QString::fromUtf8(body);
    };
    const auto post = [&](const QList<QPair<QString, QString>> &fields, int *status) {
        QNetworkRequest request(base.resolved(QUrl(QStringLiteral("/sessions"))));
        request.setAttribute(QNetworkRequest::RedirectPolicyAttribute, QNetworkRequest::ManualRedirectPolicy);
        request.setHeader(QNetworkRequest::ContentTypeHeader, QStringLiteral("application/x-www-form-urlencoded"));
        // A browser names the page's origin on every form post; the hub takes no form without it.
        request.setRawHeader("Origin", base.adjusted(QUrl::RemovePath).toString().toUtf8());
        QUrlQuery form;
        for (const auto &[k, v] : fields)
            form.addQueryItem(k, QString::fromLatin1(QUrl::toPercentEncoding(v)));
        QNetworkReply *reply = net.post(request, form.toString(QUrl::FullyEncoded).toUtf8());
        QSignalSpy done(reply, &QNetworkReply::finished);
        done.wait(300000);
        *status = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
        const QString location = QString::fromUtf8(reply->rawHeader("Location"));
        reply->deleteLater();
        return location;
    };
    int status = 0;
    QString page = get(QStringLiteral("/sessions"), &status);
    QCOMPARE(status, 200);
    const QString csrf = QRegularExpression(QStringLiteral("name=csrf value=\"([^\"]+)\"")).match(page).captured(1);
    QVERIFY(!csrf.isEmpty());

    // Without the page's token: refused.
    post({{QStringLiteral("csrf"), QStringLiteral("forged")}, {QStringLiteral("action"), QStringLiteral("workspace")},
             {QStringLiteral("name"), QStringLiteral("forged")}},
        &status);
    QCOMPARE(status, 403);

    QString location = post({{QStringLiteral("csrf"), csrf}, {QStringLiteral("action"), QStringLiteral("workspace")},
                                {QStringLiteral("name"), QStringLiteral("paged")}},
        &status);
    QCOMPARE(status, 303);
    QVERIFY2(location.contains(QStringLiteral("notice=")), qPrintable(location));
    page = get(QStringLiteral("/sessions"), &status);
    const QString workspace
        = QRegularExpression(QStringLiteral("<option value=\"(ws_[0-9a-f]+)\">paged</option>")).match(page).captured(1);
    QVERIFY2(!workspace.isEmpty(), qPrintable(page));
    QVERIFY(page.contains(QStringLiteral("<option value=\"%1\">").arg(m_server[0])));

    location = post({{QStringLiteral("csrf"), csrf}, {QStringLiteral("action"), QStringLiteral("launch")},
                        {QStringLiteral("server"), m_server[0]}, {QStringLiteral("workspace"), workspace}},
        &status);
    QCOMPARE(status, 303);
    const QString session = QRegularExpression(QStringLiteral("Session(?:%20|\\+)(s[0-9a-f]{12})")).match(location).captured(1);
    QVERIFY2(!session.isEmpty(), qPrintable(location));
    page = get(QStringLiteral("/sessions"), &status);
    QVERIFY2(page.contains(QStringLiteral("<b>%1</b>").arg(session)) && page.contains(QStringLiteral("running"))
            && page.contains(QStringLiteral("Terminal</button>")),
        qPrintable(page));
    QCOMPARE(sessionOf(0, session).value(QStringLiteral("sandbox")).toObject().value(QStringLiteral("state")).toString(),
        QStringLiteral("running"));

    // Its terminal: a view minted for that session, opened on the view's own origin.
    location = post({{QStringLiteral("csrf"), csrf}, {QStringLiteral("action"), QStringLiteral("terminal")},
                        {QStringLiteral("server"), m_server[0]}, {QStringLiteral("session"), session}},
        &status);
    QCOMPARE(status, 303);
    const QUrl view(location);
    QVERIFY2(view.host().endsWith(QStringLiteral(".preview.localhost")), qPrintable(location));
    QCOMPARE(view.port(), m_fx->hub().previewUrl().port());

    QCOMPARE(m_fx->cli(0, {QStringLiteral("finish"), session, QStringLiteral("--discard")}).exitCode, 0);
}

// What a newcomer does after `./dev run`, in a real browser (headless chromium): the hub's
// Sessions page, Launch, then Terminal on the running session; the doorman of the engine lets the
// browser in (token in the URL, then a cookie), and `echo hello` runs in the session's sandbox.
void tst_SessionLaunch::inABrowserFromTheHubPageToATerminal()
{
    const QString missing = WebDriver::missing();
    QVERIFY2(missing.isEmpty(), qPrintable(missing));
    QVERIFY(!m_fx->createWorkspace(QStringLiteral("browsed")).isEmpty());
    WebDriver browser;
    QVERIFY2(browser.start(), qPrintable(browser.lastError()));
    const QUrl sessions = m_fx->hub().appUrl().resolved(QUrl(QStringLiteral("/sessions")));
    QVERIFY2(browser.navigate(sessions), qPrintable(browser.lastError()));
    // Choose the workspace by its name and this engine's computer, then Launch.
    const QJsonValue chosen = browser.execute(QStringLiteral(R"(
        const ws = [...document.querySelectorAll('select[name=workspace] option')].find(o => o.text === arguments[0]);
        if (!ws) return false;
        ws.selected = true;
        document.querySelector('select[name=server]').value = arguments[1];
        document.querySelector('input[name=action][value=launch]').form.submit();
        return true;
    )"), QJsonArray {QStringLiteral("browsed"), m_server[0]});
    QVERIFY2(chosen.toBool(), qPrintable(browser.lastError()));
    QString session;
    QVERIFY(QTest::qWaitFor(
        [&] {
            session = browser.execute(QStringLiteral(
                "const m = /Session (s[0-9a-f]{12}) launched/.exec(document.body.innerText); return m ? m[1] : '';"))
                          .toString();
            return !session.isEmpty();
        },
        300000));
    QCOMPARE(sessionOf(0, session).value(QStringLiteral("sandbox")).toObject().value(QStringLiteral("state")).toString(),
        QStringLiteral("running"));

    // Terminal: the browser lands on the view's own origin, the token gone from the URL.
    QVERIFY(browser.execute(QStringLiteral(R"(
        const f = [...document.querySelectorAll('form')].find(f => f.session && f.session.value === arguments[0]);
        const b = f && f.querySelector('button[name=action][value=terminal]');
        if (!b) return false;
        b.click();
        return true;
    )"), QJsonArray {session}).toBool());
    QVERIFY2(QTest::qWaitFor(
                 [&] {
                     const QUrl now = browser.currentUrl();
                     return now.host().endsWith(QStringLiteral(".preview.localhost")) && !now.hasQuery();
                 },
                 30000),
        qPrintable(browser.currentUrl().toString(QUrl::RemoveQuery)));
    QVERIFY(QTest::qWaitFor(
        [&] { return browser.execute(QStringLiteral("return !!window.isolationTerminal")).toBool(); }, 30000));
    // Typed at the prompt, as a member would: typed before it, the command would run before the
    // terminal's answer to the shell's cursor query, and the tty would echo that answer into the
    // command's output line.
    QVERIFY2(QTest::qWaitFor([&] { return browser.terminalAtPrompt(); }, 30000),
        qPrintable(browser.terminalLines().join(QLatin1Char('|'))));
    QVERIFY2(browser.type(QStringLiteral(".xterm-helper-textarea"), QStringLiteral("echo hello from $(cat /etc/hostname)\uE007")),
        qPrintable(browser.lastError()));
    QStringList lines;
    const bool shown = QTest::qWaitFor(
        [&] {
            lines = browser.terminalLines();
            return !lines.filter(QRegularExpression(QStringLiteral("^hello from \\S+$"))).isEmpty();
        },
        30000);
    QVERIFY2(shown, qPrintable(lines.join(QLatin1Char('|'))));
    // It ran in the sandbox: the host name printed is the sandbox container's.
    const QString printed = lines.filter(QRegularExpression(QStringLiteral("^hello from \\S+$"))).first().mid(11);
    QVERIFY2(containerOf(sessionOf(0, session)).startsWith(printed), qPrintable(printed));

    QCOMPARE(m_fx->cli(0, {QStringLiteral("finish"), session, QStringLiteral("--discard")}).exitCode, 0);
}

// A launch that clones a repository over authenticated HTTP (the credential a launch secret) into
// the worktree and runs an agent: the clone is in the sandbox and out of the workspace's changes,
// the agent's output reaches the LocalAPI, suspend stops it and resume starts it again, and the
// credential is in no file of the engine or the hub.
void tst_SessionLaunch::launchClonesAndRunsAnAgent()
{
    QTemporaryDir served;
    const QString src = served.path() + QStringLiteral("/src");
    QVERIFY(GitCli::run({QStringLiteral("init"), QStringLiteral("-q"), QStringLiteral("-b"), QStringLiteral("main"), src}).ok());
    QVERIFY(GitCli::writeFile(src + QStringLiteral("/README"), "the tool\n"));
    QVERIFY(GitCli::run({QStringLiteral("add"), QStringLiteral(".")}, src).ok());
    QVERIFY(GitCli::run({QStringLiteral("-c"), QStringLiteral("user.name=t"), QStringLiteral("-c"),
                            QStringLiteral("user.email=t@t"), QStringLiteral("commit"), QStringLiteral("-qm"),
                            QStringLiteral("tool")},
        src)
                .ok());
    QVERIFY(GitCli::run({QStringLiteral("clone"), QStringLiteral("-q"), QStringLiteral("--bare"), src,
                            served.path() + QStringLiteral("/served/tools.git")})
                .ok());
    const QByteArray token = "tok-" + QByteArray::number(QDateTime::currentMSecsSinceEpoch(), 36) + "-canary";
    QProcess server;
    server.setProgram(QStringLiteral(ISOLATION_PYTHON3));
    server.setArguments({QStringLiteral(ISOLATION_GIT_HTTP_SERVER), served.path() + QStringLiteral("/served")});
    server.start();
    QVERIFY(server.waitForStarted());
    server.write("git\n" + token + "\n"); // on stdin: in no command line
    server.closeWriteChannel();
    QTRY_VERIFY_WITH_TIMEOUT(server.canReadLine(), 10000);
    const QByteArray line = server.readLine().trimmed();
    QVERIFY2(line.startsWith("PORT "), line.constData());
    const QString url = QStringLiteral("http://127.0.0.1:%1/cgi-bin/git/tools.git").arg(QString::fromLatin1(line.mid(5)));

    QVERIFY(!m_fx->createWorkspace(QStringLiteral("agented")).isEmpty());
    qputenv("ISOLATION_TEST_GIT_TOKEN", token);
    const QJsonObject launched = hubLaunch(0, QStringLiteral("agented"),
        {QStringLiteral("--secret"), QStringLiteral("ISOLATION_TEST_GIT_TOKEN"), QStringLiteral("--repo"),
            QStringLiteral("tools=") + url, QStringLiteral("--repo-secret"), QStringLiteral("tools=ISOLATION_TEST_GIT_TOKEN"),
            QStringLiteral("--agent"), QStringLiteral("echo agent-up; exec sleep 600")});
    qunsetenv("ISOLATION_TEST_GIT_TOKEN");
    const QString id = launched.value(QStringLiteral("id")).toString();
    QVERIFY(!id.isEmpty());
    const QJsonArray repos = launched.value(QStringLiteral("sandbox")).toObject().value(QStringLiteral("repositories")).toArray();
    QCOMPARE(repos.size(), 1);
    QCOMPARE(repos.first().toObject().value(QStringLiteral("head")).toString().size(), 40);
    const QJsonObject session = sessionOf(0, id);
    QCOMPARE(inSandbox(session, QStringLiteral("cat /workspace/tools/README")).out, QByteArray("the tool\n"));
    // A nested repository: not a change of the workspace.
    const QJsonObject changes = m_fx->cli(0, {QStringLiteral("changes"), id, QStringLiteral("--json")}).json();
    QVERIFY2(changes.value(QStringLiteral("files")).toArray().isEmpty(), QJsonDocument(changes).toJson().constData());

    // The agent runs; its output is on the LocalAPI.
    const auto agent = [&] { return m_fx->cli(0, {QStringLiteral("agent"), id, QStringLiteral("--json")}).json(); };
    QTRY_VERIFY_WITH_TIMEOUT(agent().value(QStringLiteral("lines")).toArray().contains(QStringLiteral("out: agent-up")), 30000);
    QCOMPARE(agent().value(QStringLiteral("state")).toString(), QStringLiteral("running"));
    QVERIFY(m_fx->cli(0, {QStringLiteral("suspend"), id}).exitCode == 0);
    QTRY_COMPARE_WITH_TIMEOUT(agent().value(QStringLiteral("state")).toString(), QStringLiteral("stopped"), 30000);
    QVERIFY(m_fx->cli(0, {QStringLiteral("resume"), id}).exitCode == 0);
    QTRY_COMPARE_WITH_TIMEOUT(agent().value(QStringLiteral("runs")).toInt(), 2, 30000);
    QTRY_COMPARE_WITH_TIMEOUT(agent().value(QStringLiteral("state")).toString(), QStringLiteral("running"), 30000);

    for (const QString &where : {m_fx->home(0), m_fx->hub().dataDir()}) {
        const Run grep = runProgram(QStringLiteral("grep"), {QStringLiteral("-rl"), QString::fromLatin1(token), where});
        QVERIFY2(grep.exitCode == 1, grep.out.constData());
    }
    QCOMPARE(m_fx->cli(0, {QStringLiteral("finish"), id, QStringLiteral("--discard")}).exitCode, 0);
    server.terminate();
    server.waitForFinished(5000);
}

// A launch that clones over ssh from a real sshd on loopback: `isolation-hub launch` reads the
// private key file and seals it as a launch secret, the engine clones with it from memory and drops
// it before the sandbox starts (not in the sandbox's environment or secrets), and it is in no file
// of the engine or the hub. A launch without the server's host key is refused and makes nothing.
void tst_SessionLaunch::launchClonesOverSshWithoutGivingTheSandboxTheKey()
{
    QTemporaryDir dir;
    const QString root = QDir(dir.path()).canonicalPath();
    const auto keygen = [](const QStringList &args) {
        return runProgram(QStringLiteral("ssh-keygen"), QStringList {QStringLiteral("-q")} + args).exitCode == 0;
    };
    QVERIFY(keygen({QStringLiteral("-t"), QStringLiteral("ed25519"), QStringLiteral("-N"), QString(),
        QStringLiteral("-f"), root + QStringLiteral("/host")}));
    QVERIFY(keygen({QStringLiteral("-t"), QStringLiteral("ed25519"), QStringLiteral("-N"), QString(),
        QStringLiteral("-f"), root + QStringLiteral("/client")}));
    QVERIFY(QFile::copy(root + QStringLiteral("/client.pub"), root + QStringLiteral("/authorized_keys")));
    const QList<QByteArray> keyLines = GitCli::readFile(root + QStringLiteral("/client")).split('\n');
    QVERIFY(keyLines.size() > 5);
    const QByteArray canary = keyLines.at(3); // private: the first two lines carry the public key
    QVERIFY(canary.size() >= 40);

    const QString src = root + QStringLiteral("/src");
    QVERIFY(
        GitCli::run({QStringLiteral("init"), QStringLiteral("-q"), QStringLiteral("-b"), QStringLiteral("main"), src})
            .ok());
    QVERIFY(GitCli::writeFile(src + QStringLiteral("/README"), "over ssh\n"));
    QVERIFY(GitCli::run({QStringLiteral("add"), QStringLiteral(".")}, src).ok());
    QVERIFY(GitCli::run(
        {QStringLiteral("-c"), QStringLiteral("user.name=t"), QStringLiteral("-c"), QStringLiteral("user.email=t@t"),
            QStringLiteral("commit"), QStringLiteral("-qm"), QStringLiteral("tool")},
        src)
                .ok());
    QVERIFY(GitCli::run({QStringLiteral("clone"), QStringLiteral("-q"), QStringLiteral("--bare"), src,
                            root + QStringLiteral("/tools.git")})
                .ok());

    quint16 port = 0;
    {
        QTcpServer probe;
        QVERIFY(probe.listen(QHostAddress::LocalHost));
        port = probe.serverPort();
    }
    if (::geteuid() == 0)
        QVERIFY(QDir().mkpath(QStringLiteral("/run/sshd"))); // sshd started by root wants it
    QVERIFY(GitCli::writeFile(root + QStringLiteral("/sshd_config"),
        "HostKey " + QFile::encodeName(root) + "/host\nListenAddress 127.0.0.1\nAuthorizedKeysFile "
            + QFile::encodeName(root)
            + "/authorized_keys\nStrictModes no\nPermitRootLogin prohibit-password\nPasswordAuthentication no\n"
              "KbdInteractiveAuthentication no\nUsePAM no\nPidFile none\n"));
    QProcess sshd;
    sshd.start(QStringLiteral("/usr/sbin/sshd"),
        {QStringLiteral("-D"), QStringLiteral("-e"), QStringLiteral("-f"), root + QStringLiteral("/sshd_config"),
            QStringLiteral("-p"), QString::number(port)});
    QVERIFY(sshd.waitForStarted());
    QByteArray sshdLog;
    QTRY_VERIFY_WITH_TIMEOUT((sshdLog += sshd.readAllStandardError()).contains("Server listening"), 15000);
    const QList<QByteArray> hostKey = GitCli::readFile(root + QStringLiteral("/host.pub")).split(' ');
    QVERIFY(GitCli::writeFile(root + QStringLiteral("/known_hosts"),
        "[127.0.0.1]:" + QByteArray::number(port) + ' ' + hostKey.value(0) + ' ' + hostKey.value(1) + '\n'));
    const passwd *me = ::getpwuid(::geteuid());
    QVERIFY(me);
    const QString url = QStringLiteral("ssh://%1@127.0.0.1:%2%3/tools.git")
                            .arg(QString::fromLocal8Bit(me->pw_name))
                            .arg(port)
                            .arg(root);
    QVERIFY(!m_fx->createWorkspace(QStringLiteral("sshcloned")).isEmpty());

    // Without the server's host key: refused, nothing made.
    const int sessionsBefore = int(m_fx->cli(0, {QStringLiteral("sessions"), QStringLiteral("--json")})
                                       .json()
                                       .value(QStringLiteral("sessions"))
                                       .toArray()
                                       .size());
    QString out, err;
    const int refused = m_fx->hub().admin(
        {QStringLiteral("launch"), QStringLiteral("--server"), m_server[0], QStringLiteral("--workspace"),
            QStringLiteral("sshcloned"), QStringLiteral("--repo"), QStringLiteral("tools=") + url,
            QStringLiteral("--repo-ssh-key"), QStringLiteral("tools=") + root + QStringLiteral("/client")},
        &out, &err);
    QVERIFY(refused != 0);
    const QString said = out + err;
    QVERIFY2(
        said.contains(QStringLiteral("the known hosts have no key for [127.0.0.1]:%1").arg(port)), qPrintable(said));
    QCOMPARE(int(m_fx->cli(0, {QStringLiteral("sessions"), QStringLiteral("--json")})
                     .json()
                     .value(QStringLiteral("sessions"))
                     .toArray()
                     .size()),
        sessionsBefore);

    const QJsonObject launched = hubLaunch(0, QStringLiteral("sshcloned"),
        {QStringLiteral("--repo"), QStringLiteral("tools=") + url, QStringLiteral("--repo-ssh-key"),
            QStringLiteral("tools=") + root + QStringLiteral("/client"), QStringLiteral("--repo-known-hosts"),
            QStringLiteral("tools=") + root + QStringLiteral("/known_hosts")});
    QVERIFY(QFile::remove(root + QStringLiteral("/client"))); // from here on, any copy is a leak
    const QString id = launched.value(QStringLiteral("id")).toString();
    QVERIFY2(!id.isEmpty(), sshdLog.constData());
    QTRY_VERIFY((sshdLog += sshd.readAllStandardError()).contains("Accepted publickey for "));
    const QJsonObject session = sessionOf(0, id);
    QCOMPARE(inSandbox(session, QStringLiteral("cat /workspace/tools/README")).out, QByteArray("over ssh\n"));
    // The sandbox has neither the key nor a secret named for it.
    const Run inside = inSandbox(session,
        QStringLiteral(
            "env; ls -a /dev/shm/isolation-secrets 2>&1; cat /dev/shm/isolation-secrets/* 2>/dev/null; true"));
    QVERIFY2(
        !inside.out.contains(canary) && !inside.out.contains("REPO_SSH_KEY") && !inside.out.contains("PRIVATE KEY"),
        inside.out.constData());
    for (const QString &where : {m_fx->home(0), m_fx->hub().dataDir(), root}) {
        const Run grep
            = runProgram(QStringLiteral("grep"), {QStringLiteral("-rlF"), QString::fromLatin1(canary), where});
        QVERIFY2(grep.exitCode == 1, grep.out.constData());
    }
    QCOMPARE(m_fx->cli(0, {QStringLiteral("finish"), id, QStringLiteral("--discard")}).exitCode, 0);
    sshd.terminate();
    sshd.waitForFinished(5000);
}

// Suspended on one computer, resumed on another: the session continues there under its id from
// what the suspend saved, in a new sandbox; the first computer's copy is finished.
void tst_SessionLaunch::resumeOnAnotherServer()
{
    QVERIFY(!m_fx->createWorkspace(QStringLiteral("moving")).isEmpty());
    const QString id = hubLaunch(1, QStringLiteral("moving")).value(QStringLiteral("id")).toString();
    QVERIFY(!id.isEmpty());
    QCOMPARE(inSandbox(sessionOf(1, id), QStringLiteral("echo travelled > /workspace/travelled.txt")).exitCode, 0);
    QCOMPARE(m_fx->cli(1, {QStringLiteral("suspend"), id}).exitCode, 0);

    QString out, err;
    const int rc = m_fx->hub().admin({QStringLiteral("resume"), QStringLiteral("--server"), m_server[0],
                                         QStringLiteral("--session"), id, QStringLiteral("--workspace"),
                                         QStringLiteral("moving"), QStringLiteral("--from"), m_server[1],
                                         QStringLiteral("--json")},
        &out, &err);
    QVERIFY2(rc == 0, qPrintable(err + m_fx->engineLog(0).right(3000)));
    const QJsonObject resumed = QJsonDocument::fromJson(out.toUtf8()).object();
    QCOMPARE(resumed.value(QStringLiteral("id")).toString(), id);
    QCOMPARE(resumed.value(QStringLiteral("retired")).toObject().value(QStringLiteral("finished")).toString(), id);
    const QJsonObject here = sessionOf(0, id);
    QCOMPARE(here.value(QStringLiteral("sandbox")).toObject().value(QStringLiteral("state")).toString(),
        QStringLiteral("running"));
    QCOMPARE(inSandbox(here, QStringLiteral("cat /workspace/travelled.txt")).out, QByteArray("travelled\n"));
    QVERIFY(sessionOf(1, id).isEmpty());

    // The work goes on from here: a save publishes on the same session branch.
    QCOMPARE(inSandbox(here, QStringLiteral("echo onward > /workspace/onward.txt")).exitCode, 0);
    const CliRun saved = m_fx->cli(0, {QStringLiteral("save"), id});
    QVERIFY2(saved.exitCode == 0, qPrintable(saved.describe()));
    QCOMPARE(m_fx->cli(0, {QStringLiteral("finish"), id}).exitCode, 0);
}


// The agent asks for a save itself ($ISOLATION_CONTROL/save, the session's control directory):
// what it wrote is published and the script's answer and status reach it. Then the engine
// restarts: the agent's run, still going in the sandbox, is taken over (not started twice); when
// it dies it is started again, with its launch secret read from the sandbox's tmpfs (the engine
// no longer holds the value).
void tst_SessionLaunch::anAgentSavesAndOutlivesAnEngineRestart()
{
    QVERIFY(!m_fx->createWorkspace(QStringLiteral("selfsaving")).isEmpty());
    const QByteArray key = "agentkey-" + QByteArray::number(QDateTime::currentMSecsSinceEpoch(), 36);
    qputenv("ISOLATION_TEST_AGENT_KEY", key);
    const QJsonObject launched = hubLaunch(0, QStringLiteral("selfsaving"),
        {QStringLiteral("--secret"), QStringLiteral("ISOLATION_TEST_AGENT_KEY"), QStringLiteral("--agent"),
            QStringLiteral("echo \"key-length ${#ISOLATION_TEST_AGENT_KEY}\"; "
                           "if [ ! -f /workspace/agent.txt ]; then echo made-by-the-agent > /workspace/agent.txt; "
                           "\"$ISOLATION_CONTROL/save\" \"the agent saved\"; echo \"save-status $?\"; "
                           "\"$ISOLATION_CONTROL/sync\"; echo \"sync-status $?\"; fi; "
                           "exec sleep 600")});
    qunsetenv("ISOLATION_TEST_AGENT_KEY");
    const QString id = launched.value(QStringLiteral("id")).toString();
    QVERIFY(!id.isEmpty());
    const auto agent = [&] { return m_fx->cli(0, {QStringLiteral("agent"), id, QStringLiteral("--json")}).json(); };
    const auto lines = [&] { return agent().value(QStringLiteral("lines")).toVariant().toStringList(); };
    QTRY_VERIFY_WITH_TIMEOUT(lines().contains(QStringLiteral("out: save-status 0")), 60000);
    QTRY_VERIFY_WITH_TIMEOUT(lines().contains(QStringLiteral("out: sync-status 0")), 60000);
    const QStringList said = lines();
    QVERIFY2(std::any_of(said.begin(), said.end(), [](const QString &l) { return l.startsWith(QLatin1String("out: synced ")); }),
        qPrintable(said.join(u'\n')));
    // The cloud reads the same agent through the tunnel (session.agent, driven by `isolation-hub call`).
    QString callOut, callErr;
    const int callRc = m_fx->hub().admin({QStringLiteral("call"), m_server[0], QStringLiteral("session.agent"), QStringLiteral("--params"),
                                             QStringLiteral("{\"session\":\"%1\"}").arg(id)},
        &callOut, &callErr);
    QVERIFY2(callRc == 0, qPrintable(callOut + callErr));
    const QJsonObject viaCloud = QJsonDocument::fromJson(callOut.toUtf8()).object();
    QCOMPARE(viaCloud.value(QStringLiteral("session")).toString(), id);
    QCOMPARE(viaCloud.value(QStringLiteral("state")).toString(), QStringLiteral("running"));
    QCOMPARE(viaCloud.value(QStringLiteral("runs")).toInt(), 1);
    QVERIFY2(viaCloud.value(QStringLiteral("lines")).toVariant().toStringList().contains(QStringLiteral("out: save-status 0")),
        qPrintable(callOut));
    QVERIFY2(!callOut.contains(QString::fromLatin1(key)), qPrintable(callOut)); // the launch secret stays out
    // The activity log: launched by the cloud, saved and synced by the agent (nothing recorded by the test).
    const auto logged = [&](const QString &kind, const QString &door) {
        const QJsonArray all = m_fx->cli(0, {QStringLiteral("activity"), QStringLiteral("--json"), QStringLiteral("--kind"), kind})
                                   .json()
                                   .value(QStringLiteral("activity"))
                                   .toArray();
        return std::any_of(all.begin(), all.end(), [&](const QJsonValue &v) {
            const QJsonObject d = v.toObject().value(QStringLiteral("details")).toObject();
            return d.value(QStringLiteral("session")).toString() == id && d.value(QStringLiteral("door")).toString() == door;
        });
    };
    QVERIFY(logged(QStringLiteral("session"), QStringLiteral("cloud")));
    QVERIFY(logged(QStringLiteral("save"), QStringLiteral("agent")));
    QVERIFY(logged(QStringLiteral("sync"), QStringLiteral("agent")));
    QVERIFY2(said.contains(QStringLiteral("out: key-length %1").arg(key.size())), qPrintable(said.join(u'\n')));
    QVERIFY2(std::any_of(said.begin(), said.end(), [](const QString &l) { return l.startsWith(QLatin1String("out: saved ")); }),
        qPrintable(said.join(u'\n')));
    // Published: nothing left to save, main has it, and the save carries the agent's message.
    const QJsonObject changes = m_fx->cli(0, {QStringLiteral("changes"), id, QStringLiteral("--json")}).json();
    QVERIFY2(changes.value(QStringLiteral("files")).toArray().isEmpty() && changes.value(QStringLiteral("ahead")).toInt() == 0,
        QJsonDocument(changes).toJson().constData());
    const QJsonObject lastSave = sessionOf(0, id).value(QStringLiteral("lastSave")).toObject();
    QCOMPARE(lastSave.value(QStringLiteral("outcome")).toString(), QStringLiteral("published"));
    QVERIFY(m_fx->engineLog(0).contains(QStringLiteral("asked from its sandbox for a save")));

    // The engine restarts; the agent's run goes on in the sandbox and is taken over.
    const QString container = containerOf(sessionOf(0, id));
    QCOMPARE(m_fx->stopEngine(0), 0);
    QVERIFY(m_fx->startEngine(0, m_env));
    QTRY_COMPARE_WITH_TIMEOUT(agent().value(QStringLiteral("state")).toString(), QStringLiteral("running"), 120000);
    QCOMPARE(agent().value(QStringLiteral("runs")).toInt(), 1);
    QVERIFY2(agent().value(QStringLiteral("reason")).toString().contains(QLatin1String("adopted")),
        QJsonDocument(agent()).toJson().constData());
    QCOMPARE(containerOf(sessionOf(0, id)), container);
    QCOMPARE(docker({QStringLiteral("exec"), container, QStringLiteral("sh"), QStringLiteral("-c"),
                 QStringLiteral("ps -o args | grep -c '^sleep 600$'")})
                 .out.trimmed(),
        QByteArray("1")); // one agent, not two
    // It dies: started again, its secret from the sandbox's tmpfs.
    const Run killed = docker({QStringLiteral("exec"), container, QStringLiteral("sh"), QStringLiteral("-c"),
        QStringLiteral("kill $(pidof sleep)")});
    QVERIFY2(killed.exitCode == 0, killed.err.constData());
    QTRY_COMPARE_WITH_TIMEOUT(agent().value(QStringLiteral("runs")).toInt(), 2, 60000);
    QTRY_VERIFY_WITH_TIMEOUT(lines().contains(QStringLiteral("out: key-length %1").arg(key.size())), 30000);
    // (The line above may be the first run's: the second is running once the state says so.)
    QTRY_COMPARE_WITH_TIMEOUT(agent().value(QStringLiteral("state")).toString(), QStringLiteral("running"), 30000);
    for (const QString &where : {m_fx->home(0), m_fx->hub().dataDir()}) {
        const Run grep = runProgram(QStringLiteral("grep"), {QStringLiteral("-rl"), QString::fromLatin1(key), where});
        QVERIFY2(grep.exitCode == 1, grep.out.constData());
    }
    QCOMPARE(m_fx->cli(0, {QStringLiteral("finish"), id, QStringLiteral("--discard")}).exitCode, 0);
}

QTEST_GUILESS_MAIN(tst_SessionLaunch)
#include "tst_sessionlaunch.moc"
