// The tray as a client of a separate engine (`isolation-server up`, tests/support/engineprocess.h):
// the window's tabs, the activity the engine records arriving through the event stream, settings,
// the icon and state line following the engine (and saying when it is gone), pairing by clicks,
// one tray per display, and a tray that attaches to a running engine instead of refusing it.
#include "browserapproval.h"
#include "engineprocess.h"
#include "enginemodel.h"
#include "hubprocess.h"
#include "autostart.h"
#include "diffview.h"
#include "mainwindow.h"
#include "notifier.h"
#include "trayapplication.h"
#include "traypreferences.h"

#include "core/paths.h"

#include <QAction>
#include <QApplication>
#include <QCheckBox>
#include <QComboBox>
#include <QDialog>
#include <QDialogButtonBox>
#include <QFile>
#include <QFileInfo>
#include <QImage>
#include <QElapsedTimer>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QPointer>
#include <QProcess>
#include <QPushButton>
#include <QRegularExpression>
#include <QSignalSpy>
#include <QSystemTrayIcon>
#include <QTableView>
#include <QTabWidget>
#include <QTextBlock>
#include <QTemporaryDir>
#include <QTest>

#include <cmath>
#include <csignal>
#include <memory>

using namespace isolation;

class tst_Tray final : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void windowHasTheSixTabs();
    void activityShowsEventsNewestFirst();
    void settingsLaunchAtLoginNotificationsAndIcon();
    void trayFollowsEngineState();
    void pauseNotificationsSurvivesRestart();
    void diffColoursAndLineNumbers();
    void healthWarningsReachTooltipAndWindow();
    void pairByClicks();
    void secondStartRaisesTheFirst();
    void attachesToTheEngineThatRuns();
};

namespace {

Paths pathsFor(const QString &home)
{
    QProcessEnvironment env;
    env.insert(QStringLiteral("ISOLATION_HOME"), home);
    return Paths::resolve(env).value();
}

// A real engine on `home` and the tray's model of it, attached.
struct Attached
{
    explicit Attached(const QString &home, const QString &hub = {})
        : engine(home)
    {
        if (!hub.isEmpty())
            engine.setHub(hub);
    }
    bool start()
    {
        if (!engine.start())
            return false;
        model = std::make_unique<EngineModel>(pathsFor(engine.home()));
        model->connection().attach();
        for (int i = 0; i < 400 && !model->attached(); ++i)
            QTest::qWait(50);
        return model->attached();
    }
    test::EngineProcess engine;
    std::unique_ptr<EngineModel> model;
};

} // namespace

void tst_Tray::windowHasTheSixTabs()
{
    QTemporaryDir home;
    Attached a(home.path());
    QVERIFY(a.start());
    QTRY_VERIFY(a.model->stateReason().startsWith(QStringLiteral("Not paired")));
    TrayApplication tray(*a.model);
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
    // And a banner above the tabs offers to pair it.
    auto *banner = tray.window()->findChild<QWidget *>(QStringLiteral("pairBanner"));
    QVERIFY(banner && banner->isVisible());
    QVERIFY(
        banner->findChild<QLabel *>(QStringLiteral("pairBannerText"))->text().contains(QStringLiteral("not paired")));
    QVERIFY(banner->findChild<QPushButton *>(QStringLiteral("pairButton"))->isVisible());
}

