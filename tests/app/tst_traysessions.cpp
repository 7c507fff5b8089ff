// The tray's workspace tabs against a real engine process (`isolation-server up`) paired with the
// real hub, the tray a LocalAPI client of it in this process, checked with the real git CLI: start
// sessions, save a selection of files (the rest stays uncommitted), preview a diff, another session
// saving first (412: badge and notification), a sync that conflicts (badge that stays until
// resolved), leaving markers, resolving them in the file, saving to finish; the warm cache listed
// and evicted; Finish… from the tray menu, asking before unsaved work goes. One engine, one truth
// (issue 21): a second tray on the same engine shows the same sessions and badges, a tray that
// comes late sees the conflict from the engine's state, a session and a save started from the
// command line show in both trays (Saving, then Ready, through events) and a 412 of a CLI save
// notifies once. A save cancelled from the Changes tab publishes nothing and keeps the work.
// Leaves a screenshot of each tab.
#include "../workspace/gitcli.h"
#include "changespage.h"
#include "enginemodel.h"
#include "engineprocess.h"
#include "hubprocess.h"
#include "mainwindow.h"
#include "notifier.h"
#include "pairedserver.h"
#include "sessionpicker.h"
#include "sessionscontroller.h"
#include "sessionspage.h"
#include "trayapplication.h"

#include "core/paths.h"

#include <QAction>
#include <QApplication>
#include <QDir>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QMessageBox>
#include <QPlainTextEdit>
#include <QProcess>
#include <QProgressBar>
#include <QPushButton>
#include <QRandomGenerator>
#include <QRegularExpression>
#include <QSignalSpy>
#include <QSystemTrayIcon>
#include <QTableWidget>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QTest>
#include <QTreeWidget>

using namespace isolation;
using namespace isolation::test;

namespace {
// The kinds of the notifications a spy on Notifier::shown saw.
QStringList kinds(const QSignalSpy &shown)
{
    QStringList k;
    for (const QList<QVariant> &args : shown)
        k << args.first().toString();
    return k;
}

QStringList sorted(QStringList list)
{
    list.sort();
    return list;
}
} // namespace

class tst_TraySessions final : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void cleanupTestCase();
    void saveSelectionMovedOnConflictResolve();
    void commandLineSessionAndSaveReachBothTrays();
    void cancelASaveFromTheChangesTab();
    void cancelANewSessionWhileItDownloads();
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
    // `isolation-server ARGS` against the engine while this event loop keeps running (the trays
    // take the engine's events meanwhile): its exit code, its stdout in *out.
    int cli(const QStringList &args, QString *out = nullptr, const std::function<void()> &whileRunning = {});
    // The ids `isolation-server sessions --json` lists.
    QStringList cliSessionIds();

    HubProcess m_hub;
    QTemporaryDir m_home;
    std::unique_ptr<EngineProcess> m_engine;
    // Two trays on one engine (two displays of one user): the one driven, and a second that must
    // show the same.
    std::unique_ptr<EngineModel> m_model;
    std::unique_ptr<TrayApplication> m_tray;
    std::unique_ptr<EngineModel> m_model2;
    std::unique_ptr<TrayApplication> m_tray2;
    QString m_shots;
};

void tst_TraySessions::initTestCase()
{
    QVERIFY(m_hub.start({}, {QStringLiteral("--poll-interval"), QStringLiteral("1")}));
    QVERIFY(pairServer(m_hub.appUrl(), m_home.path(), QStringLiteral("tray-sessions")).has_value());
    QCOMPARE(m_hub.admin({QStringLiteral("workspace"), QStringLiteral("create"), QStringLiteral("demo")}), 0);
    m_engine = std::make_unique<EngineProcess>(m_home.path());
    m_engine->setHub(m_hub.appUrl().toString());
    QVERIFY(m_engine->start());

    // The trays in this process, on that engine's home.
    qputenv("ISOLATION_HOME", m_home.path().toUtf8());
    auto paths = Paths::resolve();
    QVERIFY(paths);
    m_model = std::make_unique<EngineModel>(paths.value());
    m_tray = std::make_unique<TrayApplication>(*m_model);
    m_model2 = std::make_unique<EngineModel>(paths.value());
    m_tray2 = std::make_unique<TrayApplication>(*m_model2);
    m_model->connection().attach();
    m_model2->connection().attach();
    QTRY_VERIFY_WITH_TIMEOUT(m_model->attached() && m_model2->attached(), 10000);
    QCOMPARE(m_model->status().pid, m_engine->pid());
    QTRY_COMPARE_WITH_TIMEOUT(m_model->state(), EngineState::Online, 20000);
    m_tray->showWindow();
    m_tray->window()->resize(960, 600);
    QVERIFY(QTest::qWaitForWindowExposed(m_tray->window()));
    QTRY_VERIFY(m_tray->sessions()->paired());
    QTRY_VERIFY(m_tray2->sessions()->paired());
    m_shots = qEnvironmentVariable("ISOLATION_TEST_OUTPUT", QDir::tempPath()) + QStringLiteral("/screenshots");
    QDir().mkpath(m_shots);
}

