// The tray's Runtime tab on the real runtime of a real engine process (`isolation-server up`, the
// runtime on), a real dockerd and the offline stand-in images. The tab follows the engine's
// runtime events: the pinned runtime healthy, with what `isolation-server runtime status` says;
// its Restart button (POST /v1/runtime/restart) restarts the container without blocking the
// window, the tab shows the restart as the events come, and the Activity the tray copied from the
// engine records the transitions. Leaves a screenshot. And the tray is no part of what the cloud
// reaches: a paired engine whose tray (the real binary) quit stays online at the hub over three
// heartbeats and a launch from the hub (`isolation-hub launch`) starts a session in a sandbox.
#include "../runtime/dockertestsupport.h"
#include "engineprocess.h"
#include "enginemodel.h"
#include "hubprocess.h" // serverBinary()
#include "mainwindow.h"
#include "trayapplication.h"

#include "core/paths.h"

#include <QDeadlineTimer>
#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QProcess>
#include <QRegularExpression>
#include <QElapsedTimer>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QPushButton>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QTest>

#include <csignal>

using namespace isolation;
using namespace isolation::test;

namespace {
const QString kTag = QStringLiteral(ISOLATION_STANDIN_TAG);
const QString kLifecycle = QStringLiteral("isolation-standin/lifecycle:") + kTag;
const QString kExecd = QStringLiteral("isolation-standin/execd:") + kTag;
const QString kSandbox = QStringLiteral("isolation-standin/sandbox:") + kTag;
} // namespace

class tst_TrayRuntime final : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void cleanupTestCase();
    void runtimeTabShowsAndRestarts();
    void hubLaunchesAfterTheTrayQuit();

private:
    // `isolation-server runtime status --json`, with the event loop turning meanwhile.
    QJsonObject runtimeStatus() const;
    // The io.isolation.engine label of the engine's runtime container once healthy (empty if not).
    QString waitHealthy();

    QTemporaryDir m_home;
    std::unique_ptr<EngineProcess> m_engine;
    QStringList m_engineLabels; // io.isolation.engine of the containers made: removed at the end
};

void tst_TrayRuntime::initTestCase()
{
    if (docker({QStringLiteral("info")}).exitCode != 0)
        QFAIL("no Docker daemon answers (./dev test starts dockerd)");
    for (const QString &image : {kLifecycle, kExecd, kSandbox}) {
        if (docker({QStringLiteral("image"), QStringLiteral("inspect"), image}).exitCode != 0)
            QFAIL(qPrintable(image + QStringLiteral(" is missing: the standin_images fixture builds it")));
    }
    QVERIFY(m_home.isValid());
}

void tst_TrayRuntime::cleanupTestCase()
{
    if (m_engine)
        m_engine->stop();
    for (const QString &label : std::as_const(m_engineLabels)) {
        for (const QString &c : containersWithLabel(QStringLiteral("io.isolation.engine=") + label)) {
            for (const QString &s : containersWithLabel(QStringLiteral("io.isolation.standin.by=") + c.left(12)))
                docker({QStringLiteral("rm"), QStringLiteral("-f"), s});
            docker({QStringLiteral("rm"), QStringLiteral("-f"), c});
        }
    }
}

QJsonObject tst_TrayRuntime::runtimeStatus() const
{
    const Run r = runProgramTurning(serverBinary(),
        {QStringLiteral("runtime"), QStringLiteral("status"), QStringLiteral("--json")}, m_engine->environment(), 30000);
    return r.exitCode == 0 ? QJsonDocument::fromJson(r.out).object() : QJsonObject();
}

QString tst_TrayRuntime::waitHealthy()
{
    QJsonObject runtime;
    QDeadlineTimer deadline(120000);
    while (!deadline.hasExpired()) {
        runtime = runtimeStatus();
        if (runtime.value(QStringLiteral("state")).toString() == QLatin1String("healthy"))
            break;
        QTest::qWait(200);
    }
    if (runtime.value(QStringLiteral("state")).toString() != QLatin1String("healthy"))
        return {};
    const QString label = dockerInspect(runtime.value(QStringLiteral("container")).toString())
                              .value(QStringLiteral("Config"))
                              .toObject()
                              .value(QStringLiteral("Labels"))
                              .toObject()
                              .value(QStringLiteral("io.isolation.engine"))
                              .toString();
    if (!label.isEmpty() && !m_engineLabels.contains(label))
        m_engineLabels << label;
    return label;
}