void tst_Tray::activityShowsEventsNewestFirst()
{
    test::HubProcess hub;
    QVERIFY(hub.start());
    QTemporaryDir home;
    Attached a(home.path(), hub.appUrl().toString());
    QVERIFY(a.start());
    QTRY_VERIFY(a.model->stateReason().startsWith(QStringLiteral("Not paired")));
    TrayApplication tray(*a.model);
    auto *view = tray.window()->findChild<QTableView *>(QStringLiteral("activityView"));
    auto *kind = tray.window()->findChild<QComboBox *>(QStringLiteral("activityKind"));
    auto *search = tray.window()->findChild<QLineEdit *>(QStringLiteral("activitySearch"));
    QVERIFY(view && kind && search);
    QAbstractItemModel *model = view->model();
    // The engine's start is there already (from the snapshot): it went from stopped to not paired.
    QVERIFY(model->rowCount() >= 1);
    QVERIFY(model->index(0, 2).data().toString().startsWith(QStringLiteral("Not paired")));
    QCOMPARE(model->index(0, 1).data().toString(), QStringLiteral("Connection"));

    // A pairing the engine starts and cancels: its entries arrive through the event stream.
    bool asked = false;
    a.model->client().post(QStringLiteral("/v1/pair"), {}, [&asked](EngineClient::Answer r) { asked = r.ok(); });
    QTRY_VERIFY_WITH_TIMEOUT(asked, 20000);
    QTRY_COMPARE(model->index(0, 1).data().toString(), QStringLiteral("Pairing"));
    const int pairingRows = [&] {
        int n = 0;
        for (int r = 0; r < model->rowCount(); ++r)
            n += model->index(r, 1).data().toString() == QLatin1String("Pairing");
        return n;
    }();
    QVERIFY(pairingRows >= 1);
    const int all = model->rowCount();
    QVERIFY(all > pairingRows);

    kind->setCurrentIndex(kind->findData(QStringLiteral("pairing")));
    QCOMPARE(model->rowCount(), pairingRows);
    kind->setCurrentIndex(kind->findData(QStringLiteral("connection")));
    QCOMPARE(model->rowCount(), all - pairingRows);
    kind->setCurrentIndex(0);
    QCOMPARE(model->rowCount(), all);
    search->setText(QStringLiteral("NOT PAIRED"));
    QVERIFY(model->rowCount() >= 1 && model->rowCount() < all);
    search->clear();

    // The tray's copy keeps the newest ActivityLog::Capacity entries; the view follows without a
    // reset (the copy is the tray's own: filling it is the view's test, not the engine's).
    for (int i = 0; i < ActivityLog::Capacity + 5; ++i)
        a.model->activity().record(QStringLiteral("session"), QStringLiteral("event %1").arg(i));
    QCOMPARE(model->rowCount(), ActivityLog::Capacity);
    QCOMPARE(model->index(0, 2).data().toString(), QStringLiteral("event %1").arg(ActivityLog::Capacity + 4));
    QCOMPARE(model->index(ActivityLog::Capacity - 1, 2).data().toString(), QStringLiteral("event 5"));
}

