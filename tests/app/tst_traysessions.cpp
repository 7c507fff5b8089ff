// The tray's workspace tabs against a real engine paired with the real hub, checked with the
// real git CLI: start sessions, save a selection of files (the rest stays uncommitted), preview a
// diff, another session saving first (412: badge and notification), a sync that conflicts (badge
// that stays until resolved), leaving markers, resolving them in the file, saving to finish; the
// warm cache listed and evicted; Finish… from the tray menu, asking before unsaved work goes.
// Leaves a screenshot of each tab.
#include "../workspace/gitcli.h"
#include "changespage.h"
#include "hubprocess.h"
#include "mainwindow.h"
#include "notifier.h"
#include "pairedserver.h"
#include "sessionpicker.h"
#include "sessionscontroller.h"
#include "trayapplication.h"

#include "core/paths.h"
#include "engine.h"
#include "sessions/sessionmanager.h"

#include <QAction>
#include <QApplication>
#include <QDir>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QMessageBox>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSignalSpy>
#include <QSystemTrayIcon>
#include <QTableWidget>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QTest>
#include <QTreeWidget>

using namespace isolation;
using namespace isolation::test;

class tst_TraySessions final : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void cleanupTestCase();
    void saveSelectionMovedOnConflictResolve();
    void finishFromTheMenuAsksAboutUnsavedWork();

private:
    template<typename T>
    T *find(const char *name) const
    {
        return m_tray->window()->findChild<T *>(QLatin1String(name));
    }
    void shot(const char *tab, const QString &name);
    QString newSession();
    static bool write(const QString &file, const QByteArray &bytes) { return GitCli::writeFile(file, bytes); }
    QString mainFile(const SessionSnapshot &s, const QString &path) const;

    HubProcess m_hub;
    QTemporaryDir m_home;
    std::unique_ptr<Engine> m_engine;
    std::unique_ptr<TrayApplication> m_tray;
    QString m_shots;
};

void tst_TraySessions::initTestCase()
{
    QVERIFY(m_hub.start({}, {QStringLiteral("--poll-interval"), QStringLiteral("1")}));
    QVERIFY(pairServer(m_hub.appUrl(), m_home.path(), QStringLiteral("tray-sessions")).has_value());
    QCOMPARE(m_hub.admin({QStringLiteral("workspace"), QStringLiteral("create"), QStringLiteral("demo")}), 0);
    QProcessEnvironment env;
    env.insert(QStringLiteral("ISOLATION_HOME"), m_home.path());
    EngineOptions options;
    options.credentialStore = CredentialStoreKind::File;
    m_engine = std::make_unique<Engine>(Paths::resolve(env).value(), options);
    QVERIFY(m_engine->start().ok());
    QTRY_COMPARE_WITH_TIMEOUT(m_engine->state(), EngineState::Online, 20000);
    m_tray = std::make_unique<TrayApplication>(*m_engine);
    m_tray->showWindow();
    m_tray->window()->resize(960, 600);
    QVERIFY(QTest::qWaitForWindowExposed(m_tray->window()));
    QTRY_VERIFY(m_tray->sessions()->paired());
    m_shots = qEnvironmentVariable("ISOLATION_TEST_OUTPUT", QDir::tempPath()) + QStringLiteral("/screenshots");
    QDir().mkpath(m_shots);
}

void tst_TraySessions::cleanupTestCase()
{
    m_tray.reset();
    if (m_engine)
        m_engine->stop();
    m_engine.reset();
}

void tst_TraySessions::shot(const char *tab, const QString &name)
{
    m_tray->window()->showTab(QLatin1String(tab));
    QTest::qWait(50);
    QVERIFY(m_tray->window()->grab().save(m_shots + QStringLiteral("/tray-en-%1.png").arg(name)));
}

QString tst_TraySessions::newSession()
{
    SessionsController *sessions = m_tray->sessions();
    QSignalSpy created(sessions, &SessionsController::created);
    m_tray->window()->showTab(QStringLiteral("sessionsTab"));
    find<QLineEdit>("newSessionWorkspace")->setText(QStringLiteral("demo"));
    auto *button = find<QPushButton>("newSession");
    if (!button->isEnabled())
        return {};
    QTest::mouseClick(button, Qt::LeftButton);
    if (!created.wait(60000))
        return {};
    const QString id = created.first().first().toString();
    const bool ready = QTest::qWaitFor(
        [&] { return sessions->snapshot(id) && sessions->snapshot(id)->state == SessionState::Ready; }, 30000);
    return ready ? id : QString();
}

