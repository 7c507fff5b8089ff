#include "browserapproval.h"
#include "hubprocess.h"
#include "mainwindow.h"
#include "trayapplication.h"
#include "traypreferences.h"

#include "core/paths.h"
#include "engine.h"

#include <QApplication>
#include <QCheckBox>
#include <QComboBox>
#include <QDialog>
#include <QDialogButtonBox>
#include <QFile>
#include <QFileInfo>
#include <QImage>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QProcess>
#include <QPushButton>
#include <QRegularExpression>
#include <QSystemTrayIcon>
#include <QTableView>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QTest>

#include <csignal>

using namespace isolation;

class tst_Tray final : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void windowHasTheSixTabs();
    void activityShowsEventsNewestFirst();
    void settingsLaunchAtLoginNotificationsAndIcon();
    void trayFollowsEngineState();
    void pairByClicks();
    void secondStartRaisesTheFirst();
    void refusesWhenAnotherEngineOwnsTheState();
};

namespace {
EngineOptions fileStore()
{
    EngineOptions o;
    o.credentialStore = CredentialStoreKind::File;
    return o;
}

Paths pathsFor(const QString &home)
{
    QProcessEnvironment env;
    env.insert(QStringLiteral("ISOLATION_HOME"), home);
    return Paths::resolve(env).value();
}
} // namespace

void tst_Tray::windowHasTheSixTabs()
{
    QTemporaryDir home;
    Engine engine(pathsFor(home.path()), fileStore());
    QVERIFY(engine.start().ok());
    QTRY_VERIFY(engine.stateReason().startsWith(QStringLiteral("Not paired")));
    TrayApplication tray(engine);
    tray.showWindow();
    QVERIFY(QTest::qWaitForWindowExposed(tray.window()));

    QTabWidget *tabs = tray.window()->tabs();
    QCOMPARE(tabs->count(), 6);
    const QStringList expected {QStringLiteral("Sessions"), QStringLiteral("Changes"), QStringLiteral("Conflicts"),
        QStringLiteral("Warm cache"), QStringLiteral("Runtime"), QStringLiteral("Activity")};
    for (int i = 0; i < tabs->count(); ++i)
        QCOMPARE(tabs->tabText(i).remove(QLatin1Char('&')), expected.at(i));
    const QStringList pages {QStringLiteral("sessionsTab"), QStringLiteral("changesTab"),
        QStringLiteral("conflictsTab"), QStringLiteral("cacheTab"), QStringLiteral("runtimeTab"),
        QStringLiteral("activityTab")};
    for (int i = 0; i < tabs->count(); ++i)
        QCOMPARE(tabs->widget(i)->objectName(), pages.at(i));
    // Not paired: nothing can start a session, and the tabs say why rather than fail later.
    QVERIFY(!tabs->widget(0)->findChild<QPushButton *>(QStringLiteral("newSession"))->isEnabled());
    QVERIFY(tabs->widget(0)
                ->findChild<QPushButton *>(QStringLiteral("sessionSaveAll"))
                ->toolTip()
                .contains(QStringLiteral("Choose a session")));
    QVERIFY(!tabs->widget(1)->findChild<QPushButton *>(QStringLiteral("saveAll"))->isEnabled());

    // The runtime is switched off in this test environment: the tab says so and offers no restart.
    auto *runtimeState = tabs->widget(4)->findChild<QLabel *>(QStringLiteral("runtimeState"));
    auto *runtimeReason = tabs->widget(4)->findChild<QLabel *>(QStringLiteral("runtimeReason"));
    QVERIFY(runtimeState && runtimeReason);
    QCOMPARE(runtimeState->text(), QStringLiteral("Not running"));
    QVERIFY2(runtimeReason->text().contains(QStringLiteral("switched off")), qPrintable(runtimeReason->text()));
    QVERIFY(!tabs->widget(4)->findChild<QPushButton *>(QStringLiteral("restartRuntime"))->isEnabled());
    auto *state = tray.window()->findChild<QLabel *>(QStringLiteral("stateLine"));
    QVERIFY(state);
    QVERIFY(state->text().startsWith(QStringLiteral("Not paired")));
}