void tst_TrayRuntime::runtimeTabShowsAndRestarts()
{
    m_engine = std::make_unique<EngineProcess>(m_home.path());
    m_engine->setRuntime(true);
    m_engine->environment().insert(QStringLiteral("ISOLATION_RUNTIME_LIFECYCLE_IMAGE"), kLifecycle);
    m_engine->environment().insert(QStringLiteral("ISOLATION_RUNTIME_EXECD_IMAGE"), kExecd);
    QVERIFY(m_engine->start());

    // The tray in this process, on that engine.
    qputenv("ISOLATION_HOME", m_home.path().toUtf8());
    auto paths = Paths::resolve();
    QVERIFY(paths);
    EngineModel model(paths.value());
    model.connection().setProgram(serverBinary(),
        {QStringLiteral("up"), QStringLiteral("--credential-store"), QStringLiteral("file")});
    TrayApplication tray(model);
    // Every runtime state the tray was told of, in order (the events, not a poll).
    QStringList seen;
    connect(&model, &EngineModel::runtimeChanged, this, [&] {
        if (seen.isEmpty() || seen.last() != model.runtime().state)
            seen << model.runtime().state;
    });
    model.connection().attach();
    QTRY_VERIFY_WITH_TIMEOUT(model.attached(), 10000);
    QCOMPARE(model.status().pid, m_engine->pid());

    tray.showWindow();
    QTabWidget *tabs = tray.window()->tabs();
    QWidget *page = tabs->findChild<QWidget *>(QStringLiteral("runtimeTab"));
    QVERIFY(page);
    tabs->setCurrentWidget(page);
    auto label = [page](const char *name) { return page->findChild<QLabel *>(QLatin1String(name))->text(); };
    auto *restart = page->findChild<QPushButton *>(QStringLiteral("restartRuntime"));
    // What the tab's state said after each runtime event (connected after the page: read after
    // its refresh).
    QStringList shown;
    connect(&model, &EngineModel::runtimeChanged, this, [&] {
        if (shown.isEmpty() || shown.last() != label("runtimeState"))
            shown << label("runtimeState");
    });

    QTRY_COMPARE_WITH_TIMEOUT(label("runtimeState"), QStringLiteral("Healthy"), 90000);
    const QJsonObject before = runtimeStatus();
    QCOMPARE(before.value(QStringLiteral("state")).toString(), QStringLiteral("healthy"));
    QCOMPARE(label("runtimeImage"), kLifecycle + QStringLiteral(" (offline stand-in)"));
    QCOMPARE(label("runtimeExecdImage"), kExecd);
    QVERIFY2(label("runtimeDigest").startsWith(QStringLiteral("sha256:")), qPrintable(label("runtimeDigest")));
    QCOMPARE(label("runtimeDigest"), before.value(QStringLiteral("digest")).toString());
    const QString container = before.value(QStringLiteral("container")).toString();
    QVERIFY(!container.isEmpty());
    QVERIFY2(label("runtimeContainer").startsWith(container), qPrintable(label("runtimeContainer")));
    QVERIFY2(label("runtimeUptime").endsWith(QStringLiteral(" s")), qPrintable(label("runtimeUptime")));
    QVERIFY(restart->isEnabled());
    // Docker, the independent witness: that container runs, and it is this engine's.
    const QJsonObject inspected = dockerInspect(container);
    QVERIFY(inspected.value(QStringLiteral("State")).toObject().value(QStringLiteral("Running")).toBool());
    QVERIFY(!waitHealthy().isEmpty()); // its containers are removed at the end

    const QString out
        = qEnvironmentVariable("ISOLATION_TEST_OUTPUT", QDir::tempPath()) + QStringLiteral("/screenshots");
    QDir().mkpath(out);
    tray.window()->resize(900, 560);
    QVERIFY(tray.window()->grab().save(out + QStringLiteral("/tray-en-runtime.png")));

    // The restart runs in the engine: the click returns at once, the button waits for the answer.
    const QString startedBefore = before.value(QStringLiteral("startedAt")).toString();
    QTest::qWait(1100); // StartedAt has a resolution of a second
    seen.clear();
    shown.clear();
    QElapsedTimer clickTime;
    clickTime.start();
    QTest::mouseClick(restart, Qt::LeftButton);
    QVERIFY2(clickTime.elapsed() < 500, "the click waited for the engine");
    QVERIFY(!restart->isEnabled());
    QCOMPARE(restart->text(), QStringLiteral("Restarting…"));
    QTRY_VERIFY_WITH_TIMEOUT(restart->isEnabled(), 90000);
    QTRY_COMPARE_WITH_TIMEOUT(label("runtimeState"), QStringLiteral("Healthy"), 10000);
    // The tab followed the engine's runtime events while it restarted.
    QVERIFY2(seen.contains(QStringLiteral("restarting")) && seen.last() == QLatin1String("healthy"),
        qPrintable(seen.join(u' ')));
    QVERIFY2(shown.contains(QStringLiteral("Restarting")) && shown.last() == QLatin1String("Healthy"),
        qPrintable(shown.join(u' ')));
    const QJsonObject after = runtimeStatus();
    QCOMPARE(after.value(QStringLiteral("state")).toString(), QStringLiteral("healthy"));
    QVERIFY(after.value(QStringLiteral("startedAt")).toString() != startedBefore);
    QCOMPARE(model.runtime().startedAt, QDateTime::fromString(after.value(QStringLiteral("startedAt")).toString(), Qt::ISODate));
    QCOMPARE(model.runtime().restarts, after.value(QStringLiteral("restarts")).toInt());
    QCOMPARE(label("runtimeRestarts"), QString::number(model.runtime().restarts));

    // The Activity the tray copied from the engine saw the runtime go healthy, restart and come back.
    QStringList runtimeEvents;
    for (const ActivityEntry &e : model.activity().entries()) {
        if (e.kind == QLatin1String("runtime"))
            runtimeEvents << e.message;
    }
    QVERIFY2(runtimeEvents.filter(QStringLiteral("Restarting the runtime")).size() == 1,
        qPrintable(runtimeEvents.join(u'\n')));
    QVERIFY2(
        runtimeEvents.filter(QStringLiteral("Runtime healthy")).size() >= 2, qPrintable(runtimeEvents.join(u'\n')));

    QCOMPARE(m_engine->stop(), 0);
}

