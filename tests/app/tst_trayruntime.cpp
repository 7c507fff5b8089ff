// The tray's Runtime tab on the real runtime: a real dockerd and the offline stand-in images.
// It shows the pinned runtime healthy, and its Restart button restarts the container without
// blocking the window; the Activity tab records the transitions. Leaves a screenshot.
#include "../runtime/runtimefixture.h"
#include "mainwindow.h"
#include "trayapplication.h"

#include "core/paths.h"
#include "engine.h"
#include "runtime/runtimemanager.h"

#include <QDir>
#include <QLabel>
#include <QPushButton>
#include <QTableView>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QTest>

using namespace isolation;
using namespace isolation::test;

class tst_TrayRuntime final : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void cleanupTestCase();
    void runtimeTabShowsAndRestarts();

private:
    RuntimeFixture m_fixture;
};

void tst_TrayRuntime::initTestCase()
{
    const QString missing = RuntimeFixture::missing();
    QVERIFY2(missing.isEmpty(), qPrintable(missing));
}

void tst_TrayRuntime::cleanupTestCase()
{
    m_fixture.cleanup();
}

void tst_TrayRuntime::runtimeTabShowsAndRestarts()
{
    QTemporaryDir home;
    qunsetenv("ISOLATION_RUNTIME");
    qputenv("ISOLATION_RUNTIME_LIFECYCLE_IMAGE", kLifecycle.toUtf8());
    qputenv("ISOLATION_RUNTIME_EXECD_IMAGE", kExecd.toUtf8());
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert(QStringLiteral("ISOLATION_HOME"), home.path());
    EngineOptions options;
    options.credentialStore = CredentialStoreKind::File;
    Engine engine(Paths::resolve(env).value(), options);
    QVERIFY(engine.start().ok());
    QVERIFY(engine.runtime());
    m_fixture.addEngine(engine.runtime()->engineId());

    TrayApplication tray(engine);
    tray.showWindow();
    QTabWidget *tabs = tray.window()->tabs();
    QWidget *page = tabs->findChild<QWidget *>(QStringLiteral("runtimeTab"));
    QVERIFY(page);
    tabs->setCurrentWidget(page);
    auto label = [page](const char *name) { return page->findChild<QLabel *>(QLatin1String(name))->text(); };
    auto *restart = page->findChild<QPushButton *>(QStringLiteral("restartRuntime"));

    QTRY_COMPARE_WITH_TIMEOUT(label("runtimeState"), QStringLiteral("Healthy"), 90000);
    QCOMPARE(label("runtimeImage"), kLifecycle + QStringLiteral(" (offline stand-in)"));
    QCOMPARE(label("runtimeExecdImage"), kExecd);
    QVERIFY2(label("runtimeDigest").startsWith(QStringLiteral("sha256:")), qPrintable(label("runtimeDigest")));
    QVERIFY(label("runtimeContainer").startsWith(RuntimeFixture::container(engine.runtime())));
    QVERIFY2(label("runtimeUptime").endsWith(QStringLiteral(" s")), qPrintable(label("runtimeUptime")));
    QVERIFY(restart->isEnabled());

    const QString out
        = qEnvironmentVariable("ISOLATION_TEST_OUTPUT", QDir::tempPath()) + QStringLiteral("/screenshots");
    QDir().mkpath(out);
    tray.window()->resize(900, 560);
    QVERIFY(tray.window()->grab().save(out + QStringLiteral("/tray-en-runtime.png")));

    // The restart runs on the runtime's worker: the click returns at once, the button waits.
    const QString startedBefore = engine.runtime()->status().value(QStringLiteral("startedAt")).toString();
    QTest::qWait(1100); // StartedAt has a resolution of a second
    QElapsedTimer clickTime;
    clickTime.start();
    QTest::mouseClick(restart, Qt::LeftButton);
    QVERIFY2(clickTime.elapsed() < 500, "the click waited for Docker");
    QVERIFY(!restart->isEnabled());
    QCOMPARE(restart->text(), QStringLiteral("Restarting…"));
    QTRY_VERIFY_WITH_TIMEOUT(restart->isEnabled(), 90000);
    QCOMPARE(label("runtimeState"), QStringLiteral("Healthy"));
    QVERIFY(engine.runtime()->status().value(QStringLiteral("startedAt")).toString() != startedBefore);

    // The Activity tab saw the runtime go healthy, restart and come back.
    QStringList runtimeEvents;
    for (const ActivityEntry &e : engine.activity().entries()) {
        if (e.kind == QLatin1String("runtime"))
            runtimeEvents << e.message;
    }
    QVERIFY2(runtimeEvents.filter(QStringLiteral("Restarting the runtime")).size() == 1,
        qPrintable(runtimeEvents.join(u'\n')));
    QVERIFY2(
        runtimeEvents.filter(QStringLiteral("Runtime healthy")).size() >= 2, qPrintable(runtimeEvents.join(u'\n')));

    engine.stop();
    qunsetenv("ISOLATION_RUNTIME_LIFECYCLE_IMAGE");
    qunsetenv("ISOLATION_RUNTIME_EXECD_IMAGE");
}

QTEST_MAIN(tst_TrayRuntime)
#include "tst_trayruntime.moc"
