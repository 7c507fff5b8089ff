// The agent conversation view through the doorman's local front door, against real peers: an
// AgentSupervisor running its agent on the stand-in execd (a local process that runs commands on
// this computer), the doorman answering /_view/agent/* from that supervisor. The transcript comes
// as it grows (a long poll that wakes at the next entry), input reaches the agent's standard input
// without a shell reading it, and every way around the view's rules is refused.
#include "doormanfixture.h"

#include "core/timer.h"
#include "runtime/execdclient.h"
#include "sandbox/agentsupervisor.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QNetworkAccessManager>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

using namespace isolation;
using namespace isolation::test;

namespace {

// The engine's SessionSandboxes, for one session and one supervisor.
class OneAgent final : public AgentViewSource
{
public:
    Result<AgentViewState> agentView(const QString &sessionId, quint64 after) const override
    {
        if (sessionId != session || !agent)
            return Error::notFound(QStringLiteral("Session %1 runs no agent here").arg(sessionId));
        AgentViewState v = agent->view(after);
        v.command = command;
        return v;
    }
    QMetaObject::Connection watchAgent(
        const QString &sessionId, QObject *context, std::function<void()> changed) override
    {
        if (sessionId != session || !agent)
            return {};
        return QObject::connect(
            agent, &AgentSupervisor::entryAdded, context, [changed = std::move(changed)] { changed(); });
    }
    void sendAgentInput(const QString &sessionId, const QString &text, std::function<void(Result<void>)> done) override
    {
        if (sessionId != session || !agent) {
            done(Error::notFound(QStringLiteral("no agent")));
            return;
        }
        agent->sendInput(text, [done = std::move(done)](Result<void, SandboxError> r) {
            done(r ? Result<void>() : Result<void>(Error::invalidInput(r.error().message)));
        });
    }

    QString session = QStringLiteral("s1");
    QString command;
    AgentSupervisor *agent = nullptr;
};

QJsonObject json(const RawAnswer &a)
{
    return QJsonDocument::fromJson(a.body).object();
}

QStringList texts(const QJsonObject &events, const QString &kind)
{
    QStringList out;
    for (const QJsonValue e : events.value(QStringLiteral("entries")).toArray()) {
        if (e.toObject().value(QStringLiteral("kind")).toString() == kind)
            out << e.toObject().value(QStringLiteral("text")).toString();
    }
    return out;
}

} // namespace

class tst_AgentView final : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void cleanupTestCase();
    void pageAndScope();
    void transcriptAndInput();
    void longPollWakesAtTheNextEntry();
    void refusals();
    void inputToAnAgentThatEndedIsRefused();

private:
    RawAnswer call(const QByteArray &method, const QByteArray &target, const QByteArray &headers = {},
        const QByteArray &body = {}, const QString &view = {}, const QByteArray &cookie = {});
    RawAnswer events(quint64 after, int timeoutMs = 10000);
    RawAnswer send(const QString &text);
    quint64 waitFor(const QString &kind, const QString &text, quint64 after = 0);

    DoormanFixture m_f;
    QTemporaryDir m_tmp;
    QNetworkAccessManager m_network;
    std::unique_ptr<ExecdClient> m_execd;
    ManualTimer m_timer;
    std::unique_ptr<AgentSupervisor> m_agent;
    OneAgent m_source;
    QString m_view = QStringLiteral("v0000000000000000000000a1");
    QByteArray m_cookie;
};

