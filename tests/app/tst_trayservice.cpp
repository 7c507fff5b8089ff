// The tray and the engine as two processes (issue 21), against a real `isolation-server up`, the
// real isolation-tray binary (offscreen) and the real hub: a tray attaches to the running engine
// and shows what the CLI shows; quitting it leaves the computer online and reachable through the
// tunnel; with none running the tray starts one, which outlives it; a kill -9 of the engine is
// shown within 2 s and Start brings it back; Disconnect / Connect and Stop the engine act on the
// engine process. The pairing goes through the CLI and the hub's approve, as a member would.
#include "engineprocess.h"
#include "enginemodel.h"
#include "hubprocess.h"
#include "trayapplication.h"

#include "localapi/apirecords.h"

#include <QAction>
#include <QApplication>
#include <QDeadlineTimer>
#include <QDialog>
#include <QElapsedTimer>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QMenu>
#include <QMessageBox>
#include <QProcess>
#include <QPushButton>
#include <QRegularExpression>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

#include <csignal>
#include <unistd.h>

using namespace isolation;
using namespace isolation::test;

namespace {

const QStringList kEngineArgs {QStringLiteral("up"), QStringLiteral("--credential-store"), QStringLiteral("file")};

bool alive(qint64 pid)
{
    return pid > 0 && ::kill(pid_t(pid), 0) == 0;
}

// Waits until `pid` is gone (a detached engine is not our child: no exit code to wait for).
bool waitGone(qint64 pid, int timeoutMs)
{
    QDeadlineTimer deadline(timeoutMs);
    while (alive(pid) && !deadline.hasExpired())
        QTest::qWait(20);
    return !alive(pid);
}

} // namespace

class tst_TrayService final : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void cleanupTestCase();
    void attachesToTheRunningEngine();
    void quittingTheTrayLeavesTheServerOnline();
    void startsAnEngineWhenNoneRuns();
    void killedEngineIsShownAndStartedAgain();
    void disconnectAndConnect();
    void stopTheEngine();

private:
    // The tray in this process, on the engine of m_home (it starts the build's engine with the
    // file credential store if it has to start one).
    struct Tray
    {
        std::unique_ptr<EngineModel> model;
        std::unique_ptr<TrayApplication> app;
        QAction *action(const char *name) const { return app->menu()->findChild<QAction *>(QLatin1String(name)); }
        QString stateLine() const { return action("stateLine")->text(); }
    };
    std::unique_ptr<Tray> openTray();
    // The real isolation-tray, offscreen, on m_home.
    void startTrayBinary(QProcess &tray);
    static bool waitForLine(const QString &file, const QString &line, int timeoutMs);
    int cli(const QStringList &args, QString *out = nullptr) const;
    QJsonObject status() const;
    QList<api::Session> cliSessions() const;
    QJsonObject hubServer() const; // this server in `isolation-hub servers --json`
    bool hubOnline() const { return hubServer().value(QStringLiteral("online")).toBool(); }
    void restartEngineProcess();

    QTemporaryDir m_home;
    QString m_trayLog;
    std::unique_ptr<HubProcess> m_hub;
    std::unique_ptr<EngineProcess> m_engine;
    QProcessEnvironment m_env; // ISOLATION_HOME, the hub: for the CLI and the tray binary
    QString m_serverId;
    QStringList m_sessionIds;
    qint64 m_detached = 0; // an engine a tray started (not our child): killed at the end
};

