// Sync: main merged into the session branch; on conflict the default changes nothing (worktree,
// index, refs byte for byte), `resolve` leaves markers and a merge that the next save completes;
// the 412 path; the changes report.
#include "gitcli.h"
#include "testsession.h"

#include "core/clock.h"

#include <QBuffer>
#include <QFile>
#include <QTemporaryDir>
#include <QTest>

using namespace isolation;
using isolation::test::GitCli;
using isolation::test::GitRun;
using isolation::test::TestSession;

class tst_WorkspaceSync final : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void cleanMerge();
    void conflictStopChangesNothing();
    void resolveThenSaveCompletes_data();
    void resolveThenSaveCompletes();
    void binaryAndDeleteConflicts();
    void uncommittedChangesInTheWay();
    void refusedUploadThenSyncAndSaveAgain();
    void changesReport();

private:
    // A publishes `files`; B takes them (apply + fast-forward).
    bool share(TestSession &a, TestSession &b, const QMap<QString, QByteArray> &files);
    // Everything that must not move when a sync stops: worktree bytes, index, refs, merge state.
    QMap<QString, QByteArray> state(const TestSession &s);
    ManualClock m_clock;
};

bool tst_WorkspaceSync::share(TestSession &a, TestSession &b, const QMap<QString, QByteArray> &files)
{
    for (auto it = files.cbegin(); it != files.cend(); ++it) {
        if (!a.write(it.key(), it.value()))
            return false;
    }
    const QByteArray segment = a.save();
    if (segment.isEmpty() || !b.apply(segment))
        return false;
    auto sync = b.ws->mergeMainIntoSession();
    return sync && sync.value().outcome == SyncOutcome::FastForwarded;
}

QMap<QString, QByteArray> tst_WorkspaceSync::state(const TestSession &s)
{
    QMap<QString, QByteArray> all;
    const auto files = GitCli::snapshot(s.work);
    for (auto it = files.cbegin(); it != files.cend(); ++it)
        all.insert(QStringLiteral("worktree/") + it.key(), it.value());
    all.insert(QStringLiteral("index bytes"), GitCli::readFile(s.gitDir + QStringLiteral("/index")));
    all.insert(QStringLiteral("ls-files -s"), s.git({QStringLiteral("ls-files"), QStringLiteral("-s")}, true).out);
    all.insert(QStringLiteral("refs"), s.git({QStringLiteral("for-each-ref")}).out);
    all.insert(QStringLiteral("HEAD"), GitCli::readFile(s.gitDir + QStringLiteral("/HEAD")));
    all.insert(
        QStringLiteral("MERGE_HEAD exists"), QFile::exists(s.gitDir + QStringLiteral("/MERGE_HEAD")) ? "yes" : "no");
    all.insert(QStringLiteral("status"), s.git({QStringLiteral("status"), QStringLiteral("--porcelain=v2")}, true).out);
    return all;
}

void tst_WorkspaceSync::cleanMerge()
{
    QTemporaryDir root;
    TestSession a = TestSession::open(root.path(), QStringLiteral("a"), m_clock);
    TestSession b = TestSession::open(root.path(), QStringLiteral("b"), m_clock);
    QVERIFY(a.valid() && b.valid());
    QVERIFY(share(a, b, {{QStringLiteral("x.txt"), "x\n"}, {QStringLiteral("y.txt"), "y\n"}}));
    QCOMPARE(b.read(QStringLiteral("x.txt")), QByteArray("x\n"));

    QVERIFY(a.write(QStringLiteral("x.txt"), "x by A\n"));
    const QByteArray segment = a.save();
    QVERIFY(b.write(QStringLiteral("y.txt"), "y by B\n"));
    QVERIFY(b.ws->commit().value().created);
    const QByteArray sessionBefore = b.ws->refId("session").value();
    QVERIFY(b.apply(segment));
    auto sync = b.ws->mergeMainIntoSession();
    QVERIFY2(sync, qPrintable(sync ? QString() : sync.error().message));
    QCOMPARE(sync.value().outcome, SyncOutcome::Merged);
    QVERIFY(sync.value().conflicts.isEmpty());
    QCOMPARE(b.read(QStringLiteral("x.txt")), QByteArray("x by A\n"));
    QCOMPARE(b.read(QStringLiteral("y.txt")), QByteArray("y by B\n"));
    QCOMPARE(b.rev(QStringLiteral("session/b^1")), sessionBefore);
    QCOMPARE(b.rev(QStringLiteral("session/b^2")), b.rev(QStringLiteral("main")));
    QVERIFY(b.ws->changes().value().files.isEmpty());
    QCOMPARE(b.git({QStringLiteral("status"), QStringLiteral("--porcelain")}, true).out, QByteArray());
    // Up to date now; and B's save goes through.
    QCOMPARE(b.ws->mergeMainIntoSession().value().outcome, SyncOutcome::UpToDate);
    QVERIFY(!b.save().isEmpty());
    QCOMPARE(b.files(QStringLiteral("main")), QStringLiteral("x.txt\ny.txt"));
}