void tst_Tray::activityShowsEventsNewestFirst()
{
    QTemporaryDir home;
    Engine engine(pathsFor(home.path()), fileStore());
    QVERIFY(engine.start().ok());
    QTRY_VERIFY(engine.stateReason().startsWith(QStringLiteral("Not paired")));
    TrayApplication tray(engine);
    auto *view = tray.window()->findChild<QTableView *>(QStringLiteral("activityView"));
    auto *kind = tray.window()->findChild<QComboBox *>(QStringLiteral("activityKind"));
    auto *search = tray.window()->findChild<QLineEdit *>(QStringLiteral("activitySearch"));
    QVERIFY(view && kind && search);
    QAbstractItemModel *model = view->model();
    // The engine's start is there already: it went from stopped to not paired.
    QVERIFY(model->rowCount() >= 1);
    QVERIFY(model->index(0, 2).data().toString().startsWith(QStringLiteral("Not paired")));

    engine.activity().record(QStringLiteral("runtime"), QStringLiteral("Runtime healthy: test"));
    engine.activity().record(QStringLiteral("workspace"), QStringLiteral("Saved 3 files of demo"));
    const int all = model->rowCount();
    QCOMPARE(model->index(0, 2).data().toString(), QStringLiteral("Saved 3 files of demo"));
    QCOMPARE(model->index(0, 1).data().toString(), QStringLiteral("Workspace"));

    kind->setCurrentIndex(kind->findData(QStringLiteral("runtime")));
    QCOMPARE(model->rowCount(), 1);
    QCOMPARE(model->index(0, 2).data().toString(), QStringLiteral("Runtime healthy: test"));
    kind->setCurrentIndex(0);
    QCOMPARE(model->rowCount(), all);
    search->setText(QStringLiteral("DEMO"));
    QCOMPARE(model->rowCount(), 1);
    search->clear();

    // The log keeps the newest ActivityLog::Capacity events; the view follows without a reset.
    for (int i = 0; i < ActivityLog::Capacity + 5; ++i)
        engine.activity().record(QStringLiteral("session"), QStringLiteral("event %1").arg(i));
    QCOMPARE(model->rowCount(), ActivityLog::Capacity);
    QCOMPARE(model->index(0, 2).data().toString(), QStringLiteral("event %1").arg(ActivityLog::Capacity + 4));
    QCOMPARE(model->index(ActivityLog::Capacity - 1, 2).data().toString(), QStringLiteral("event 5"));
}