void tst_TrayService::initTestCase()
{
    QVERIFY(m_home.isValid());
    m_trayLog = m_home.path() + QStringLiteral("/state/tray.log");
    m_hub = std::make_unique<HubProcess>();
    // Heartbeats every second: "offline" is three missed ones, so three seconds.
    QVERIFY(m_hub->start({},
        {QStringLiteral("--poll-interval"), QStringLiteral("1"), QStringLiteral("--heartbeat-interval"),
            QStringLiteral("1")}));
    const QString hubUrl = m_hub->appUrl().toString();
    // This process's tray (Paths::resolve()) and every engine it starts use the same home and hub.
    qputenv("ISOLATION_HOME", m_home.path().toUtf8());
    qputenv("ISOLATION_HUB_URL", hubUrl.toUtf8());
    qputenv("ISOLATION_RUNTIME", "off");
    m_env = QProcessEnvironment::systemEnvironment();

    m_engine = std::make_unique<EngineProcess>(m_home.path());
    m_engine->setHub(hubUrl);
    QVERIFY(m_engine->start());

    // Pair through the CLI and the hub's approve; the credentials go to the file store.
    QProcess pair;
    pair.setProcessEnvironment(m_env);
    pair.start(serverBinary(), {QStringLiteral("pair"), QStringLiteral("--no-qr"), QStringLiteral("--name"),
                                   QStringLiteral("trayservice")});
    static const QRegularExpression codeFormat(
        QStringLiteral("\\b([BCDFGHJKLMNPQRSTVWXZ]{4}-[BCDFGHJKLMNPQRSTVWXZ]{4})\\b"));
    QString code;
    QByteArray printed;
    QDeadlineTimer deadline(30000);
    while (code.isEmpty() && !deadline.hasExpired() && pair.state() != QProcess::NotRunning) {
        pair.waitForReadyRead(100);
        printed += pair.readAllStandardOutput();
        code = codeFormat.match(QString::fromUtf8(printed)).captured(1);
    }
    QVERIFY2(!code.isEmpty(), printed.constData());
    QCOMPARE(m_hub->admin({QStringLiteral("approve"), code}), 0);
    QVERIFY(pair.waitForFinished(30000));
    QCOMPARE(pair.exitCode(), 0);
    QTRY_COMPARE_WITH_TIMEOUT(status().value(QStringLiteral("state")).toString(), QStringLiteral("online"), 20000);
    m_serverId = status().value(QStringLiteral("serverId")).toString();
    QVERIFY(!m_serverId.isEmpty());
    QTRY_VERIFY_WITH_TIMEOUT(hubOnline(), 10000);

    // Two sessions of a workspace, made through the CLI: what the tray must show.
    QCOMPARE(m_hub->admin({QStringLiteral("workspace"), QStringLiteral("create"), QStringLiteral("tray-service")}), 0);
    for (int i = 0; i < 2; ++i) {
        QString out;
        QCOMPARE(cli({QStringLiteral("session"), QStringLiteral("new"), QStringLiteral("--workspace"),
                     QStringLiteral("tray-service"), QStringLiteral("--json")},
                     &out),
            0);
        m_sessionIds << QJsonDocument::fromJson(out.toUtf8()).object().value(QStringLiteral("id")).toString();
    }
    QCOMPARE(cliSessions().size(), 2);
}

void tst_TrayService::cleanupTestCase()
{
    if (alive(m_detached))
        ::kill(pid_t(m_detached), SIGKILL);
    // Whatever engine still answers on this home and is not ours (a tray started it when a case
    // failed half-way) goes too.
    const qint64 answering = status().value(QStringLiteral("pid")).toInteger();
    if (answering > 0 && answering != m_engine->pid())
        ::kill(pid_t(answering), SIGKILL);
    m_engine.reset();
    m_hub.reset();
}

std::unique_ptr<tst_TrayService::Tray> tst_TrayService::openTray()
{
    auto tray = std::make_unique<Tray>();
    auto paths = Paths::resolve();
    if (!paths)
        return nullptr;
    tray->model = std::make_unique<EngineModel>(paths.value());
    tray->model->connection().setProgram(serverBinary(), kEngineArgs);
    tray->app = std::make_unique<TrayApplication>(*tray->model);
    tray->app->show();
    tray->model->connection().attach();
    return tray;
}

void tst_TrayService::startTrayBinary(QProcess &tray)
{
    QProcessEnvironment env = m_env;
    env.insert(QStringLiteral("QT_QPA_PLATFORM"), QStringLiteral("offscreen"));
    env.insert(QStringLiteral("ISOLATION_ENGINE_ARGS"), kEngineArgs.join(u' '));
    tray.setProcessEnvironment(env);
    tray.setProcessChannelMode(QProcess::ForwardedChannels);
    tray.start(trayBinary(), {});
}

bool tst_TrayService::waitForLine(const QString &file, const QString &line, int timeoutMs)
{
    QDeadlineTimer deadline(timeoutMs);
    while (!deadline.hasExpired()) {
        QFile f(file);
        if (f.open(QIODevice::ReadOnly) && QString::fromUtf8(f.readAll()).contains(line))
            return true;
        QTest::qWait(50);
    }
    return false;
}