void tst_WorkspaceSync::conflictStopChangesNothing()
{
    QTemporaryDir root;
    TestSession a = TestSession::open(root.path(), QStringLiteral("a"), m_clock);
    TestSession b = TestSession::open(root.path(), QStringLiteral("b"), m_clock);
    QVERIFY(a.valid() && b.valid());
    QVERIFY(share(a, b, {{QStringLiteral("f.txt"), "1\n2\n3\n4\n5\n6\n7\n8\n9\n"}, {QStringLiteral("g.txt"), "g\n"}}));
    QVERIFY(a.write(QStringLiteral("f.txt"), "1\nA\n3\n4\n5\n6\n7\nA\n9\n"));
    QVERIFY(a.write(QStringLiteral("g.txt"), "g by A\n"));
    const QByteArray segment = a.save();
    QVERIFY(b.write(QStringLiteral("f.txt"), "1\nB\n3\n4\n5\n6\n7\nB\n9\n"));
    QVERIFY(b.ws->commit().value().created);
    // Uncommitted work of B's, untouched by everything below.
    QVERIFY(b.write(QStringLiteral("notes.txt"), "draft\n"));
    QVERIFY(b.apply(segment));

    const auto before = state(b);
    auto sync = b.ws->mergeMainIntoSession(ConflictMode::Stop);
    QVERIFY2(sync, qPrintable(sync ? QString() : sync.error().message));
    QCOMPARE(sync.value().outcome, SyncOutcome::Conflicted);
    QCOMPARE(sync.value().conflicts.size(), 1);
    QCOMPARE(sync.value().conflicts.at(0).path, QStringLiteral("f.txt"));
    QCOMPARE(sync.value().conflicts.at(0).regions, 2);
    QCOMPARE(state(b), before);
    QVERIFY(!b.ws->changes().value().mergeInProgress);
}

void tst_WorkspaceSync::resolveThenSaveCompletes_data()
{
    QTest::addColumn<QByteArray>("base");
    QTest::addColumn<QByteArray>("theirs");
    QTest::addColumn<QByteArray>("ours");
    QTest::addColumn<int>("regions");
    QTest::newRow("one region") << QByteArray("a\nb\nc\n") << QByteArray("a\nB1\nc\n") << QByteArray("a\nB2\nc\n") << 1;
    // Changes close together (three lines or fewer apart) make one region, as in git.
    QByteArray base16, theirs16, ours16;
    for (int i = 1; i <= 16; ++i) {
        const QByteArray n = QByteArray::number(i) + '\n';
        const bool changed = i == 2 || i == 8 || i == 14;
        base16 += n;
        theirs16 += changed ? QByteArray("theirs\n") : n;
        ours16 += changed ? QByteArray("ours\n") : n;
    }
    QTest::newRow("three regions") << base16 << theirs16 << ours16 << 3;
    QTest::newRow("close changes, one region")
        << QByteArray("1\n2\n3\n4\n5\n6\n7\n") << QByteArray("1\nT\n3\n4\n5\nT\n7\n")
        << QByteArray("1\nO\n3\n4\n5\nO\n7\n") << 1;
    QTest::newRow("added on both sides") << QByteArray() << QByteArray("theirs\n") << QByteArray("ours\n") << 1;
}