void tst_Tray::settingsLaunchAtLoginNotificationsAndIcon()
{
    QTemporaryDir config;
    qputenv("XDG_CONFIG_HOME", config.path().toUtf8());
    QTemporaryDir home;
    Attached a(home.path());
    QVERIFY(a.start());
    TrayApplication tray(*a.model);
    // No systemd user manager on this desktop: the engine starts through an autostart entry too.
    // The programs as a package installs them (a path with a space, to see the entry quote it).
    tray.autostart()->setSystemctlProgram(QStringLiteral("/nonexistent/systemctl"));
    tray.autostart()->setEngineProgram(QStringLiteral("/opt/Isolation Apps/isolation-server"));
    tray.autostart()->setTrayProgram(QStringLiteral("/usr/bin/isolation-tray"));
    const QString trayEntry = config.path() + QStringLiteral("/autostart/io.isolation.Tray.desktop");
    const QString engineEntry = config.path() + QStringLiteral("/autostart/io.isolation.Engine.desktop");
    QVERIFY(!QFile::exists(trayEntry) && !QFile::exists(engineEntry));

    auto openSettings = [&tray] {
        tray.showSettings();
        QWidget *dialog = nullptr;
        (void)QTest::qWaitFor([&dialog] {
            for (QWidget *w : QApplication::topLevelWidgets())
                if (w->objectName() == QLatin1String("settingsDialog") && w->isVisible())
                    dialog = w;
            return dialog != nullptr;
        });
        return dialog;
    };
    auto read = [](const QString &path) {
        QFile file(path);
        return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
    };
    QWidget *dialog = openSettings();
    QVERIFY(dialog);
    auto *engineAtLogin = dialog->findChild<QCheckBox *>(QStringLiteral("engineAtLogin"));
    auto *trayAtLogin = dialog->findChild<QCheckBox *>(QStringLiteral("trayAtLogin"));
    auto *how = dialog->findChild<QLabel *>(QStringLiteral("engineAtLoginHow"));
    auto *conflicts = dialog->findChild<QCheckBox *>(QStringLiteral("notify_conflict"));
    auto *style = dialog->findChild<QComboBox *>(QStringLiteral("iconStyle"));
    QVERIFY(engineAtLogin && trayAtLogin && how && conflicts && style);
    // The engine's box waits for the answer of how this desktop starts programs.
    QTRY_VERIFY(engineAtLogin->isEnabled());
    QVERIFY2(how->text().contains(engineEntry), qPrintable(how->text()));
    QVERIFY(!engineAtLogin->isChecked());
    QVERIFY(!trayAtLogin->isChecked());
    QVERIFY(conflicts->isChecked());
    const QImage colour = tray.trayIcon()->icon().pixmap(22, 22).toImage();
    engineAtLogin->setChecked(true);
    trayAtLogin->setChecked(true);
    conflicts->setChecked(false);
    style->setCurrentIndex(style->findData(int(IconStyle::MonochromeLight)));
    // OK applies: an entry starts the engine, another the tray, the category is off, the icon is redrawn.
    dialog->findChild<QDialogButtonBox *>()->button(QDialogButtonBox::Ok)->click();
    QTRY_VERIFY(QFile::exists(engineEntry));
    QVERIFY(QFile::exists(trayEntry));
    const QByteArray engineText = read(engineEntry);
    QVERIFY2(engineText.contains("Exec=\"/opt/Isolation Apps/isolation-server\" up\n"), engineText.constData());
    QVERIFY(engineText.contains("X-GNOME-Autostart-enabled=true"));
    const QByteArray trayText = read(trayEntry);
    QVERIFY2(trayText.contains("Exec=/usr/bin/isolation-tray\n"), trayText.constData());
    QVERIFY(trayText.contains("X-GNOME-Autostart-enabled=true"));
    QVERIFY(!TrayPreferences(a.model->settings()).notifies(QStringLiteral("conflict")));
    QVERIFY(TrayPreferences(a.model->settings()).notifies(QStringLiteral("moved_on")));
    QCOMPARE(TrayPreferences(a.model->settings()).iconStyle(), IconStyle::MonochromeLight);
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

    // Opened again, the dialog reads both back; the tray alone switched off: only its entry goes.
    QPointer<QWidget> closed(dialog);
    QTRY_VERIFY(closed.isNull()); // OK closes and deletes it
    dialog = openSettings();
    QVERIFY(dialog);
    engineAtLogin = dialog->findChild<QCheckBox *>(QStringLiteral("engineAtLogin"));
    trayAtLogin = dialog->findChild<QCheckBox *>(QStringLiteral("trayAtLogin"));
    QTRY_VERIFY(engineAtLogin->isEnabled());
    QVERIFY(engineAtLogin->isChecked());
    QVERIFY(trayAtLogin->isChecked());
    trayAtLogin->setChecked(false);
    dialog->findChild<QDialogButtonBox *>()->button(QDialogButtonBox::Ok)->click();
    QTRY_VERIFY(!QFile::exists(trayEntry));
    QTest::qWait(100);
    QVERIFY(QFile::exists(engineEntry));
    // And the engine switched off: its entry goes.
    closed = dialog;
    QTRY_VERIFY(closed.isNull());
    dialog = openSettings();
    QVERIFY(dialog);
    engineAtLogin = dialog->findChild<QCheckBox *>(QStringLiteral("engineAtLogin"));
    QTRY_VERIFY(engineAtLogin->isEnabled());
    engineAtLogin->setChecked(false);
    dialog->findChild<QDialogButtonBox *>()->button(QDialogButtonBox::Ok)->click();
    QTRY_VERIFY(!QFile::exists(engineEntry));
    QVERIFY(!QFile::exists(trayEntry));
    qunsetenv("XDG_CONFIG_HOME");
}

void tst_Tray::trayFollowsEngineState()
{
    QTemporaryDir home;
    Attached a(home.path());
    QVERIFY(a.start());
    QTRY_VERIFY(a.model->stateReason().startsWith(QStringLiteral("Not paired")));
    TrayApplication tray(*a.model);
    QVERIFY(tray.trayIcon()->toolTip().contains(QStringLiteral("Not paired")));
    QAction *stateLine = tray.menu()->findChild<QAction *>(QStringLiteral("stateLine"));
    QVERIFY(stateLine);
    QVERIFY(!stateLine->isEnabled());
    QVERIFY(stateLine->text().startsWith(QStringLiteral("Not paired")));
    QVERIFY(!tray.trayIcon()->icon().isNull());
    QAction *start = tray.menu()->findChild<QAction *>(QStringLiteral("startEngineAction"));
    QVERIFY(start && !start->isVisible());
    // The engine stops (not the tray's doing): the tray says so and offers Start; it starts none.
    QCOMPARE(a.engine.stop(), 0);
    QTRY_VERIFY2_WITH_TIMEOUT(stateLine->text().startsWith(QStringLiteral("Engine not running")), qPrintable(stateLine->text()), 5000);
    QVERIFY(tray.trayIcon()->toolTip().contains(QStringLiteral("Engine not running")));
    QVERIFY(start->isVisible());
    QTest::qWait(500);
    QVERIFY(!a.model->attached());
    QCOMPARE(a.engine.cli({QStringLiteral("status")}), 3);
}