int tst_TrayService::cli(const QStringList &args, QString *out) const
{
    QProcess p;
    p.setProcessEnvironment(m_env);
    p.start(serverBinary(), args);
    // The event loop turns meanwhile: the tray in this process keeps following its engine.
    QDeadlineTimer deadline(60000);
    while (p.state() != QProcess::NotRunning && !deadline.hasExpired())
        QTest::qWait(10);
    if (p.state() != QProcess::NotRunning) {
        p.kill();
        p.waitForFinished(2000);
        return -1;
    }
    if (out)
        *out = QString::fromUtf8(p.readAllStandardOutput());
    return p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1;
}

QJsonObject tst_TrayService::status() const
{
    QString out;
    if (cli({QStringLiteral("status"), QStringLiteral("--json")}, &out) != 0)
        return {};
    return QJsonDocument::fromJson(out.toUtf8()).object();
}

QList<api::Session> tst_TrayService::cliSessions() const
{
    QString out;
    if (cli({QStringLiteral("sessions"), QStringLiteral("--json")}, &out) != 0)
        return {};
    QList<api::Session> sessions;
    for (const QJsonValue &v : QJsonDocument::fromJson(out.toUtf8()).object().value(QStringLiteral("sessions")).toArray())
        sessions << api::sessionFromJson(v.toObject());
    return sessions;
}

QJsonObject tst_TrayService::hubServer() const
{
    QString out;
    if (m_hub->admin({QStringLiteral("servers"), QStringLiteral("--json")}, &out) != 0)
        return {};
    for (const QJsonValue &v : QJsonDocument::fromJson(out.toUtf8()).object().value(QStringLiteral("servers")).toArray()) {
        if (v.toObject().value(QStringLiteral("id")).toString() == m_serverId)
            return v.toObject();
    }
    return {};
}

void tst_TrayService::restartEngineProcess()
{
    if (alive(m_detached)) {
        ::kill(pid_t(m_detached), SIGTERM);
        QVERIFY(waitGone(m_detached, 15000));
    }
    m_detached = 0;
    if (m_engine->running())
        QCOMPARE(m_engine->stop(), 0);
    QVERIFY(m_engine->start());
    QTRY_COMPARE_WITH_TIMEOUT(status().value(QStringLiteral("state")).toString(), QStringLiteral("online"), 20000);
    QTRY_VERIFY_WITH_TIMEOUT(hubOnline(), 10000);
}

// (a) An engine runs; the tray attaches to it: no dialog, no second engine, the engine's state
// line and the sessions the CLI lists.
void tst_TrayService::attachesToTheRunningEngine()
{
    auto tray = openTray();
    QVERIFY(tray);
    QSignalSpy started(&tray->model->connection(), &EngineConnection::engineStarted);
    QTRY_VERIFY_WITH_TIMEOUT(tray->model->attached(), 10000);
    QCOMPARE(started.size(), 0);
    QCOMPARE(tray->model->status().pid, m_engine->pid());
    // No dialog, no window: a tray host exists (offscreen has none, so the window is the face
    // there; what must not be on screen is a question or an error).
    for (QWidget *w : QApplication::topLevelWidgets())
        QVERIFY2(!(w->isVisible() && qobject_cast<QDialog *>(w)), qPrintable(w->objectName()));

    const QJsonObject s = status();
    QCOMPARE(s.value(QStringLiteral("state")).toString(), QStringLiteral("online"));
    QCOMPARE(tray->model->state(), EngineState::Online);
    QCOMPARE(tray->model->stateReason(), s.value(QStringLiteral("reason")).toString());
    QCOMPARE(tray->stateLine(), s.value(QStringLiteral("reason")).toString());
    QVERIFY(!tray->action("startEngineAction")->isVisible());
    QVERIFY(tray->action("stopEngineAction")->isVisible());

    // The sessions: the same ones, with the same records.
    const QList<api::Session> fromCli = cliSessions();
    QCOMPARE(fromCli.size(), 2);
    QCOMPARE(tray->model->sessions().size(), fromCli.size());
    for (const api::Session &c : fromCli) {
        QVERIFY(m_sessionIds.contains(c.id));
        const api::Session *t = tray->model->session(c.id);
        QVERIFY2(t, qPrintable(c.id));
        QCOMPARE(t->workspaceId, c.workspaceId);
        QCOMPARE(t->workspaceName, c.workspaceName);
        QCOMPARE(t->branch, c.branch);
        QCOMPARE(t->workTree, c.workTree);
        QCOMPARE(t->state, c.state);
    }
    // And the Sessions menu lists them.
    auto *menu = tray->app->menu()->findChild<QMenu *>(QStringLiteral("sessionsMenu"));
    QVERIFY(menu);
    QStringList titles;
    for (QAction *a : menu->actions())
        titles << a->text();
    for (const QString &id : std::as_const(m_sessionIds))
        QVERIFY2(titles.filter(id).size() == 1, qPrintable(titles.join(u'\n')));
}