void tst_WorkspaceSync::resolveThenSaveCompletes()
{
    QFETCH(QByteArray, base);
    QFETCH(QByteArray, theirs);
    QFETCH(QByteArray, ours);
    QFETCH(int, regions);
    QTemporaryDir root;
    TestSession a = TestSession::open(root.path(), QStringLiteral("a"), m_clock);
    TestSession b = TestSession::open(root.path(), QStringLiteral("b"), m_clock);
    QVERIFY(a.valid() && b.valid());
    QMap<QString, QByteArray> start {{QStringLiteral("other.txt"), "other\n"}};
    if (!base.isEmpty())
        start.insert(QStringLiteral("f.txt"), base);
    QVERIFY(share(a, b, start));
    QVERIFY(a.write(QStringLiteral("f.txt"), theirs));
    QVERIFY(a.write(QStringLiteral("other.txt"), "other by A\n"));
    const QByteArray segment = a.save();
    QVERIFY(b.write(QStringLiteral("f.txt"), ours));
    QVERIFY(b.ws->commit().value().created);
    const QByteArray sessionBefore = b.ws->refId("session").value();
    QVERIFY(b.apply(segment));
    const QByteArray main = b.ws->refId("main").value();

    // git counts the same: `git merge-file` exits with its number of conflicts.
    QVERIFY(GitCli::writeFile(root.path() + QStringLiteral("/m/ours"), ours));
    QVERIFY(GitCli::writeFile(root.path() + QStringLiteral("/m/base"), base));
    QVERIFY(GitCli::writeFile(root.path() + QStringLiteral("/m/theirs"), theirs));
    const GitRun mergeFile = GitCli::run({QStringLiteral("merge-file"), QStringLiteral("-p"), QStringLiteral("ours"),
                                             QStringLiteral("base"), QStringLiteral("theirs")},
        root.path() + QStringLiteral("/m"));
    QCOMPARE(mergeFile.exitCode, regions);

    auto stop = b.ws->mergeMainIntoSession(ConflictMode::Stop);
    QVERIFY(stop);
    QCOMPARE(stop.value().conflicts.size(), 1);
    QCOMPARE(stop.value().conflicts.at(0).regions, regions);

    auto resolve = b.ws->mergeMainIntoSession(ConflictMode::Resolve);
    QVERIFY2(resolve, qPrintable(resolve ? QString() : resolve.error().message));
    QCOMPARE(resolve.value().outcome, SyncOutcome::ConflictsLeft);
    QCOMPARE(resolve.value().conflicts.size(), 1);
    QCOMPARE(resolve.value().conflicts.at(0).path, QStringLiteral("f.txt"));
    QCOMPARE(resolve.value().conflicts.at(0).regions, regions);
    // git's own view: markers in the file, a merge in progress with main, three stages in the index.
    const QByteArray marked = b.read(QStringLiteral("f.txt"));
    QCOMPARE(int(marked.count("\n<<<<<<< ") + (marked.startsWith("<<<<<<< ") ? 1 : 0)), regions);
    QVERIFY(marked.contains("=======\n") && marked.contains(">>>>>>> "));
    QCOMPARE(GitCli::readFile(b.gitDir + QStringLiteral("/MERGE_HEAD")).trimmed(), main);
    const QByteArray stages = b.git({QStringLiteral("ls-files"), QStringLiteral("-u")}, true).out;
    QVERIFY2(stages.contains(" 2\tf.txt") && stages.contains(" 3\tf.txt"), stages.constData());
    // The clean side of the merge is already in place.
    QCOMPARE(b.read(QStringLiteral("other.txt")), QByteArray("other by A\n"));
    auto changes = b.ws->changes();
    QVERIFY(changes);
    QVERIFY(changes.value().mergeInProgress);
    bool conflicted = false;
    for (const FileChange &f : changes.value().files)
        conflicted = conflicted || (f.path == QLatin1String("f.txt") && f.status == FileStatus::Conflicted);
    QVERIFY(conflicted);
    // A second sync waits for the save; so does the merge into main.
    QVERIFY(!b.ws->mergeMainIntoSession());
    QCOMPARE(b.ws->mergeIntoMain().error().code, WorkspaceError::Code::Conflict);

    // The member fixes the file; even a save of only another path completes the merge.
    QVERIFY(b.write(QStringLiteral("f.txt"), "resolved\n"));
    QVERIFY(b.write(QStringLiteral("unrelated.txt"), "later\n"));
    QVERIFY(b.write(QStringLiteral("picked.txt"), "picked\n"));
    auto c = b.ws->commit({QStringLiteral("picked.txt")});
    QVERIFY2(c, qPrintable(c ? QString() : c.error().message));
    QVERIFY(c.value().created && c.value().completedMerge);
    QCOMPARE(b.rev(QStringLiteral("session/b^1")), sessionBefore);
    QCOMPARE(b.rev(QStringLiteral("session/b^2")), main);
    QVERIFY(!QFile::exists(b.gitDir + QStringLiteral("/MERGE_HEAD")));
    QCOMPARE(b.git({QStringLiteral("show"), QStringLiteral("session/b:f.txt")}).out, QByteArray("resolved\n"));
    QCOMPARE(b.files(QStringLiteral("session/b")), QStringLiteral("f.txt\nother.txt\npicked.txt"));
    auto after = b.ws->changes();
    QVERIFY(!after.value().mergeInProgress);
    QCOMPARE(after.value().files.size(), 1); // unrelated.txt, still uncommitted
    // And the save goes on into main.
    auto merged = b.ws->mergeIntoMain();
    QVERIFY2(merged, qPrintable(merged ? QString() : merged.error().message));
    QVERIFY(merged.value().merged);
}