void tst_AgentView::initTestCase()
{
    QVERIFY(m_tmp.isValid());
    QVERIFY(m_f.start());
    m_f.doorman->setAgents(&m_source);
    const ViewTarget &t = m_f.targets.target;
    m_execd = std::make_unique<ExecdClient>(
        &m_network, QUrl(QStringLiteral("http://%1:%2").arg(t.host).arg(t.port)), t.accessToken);
    // Each line read is answered; the marker file would appear if a shell ever read the input.
    AgentSpec spec(QStringLiteral("echo ready; echo warming up >&2; "
                                  "while IFS= read -r l; do echo \"agent heard: $l\"; done"));
    spec.cwd = m_tmp.path();
    spec.inputFifo = m_tmp.filePath(QStringLiteral("agent/input"));
    m_source.command = spec.command;
    m_agent = std::make_unique<AgentSupervisor>(m_execd.get(), spec, nullptr, m_f.clock, m_timer);
    m_source.agent = m_agent.get();
    m_agent->start();
    QTRY_COMPARE_WITH_TIMEOUT(m_agent->state(), AgentState::Running, 10000);
    QTRY_VERIFY_WITH_TIMEOUT(m_agent->recentLines().contains(QStringLiteral("out: ready")), 10000);
    m_cookie = m_f.open(m_view, ViewKind::Agent, 0);
    QVERIFY(m_cookie.startsWith("__Host-isolation_view="));
}

void tst_AgentView::cleanupTestCase()
{
    if (m_agent && m_agent->state() == AgentState::Running) {
        QSignalSpy stopped(m_agent.get(), &AgentSupervisor::stopped);
        m_agent->stop();
        QVERIFY(stopped.wait(10000));
    }
}

RawAnswer tst_AgentView::call(const QByteArray &method, const QByteArray &target, const QByteArray &headers,
    const QByteArray &body, const QString &view, const QByteArray &cookie)
{
    QByteArray request = method + ' ' + target + " HTTP/1.1\r\nHost: " + m_f.host(view.isEmpty() ? m_view : view)
        + "\r\nCookie: " + (cookie.isEmpty() ? m_cookie : cookie) + "\r\n" + headers;
    if (!body.isEmpty() || method == "POST")
        request += "Content-Length: " + QByteArray::number(body.size()) + "\r\n";
    // One answer, without waiting to see whether the connection closes (exchange() does).
    QTcpSocket socket;
    if (!connectSocket(socket, m_f.doorPort))
        return {};
    socket.write(request + "\r\n" + body);
    return readAnswer(socket);
}

RawAnswer tst_AgentView::events(quint64 after, int timeoutMs)
{
    QTcpSocket socket;
    if (!connectSocket(socket, m_f.doorPort))
        return {};
    socket.write("GET /_view/agent/events?after=" + QByteArray::number(after) + " HTTP/1.1\r\nHost: " + m_f.host(m_view)
        + "\r\nCookie: " + m_cookie + "\r\nSec-Fetch-Site: same-origin\r\n\r\n");
    return readAnswer(socket, timeoutMs);
}

RawAnswer tst_AgentView::send(const QString &text)
{
    return call("POST", "/_view/agent/input", "Sec-Fetch-Site: same-origin\r\nContent-Type: application/json\r\n",
        QJsonDocument(QJsonObject {{QStringLiteral("text"), text}}).toJson(QJsonDocument::Compact));
}

// Polls like the page until an entry of `kind` with `text` came; returns the last seq seen (0: never).
quint64 tst_AgentView::waitFor(const QString &kind, const QString &text, quint64 after)
{
    QElapsedTimer t;
    t.start();
    while (t.elapsed() < 15000) {
        const RawAnswer a = events(after, 25000);
        if (a.status != 200)
            return 0;
        const QJsonObject o = json(a);
        after = quint64(o.value(QStringLiteral("last")).toInteger());
        if (texts(o, kind).contains(text))
            return after;
    }
    return 0;
}