// (b) The real tray binary attaches, then quits (SIGTERM, as a logout): the engine stays, the hub
// keeps it online over three heartbeats, and calls through the tunnel still reach it.
void tst_TrayService::quittingTheTrayLeavesTheServerOnline()
{
    QFile::remove(m_trayLog);
    QProcess tray;
    startTrayBinary(tray);
    QVERIFY(tray.waitForStarted());
    QVERIFY2(waitForLine(m_trayLog, QStringLiteral("attached to the engine, pid %1").arg(m_engine->pid()), 20000),
        "the tray never attached");
    ::kill(pid_t(tray.processId()), SIGTERM);
    QVERIFY(tray.waitForFinished(30000));
    QCOMPARE(tray.exitStatus(), QProcess::NormalExit);
    QCOMPARE(tray.exitCode(), 0);

    QVERIFY(m_engine->running());
    QCOMPARE(status().value(QStringLiteral("pid")).toInteger(), m_engine->pid());
    const QString heartbeatBefore = hubServer().value(QStringLiteral("lastHeartbeat")).toString();
    QTest::qWait(3500); // three heartbeats (1 s each on this hub)
    const QJsonObject server = hubServer();
    QVERIFY2(server.value(QStringLiteral("online")).toBool(), QJsonDocument(server).toJson().constData());
    QVERIFY(server.value(QStringLiteral("lastHeartbeat")).toString() != heartbeatBefore);

    // The tunnel: the hub's calls reach this engine (server.status answers with its pid) and it
    // lists the sessions. (A launch needs Docker: tst_trayruntime launches after the tray quit.)
    QString out, err;
    QCOMPARE(m_hub->admin({QStringLiteral("call"), m_serverId, QStringLiteral("ping")}, &out, &err), 0);
    QVERIFY2(QJsonDocument::fromJson(out.toUtf8()).object().value(QStringLiteral("pong")).toBool(), qPrintable(out));
    QCOMPARE(m_hub->admin({QStringLiteral("call"), m_serverId, QStringLiteral("server.status")}, &out, &err), 0);
    QCOMPARE(QJsonDocument::fromJson(out.toUtf8()).object().value(QStringLiteral("pid")).toInteger(), m_engine->pid());
    QCOMPARE(m_hub->admin({QStringLiteral("call"), m_serverId, QStringLiteral("sessions.list")}, &out, &err), 0);
    for (const QString &id : std::as_const(m_sessionIds))
        QVERIFY2(out.contains(id), qPrintable(out));
}

// (c) No engine: the real tray starts one (the build's, with the file store: it comes up paired),
// in a session of its own; the tray quits and the engine stays.
void tst_TrayService::startsAnEngineWhenNoneRuns()
{
    QCOMPARE(m_engine->stop(), 0);
    QCOMPARE(cli({QStringLiteral("status")}), 3);
    QFile::remove(m_trayLog);
    QProcess tray;
    startTrayBinary(tray);
    QVERIFY(tray.waitForStarted());
    QVERIFY2(waitForLine(m_trayLog, QStringLiteral("no engine answers; starting one"), 20000), "the tray started none");
    QVERIFY2(waitForLine(m_trayLog, QStringLiteral("attached to the engine, pid"), 40000), "the tray never attached");
    const QJsonObject s = status();
    m_detached = s.value(QStringLiteral("pid")).toInteger();
    QVERIFY(alive(m_detached));
    QCOMPARE(s.value(QStringLiteral("state")).toString(), QStringLiteral("online"));
    QVERIFY2(s.value(QStringLiteral("credentialStore")).toString().startsWith(QStringLiteral("file")),
        qPrintable(s.value(QStringLiteral("credentialStore")).toString()));

    ::kill(pid_t(tray.processId()), SIGTERM);
    QVERIFY(tray.waitForFinished(30000));
    QCOMPARE(tray.exitCode(), 0);
    QTest::qWait(1000);
    QVERIFY(alive(m_detached));
    QCOMPARE(cli({QStringLiteral("status")}), 0);
    QCOMPARE(status().value(QStringLiteral("pid")).toInteger(), m_detached);
    QTRY_VERIFY_WITH_TIMEOUT(hubOnline(), 10000);
}