QString tst_TraySessions::mainFile(const SessionSnapshot &s, const QString &path) const
{
    const QString gitDir = QFileInfo(s.workTree).dir().filePath(QStringLiteral("git"));
    return QString::fromUtf8(GitCli::inRepo(gitDir, {QStringLiteral("show"), QStringLiteral("main:") + path}).out);
}

void tst_TraySessions::saveSelectionMovedOnConflictResolve()
{
    SessionsController *sessions = m_tray->sessions();
    const QString a = newSession();
    QVERIFY(!a.isEmpty());
    const QString b = newSession();
    QVERIFY(!b.isEmpty());
    QCOMPARE(find<QTableWidget>("sessionsView")->rowCount(), 2);
    const QString workA = sessions->snapshot(a)->workTree;
    const QString workB = sessions->snapshot(b)->workTree;

    // --- Save a selection: two of three files; the third stays uncommitted.
    QVERIFY(write(workA + QStringLiteral("/a.txt"), "one\ntwo\nthree\n"));
    QVERIFY(write(workA + QStringLiteral("/b.txt"), "bee\n"));
    QVERIFY(write(workA + QStringLiteral("/c.txt"), "not yet\n"));
    m_tray->window()->showTab(QStringLiteral("changesTab"), a);
    auto *page = find<ChangesPage>("changesTab");
    QCOMPARE(page->picker()->currentSession(), a);
    QTest::mouseClick(find<QPushButton>("changesRefresh"), Qt::LeftButton);
    auto *files = find<QTreeWidget>("changesFiles");
    QTRY_COMPARE_WITH_TIMEOUT(files->topLevelItemCount(), 3, 20000);
    auto *saveSelected = find<QPushButton>("saveSelected");
    QVERIFY(saveSelected->isEnabled());
    for (int i = 0; i < 3; ++i) {
        if (files->topLevelItem(i)->data(0, Qt::UserRole).toString() == QLatin1String("c.txt"))
            files->topLevelItem(i)->setCheckState(0, Qt::Unchecked);
    }
    QCOMPARE(page->checkedFiles(), (QStringList {QStringLiteral("a.txt"), QStringLiteral("b.txt")}));
    // The diff of the unticked file, computed on the session's worker.
    for (int i = 0; i < 3; ++i) {
        if (files->topLevelItem(i)->data(0, Qt::UserRole).toString() == QLatin1String("c.txt"))
            files->setCurrentItem(files->topLevelItem(i));
    }
    QTRY_VERIFY2(find<QPlainTextEdit>("changesDiff")->toPlainText().contains(QStringLiteral("+not yet")),
        qPrintable(find<QPlainTextEdit>("changesDiff")->toPlainText()));
    shot("changesTab", QStringLiteral("changes"));
    find<QLineEdit>("changesMessage")->setText(QStringLiteral("two of three"));
    QSignalSpy saved(sessions, &SessionsController::saved);
    QTest::mouseClick(saveSelected, Qt::LeftButton);
    QVERIFY(saved.wait(60000));
    QCOMPARE(mainFile(*sessions->snapshot(a), QStringLiteral("a.txt")), QStringLiteral("one\ntwo\nthree\n"));
    QCOMPARE(mainFile(*sessions->snapshot(a), QStringLiteral("b.txt")), QStringLiteral("bee\n"));
    QVERIFY(mainFile(*sessions->snapshot(a), QStringLiteral("c.txt")).isEmpty());
    QTRY_COMPARE_WITH_TIMEOUT(files->topLevelItemCount(), 1, 20000);
    QCOMPARE(files->topLevelItem(0)->data(0, Qt::UserRole).toString(), QStringLiteral("c.txt"));

    // --- Another session saved first: B's save is refused (412), the tray says so once.
    QSignalSpy shown(m_tray->notifier(), &Notifier::shown);
    QVERIFY(write(workB + QStringLiteral("/from-b.txt"), "b\n"));
    m_tray->window()->showTab(QStringLiteral("sessionsTab"), b);
    QSignalSpy movedOn(sessions, &SessionsController::movedOn);
    QTest::mouseClick(find<QPushButton>("sessionSaveAll"), Qt::LeftButton);
    QVERIFY(movedOn.wait(60000));
    QVERIFY(sessions->anyMovedOn());
    QTRY_VERIFY(!shown.isEmpty());
    QCOMPARE(shown.first().first().toString(), QStringLiteral("moved_on"));
    QVERIFY(m_tray->trayIcon()->toolTip().contains(QStringLiteral("Another session saved first")));
    shot("sessionsTab", QStringLiteral("sessions"));

    // Sync, then save: both go through, the badge goes.
    QSignalSpy synced(sessions, &SessionsController::synced);
    QTRY_VERIFY(find<QPushButton>("sessionSync")->isEnabled());
    QTest::mouseClick(find<QPushButton>("sessionSync"), Qt::LeftButton);
    QVERIFY(synced.wait(60000));
    QVERIFY(!sessions->anyMovedOn());
    saved.clear();
    QTRY_VERIFY(find<QPushButton>("sessionSaveAll")->isEnabled());
    QTest::mouseClick(find<QPushButton>("sessionSaveAll"), Qt::LeftButton);
    QVERIFY(saved.wait(60000));
    QCOMPARE(mainFile(*sessions->snapshot(b), QStringLiteral("from-b.txt")), QStringLiteral("b\n"));

    // --- A conflict: both change the same line of a.txt; A (synced first) saves, then B syncs.
    synced.clear();
    sessions->sync(a, false);
    QVERIFY(synced.wait(60000));
    QVERIFY(write(workA + QStringLiteral("/a.txt"), "one\nTWO by a\nthree\n"));
    QVERIFY(write(workB + QStringLiteral("/a.txt"), "one\nTWO by b\nthree\n"));
    saved.clear();
    sessions->save(a, {QStringLiteral("a.txt")}, QStringLiteral("a's line"));
    QVERIFY(saved.wait(60000));
    shown.clear();
    QSignalSpy conflicted(sessions, &SessionsController::conflicted);
    sessions->save(b, {}, QStringLiteral("b's line")); // moved on again: sync first
    QVERIFY(movedOn.wait(60000));
    QTRY_VERIFY(sessions->snapshot(b)->state == SessionState::Ready);
    sessions->sync(b, false);
    QVERIFY(conflicted.wait(60000));
    QVERIFY(sessions->anyConflict());
    QCOMPARE(sessions->snapshot(b)->conflicts.size(), 1);
    QCOMPARE(sessions->snapshot(b)->conflicts.first().path, QStringLiteral("a.txt"));
    QTRY_VERIFY(std::any_of(shown.cbegin(), shown.cend(),
        [](const QList<QVariant> &args) { return args.first().toString() == QLatin1String("conflict"); }));
    QVERIFY(m_tray->trayIcon()->toolTip().contains(QStringLiteral("conflict")));
    // The default sync changed nothing in B's file.
    QCOMPARE(GitCli::readFile(workB + QStringLiteral("/a.txt")), QByteArray("one\nTWO by b\nthree\n"));

    m_tray->window()->showTab(QStringLiteral("conflictsTab"), b);
    auto *conflictFiles = find<QTreeWidget>("conflictsFiles");
    QCOMPARE(conflictFiles->topLevelItemCount(), 1);
    QCOMPARE(conflictFiles->topLevelItem(0)->text(1), QStringLiteral("1"));
    auto *finish = find<QPushButton>("conflictFinish");
    QVERIFY(!finish->isEnabled());
    QTRY_VERIFY(find<QPushButton>("conflictResolve")->isEnabled());
    QTest::mouseClick(find<QPushButton>("conflictResolve"), Qt::LeftButton);
    QTRY_VERIFY_WITH_TIMEOUT(sessions->snapshot(b)->resolveMode, 60000);
    QVERIFY(GitCli::readFile(workB + QStringLiteral("/a.txt")).contains("<<<<<<< "));
    QTRY_COMPARE_WITH_TIMEOUT(conflictFiles->topLevelItemCount() ? conflictFiles->topLevelItem(0)->text(1) : QString(),
        QStringLiteral("1 of 1 left"), 20000);
    QVERIFY(sessions->anyConflict()); // the badge stays while markers are there
    shot("conflictsTab", QStringLiteral("conflicts"));

    // The member edits the file; the tab sees the markers go, and saving finishes the merge.
    QVERIFY(write(workB + QStringLiteral("/a.txt"), "one\nTWO by both\nthree\n"));
    QTRY_VERIFY_WITH_TIMEOUT(finish->isEnabled(), 20000);
    QCOMPARE(sessions->resolvedCount(b), 1);
    saved.clear();
    QTest::mouseClick(finish, Qt::LeftButton);
    QVERIFY(saved.wait(60000));
    QVERIFY(saved.first().at(1).value<SaveReport>().completedMerge);
    QTRY_VERIFY(!sessions->anyConflict());
    QCOMPARE(mainFile(*sessions->snapshot(b), QStringLiteral("a.txt")), QStringLiteral("one\nTWO by both\nthree\n"));
    QVERIFY(!m_tray->trayIcon()->toolTip().contains(QStringLiteral("conflict")));

    // --- The warm cache lists the workspace; evicting it loses nothing.
    m_tray->window()->showTab(QStringLiteral("cacheTab"));
    auto *cache = find<QTreeWidget>("cacheList");
    QTRY_COMPARE(cache->topLevelItemCount(), 1);
    QCOMPARE(cache->topLevelItem(0)->text(0), QStringLiteral("demo"));
    shot("cacheTab", QStringLiteral("cache"));
    cache->setCurrentItem(cache->topLevelItem(0));
    QTRY_VERIFY(find<QPushButton>("cacheEvict")->isEnabled());
    QTest::mouseClick(find<QPushButton>("cacheEvict"), Qt::LeftButton);
    QTRY_COMPARE_WITH_TIMEOUT(cache->topLevelItemCount(), 0, 20000);
    QVERIFY2(find<QLabel>("cacheStatus")->text().startsWith(QStringLiteral("Evicted")),
        qPrintable(find<QLabel>("cacheStatus")->text()));

    // The tray menu offers each session.
    QMenu *menu = m_tray->menu()->findChild<QMenu *>(QStringLiteral("sessionsMenu"));
    QVERIFY(menu);
    QCOMPARE(menu->actions().size(), 2);
}