void tst_TraySessions::cleanupTestCase()
{
    m_tray2.reset();
    m_model2.reset();
    m_tray.reset();
    m_model.reset();
    if (m_engine) {
        const int rc = m_engine->stop();
        QCOMPARE(rc, 0);
    }
}

int tst_TraySessions::cli(const QStringList &args, QString *out, const std::function<void()> &whileRunning)
{
    QProcess p;
    p.setProcessEnvironment(m_engine->environment());
    p.start(serverBinary(), args);
    if (!p.waitForStarted(10000)) {
        qWarning().noquote() << args.join(QLatin1Char(' ')) << "did not start:" << p.errorString();
        return -1;
    }
    const bool ended = QTest::qWaitFor(
        [&] {
            if (whileRunning)
                whileRunning();
            return p.state() == QProcess::NotRunning;
        },
        60000);
    if (!ended) {
        qWarning().noquote() << args.join(QLatin1Char(' ')) << "did not end";
        p.kill();
        p.waitForFinished(2000);
        return -1;
    }
    if (out)
        *out = QString::fromUtf8(p.readAllStandardOutput());
    const int rc = p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1;
    if (rc != 0)
        qInfo().noquote() << args.join(QLatin1Char(' ')) << "->" << rc << p.errorString()
                          << p.readAllStandardError().trimmed();
    return rc;
}