void tst_Tray::settingsLaunchAtLoginNotificationsAndIcon()
{
    QTemporaryDir config;
    qputenv("XDG_CONFIG_HOME", config.path().toUtf8());
    QTemporaryDir home;
    Engine engine(pathsFor(home.path()), fileStore());
    QVERIFY(engine.start().ok());
    TrayApplication tray(engine);
    const QString entry = config.path() + QStringLiteral("/autostart/io.isolation.Tray.desktop");
    QVERIFY(!QFile::exists(entry));

    tray.showSettings();
    QWidget *dialog = nullptr;
    QTRY_VERIFY((dialog = [] {
        for (QWidget *w : QApplication::topLevelWidgets())
            if (w->objectName() == QLatin1String("settingsDialog") && w->isVisible())
                return w;
        return static_cast<QWidget *>(nullptr);
    }()));
    auto *autostart = dialog->findChild<QCheckBox *>(QStringLiteral("launchAtLogin"));
    auto *conflicts = dialog->findChild<QCheckBox *>(QStringLiteral("notify_conflict"));
    auto *style = dialog->findChild<QComboBox *>(QStringLiteral("iconStyle"));
    QVERIFY(autostart && conflicts && style);
    QVERIFY(!autostart->isChecked());
    QVERIFY(conflicts->isChecked());
    const QImage colour = tray.trayIcon()->icon().pixmap(22, 22).toImage();
    autostart->setChecked(true);
    conflicts->setChecked(false);
    style->setCurrentIndex(style->findData(int(IconStyle::MonochromeLight)));
    // OK applies: the autostart entry starts a tray, the category is off, the icon is redrawn.
    dialog->findChild<QDialogButtonBox *>()->button(QDialogButtonBox::Ok)->click();
    QTRY_VERIFY(QFile::exists(entry));
    QFile file(entry);
    QVERIFY(file.open(QIODevice::ReadOnly));
    const QByteArray text = file.readAll();
    // Run from the build tree (no packaged entry installed): it starts this very program.
    const QByteArray exec = "Exec=" + QCoreApplication::applicationFilePath().toUtf8() + '\n';
    QVERIFY2(text.contains(exec), text.constData());
    QVERIFY(text.contains("X-GNOME-Autostart-enabled=true"));
    QVERIFY(!TrayPreferences(engine.settings()).notifies(QStringLiteral("conflict")));
    QVERIFY(TrayPreferences(engine.settings()).notifies(QStringLiteral("moved_on")));
    QCOMPARE(TrayPreferences(engine.settings()).iconStyle(), IconStyle::MonochromeLight);
    const QImage mono = tray.trayIcon()->icon().pixmap(22, 22).toImage();
    QVERIFY(mono != colour);
    int drawn = 0;
    for (int y = 0; y < mono.height(); ++y) {
        for (int x = 0; x < mono.width(); ++x) {
            const QColor c = mono.pixelColor(x, y);
            if (c.alpha() > 0) {
                ++drawn;
                QVERIFY2(c.hsvSaturation() < 40, qPrintable(c.name()));
            }
        }
    }
    QVERIFY(drawn > 20);

    // Switched back off: the entry goes.
    QString error;
    QVERIFY(TrayPreferences::setLaunchAtLogin(false, &error));
    QVERIFY(!QFile::exists(entry));
    qunsetenv("XDG_CONFIG_HOME");
}

void tst_Tray::trayFollowsEngineState()
{
    QTemporaryDir home;
    Engine engine(pathsFor(home.path()), fileStore());
    QVERIFY(engine.start().ok());
    QTRY_VERIFY(engine.stateReason().startsWith(QStringLiteral("Not paired")));
    TrayApplication tray(engine);
    QVERIFY(tray.trayIcon()->toolTip().contains(QStringLiteral("Not paired")));
    QAction *stateLine = tray.menu()->findChild<QAction *>(QStringLiteral("stateLine"));
    QVERIFY(stateLine);
    QVERIFY(!stateLine->isEnabled());
    QVERIFY(stateLine->text().startsWith(QStringLiteral("Not paired")));
    QVERIFY(!tray.trayIcon()->icon().isNull());
    engine.stop();
    QCOMPARE(stateLine->text(), QStringLiteral("Not running"));
}