void tst_TrayRuntime::hubLaunchesAfterTheTrayQuit()
{
    HubProcess hub;
    // Heartbeats every second: "offline" is three missed ones.
    QVERIFY(hub.start({},
        {QStringLiteral("--poll-interval"), QStringLiteral("1"), QStringLiteral("--heartbeat-interval"),
            QStringLiteral("1")}));
    QTemporaryDir home;
    m_engine = std::make_unique<EngineProcess>(home.path());
    m_engine->setHub(hub.appUrl().toString());
    m_engine->setRuntime(true);
    m_engine->environment().insert(QStringLiteral("ISOLATION_RUNTIME_LIFECYCLE_IMAGE"), kLifecycle);
    m_engine->environment().insert(QStringLiteral("ISOLATION_RUNTIME_EXECD_IMAGE"), kExecd);
    m_engine->environment().insert(QStringLiteral("ISOLATION_SANDBOX_IMAGE"), kSandbox);
    QVERIFY(m_engine->start());
    QVERIFY(!waitHealthy().isEmpty());

    // Paired through the CLI and the hub's approve.
    QProcess pair;
    pair.setProcessEnvironment(m_engine->environment());
    pair.start(serverBinary(), {QStringLiteral("pair"), QStringLiteral("--no-qr")});
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
    QCOMPARE(hub.admin({QStringLiteral("approve"), code}), 0);
    QVERIFY(pair.waitForFinished(30000));
    QCOMPARE(pair.exitCode(), 0);
    QString out;
    QCOMPARE(m_engine->cli({QStringLiteral("status"), QStringLiteral("--json")}, &out), 0);
    const QString serverId = QJsonDocument::fromJson(out.toUtf8()).object().value(QStringLiteral("serverId")).toString();
    QVERIFY(!serverId.isEmpty());
    QCOMPARE(hub.admin({QStringLiteral("workspace"), QStringLiteral("create"), QStringLiteral("after-tray")}), 0);
    auto online = [&] {
        QString servers;
        hub.admin({QStringLiteral("servers"), QStringLiteral("--json")}, &servers);
        for (const QJsonValue &v :
            QJsonDocument::fromJson(servers.toUtf8()).object().value(QStringLiteral("servers")).toArray()) {
            if (v.toObject().value(QStringLiteral("id")).toString() == serverId)
                return v.toObject().value(QStringLiteral("online")).toBool();
        }
        return false;
    };
    QTRY_VERIFY_WITH_TIMEOUT(online(), 10000);

    // The real tray attaches, then quits (SIGTERM, as a logout or Quit).
    QProcess tray;
    QProcessEnvironment env = m_engine->environment();
    env.insert(QStringLiteral("QT_QPA_PLATFORM"), QStringLiteral("offscreen"));
    env.insert(QStringLiteral("ISOLATION_ENGINE_ARGS"), QStringLiteral("up --credential-store file"));
    tray.setProcessEnvironment(env);
    tray.setProcessChannelMode(QProcess::ForwardedChannels);
    tray.start(trayBinary(), {});
    QVERIFY(tray.waitForStarted());
    const QString attached = QStringLiteral("attached to the engine, pid %1").arg(m_engine->pid());
    auto trayLogSays = [&home, &attached] {
        QFile log(home.path() + QStringLiteral("/state/tray.log"));
        return log.open(QIODevice::ReadOnly) && QString::fromUtf8(log.readAll()).contains(attached);
    };
    QTRY_VERIFY_WITH_TIMEOUT(trayLogSays(), 20000);
    ::kill(pid_t(tray.processId()), SIGTERM);
    QVERIFY(tray.waitForFinished(30000));
    QCOMPARE(tray.exitCode(), 0);

    // Three heartbeats later the hub still has it online, and a launch starts a sandbox on it.
    QTest::qWait(3500);
    QVERIFY(m_engine->running());
    QVERIFY(online());
    QString launched, err;
    const int rc = hub.admin({QStringLiteral("launch"), QStringLiteral("--server"), serverId,
                                 QStringLiteral("--workspace"), QStringLiteral("after-tray"), QStringLiteral("--json")},
        &launched, &err);
    QVERIFY2(rc == 0, qPrintable(err));
    const QJsonObject session = QJsonDocument::fromJson(launched.toUtf8()).object();
    const QString id = session.value(QStringLiteral("id")).toString();
    QVERIFY2(!id.isEmpty(), qPrintable(launched));
    QCOMPARE(m_engine->cli({QStringLiteral("sessions"), QStringLiteral("--json")}, &out), 0);
    QJsonObject listed;
    for (const QJsonValue &v : QJsonDocument::fromJson(out.toUtf8()).object().value(QStringLiteral("sessions")).toArray()) {
        if (v.toObject().value(QStringLiteral("id")).toString() == id)
            listed = v.toObject();
    }
    QVERIFY2(!listed.isEmpty(), qPrintable(out));
    const QString sandbox = listed.value(QStringLiteral("sandbox")).toObject().value(QStringLiteral("id")).toString();
    QVERIFY2(!sandbox.isEmpty(), qPrintable(out));
    QCOMPARE(containersWithLabel(QStringLiteral("io.isolation.standin.sandbox=") + sandbox).size(), 1);
    QCOMPARE(m_engine->cli({QStringLiteral("finish"), id, QStringLiteral("--discard")}), 0);
    QCOMPARE(m_engine->stop(), 0);
}

QTEST_MAIN(tst_TrayRuntime)
#include "tst_trayruntime.moc"