// The open message box titled `title`, or null.
static QMessageBox *messageBox(const QString &title)
{
    for (QWidget *w : QApplication::topLevelWidgets()) {
        auto *box = qobject_cast<QMessageBox *>(w);
        if (box && box->isVisible() && box->windowTitle() == title)
            return box;
    }
    return nullptr;
}

void tst_TraySessions::finishFromTheMenuAsksAboutUnsavedWork()
{
    const QString id = newSession();
    QVERIFY(!id.isEmpty());
    const QString dir = QFileInfo(m_tray->sessions()->snapshot(id)->workTree).path();
    QVERIFY(write(m_tray->sessions()->snapshot(id)->workTree + QStringLiteral("/unsaved.txt"), "not saved\n"));

    // Sessions ▸ <session> ▸ Finish…
    auto *menu = m_tray->trayIcon()->contextMenu()->findChild<QMenu *>(QStringLiteral("sessionsMenu"));
    QVERIFY(menu);
    Q_EMIT menu->aboutToShow();
    QAction *finish = nullptr;
    for (QAction *a : menu->actions()) {
        if (a->menu() && a->text().endsWith(id)) {
            for (QAction *b : a->menu()->actions()) {
                if (b->text() == QStringLiteral("&Finish…"))
                    finish = b;
            }
        }
    }
    QVERIFY(finish);
    finish->trigger();
    QTRY_VERIFY(messageBox(QStringLiteral("Finish session")));
    QTest::mouseClick(messageBox(QStringLiteral("Finish session"))->button(QMessageBox::Yes), Qt::LeftButton);
    // The engine refuses unsaved work; the tray asks whether to discard it, and nothing went yet.
    QTRY_VERIFY_WITH_TIMEOUT(messageBox(QStringLiteral("Unsaved work")), 20000);
    QVERIFY2(messageBox(QStringLiteral("Unsaved work"))->text().contains(QStringLiteral("unsaved")),
        qPrintable(messageBox(QStringLiteral("Unsaved work"))->text()));
    QVERIFY(m_tray->sessions()->sessionIds().contains(id));
    QVERIFY(QFileInfo::exists(dir));
    QTest::mouseClick(messageBox(QStringLiteral("Unsaved work"))->button(QMessageBox::Discard), Qt::LeftButton);
    QTRY_VERIFY_WITH_TIMEOUT(!m_tray->sessions()->sessionIds().contains(id), 20000);
    QTRY_VERIFY(!QFileInfo::exists(dir));
    QVERIFY(!m_engine->sessions()->session(id));
}

QTEST_MAIN(tst_TraySessions)
#include "tst_traysessions.moc"