QStringList tst_TraySessions::cliSessionIds()
{
    QString out;
    if (cli({QStringLiteral("sessions"), QStringLiteral("--json")}, &out) != 0)
        return {QStringLiteral("(sessions failed)")};
    QStringList ids;
    for (const QJsonValue &v :
        QJsonDocument::fromJson(out.toUtf8()).object().value(QStringLiteral("sessions")).toArray())
        ids << v.toObject().value(QStringLiteral("id")).toString();
    return ids;
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
        [&] { return sessions->snapshot(id) && sessions->snapshot(id)->state == api::SessionState::Ready; }, 30000);
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
    SessionsController *other = m_tray2->sessions();
    const QString a = newSession();
    QVERIFY(!a.isEmpty());
    const QString b = newSession();
    QVERIFY(!b.isEmpty());
    QCOMPARE(find<QTableWidget>("sessionsView")->rowCount(), 2);
    // The second tray shows the same sessions, and so does the command line.
    QTRY_COMPARE(sorted(other->sessionIds()), sorted({a, b}));
    QCOMPARE(sorted(cliSessionIds()), sorted({a, b}));
    const QString workA = sessions->snapshot(a)->workTree;
    const QString workB = sessions->snapshot(b)->workTree;
    QCOMPARE(other->snapshot(a)->workTree, workA);

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
    // The diff of the unticked file, computed by the engine (GET /v1/sessions/{id}/diff).
    for (int i = 0; i < 3; ++i) {
        if (files->topLevelItem(i)->data(0, Qt::UserRole).toString() == QLatin1String("c.txt"))
            files->setCurrentItem(files->topLevelItem(i));
    }
    QTRY_VERIFY2_WITH_TIMEOUT(find<QPlainTextEdit>("changesDiff")->toPlainText().contains(QStringLiteral("+not yet")),
        qPrintable(find<QPlainTextEdit>("changesDiff")->toPlainText()), 10000);
    shot("changesTab", QStringLiteral("changes"));
    find<QLineEdit>("changesMessage")->setText(QStringLiteral("two of three"));
    QSignalSpy saved(sessions, &SessionsController::saved);
    QTest::mouseClick(saveSelected, Qt::LeftButton);
    QVERIFY(saved.wait(60000));
    QCOMPARE(saved.first().at(1).value<api::SaveOutcome>().outcome, QStringLiteral("published"));
    QCOMPARE(mainFile(*sessions->snapshot(a), QStringLiteral("a.txt")), QStringLiteral("one\ntwo\nthree\n"));
    QCOMPARE(mainFile(*sessions->snapshot(a), QStringLiteral("b.txt")), QStringLiteral("bee\n"));
    QVERIFY(mainFile(*sessions->snapshot(a), QStringLiteral("c.txt")).isEmpty());
    QTRY_COMPARE_WITH_TIMEOUT(files->topLevelItemCount(), 1, 20000);
    QCOMPARE(files->topLevelItem(0)->data(0, Qt::UserRole).toString(), QStringLiteral("c.txt"));
    // The second tray took the save from the engine's events.
    QTRY_VERIFY(other->snapshot(a)->lastSave.isValid());
    QTRY_COMPARE_WITH_TIMEOUT(other->snapshot(a)->changes.files.size(), 1, 20000);

    // --- Another session saved first: B's save is refused (412), each tray says so once.
    QSignalSpy shown(m_tray->notifier(), &Notifier::shown);
    QSignalSpy shownOther(m_tray2->notifier(), &Notifier::shown);
    QVERIFY(write(workB + QStringLiteral("/from-b.txt"), "b\n"));
    m_tray->window()->showTab(QStringLiteral("sessionsTab"), b);
    QSignalSpy movedOn(sessions, &SessionsController::movedOn);
    QTest::mouseClick(find<QPushButton>("sessionSaveAll"), Qt::LeftButton);
    QVERIFY(movedOn.wait(60000));
    QVERIFY(sessions->anyMovedOn());
    QTRY_VERIFY(!shown.isEmpty());
    QCOMPARE(shown.first().first().toString(), QStringLiteral("moved_on"));
    QVERIFY(m_tray->trayIcon()->toolTip().contains(QStringLiteral("Another session saved first")));
    QTRY_VERIFY(other->anyMovedOn());
    QTRY_VERIFY(m_tray2->trayIcon()->toolTip().contains(QStringLiteral("Another session saved first")));
    QTRY_VERIFY(!shownOther.isEmpty());
    QTest::qWait(500);
    QCOMPARE(kinds(shown), QStringList {QStringLiteral("moved_on")});
    QCOMPARE(kinds(shownOther), QStringList {QStringLiteral("moved_on")});
    shot("sessionsTab", QStringLiteral("sessions"));

    // Sync, then save: both go through, the badge goes (in both trays).
    QSignalSpy synced(sessions, &SessionsController::synced);
    QTRY_VERIFY(find<QPushButton>("sessionSync")->isEnabled());
    QTest::mouseClick(find<QPushButton>("sessionSync"), Qt::LeftButton);
    QVERIFY(synced.wait(60000));
    // The answer can come before the session's record says so: the badge follows the record.
    QTRY_VERIFY(!sessions->anyMovedOn());
    QTRY_VERIFY(!other->anyMovedOn());
    saved.clear();
    QTRY_VERIFY(find<QPushButton>("sessionSaveAll")->isEnabled());
    QTest::mouseClick(find<QPushButton>("sessionSaveAll"), Qt::LeftButton);
    QVERIFY(saved.wait(60000));
    QCOMPARE(mainFile(*sessions->snapshot(b), QStringLiteral("from-b.txt")), QStringLiteral("b\n"));
    // The engine's activity log says who asked: the tray (its client names itself), not the CLI.
    {
        QString out;
        QCOMPARE(cli({QStringLiteral("activity"), QStringLiteral("--json"), QStringLiteral("--kind"),
                         QStringLiteral("save")},
                     &out),
            0);
        bool fromTray = false;
        for (const QJsonValue v :
            QJsonDocument::fromJson(out.toUtf8()).object().value(QStringLiteral("activity")).toArray()) {
            const QJsonObject d = v.toObject().value(QStringLiteral("details")).toObject();
            fromTray = fromTray
                || (d.value(QStringLiteral("door")) == QLatin1String("tray") && d.value(QStringLiteral("session")) == b
                    && d.value(QStringLiteral("outcome")) == QLatin1String("published"));
        }
        QVERIFY2(fromTray, qPrintable(out));
    }

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
    shownOther.clear();
    QSignalSpy conflicted(sessions, &SessionsController::conflicted);
    QSignalSpy conflictedOther(other, &SessionsController::conflicted);
    sessions->save(b, {}, QStringLiteral("b's line")); // moved on again: sync first
    QVERIFY(movedOn.wait(60000));
    QTRY_VERIFY(sessions->snapshot(b)->state == api::SessionState::Ready);
    sessions->sync(b, false);
    QVERIFY(conflicted.wait(60000));
    QVERIFY(sessions->anyConflict());
    QCOMPARE(sessions->snapshot(b)->conflicts.size(), 1);
    QCOMPARE(sessions->snapshot(b)->conflicts.first().path, QStringLiteral("a.txt"));
    QTRY_VERIFY(kinds(shown).contains(QStringLiteral("conflict")));
    QVERIFY(m_tray->trayIcon()->toolTip().contains(QStringLiteral("conflict")));
    // The second tray: the same badge, and its own one notification of it.
    QTRY_VERIFY(other->anyConflict());
    QCOMPARE(other->snapshot(b)->conflicts, sessions->snapshot(b)->conflicts);
    QVERIFY(m_tray2->trayIcon()->toolTip().contains(QStringLiteral("conflict")));
    QTRY_VERIFY(kinds(shownOther).contains(QStringLiteral("conflict")));
    QTest::qWait(500);
    QCOMPARE(conflicted.size(), 1);
    QCOMPARE(conflictedOther.size(), 1);
    QCOMPARE(kinds(shown).count(QStringLiteral("conflict")), 1);
    QCOMPARE(kinds(shownOther).count(QStringLiteral("conflict")), 1);
    // The default sync changed nothing in B's file.
    QCOMPARE(GitCli::readFile(workB + QStringLiteral("/a.txt")), QByteArray("one\nTWO by b\nthree\n"));
    {
        // A tray that comes now was told nothing: it reads the conflict from the engine's state.
        EngineModel late(m_model->paths());
        SessionsController lateSessions(late);
        late.connection().attach();
        QTRY_VERIFY_WITH_TIMEOUT(late.attached(), 10000);
        QTRY_VERIFY(lateSessions.anyConflict());
        QCOMPARE(lateSessions.snapshot(b)->conflicts, sessions->snapshot(b)->conflicts);
        QCOMPARE(sorted(lateSessions.sessionIds()), sorted({a, b}));
    }

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
    QTRY_VERIFY(other->snapshot(b)->resolveMode);
    QVERIFY(other->anyConflict());
    shot("conflictsTab", QStringLiteral("conflicts"));

    // The member edits the file; the tab sees the markers go, and saving finishes the merge.
    QVERIFY(write(workB + QStringLiteral("/a.txt"), "one\nTWO by both\nthree\n"));
    QTRY_VERIFY_WITH_TIMEOUT(finish->isEnabled(), 20000);
    QCOMPARE(sessions->resolvedCount(b), 1);
    saved.clear();
    QTest::mouseClick(finish, Qt::LeftButton);
    QVERIFY(saved.wait(60000));
    QVERIFY(saved.first().at(1).value<api::SaveOutcome>().completedMerge);
    QTRY_VERIFY(!sessions->anyConflict());
    QCOMPARE(mainFile(*sessions->snapshot(b), QStringLiteral("a.txt")), QStringLiteral("one\nTWO by both\nthree\n"));
    QVERIFY(!m_tray->trayIcon()->toolTip().contains(QStringLiteral("conflict")));
    QTRY_VERIFY(!other->anyConflict());
    QVERIFY(!m_tray2->trayIcon()->toolTip().contains(QStringLiteral("conflict")));

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