// (d) kill -9 of the engine: the tray says so within 2 s and offers Start; Start brings one
// back, the tray reattaches and shows what `status` says.
void tst_TrayService::killedEngineIsShownAndStartedAgain()
{
    QVERIFY2(alive(m_detached), "needs the engine startsAnEngineWhenNoneRuns left running");
    auto tray = openTray();
    QVERIFY(tray);
    QTRY_VERIFY_WITH_TIMEOUT(tray->model->attached(), 10000);
    QCOMPARE(tray->model->status().pid, m_detached);
    QVERIFY(!tray->action("startEngineAction")->isVisible());

    QElapsedTimer down;
    down.start();
    QCOMPARE(::kill(pid_t(m_detached), SIGKILL), 0);
    while (tray->model->attached() && down.elapsed() < 2000)
        QTest::qWait(10);
    QVERIFY2(!tray->model->attached(), "the tray still shows the killed engine after 2 s");
    QTRY_VERIFY_WITH_TIMEOUT(tray->action("startEngineAction")->isVisible(), 2000 - int(down.elapsed()));
    qInfo() << "down shown after" << down.elapsed() << "ms";
    QCOMPARE(tray->model->state(), EngineState::Stopped);
    QVERIFY2(tray->stateLine().startsWith(QStringLiteral("Engine not running")), qPrintable(tray->stateLine()));
    QVERIFY(!tray->action("stopEngineAction")->isVisible());
    QVERIFY(waitGone(m_detached, 5000));

    // It was attached before: it starts none by itself.
    QTest::qWait(500);
    QCOMPARE(cli({QStringLiteral("status")}), 3);

    QSignalSpy started(&tray->model->connection(), &EngineConnection::engineStarted);
    tray->action("startEngineAction")->trigger();
    QCOMPARE(started.size(), 1);
    m_detached = started.first().first().toLongLong();
    QTRY_VERIFY_WITH_TIMEOUT(tray->model->attached(), 40000);
    QTRY_COMPARE_WITH_TIMEOUT(tray->model->state(), EngineState::Online, 20000);
    const QJsonObject s = status();
    // setsid execs the engine in the same process: the pid the tray started is the engine's.
    QCOMPARE(s.value(QStringLiteral("pid")).toInteger(), m_detached);
    QCOMPARE(tray->model->status().pid, m_detached);
    QCOMPARE(s.value(QStringLiteral("state")).toString(), QStringLiteral("online"));
    QCOMPARE(tray->model->status().reason, s.value(QStringLiteral("reason")).toString());
    QCOMPARE(tray->model->status().serverId, s.value(QStringLiteral("serverId")).toString());
    QCOMPARE(tray->model->status().paired, s.value(QStringLiteral("paired")).toBool());
    QCOMPARE(tray->stateLine(), s.value(QStringLiteral("reason")).toString());
    QVERIFY(!tray->action("startEngineAction")->isVisible());
    QCOMPARE(tray->model->sessions().size(), m_sessionIds.size());
}