void tst_Tray::pairByClicks()
{
    test::HubProcess hub;
    QVERIFY(hub.start({},
        {QStringLiteral("--poll-interval"), QStringLiteral("1"), QStringLiteral("--heartbeat-interval"),
            QStringLiteral("1")}));
    QTemporaryDir home;
    Engine engine(pathsFor(home.path()), fileStore());
    engine.settings().setHubUrl(hub.appUrl());
    QVERIFY(engine.start().ok());
    QTRY_COMPARE(engine.state(), EngineState::NotPaired);
    TrayApplication tray(engine);
    const QIcon notPairedIcon = tray.trayIcon()->icon();

    QAction *pair = tray.menu()->findChild<QAction *>(QStringLiteral("pairAction"));
    QVERIFY(pair && pair->isVisible() && pair->isEnabled());
    pair->trigger();
    auto findDialog = []() -> QWidget * {
        for (QWidget *w : QApplication::topLevelWidgets()) {
            if (w->objectName() == QLatin1String("pairingDialog") && w->isVisible())
                return w;
        }
        return nullptr;
    };
    QTRY_VERIFY(findDialog());
    QWidget *dialog = findDialog();
    auto *code = dialog->findChild<QLabel *>(QStringLiteral("pairingCode"));
    auto *qr = dialog->findChild<QLabel *>(QStringLiteral("pairingQr"));
    auto *countdown = dialog->findChild<QLabel *>(QStringLiteral("pairingCountdown"));
    QVERIFY(code && qr && countdown);
    const QRegularExpression format(QStringLiteral("^[BCDFGHJKLMNPQRSTVWXZ]{4}-[BCDFGHJKLMNPQRSTVWXZ]{4}$"));
    QTRY_VERIFY_WITH_TIMEOUT(format.match(code->text()).hasMatch(), 10000);
    QVERIFY(!qr->pixmap().isNull());
    QVERIFY(qr->pixmap().width() >= 150);
    QVERIFY(countdown->text().contains(QStringLiteral("expires in")));
    QVERIFY(dialog->findChild<QPushButton *>(QStringLiteral("openInBrowser"))->isEnabled());
    QVERIFY(dialog->findChild<QPushButton *>(QStringLiteral("copyLink"))->isEnabled());
    QCOMPARE(engine.state(), EngineState::Pairing);

    // The member approves in the browser; the dialog and the tray follow.
    QCOMPARE(test::submitApprovalPage(hub.appUrl(), code->text()).status, 200);
    auto *message = dialog->findChild<QLabel *>(QStringLiteral("pairingMessage"));
    QTRY_VERIFY_WITH_TIMEOUT(message->text().startsWith(QStringLiteral("Paired")), 20000);
    QTRY_COMPARE_WITH_TIMEOUT(engine.state(), EngineState::Online, 20000);
    QVERIFY(tray.trayIcon()->toolTip().contains(QStringLiteral("Online")));
    QVERIFY(!pair->isVisible());
    QVERIFY(tray.trayIcon()->icon().cacheKey() != notPairedIcon.cacheKey());
    dialog->close();
}

void tst_Tray::secondStartRaisesTheFirst()
{
    QTemporaryDir home;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert(QStringLiteral("ISOLATION_HOME"), home.path());
    env.insert(QStringLiteral("QT_QPA_PLATFORM"), QStringLiteral("offscreen"));

    QProcess first;
    first.setProcessEnvironment(env);
    first.start(test::trayBinary(), {});
    QVERIFY(first.waitForStarted());
    QTRY_VERIFY_WITH_TIMEOUT(QFileInfo::exists(home.path() + QStringLiteral("/run/engine.sock")), 30000);

    QProcess second;
    second.setProcessEnvironment(env);
    second.start(test::trayBinary(), {});
    QVERIFY(second.waitForFinished(30000));
    QCOMPARE(second.exitCode(), 0);
    QVERIFY(second.readAllStandardError().contains("already running"));

    QByteArray firstErr;
    QTRY_VERIFY_WITH_TIMEOUT((firstErr += first.readAllStandardError()).contains("asked to raise the window"), 10000);
    QCOMPARE(first.state(), QProcess::Running);

    ::kill(pid_t(first.processId()), SIGTERM);
    QVERIFY(first.waitForFinished(20000));
    QCOMPARE(first.exitStatus(), QProcess::NormalExit);
    QCOMPARE(first.exitCode(), 0);
    QVERIFY(!QFileInfo::exists(home.path() + QStringLiteral("/run/engine.sock")));
}

void tst_Tray::refusesWhenAnotherEngineOwnsTheState()
{
    QTemporaryDir home;
    Engine engine(pathsFor(home.path()), fileStore());
    QVERIFY(engine.start().ok());
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert(QStringLiteral("ISOLATION_HOME"), home.path());
    env.insert(QStringLiteral("QT_QPA_PLATFORM"), QStringLiteral("offscreen"));
    QProcess tray;
    tray.setProcessEnvironment(env);
    tray.start(test::trayBinary(), {});
    QTRY_VERIFY_WITH_TIMEOUT(tray.state() == QProcess::NotRunning, 30000);
    QCOMPARE(tray.exitCode(), 1);
    QVERIFY(tray.readAllStandardError().contains("already running"));
}

QTEST_MAIN(tst_Tray)
#include "tst_tray.moc"