void tst_WorkspaceSync::binaryAndDeleteConflicts()
{
    // Conflicts without text regions: a binary file changed on both sides, a file one side
    // deleted and the other changed.
    QTemporaryDir root;
    TestSession a = TestSession::open(root.path(), QStringLiteral("a"), m_clock);
    TestSession b = TestSession::open(root.path(), QStringLiteral("b"), m_clock);
    QVERIFY(a.valid() && b.valid());
    QVERIFY(
        share(a, b, {{QStringLiteral("img.bin"), QByteArray("\0\1\2base", 7)}, {QStringLiteral("doc.txt"), "doc\n"}}));
    QVERIFY(a.write(QStringLiteral("img.bin"), QByteArray("\0\1\2theirs", 9)));
    QVERIFY(QFile::remove(a.work + QStringLiteral("/doc.txt")));
    const QByteArray segment = a.save();
    QVERIFY(b.write(QStringLiteral("img.bin"), QByteArray("\0\1\2ours", 7)));
    QVERIFY(b.write(QStringLiteral("doc.txt"), "doc, edited by B\n"));
    QVERIFY(b.ws->commit().value().created);
    QVERIFY(b.apply(segment));

    const auto before = state(b);
    auto stop = b.ws->mergeMainIntoSession(ConflictMode::Stop);
    QVERIFY2(stop, qPrintable(stop ? QString() : stop.error().message));
    QCOMPARE(stop.value().outcome, SyncOutcome::Conflicted);
    QCOMPARE(stop.value().conflicts.size(), 2);
    QCOMPARE(stop.value().conflicts.at(0).path, QStringLiteral("doc.txt"));
    QCOMPARE(stop.value().conflicts.at(0).regions, 0);
    QCOMPARE(stop.value().conflicts.at(1).path, QStringLiteral("img.bin"));
    QCOMPARE(state(b), before);

    auto resolve = b.ws->mergeMainIntoSession(ConflictMode::Resolve);
    QVERIFY2(resolve, qPrintable(resolve ? QString() : resolve.error().message));
    QCOMPARE(resolve.value().outcome, SyncOutcome::ConflictsLeft);
    QCOMPARE(resolve.value().conflicts.size(), 2);
    // No text regions in a binary file, neither counted in memory nor written.
    QCOMPARE(stop.value().conflicts.at(1).regions, 0);
    QCOMPARE(resolve.value().conflicts.at(1).regions, 0);
    // B's edit survives in the worktree; the save completes the merge with what is there.
    QCOMPARE(b.read(QStringLiteral("doc.txt")), QByteArray("doc, edited by B\n"));
    auto c = b.ws->commit();
    QVERIFY2(c, qPrintable(c ? QString() : c.error().message));
    QVERIFY(c.value().completedMerge);
    QCOMPARE(b.files(QStringLiteral("session/b")), QStringLiteral("doc.txt\nimg.bin"));
}