// (e) Disconnect: the hub sees the computer offline; Connect: online again; nothing else changes.
void tst_TrayService::disconnectAndConnect()
{
    restartEngineProcess();
    auto tray = openTray();
    QVERIFY(tray);
    QTRY_VERIFY_WITH_TIMEOUT(tray->model->attached(), 10000);
    QTRY_COMPARE_WITH_TIMEOUT(tray->model->state(), EngineState::Online, 10000);
    const QList<api::Session> before = cliSessions();
    QAction *connect = tray->action("connectAction");
    QVERIFY(connect->isVisible());
    QCOMPARE(connect->text(), QStringLiteral("&Disconnect"));

    connect->trigger();
    QTRY_VERIFY_WITH_TIMEOUT(!tray->model->status().connected, 10000);
    QTRY_COMPARE_WITH_TIMEOUT(connect->text(), QStringLiteral("&Connect"), 5000);
    QCOMPARE(status().value(QStringLiteral("connected")).toBool(true), false);
    QTRY_VERIFY_WITH_TIMEOUT(!hubOnline(), 10000);
    QString out, err;
    QVERIFY(m_hub->admin({QStringLiteral("call"), m_serverId, QStringLiteral("ping")}, &out, &err) != 0);
    QVERIFY(m_engine->running());
    QCOMPARE(cli({QStringLiteral("status")}), 0);

    connect->trigger();
    QTRY_VERIFY_WITH_TIMEOUT(tray->model->status().connected, 10000);
    QTRY_COMPARE_WITH_TIMEOUT(connect->text(), QStringLiteral("&Disconnect"), 5000);
    QTRY_VERIFY_WITH_TIMEOUT(hubOnline(), 10000);
    QTRY_COMPARE_WITH_TIMEOUT(tray->model->state(), EngineState::Online, 10000);
    QCOMPARE(m_hub->admin({QStringLiteral("call"), m_serverId, QStringLiteral("ping")}, &out, &err), 0);

    const QList<api::Session> after = cliSessions();
    QCOMPARE(after.size(), before.size());
    for (const api::Session &s : before) {
        const auto it = std::find_if(after.begin(), after.end(), [&s](const api::Session &a) { return a.id == s.id; });
        QVERIFY(it != after.end());
        QCOMPARE(it->state, s.state);
        QCOMPARE(it->workTree, s.workTree);
    }
    QCOMPARE(tray->model->sessions().size(), before.size());
    QCOMPARE(m_engine->pid(), status().value(QStringLiteral("pid")).toInteger());
}

// (f) Stop the engine…, asked first: the engine exits 0 and the tray offers Start (and starts
// none by itself).
void tst_TrayService::stopTheEngine()
{
    if (!m_engine->running())
        restartEngineProcess();
    auto tray = openTray();
    QVERIFY(tray);
    QTRY_VERIFY_WITH_TIMEOUT(tray->model->attached(), 10000);
    QAction *stop = tray->action("stopEngineAction");
    QVERIFY(stop->isVisible());

    auto question = [] {
        for (QWidget *w : QApplication::topLevelWidgets()) {
            if (w->objectName() == QLatin1String("stopEngineQuestion") && w->isVisible())
                return qobject_cast<QMessageBox *>(w);
        }
        return static_cast<QMessageBox *>(nullptr);
    };
    stop->trigger();
    QTRY_VERIFY(question());
    // Cancel first: nothing happens.
    QVERIFY(question()->button(QMessageBox::Cancel));
    question()->button(QMessageBox::Cancel)->click();
    QTRY_VERIFY(!question());
    QTest::qWait(500);
    QVERIFY(m_engine->running());
    QVERIFY(tray->model->attached());

    stop->trigger();
    QTRY_VERIFY(question());
    QMessageBox *ask = question();
    QSignalSpy started(&tray->model->connection(), &EngineConnection::engineStarted);
    ask->button(QMessageBox::Yes)->click();
    QTRY_VERIFY_WITH_TIMEOUT(!m_engine->running(), 20000);
    QCOMPARE(m_engine->stop(), 0); // already gone: its exit code
    QTRY_VERIFY_WITH_TIMEOUT(!tray->model->attached(), 5000);
    QTRY_VERIFY_WITH_TIMEOUT(tray->action("startEngineAction")->isVisible(), 5000);
    QVERIFY2(tray->stateLine().startsWith(QStringLiteral("Engine not running")), qPrintable(tray->stateLine()));
    // Stopped on purpose: it stays stopped.
    QTest::qWait(1500);
    QCOMPARE(started.size(), 0);
    QCOMPARE(cli({QStringLiteral("status")}), 3);
}

QTEST_MAIN(tst_TrayService)
#include "tst_trayservice.moc"