// "Pause notifications for an hour" outlives a restart of the tray (kept in the settings file),
// holds back the news a tray would show, and a pause whose hour is over is not taken.
void tst_Tray::pauseNotificationsSurvivesRestart()
{
    QTemporaryDir home;
    Attached a(home.path());
    QVERIFY(a.start());
    QTRY_VERIFY(a.model->stateReason().startsWith(QStringLiteral("Not paired")));
    const QDateTime before = QDateTime::currentDateTimeUtc();
    {
        TrayApplication first(*a.model);
        QAction *pause = first.menu()->findChild<QAction *>(QStringLiteral("pauseNotifications"));
        QVERIFY(pause && pause->isCheckable() && !pause->isChecked());
        QVERIFY(!first.notificationsPaused());
        pause->trigger();
        QVERIFY(pause->isChecked());
        QVERIFY(first.notificationsPaused());
    }
    QFile file(a.model->settings().fileName());
    QVERIFY(file.open(QIODevice::ReadOnly));
    QVERIFY2(file.readAll().contains("notificationsPausedUntil="), qPrintable(file.fileName()));
    const QDateTime until = TrayPreferences(a.model->settings()).notificationsPausedUntil();
    QVERIFY(until >= before.addSecs(3599) && until <= QDateTime::currentDateTimeUtc().addSecs(3600));

    // The tray starts again (a model of its own, the settings read again): still paused.
    EngineModel model(pathsFor(home.path()));
    model.connection().attach();
    QTRY_VERIFY_WITH_TIMEOUT(model.attached(), 20000);
    auto second = std::make_unique<TrayApplication>(model);
    QAction *pause = second->menu()->findChild<QAction *>(QStringLiteral("pauseNotifications"));
    QVERIFY(pause->isChecked());
    QVERIFY(second->notificationsPaused());
    // The engine stops: the notification that says so is held back.
    QSignalSpy shown(second->notifier(), &Notifier::shown);
    QAction *stateLine = second->menu()->findChild<QAction *>(QStringLiteral("stateLine"));
    QCOMPARE(a.engine.stop(), 0);
    QTRY_VERIFY_WITH_TIMEOUT(stateLine->text().startsWith(QStringLiteral("Engine not running")), 5000);
    QTest::qWait(500);
    QVERIFY(shown.isEmpty());
    // Unticked: gone from the settings too.
    pause->trigger();
    QVERIFY(!pause->isChecked() && !second->notificationsPaused());
    QVERIFY(!TrayPreferences(model.settings()).notificationsPausedUntil().isValid());
    second.reset();

    // A pause whose hour ended while no tray ran is not taken.
    TrayPreferences(model.settings()).setNotificationsPausedUntil(QDateTime::currentDateTimeUtc().addSecs(-60));
    TrayApplication third(model);
    QVERIFY(!third.menu()->findChild<QAction *>(QStringLiteral("pauseNotifications"))->isChecked());
    QVERIFY(!third.notificationsPaused());
}

namespace {
// WCAG 2 contrast ratio of two colours (1 to 21; 4.5 is enough for text).
double contrast(const QColor &a, const QColor &b)
{
    const auto luminance = [](const QColor &c) {
        const auto lin = [](double v) { return v <= 0.03928 ? v / 12.92 : std::pow((v + 0.055) / 1.055, 2.4); };
        return 0.2126 * lin(c.redF()) + 0.7152 * lin(c.greenF()) + 0.0722 * lin(c.blueF());
    };
    const double la = luminance(a), lb = luminance(b);
    return (std::max(la, lb) + 0.05) / (std::min(la, lb) + 0.05);
}
} // namespace