void tst_AgentView::pageAndScope()
{
    const RawAnswer page = call("GET", "/");
    QCOMPARE(page.status, 200);
    QVERIFY(page.body.contains("/_view/assets/agent.js"));
    QVERIFY(page.header("content-security-policy").contains("default-src 'self'"));
    QCOMPARE(call("GET", "/_view/assets/agent.js").status, 200);
    // The agent view is not a files view, nor a way into the sandbox's ports or its shell.
    QCOMPARE(call("GET", "/_view/files/list?path=/workspace").status, 404);
    QCOMPARE(call("POST", "/_view/terminal/run", "Sec-Fetch-Site: same-origin\r\nContent-Type: application/json\r\n",
                 "{\"command\":\"id\"}")
                 .status,
        404);
    QCOMPARE(call("GET", "/_view/assets/terminal.js").status, 404);
    // ... and no other kind of view reads the transcript or writes to the agent.
    const QString editor = QStringLiteral("v0000000000000000000000a2");
    const QByteArray editorCookie = m_f.open(editor, ViewKind::Editor, 0);
    QVERIFY(!editorCookie.isEmpty());
    QCOMPARE(
        call("GET", "/_view/agent/events?after=0", "Sec-Fetch-Site: same-origin\r\n", {}, editor, editorCookie).status,
        404);
    QCOMPARE(call("POST", "/_view/agent/input", "Sec-Fetch-Site: same-origin\r\nContent-Type: application/json\r\n",
                 "{\"text\":\"x\"}", editor, editorCookie)
                 .status,
        404);
    // Without the view's cookie: nothing.
    QCOMPARE(exchange(m_f.doorPort,
                 "GET /_view/agent/events?after=0 HTTP/1.1\r\nHost: " + m_f.host(m_view)
                     + "\r\nSec-Fetch-Site: same-origin\r\n\r\n")
                 .status,
        401);
}

void tst_AgentView::transcriptAndInput()
{
    const RawAnswer first = events(0);
    QCOMPARE(first.status, 200);
    QCOMPARE(first.header("cache-control"), QByteArray("no-store"));
    const QJsonObject o = json(first);
    QCOMPARE(o.value(QStringLiteral("state")).toString(), QStringLiteral("running"));
    QCOMPARE(o.value(QStringLiteral("runs")).toInt(), 1);
    QCOMPARE(o.value(QStringLiteral("command")).toString(), m_source.command);
    QVERIFY(texts(o, QStringLiteral("out")).contains(QStringLiteral("ready")));
    QVERIFY(texts(o, QStringLiteral("err")).contains(QStringLiteral("warming up")));
    QVERIFY(texts(o, QStringLiteral("state")).contains(QStringLiteral("running")));
    // Seqs are consecutive from 1, and `last` is the newest.
    const QJsonArray entries = o.value(QStringLiteral("entries")).toArray();
    for (qsizetype i = 0; i < entries.size(); ++i)
        QCOMPARE(entries.at(i).toObject().value(QStringLiteral("seq")).toInteger(), i + 1);
    const quint64 last = quint64(o.value(QStringLiteral("last")).toInteger());
    QCOMPARE(last, quint64(entries.size()));

    // What a shell would run, sent as text: the agent reads it as it is, and nothing runs it.
    const QString marker = m_tmp.filePath(QStringLiteral("ran"));
    const QString text = QStringLiteral("hello \"there\" $(touch %1) `touch %1`; touch %1 'ünï'").arg(marker);
    const RawAnswer sent = send(text);
    QCOMPARE(sent.status, 200);
    QVERIFY(waitFor(QStringLiteral("out"), QStringLiteral("agent heard: ") + text, last) > last);
    QVERIFY(!QFile::exists(marker));
    // The page sees what was sent, in order before the answer.
    const QJsonObject after = json(events(last));
    const QStringList in = texts(after, QStringLiteral("in"));
    QCOMPARE(in, QStringList {text});
    QVERIFY(!m_agent->recentLines().contains(QStringLiteral("out: ") + text)); // input is not output
}

void tst_AgentView::longPollWakesAtTheNextEntry()
{
    const quint64 last = m_agent->lastSeq();
    QTcpSocket socket;
    QVERIFY(connectSocket(socket, m_f.doorPort));
    socket.write("GET /_view/agent/events?after=" + QByteArray::number(last) + " HTTP/1.1\r\nHost: " + m_f.host(m_view)
        + "\r\nCookie: " + m_cookie + "\r\nSec-Fetch-Site: same-origin\r\n\r\n");
    // Nothing new: no answer yet.
    QTest::qWait(1500);
    QCOMPARE(socket.bytesAvailable(), 0);
    QElapsedTimer t;
    t.start();
    m_agent->sendInput(QStringLiteral("wake up"), [](Result<void, SandboxError>) {});
    const RawAnswer woken = readAnswer(socket, 10000);
    QCOMPARE(woken.status, 200);
    QVERIFY2(t.elapsed() < 5000, qPrintable(QString::number(t.elapsed())));
    const QJsonObject o = json(woken);
    QVERIFY(!o.value(QStringLiteral("entries")).toArray().isEmpty());
    QVERIFY(o.value(QStringLiteral("entries")).toArray().first().toObject().value(QStringLiteral("seq")).toInteger()
        == qint64(last + 1));
    QTRY_VERIFY_WITH_TIMEOUT(m_agent->recentLines().contains(QStringLiteral("out: agent heard: wake up")), 10000);
}

