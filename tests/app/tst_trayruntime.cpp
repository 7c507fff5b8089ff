// The tray's Runtime tab on the real runtime of a real engine process (`isolation-server up`, the
// runtime on), a real dockerd and the offline stand-in images. The tab follows the engine's
// runtime events: the pinned runtime healthy, with what `isolation-server runtime status` says;
// its Restart button (POST /v1/runtime/restart) restarts the container without blocking the
// window, the tab shows the restart as the events come, and the Activity the tray copied from the
// engine records the transitions. Leaves a screenshot.
#include "../runtime/dockertestsupport.h"
#include "engineprocess.h"
#include "enginemodel.h"
#include "hubprocess.h" // serverBinary()
#include "mainwindow.h"
#include "trayapplication.h"

#include "core/paths.h"

#include <QDir>
#include <QElapsedTimer>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QPushButton>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QTest>

using namespace isolation;
using namespace isolation::test;

namespace {
const QString kTag = QStringLiteral(ISOLATION_STANDIN_TAG);
const QString kLifecycle = QStringLiteral("isolation-standin/lifecycle:") + kTag;
const QString kExecd = QStringLiteral("isolation-standin/execd:") + kTag;
} // namespace

class tst_TrayRuntime final : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void cleanupTestCase();
    void runtimeTabShowsAndRestarts();

private:
    // `isolation-server runtime status --json`, with the event loop turning meanwhile.
    QJsonObject runtimeStatus() const;

    QTemporaryDir m_home;
    std::unique_ptr<EngineProcess> m_engine;
    QString m_engineLabel; // io.isolation.engine of its containers: removed at the end
};

void tst_TrayRuntime::initTestCase()
{
    if (docker({QStringLiteral("info")}).exitCode != 0)
        QFAIL("no Docker daemon answers (./dev test starts dockerd)");
    for (const QString &image : {kLifecycle, kExecd}) {
        if (docker({QStringLiteral("image"), QStringLiteral("inspect"), image}).exitCode != 0)
            QFAIL(qPrintable(image + QStringLiteral(" is missing: the standin_images fixture builds it")));
    }
    QVERIFY(m_home.isValid());
}

void tst_TrayRuntime::cleanupTestCase()
{
    if (m_engine)
        m_engine->stop();
    if (m_engineLabel.isEmpty())
        return;
    for (const QString &c : containersWithLabel(QStringLiteral("io.isolation.engine=") + m_engineLabel)) {
        for (const QString &s : containersWithLabel(QStringLiteral("io.isolation.standin.by=") + c.left(12)))
            docker({QStringLiteral("rm"), QStringLiteral("-f"), s});
        docker({QStringLiteral("rm"), QStringLiteral("-f"), c});
    }
}

QJsonObject tst_TrayRuntime::runtimeStatus() const
{
    const Run r = runProgramTurning(serverBinary(),
        {QStringLiteral("runtime"), QStringLiteral("status"), QStringLiteral("--json")}, m_engine->environment(), 30000);
    return r.exitCode == 0 ? QJsonDocument::fromJson(r.out).object() : QJsonObject();
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
    m_engineLabel = inspected.value(QStringLiteral("Config"))
                        .toObject()
                        .value(QStringLiteral("Labels"))
                        .toObject()
                        .value(QStringLiteral("io.isolation.engine"))
                        .toString();
    QVERIFY(!m_engineLabel.isEmpty());

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

QTEST_MAIN(tst_TrayRuntime)
#include "tst_trayruntime.moc"