// The Changes tab's diff, as GitHub Desktop shows one: added lines on green, removed on red, hunk
// headers on blue, old and new line numbers in the gutters, text readable on each in a light and a
// dark palette; a removed "---" line and an added "+++" line are lines, not file headers.
void tst_Tray::diffColoursAndLineNumbers()
{
    const QString diff = QStringLiteral("diff --git a/f.txt b/f.txt\n"
                                        "index 3b18e51..9c2a709 100644\n"
                                        "--- a/f.txt\n"
                                        "+++ b/f.txt\n"
                                        "@@ -1,4 +1,4 @@\n"
                                        " one\n"
                                        "-two\n"
                                        "---three\n"
                                        "+TWO\n"
                                        "+++ not a header\n"
                                        " four\n"
                                        "@@ -10,2 +10,3 @@ section\n"
                                        " ten\n"
                                        "+ten and a half\n"
                                        " eleven\n"
                                        "\\ No newline at end of file\n");
    using K = DiffView::Kind;
    const QList<DiffView::Line> expected {{K::File, 0, 0}, {K::File, 0, 0}, {K::File, 0, 0}, {K::File, 0, 0},
        {K::Hunk, 0, 0}, {K::Context, 1, 1}, {K::Removed, 2, 0}, {K::Removed, 3, 0}, {K::Added, 0, 2}, {K::Added, 0, 3},
        {K::Context, 4, 4}, {K::Hunk, 0, 0}, {K::Context, 10, 10}, {K::Added, 0, 11}, {K::Context, 11, 12},
        {K::Note, 0, 0}};

    QPalette light;
    light.setColor(QPalette::Base, Qt::white);
    light.setColor(QPalette::Text, Qt::black);
    light.setColor(QPalette::AlternateBase, QColor(0xf6, 0xf8, 0xfa));
    QPalette dark;
    dark.setColor(QPalette::Base, QColor(0x1e, 0x1e, 0x1e));
    dark.setColor(QPalette::Text, QColor(0xe6, 0xe6, 0xe6));
    dark.setColor(QPalette::AlternateBase, QColor(0x2d, 0x2d, 0x2d));

    DiffView view;
    view.resize(500, 420);
    view.setDiff(diff, QStringLiteral("(the diff goes on)"));
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    QVERIFY(view.toPlainText().startsWith(QStringLiteral("diff --git a/f.txt b/f.txt\n")));
    QVERIFY(view.toPlainText().contains(QStringLiteral("\n+TWO\n")));
    for (const QPalette &palette : {light, dark}) {
        view.setPalette(palette);
        QApplication::processEvents();
        const DiffView::Colours colours = DiffView::coloursFor(palette);
        const QColor base = palette.color(QPalette::Base);
        const QColor text = palette.color(QPalette::Text);
        // Green, red and blue grounds, each distinct from the base, the text readable on all.
        QVERIFY(colours.added.green() > colours.added.red() && colours.added.green() > colours.added.blue());
        QVERIFY(colours.removed.red() > colours.removed.green() && colours.removed.red() > colours.removed.blue());
        QVERIFY(colours.hunk.blue() > colours.hunk.red() && colours.hunk.blue() >= colours.hunk.green());
        for (const QColor &ground : {colours.added, colours.removed, colours.hunk}) {
            QVERIFY(ground != base);
            QVERIFY2(contrast(text, ground) >= 7, qPrintable(ground.name()));
            QVERIFY2(contrast(colours.gutterText, ground.darker(106)) >= 3, qPrintable(ground.name()));
        }
        QVERIFY2(contrast(colours.hunkText, colours.hunk) >= 4.5, qPrintable(colours.hunkText.name()));
        QVERIFY(contrast(colours.gutterText, palette.color(QPalette::AlternateBase)) >= 3);

        // The document: one block per line, its kind's ground, its numbers.
        QTextDocument *doc = view.document();
        QCOMPARE(view.lineCount(), expected.size() + 1);
        QCOMPARE(doc->blockCount(), expected.size() + 1);
        for (int i = 0; i < expected.size(); ++i) {
            const DiffView::Line got = view.line(i);
            QCOMPARE(int(got.kind), int(expected.at(i).kind));
            QCOMPARE(got.oldLine, expected.at(i).oldLine);
            QCOMPARE(got.newLine, expected.at(i).newLine);
            const QBrush ground = doc->findBlockByNumber(i).blockFormat().background();
            const K kind = expected.at(i).kind;
            if (kind == K::Added)
                QCOMPARE(ground.color(), colours.added);
            else if (kind == K::Removed)
                QCOMPARE(ground.color(), colours.removed);
            else if (kind == K::Hunk)
                QCOMPARE(ground.color(), colours.hunk);
            else
                QCOMPARE(ground.style(), Qt::NoBrush);
        }
        QCOMPARE(doc->findBlockByNumber(7).text(), QStringLiteral("---three"));
        QCOMPARE(doc->findBlockByNumber(9).text(), QStringLiteral("+++ not a header"));
        QCOMPARE(int(view.line(int(expected.size())).kind), int(K::Note));
        QCOMPARE(doc->lastBlock().text(), QStringLiteral("(the diff goes on)"));

        // As drawn: the ground runs under the whole line, and the gutters carry it too.
        const QImage image = view.grab().toImage();
        QTextCursor added(doc->findBlockByNumber(8));
        const QRect row = view.cursorRect(added).translated(view.viewport()->pos());
        const int y = row.center().y();
        QCOMPARE(image.pixelColor(view.viewport()->geometry().right() - 4, y).rgb(), colours.added.rgb());
        QCOMPARE(image.pixelColor(view.viewport()->geometry().left() - view.gutterWidth() + 1, y).rgb(),
            colours.added.darker(106).rgb());
        QTextCursor context(doc->findBlockByNumber(5));
        const int contextY = view.cursorRect(context).translated(view.viewport()->pos()).center().y();
        QCOMPARE(image.pixelColor(view.viewport()->geometry().right() - 4, contextY).rgb(), base.rgb());
    }

    // A message instead of a diff: no gutters, no grounds.
    view.setMessage(QStringLiteral("f.bin is a binary file."));
    QCOMPARE(view.gutterWidth(), 0);
    QCOMPARE(view.document()->blockCount(), 1);
    QCOMPARE(int(view.line(0).kind), int(K::Note));
    QCOMPARE(view.document()->firstBlock().blockFormat().background().style(), Qt::NoBrush);
}