void tst_WorkspaceSync::uncommittedChangesInTheWay()
{
    QTemporaryDir root;
    TestSession a = TestSession::open(root.path(), QStringLiteral("a"), m_clock);
    TestSession b = TestSession::open(root.path(), QStringLiteral("b"), m_clock);
    QVERIFY(a.valid() && b.valid());
    QVERIFY(share(a, b, {{QStringLiteral("f.txt"), "f\n"}}));
    QVERIFY(a.write(QStringLiteral("f.txt"), "f by A\n"));
    QVERIFY(a.write(QStringLiteral("new.txt"), "new by A\n"));
    const QByteArray segment = a.save();
    QVERIFY(b.apply(segment));
    // B edits f without saving: a fast-forward would overwrite it.
    QVERIFY(b.write(QStringLiteral("f.txt"), "f by B, unsaved\n"));
    const auto before = state(b);
    auto sync = b.ws->mergeMainIntoSession(ConflictMode::Resolve);
    QVERIFY(!sync);
    QCOMPARE(sync.error().code, WorkspaceError::Code::Conflict);
    QVERIFY2(sync.error().message.contains(QStringLiteral("f.txt")), qPrintable(sync.error().message));
    QCOMPARE(state(b), before);
    // Saved, the same sync merges.
    QVERIFY(b.ws->commit().value().created);
    auto again = b.ws->mergeMainIntoSession(ConflictMode::Stop);
    QVERIFY(again);
    QCOMPARE(again.value().outcome, SyncOutcome::Conflicted);
}

void tst_WorkspaceSync::refusedUploadThenSyncAndSaveAgain()
{
    // A and B save at the same time; the hub takes A's segment and answers B with 412.
    QTemporaryDir root;
    TestSession a = TestSession::open(root.path(), QStringLiteral("a"), m_clock);
    TestSession b = TestSession::open(root.path(), QStringLiteral("b"), m_clock);
    QVERIFY(a.valid() && b.valid());
    QVERIFY(share(a, b, {{QStringLiteral("shared.txt"), "s\n"}}));
    QVERIFY(a.write(QStringLiteral("a.txt"), "from A\n"));
    const QByteArray fromA = a.save();
    QVERIFY(!fromA.isEmpty());

    QVERIFY(b.write(QStringLiteral("b.txt"), "from B\n"));
    QVERIFY(b.ws->commit().value().created);
    const QByteArray session = b.ws->refId("session").value();
    const QByteArray mainBefore = b.ws->refId("main").value();
    QVERIFY(b.ws->mergeIntoMain().value().merged);
    QBuffer refused;
    refused.open(QIODevice::WriteOnly);
    QVERIFY(b.ws->writeSegment(refused).value().written);
    // 412: undo, sync, save again.
    QVERIFY(b.ws->undoMerge());
    QCOMPARE(b.ws->refId("main").value(), mainBefore);
    QCOMPARE(b.ws->refId("session").value(), session);
    QVERIFY(b.apply(fromA));
    QCOMPARE(b.ws->mergeMainIntoSession().value().outcome, SyncOutcome::Merged);
    const QByteArray fromB = b.save();
    QVERIFY(!fromB.isEmpty());
    QCOMPARE(b.files(QStringLiteral("main")), QStringLiteral("a.txt\nb.txt\nshared.txt"));
    // A takes B's segment on top of its own.
    QVERIFY(a.apply(fromB));
    QCOMPARE(a.rev(QStringLiteral("main")), b.rev(QStringLiteral("main")));
    QCOMPARE(a.rev(QStringLiteral("session/b")), b.rev(QStringLiteral("session/b")));
    QCOMPARE(a.ws->mergeMainIntoSession().value().outcome, SyncOutcome::FastForwarded);
    QCOMPARE(a.read(QStringLiteral("b.txt")), QByteArray("from B\n"));
}