// What the command line starts shows in the trays by the engine's events alone: a new session,
// a save going Saving then Ready, and a 412 that notifies each tray once; Sync now on that
// notification clears it.
void tst_TraySessions::commandLineSessionAndSaveReachBothTrays()
{
    SessionsController *sessions = m_tray->sessions();
    SessionsController *other = m_tray2->sessions();
    const QStringList before = sessions->sessionIds();
    QCOMPARE(before.size(), 2);
    const QString b = before.at(1);

    // A session from the command line appears without anyone refreshing.
    m_tray->window()->showTab(QStringLiteral("sessionsTab"));
    QString out;
    QCOMPARE(cli({QStringLiteral("session"), QStringLiteral("new"), QStringLiteral("--workspace"),
                     QStringLiteral("demo"), QStringLiteral("--json")},
                 &out),
        0);
    const QJsonObject created = QJsonDocument::fromJson(out.toUtf8()).object();
    const QString c = created.value(QStringLiteral("id")).toString();
    QVERIFY2(!c.isEmpty(), qPrintable(out));
    QTRY_VERIFY_WITH_TIMEOUT(sessions->sessionIds().contains(c), 5000);
    QTRY_VERIFY_WITH_TIMEOUT(other->sessionIds().contains(c), 5000);
    QTRY_COMPARE(find<QTableWidget>("sessionsView")->rowCount(), 3);
    QTRY_VERIFY_WITH_TIMEOUT(sessions->snapshot(c)->state == api::SessionState::Ready, 30000);
    QCOMPARE(sessions->snapshot(c)->workTree, created.value(QStringLiteral("worktree")).toString());

    // A save from the command line: both trays follow its state (and its progress) while it runs.
    const QString workC = sessions->snapshot(c)->workTree;
    QVERIFY(write(workC + QStringLiteral("/from-cli.txt"), "saved by the command line\n"));
    QTRY_VERIFY(other->snapshot(c) && other->snapshot(c)->state == api::SessionState::Ready);
    struct Seen
    {
        QList<api::SessionState> states;
        QStringList operations;
    };
    Seen seen, seenOther;
    QObject scope; // the connections below end with this function
    auto follow = [&c](SessionsController *controller, Seen &into) {
        return [controller, &into, &c](const QString &id) {
            const SessionSnapshot *s = controller->snapshot(id);
            if (id != c || !s)
                return;
            if (into.states.isEmpty() || into.states.last() != s->state)
                into.states << s->state;
            if (s->progress.active() && !into.operations.contains(s->progress.operation))
                into.operations << s->progress.operation;
        };
    };
    connect(sessions, &SessionsController::sessionUpdated, &scope, follow(sessions, seen));
    connect(other, &SessionsController::sessionUpdated, &scope, follow(other, seenOther));
    bool savingWhileCliRan = false;
    QCOMPARE(cli({QStringLiteral("save"), c, QStringLiteral("-m"), QStringLiteral("from the command line")}, nullptr,
                 [&] { savingWhileCliRan = savingWhileCliRan || seen.states.contains(api::SessionState::Saving); }),
        0);
    QVERIFY2(savingWhileCliRan, "the tray did not show the save while it ran");
    QTRY_VERIFY(!seen.states.isEmpty() && seen.states.last() == api::SessionState::Ready);
    QTRY_VERIFY(!seenOther.states.isEmpty() && seenOther.states.last() == api::SessionState::Ready);
    for (const Seen *s : {&seen, &seenOther}) {
        const qsizetype saving = s->states.indexOf(api::SessionState::Saving);
        QVERIFY2(saving >= 0 && s->states.lastIndexOf(api::SessionState::Ready) > saving,
            qPrintable(QStringLiteral("states seen: %1").arg(s->states.size())));
        QVERIFY2(s->operations.contains(QStringLiteral("save")), qPrintable(s->operations.join(QLatin1Char(','))));
    }
    QTRY_VERIFY(sessions->snapshot(c)->lastSave.isValid());
    QTRY_VERIFY(other->snapshot(c)->lastSave.isValid());
    QCOMPARE(mainFile(*sessions->snapshot(c), QStringLiteral("from-cli.txt")),
        QStringLiteral("saved by the command line\n"));

    // A save with bytes to move: the Changes tab's bar becomes determinate and says, as the command
    // line's progress line does, how much of how much, how fast and how long is left.
    QByteArray noise(48 << 20, Qt::Uninitialized);
    QRandomGenerator(26).fillRange(reinterpret_cast<quint32 *>(noise.data()), noise.size() / 4);
    QVERIFY(write(workC + QStringLiteral("/noise.bin"), noise));
    m_tray->window()->showTab(QStringLiteral("changesTab"), c);
    QCOMPARE(find<ChangesPage>("changesTab")->picker()->currentSession(), c);
    auto *bar = find<QProgressBar>("saveProgress");
    QStringList barTexts;
    int bestPerMille = -1;
    QCOMPARE(cli({QStringLiteral("save"), c, QStringLiteral("-m"), QStringLiteral("noise")}, nullptr,
                 [&] {
                     if (!bar->isVisible() || bar->maximum() != 1000)
                         return;
                     bestPerMille = std::max(bestPerMille, bar->value());
                     if (barTexts.isEmpty() || barTexts.last() != bar->text())
                         barTexts << bar->text();
                 }),
        0);
    const QString all = barTexts.join(QLatin1String(" | "));
    QVERIFY2(bestPerMille > 0, qPrintable(all));
    const QRegularExpression figures(
        QStringLiteral(R"(^Saving: upload [0-9.,]+ [KMG]?i?B of [0-9.,]+ MiB, [0-9.,]+ [KMG]?i?B/s)"));
    QVERIFY2(
        std::any_of(barTexts.cbegin(), barTexts.cend(), [&](const QString &t) { return figures.match(t).hasMatch(); }),
        qPrintable(all));
    QVERIFY2(all.contains(QLatin1String(" left")), qPrintable(all));
    QTRY_VERIFY(!bar->isVisible());

    // B is behind now: its save from the command line is refused (exit code 8). Each tray
    // notifies once; the same refusal again is no news.
    QSignalSpy shown(m_tray->notifier(), &Notifier::shown);
    QSignalSpy shownOther(m_tray2->notifier(), &Notifier::shown);
    QSignalSpy movedOn(sessions, &SessionsController::movedOn);
    QSignalSpy movedOnOther(other, &SessionsController::movedOn);
    const QString workB = sessions->snapshot(b)->workTree;
    QVERIFY(write(workB + QStringLiteral("/late.txt"), "late\n"));
    QCOMPARE(cli({QStringLiteral("save"), b, QStringLiteral("-m"), QStringLiteral("late")}), 8);
    QTRY_COMPARE(movedOn.size(), 1);
    QTRY_COMPARE(movedOnOther.size(), 1);
    QTRY_VERIFY(!shown.isEmpty() && !shownOther.isEmpty());
    QTest::qWait(1000);
    QCOMPARE(kinds(shown), QStringList {QStringLiteral("moved_on")});
    QCOMPARE(kinds(shownOther), QStringList {QStringLiteral("moved_on")});
    QVERIFY(sessions->anyMovedOn() && other->anyMovedOn());
    QVERIFY(m_tray->trayIcon()->toolTip().contains(QStringLiteral("Another session saved first")));
    QVERIFY(m_tray2->trayIcon()->toolTip().contains(QStringLiteral("Another session saved first")));
    QCOMPARE(cli({QStringLiteral("save"), b, QStringLiteral("-m"), QStringLiteral("late")}), 8);
    QTest::qWait(1000);
    QCOMPARE(movedOn.size(), 1);
    QCOMPARE(movedOnOther.size(), 1);
    QCOMPARE(shown.size(), 1);
    QCOMPARE(shownOther.size(), 1);

    // Sync now, on the notification: B takes C's save, the badge goes in both trays, and the
    // save goes through.
    QSignalSpy synced(sessions, &SessionsController::synced);
    Q_EMIT m_tray->notifier()->actionInvoked(QStringLiteral("moved_on"), QStringLiteral("sync"));
    QVERIFY(synced.wait(60000));
    QCOMPARE(synced.first().first().toString(), b);
    QTRY_VERIFY(!sessions->anyMovedOn());
    QTRY_VERIFY(!other->anyMovedOn());
    QCOMPARE(GitCli::readFile(workB + QStringLiteral("/from-cli.txt")), QByteArray("saved by the command line\n"));
    QCOMPARE(cli({QStringLiteral("save"), b, QStringLiteral("-m"), QStringLiteral("late")}), 0);
    QCOMPARE(mainFile(*sessions->snapshot(b), QStringLiteral("late.txt")), QStringLiteral("late\n"));
    QTRY_VERIFY(!m_tray->trayIcon()->toolTip().contains(QStringLiteral("Another session saved first")));
    QTRY_VERIFY(!m_tray2->trayIcon()->toolTip().contains(QStringLiteral("Another session saved first")));
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

// Cancel beside the Changes tab's bar: a save with 64 MiB to move, cancelled while the engine
// says it may be, ends "cancelled" (said under the buttons); main, here and on the hub, does not
// have the file; the work stays on the session, and the next save publishes it.
void tst_TraySessions::cancelASaveFromTheChangesTab()
{
    SessionsController *sessions = m_tray->sessions();
    const QString id = newSession();
    QVERIFY(!id.isEmpty());
    QByteArray noise(64 << 20, Qt::Uninitialized);
    QRandomGenerator(27).fillRange(reinterpret_cast<quint32 *>(noise.data()), noise.size() / 4);
    QVERIFY(write(sessions->snapshot(id)->workTree + QStringLiteral("/cancelled.bin"), noise));
    m_tray->window()->showTab(QStringLiteral("changesTab"), id);
    QTest::mouseClick(find<QPushButton>("changesRefresh"), Qt::LeftButton);
    auto *saveAll = find<QPushButton>("saveAll");
    auto *cancel = find<QPushButton>("saveCancel");
    QTRY_VERIFY_WITH_TIMEOUT(saveAll->isEnabled(), 20000);
    QVERIFY(!cancel->isVisible());
    // The hub's manifest of the one workspace of this test ("demo"), as the hub keeps it.
    const auto hubManifest = [this] {
        const QDir workspaces(m_hub.dataDir() + QStringLiteral("/workspaces"));
        const QStringList ids = workspaces.entryList(QDir::Dirs | QDir::NoDotAndDotDot);
        QFile f(workspaces.filePath(ids.value(0) + QStringLiteral("/manifest")));
        return ids.size() == 1 && f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
    };
    const QByteArray hubMainBefore = hubManifest();
    QVERIFY(!hubMainBefore.isEmpty());

    QSignalSpy failed(sessions, &SessionsController::failed);
    QSignalSpy saved(sessions, &SessionsController::saved);
    QTest::mouseClick(saveAll, Qt::LeftButton);
    QTRY_VERIFY_WITH_TIMEOUT(cancel->isVisible() && cancel->isEnabled(), 30000);
    QTest::mouseClick(cancel, Qt::LeftButton);
    QVERIFY(!cancel->isEnabled()); // "Cancelling…" until the save ends
    QTRY_VERIFY_WITH_TIMEOUT(!failed.isEmpty() || !saved.isEmpty(), 60000);
    QVERIFY2(saved.isEmpty(), "the save published although Cancel was taken");
    QCOMPARE(failed.first().at(1).toString(), QStringLiteral("save"));
    const QString said = failed.first().at(2).toString();
    QVERIFY2(said.contains(QLatin1String("cancelled")) && said.contains(QLatin1String("nothing was published")),
        qPrintable(said));
    QTRY_COMPARE(sessions->snapshot(id)->state, api::SessionState::Ready);
    QTRY_VERIFY(!cancel->isVisible());
    QCOMPARE(find<QLabel>("changesWhy")->text(), said);
    const QString gitDir = QFileInfo(sessions->snapshot(id)->workTree).dir().filePath(QStringLiteral("git"));
    QVERIFY(
        GitCli::inRepo(gitDir, {QStringLiteral("cat-file"), QStringLiteral("-e"), QStringLiteral("main:cancelled.bin")})
            .exitCode
        != 0);
    QCOMPARE(GitCli::inRepo(gitDir,
                 {QStringLiteral("cat-file"), QStringLiteral("-s"),
                     QStringLiteral("session/") + id + QStringLiteral(":cancelled.bin")})
                 .out.trimmed(),
        QByteArray::number(noise.size()));
    QCOMPARE(hubManifest(), hubMainBefore);

    QTRY_VERIFY_WITH_TIMEOUT(saveAll->isEnabled(), 20000);
    QTest::mouseClick(saveAll, Qt::LeftButton);
    QTRY_VERIFY_WITH_TIMEOUT(!saved.isEmpty(), 120000);
    QVERIFY(saved.first().at(1).value<api::SaveOutcome>().published);
    QCOMPARE(
        GitCli::inRepo(gitDir, {QStringLiteral("cat-file"), QStringLiteral("-s"), QStringLiteral("main:cancelled.bin")})
            .out.trimmed(),
        QByteArray::number(noise.size()));
    QVERIFY(hubManifest() != hubMainBefore);
}

// Cancel beside New session: with the warm cache emptied, a new session of "demo" (64 MiB saved
// by the test before) downloads it; its row says so with the figures, Cancel is taken while the
// engine says it may be, and the start ends "cancelled" with no session left, in the table or in
// the engine.
void tst_TraySessions::cancelANewSessionWhileItDownloads()
{
    SessionsController *sessions = m_tray->sessions();
    const QStringList before = cliSessionIds();
    QString cleared;
    QVERIFY(QTest::qWaitFor(
        [&] {
            return cli({QStringLiteral("cache"), QStringLiteral("clear"), QStringLiteral("--json")}, &cleared) == 0
                && QJsonDocument::fromJson(cleared.toUtf8()).object().value(QStringLiteral("kept")).toArray().isEmpty();
        },
        30000));
    m_tray->window()->showTab(QStringLiteral("sessionsTab"));
    find<QLineEdit>("newSessionWorkspace")->setText(QStringLiteral("demo"));
    auto *cancel = find<QPushButton>("newSessionCancel");
    QVERIFY(!cancel->isVisible());
    QSignalSpy createFailed(sessions, &SessionsController::createFailed);
    QSignalSpy created(sessions, &SessionsController::created);
    QTest::mouseClick(find<QPushButton>("newSession"), Qt::LeftButton);
    QVERIFY(cancel->isVisible());
    QString opening; // the new session's id, once the engine tells of it
    QTRY_VERIFY_WITH_TIMEOUT(
        [&] {
            for (const QString &id : sessions->sessionIds()) {
                const SessionSnapshot *s = sessions->snapshot(id);
                if (!before.contains(id) && s->state == api::SessionState::Opening && s->progress.cancellable) {
                    opening = id;
                    return cancel->isEnabled();
                }
            }
            return false;
        }(),
        30000);
    const QString state = sessionStateText(*sessions->snapshot(opening));
    QVERIFY2(state.startsWith(QLatin1String("Opening: ")), qPrintable(state));
    QTest::mouseClick(cancel, Qt::LeftButton);
    QVERIFY(!cancel->isEnabled()); // "Cancelling…" until the start ends
    QTRY_VERIFY_WITH_TIMEOUT(!createFailed.isEmpty() || !created.isEmpty(), 60000);
    QVERIFY2(created.isEmpty(), "the session started although Cancel was taken");
    const QString said = createFailed.first().first().toString();
    QVERIFY2(said.contains(QLatin1String("cancelled")), qPrintable(said));
    QVERIFY(!cancel->isVisible());
    QVERIFY2(find<QLabel>("sessionsStatus")->text().contains(said), qPrintable(find<QLabel>("sessionsStatus")->text()));
    QTRY_VERIFY(!sessions->snapshot(opening));
    QVERIFY(!cliSessionIds().contains(opening));
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
    QVERIFY(cliSessionIds().contains(id));
    QVERIFY(QFileInfo::exists(dir));
    QTest::mouseClick(messageBox(QStringLiteral("Unsaved work"))->button(QMessageBox::Discard), Qt::LeftButton);
    QTRY_VERIFY_WITH_TIMEOUT(!m_tray->sessions()->sessionIds().contains(id), 20000);
    QTRY_VERIFY(!QFileInfo::exists(dir));
    QVERIFY(!cliSessionIds().contains(id));
    // Finished for the other tray too.
    QTRY_VERIFY(!m_tray2->sessions()->sessionIds().contains(id));
    QCOMPARE(sorted(m_tray2->sessions()->sessionIds()), sorted(m_tray->sessions()->sessionIds()));
}

QTEST_MAIN(tst_TraySessions)
#include "tst_traysessions.moc"