// A real engine whose runtime cannot reach Docker (DOCKER_HOST names no socket): after its delay
// (5 s) the engine raises runtime_unhealthy, and the tray shows it in its tooltip and under the
// window's state line, as the engine said it.
void tst_Tray::healthWarningsReachTooltipAndWindow()
{
    QTemporaryDir home;
    Attached a(home.path());
    a.engine.setRuntime(true);
    a.engine.environment().insert(QStringLiteral("DOCKER_HOST"), QStringLiteral("unix:///nonexistent/docker.sock"));
    QElapsedTimer since;
    since.start();
    QVERIFY(a.start());
    TrayApplication tray(*a.model);
    tray.showWindow();
    auto *warnings = tray.window()->findChild<QLabel *>(QStringLiteral("warnings"));
    QVERIFY(warnings);
    if (since.elapsed() < 4000) // not yet: the cause has not held for its delay
        QVERIFY2(a.model->status().warnings.isEmpty() && warnings->isHidden(), qPrintable(warnings->text()));
    QTRY_VERIFY_WITH_TIMEOUT(!a.model->status().warnings.isEmpty(), 30000);
    QVERIFY(since.elapsed() >= 5000);
    const api::Warning w = a.model->status().warnings.first();
    QCOMPARE(w.code, QStringLiteral("runtime_unhealthy"));
    QVERIFY(w.error);
    QVERIFY2(w.message.startsWith(QStringLiteral("Sessions cannot launch here")), qPrintable(w.message));
    QTRY_VERIFY(tray.trayIcon()->toolTip().contains(QStringLiteral("Error: ") + w.message));
    QVERIFY(warnings->isVisible());
    QVERIFY2(warnings->text().startsWith(QStringLiteral("Error: ") + w.message + QStringLiteral(" (since ")),
        qPrintable(warnings->text()));
    // The same warning through `status`.
    QString out;
    QCOMPARE(a.engine.cli({QStringLiteral("status")}, &out), 0);
    QVERIFY2(out.contains(QStringLiteral("(runtime_unhealthy, since ")), qPrintable(out));
}