void tst_AgentView::refusals()
{
    const QByteArray json = "Content-Type: application/json\r\n";
    const quint64 before = m_agent->lastSeq();
    // Another site's page (no Sec-Fetch-Site: same-origin) can neither read nor write.
    QCOMPARE(call("GET", "/_view/agent/events?after=0").status, 403);
    QCOMPARE(call("GET", "/_view/agent/events?after=0", "Sec-Fetch-Site: cross-site\r\n").status, 403);
    QCOMPARE(call("POST", "/_view/agent/input", json, "{\"text\":\"x\"}").status, 403);
    QCOMPARE(
        call("POST", "/_view/agent/input", "Sec-Fetch-Site: same-site\r\n" + json, "{\"text\":\"x\"}").status, 403);
    // A form's body types are refused.
    QCOMPARE(call("POST", "/_view/agent/input", "Sec-Fetch-Site: same-origin\r\nContent-Type: text/plain\r\n",
                 "{\"text\":\"x\"}")
                 .status,
        415);
    const QByteArray own = "Sec-Fetch-Site: same-origin\r\n" + json;
    QCOMPARE(call("GET", "/_view/agent/input", "Sec-Fetch-Site: same-origin\r\n").status, 405);
    QCOMPARE(call("POST", "/_view/agent/events", own, "{}").status, 405);
    QCOMPARE(call("GET", "/_view/agent/events?after=abc", "Sec-Fetch-Site: same-origin\r\n").status, 400);
    QCOMPARE(call("GET", "/_view/agent/nothing", "Sec-Fetch-Site: same-origin\r\n").status, 404);
    for (const QByteArray &bad :
        {QByteArray("not json"), QByteArray("{\"text\": 5}"), QByteArray("[\"x\"]"), QByteArray("{}")})
        QCOMPARE(call("POST", "/_view/agent/input", own, bad).status, 400);
    QCOMPARE(call("POST", "/_view/agent/input", own, "{\"text\":\"" + QByteArray(70 * 1024, 'a') + "\"}").status, 413);
    // The supervisor's own limits: a NUL, more than it takes.
    QCOMPARE(call("POST", "/_view/agent/input", own, "{\"text\":\"a\\u0000b\"}").status, 409);
    QCOMPARE(call("POST", "/_view/agent/input", own, "{\"text\":\"" + QByteArray(20 * 1024, 'a') + "\"}").status, 409);
    // None of it reached the agent.
    QTest::qWait(300);
    for (const AgentEntry &e : m_agent->entriesAfter(before))
        qWarning() << "reached the agent:" << int(e.kind) << e.text.left(80);
    QCOMPARE(m_agent->lastSeq(), before);
}

void tst_AgentView::inputToAnAgentThatEndedIsRefused()
{
    QSignalSpy stopped(m_agent.get(), &AgentSupervisor::stopped);
    m_agent->stop();
    QVERIFY(stopped.wait(10000));
    const RawAnswer a = send(QStringLiteral("anyone?"));
    QCOMPARE(a.status, 409);
    QVERIFY(a.body.contains("not running"));
    const QJsonObject o = json(events(0));
    QCOMPARE(o.value(QStringLiteral("state")).toString(), QStringLiteral("stopped"));
    QVERIFY(texts(o, QStringLiteral("state")).last().startsWith(QStringLiteral("stopped")));
}

QTEST_GUILESS_MAIN(tst_AgentView)
#include "tst_agentview.moc"