void tst_WorkspaceSync::changesReport()
{
    QTemporaryDir root;
    TestSession a = TestSession::open(root.path(), QStringLiteral("a"), m_clock);
    TestSession b = TestSession::open(root.path(), QStringLiteral("b"), m_clock);
    QVERIFY(a.valid() && b.valid());
    const QByteArray long1
        = QByteArray("a fairly long line so that rename detection has something to compare\n").repeated(20);
    QVERIFY(share(a, b,
        {{QStringLiteral("keep.txt"), "keep\n"}, {QStringLiteral("edit.txt"), "edit\n"},
            {QStringLiteral("gone.txt"), "gone\n"}, {QStringLiteral("move-from.txt"), long1},
            {QStringLiteral("kind.txt"), "kind\n"}}));
    QVERIFY(b.write(QStringLiteral("edit.txt"), "edited\n"));
    QVERIFY(QFile::remove(b.work + QStringLiteral("/gone.txt")));
    QVERIFY(QFile::rename(b.work + QStringLiteral("/move-from.txt"), b.work + QStringLiteral("/move-to.txt")));
    QVERIFY(QFile::remove(b.work + QStringLiteral("/kind.txt")));
    QVERIFY(QFile::link(QStringLiteral("keep.txt"), b.work + QStringLiteral("/kind.txt")));
    QVERIFY(b.write(QStringLiteral("fresh.txt"), "fresh\n"));
    auto changes = b.ws->changes();
    QVERIFY(changes);
    QMap<QString, FileStatus> got;
    for (const FileChange &f : changes.value().files) {
        got.insert(f.path, f.status);
        if (f.status == FileStatus::Renamed)
            QCOMPARE(f.oldPath, QStringLiteral("move-from.txt"));
    }
    const QMap<QString, FileStatus> expected {{QStringLiteral("edit.txt"), FileStatus::Modified},
        {QStringLiteral("gone.txt"), FileStatus::Deleted}, {QStringLiteral("move-to.txt"), FileStatus::Renamed},
        {QStringLiteral("kind.txt"), FileStatus::TypeChange}, {QStringLiteral("fresh.txt"), FileStatus::Untracked}};
    QCOMPARE(got, expected);
    QCOMPARE(changes.value().ahead, 0);
    QCOMPARE(changes.value().behind, 0);

    // Two commits of B's own; A saves twice more.
    QVERIFY(b.ws->commit({QStringLiteral("edit.txt")}).value().created);
    QVERIFY(b.ws->commit().value().created);
    QVERIFY(a.write(QStringLiteral("a1"), "1"));
    QVERIFY(b.apply(a.save()));
    QVERIFY(a.write(QStringLiteral("a2"), "2"));
    QVERIFY(b.apply(a.save()));
    auto later = b.ws->changes();
    QVERIFY(later);
    QVERIFY(later.value().files.isEmpty());
    QCOMPARE(later.value().ahead, 2);
    // A's two commits and the two merges that put them on main.
    QCOMPARE(later.value().behind, 4);
}

QTEST_GUILESS_MAIN(tst_WorkspaceSync)
#include "tst_workspacesync.moc"