void tst_Tray::pairByClicks()
{
    test::HubProcess hub;
    QVERIFY(hub.start({},
        {QStringLiteral("--poll-interval"), QStringLiteral("1"), QStringLiteral("--heartbeat-interval"),
            QStringLiteral("1")}));
    QTemporaryDir home;
    Attached a(home.path(), hub.appUrl().toString());
    QVERIFY(a.start());
    QTRY_COMPARE(a.model->state(), EngineState::NotPaired);
    TrayApplication tray(*a.model);
    const QIcon notPairedIcon = tray.trayIcon()->icon();

    QAction *pair = tray.menu()->findChild<QAction *>(QStringLiteral("pairAction"));
    QVERIFY(pair && pair->isVisible() && pair->isEnabled());
    // The window offers the same pairing as the menu: a banner above the tabs, with Pair.
    tray.showWindow();
    QVERIFY(QTest::qWaitForWindowExposed(tray.window()));
    auto *banner = tray.window()->findChild<QWidget *>(QStringLiteral("pairBanner"));
    QVERIFY(banner && banner->isVisible());
    auto *pairButton = banner->findChild<QPushButton *>(QStringLiteral("pairButton"));
    QVERIFY(pairButton && pairButton->isEnabled());
    QTest::mouseClick(pairButton, Qt::LeftButton);
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
    QTRY_COMPARE(a.model->state(), EngineState::Pairing);

    // The member approves in the browser; the dialog and the tray follow.
    QCOMPARE(test::submitApprovalPage(hub.appUrl(), code->text()).status, 200);
    auto *message = dialog->findChild<QLabel *>(QStringLiteral("pairingMessage"));
    QTRY_VERIFY_WITH_TIMEOUT(message->text().startsWith(QStringLiteral("Paired")), 20000);
    QTRY_COMPARE_WITH_TIMEOUT(a.model->state(), EngineState::Online, 20000);
    QVERIFY(tray.trayIcon()->toolTip().contains(QStringLiteral("Online")));
    QVERIFY(!pair->isVisible());
    QVERIFY(!banner->isVisible());
    QVERIFY(tray.trayIcon()->icon().cacheKey() != notPairedIcon.cacheKey());
    dialog->close();
}

void tst_Tray::secondStartRaisesTheFirst()
{
    QTemporaryDir home;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert(QStringLiteral("ISOLATION_HOME"), home.path());
    env.insert(QStringLiteral("QT_QPA_PLATFORM"), QStringLiteral("offscreen"));
    env.insert(QStringLiteral("ISOLATION_ENGINE_ARGS"), QStringLiteral("up --credential-store file"));

    // No engine runs: the first tray starts one, detached.
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

    // The tray quits; the engine it started stays.
    ::kill(pid_t(first.processId()), SIGTERM);
    QVERIFY(first.waitForFinished(20000));
    QCOMPARE(first.exitStatus(), QProcess::NormalExit);
    QVERIFY2(first.exitCode() == 0, QByteArray(firstErr + first.readAllStandardError()).right(3000).constData());
    test::EngineProcess cli(home.path());
    QCOMPARE(cli.cli({QStringLiteral("status")}), 0);
    QCOMPARE(cli.cli({QStringLiteral("down")}), 0);
    QCOMPARE(cli.cli({QStringLiteral("status")}), 3);
}

void tst_Tray::attachesToTheEngineThatRuns()
{
    // Before, a tray refused to start beside a running engine; now it attaches to it.
    QTemporaryDir home;
    test::EngineProcess engine(home.path());
    QVERIFY(engine.start());
    QProcessEnvironment env = engine.environment();
    env.insert(QStringLiteral("QT_QPA_PLATFORM"), QStringLiteral("offscreen"));
    QProcess tray;
    tray.setProcessEnvironment(env);
    tray.start(test::trayBinary(), {});
    QVERIFY(tray.waitForStarted());
    const QString log = QFileInfo(pathsFor(home.path()).logFile()).absolutePath() + QStringLiteral("/tray.log");
    const QByteArray attached = "attached to the engine, pid " + QByteArray::number(engine.pid());
    QTRY_VERIFY_WITH_TIMEOUT(
        [&] {
            QFile f(log);
            return f.open(QIODevice::ReadOnly) && f.readAll().contains(attached);
        }(),
        20000);
    QCOMPARE(tray.state(), QProcess::Running);
    ::kill(pid_t(tray.processId()), SIGTERM);
    QVERIFY(tray.waitForFinished(20000));
    QCOMPARE(tray.exitCode(), 0);
    QVERIFY(engine.running());
    QCOMPARE(engine.cli({QStringLiteral("status")}), 0);
}

QTEST_MAIN(tst_Tray)
#include "tst_tray.moc"
