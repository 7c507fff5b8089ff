// Save: the root commit, commits of everything or a selection, the merge into main, undo after a
// refused upload, nested repositories, compare-and-swap between two writers.
#include "gitcli.h"
#include "testsession.h"
#include "workspace/workspace.h"

#include "core/clock.h"

#include <QBuffer>
#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QTest>

#include <atomic>
#include <mutex>
#include <thread>

using namespace isolation;
using isolation::test::GitCli;
using isolation::test::GitRun;
using isolation::test::TestSession;

class tst_WorkspaceSave final : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void rootCommitIsDeterministic();
    void layout();
    void refusesBadArguments();
    void saveAll();
    void saveSelection_data();
    void saveSelection();
    void selectionOfMissingPathFails();
    void failedCommitLeavesNoTrace();
    void dataDirectoryMoved();
    void mergeCommitHasTwoParents();
    void upToDateAfterSave();
    void killedBeforeTheSessionTookTheMerge();
    void undoMergeAfterRefusedUpload();
    void mergeIntoMainRefusesConflicts();
    void nestedRepositoriesStayOut();
    void twoWritersOneLoses();

private:
    ManualClock m_clock;
};

void tst_WorkspaceSave::rootCommitIsDeterministic()
{
    QTemporaryDir a, b;
    TestSession one = TestSession::open(a.path(), QStringLiteral("one"), m_clock);
    TestSession two = TestSession::open(b.path(), QStringLiteral("two"), m_clock);
    QVERIFY(one.ws && two.ws);
    QCOMPARE(one.ws->refId("main").value(), QByteArray(Workspace::kRootCommitId));
    QCOMPARE(two.ws->refId("main").value(), QByteArray(Workspace::kRootCommitId));
    QCOMPARE(one.ws->refId("session").value(), QByteArray(Workspace::kRootCommitId));

    // The same inputs through the real git CLI give the same commit.
    QTemporaryDir plain;
    QVERIFY(GitCli::run({QStringLiteral("init"), QStringLiteral("-q"), plain.path()}).ok());
    const QByteArray emptyTree = GitCli::out({QStringLiteral("mktree")}, plain.path());
    QCOMPARE(emptyTree, QByteArray("4b825dc642cb6eb9a060e54bf8d69288fbee4904"));
    const QString id = QStringLiteral("Isolation");
    const QString email = QStringLiteral("workspace@isolation.invalid");
    const QString date = QStringLiteral("1704067200 +0000");
    const GitRun r = GitCli::run({QStringLiteral("commit-tree"), QString::fromLatin1(emptyTree)}, plain.path(),
        "Isolation workspace root\n",
        {{QStringLiteral("GIT_AUTHOR_NAME"), id}, {QStringLiteral("GIT_AUTHOR_EMAIL"), email},
            {QStringLiteral("GIT_AUTHOR_DATE"), date}, {QStringLiteral("GIT_COMMITTER_NAME"), id},
            {QStringLiteral("GIT_COMMITTER_EMAIL"), email}, {QStringLiteral("GIT_COMMITTER_DATE"), date}});
    QVERIFY2(r.ok(), qPrintable(r.describe()));
    QCOMPARE(r.out.trimmed(), QByteArray(Workspace::kRootCommitId));
}

void tst_WorkspaceSave::layout()
{
    QTemporaryDir root;
    TestSession s = TestSession::open(root.path(), QStringLiteral("s1"), m_clock);
    QVERIFY(s.ws);
    // The sandbox sees the worktree only: no .git in it, the history lives apart.
    QVERIFY(!QFileInfo::exists(s.work + QStringLiteral("/.git")));
    QVERIFY(QFileInfo::exists(s.gitDir + QStringLiteral("/HEAD")));
    QCOMPARE(GitCli::inRepo(s.gitDir, {QStringLiteral("symbolic-ref"), QStringLiteral("HEAD")}).out.trimmed(),
        QByteArray("refs/heads/session/s1"));
    QCOMPARE(
        GitCli::inRepo(s.gitDir, {QStringLiteral("rev-parse"), QStringLiteral("--is-bare-repository")}).out.trimmed(),
        QByteArray("false"));
    // A segment's pack builder is bounded (deltas kept for the write, one thread's delta window):
    // git's defaults let a first save of the whole kernel source peak at 317 MB.
    const auto config = [&](const char *key) {
        return GitCli::inRepo(s.gitDir, {QStringLiteral("config"), QStringLiteral("--get"), QLatin1String(key)})
            .out.trimmed();
    };
    QCOMPARE(config("pack.deltaCacheSize"), QByteArray::number(8 << 20));
    QCOMPARE(config("pack.windowMemory"), QByteArray::number(8 << 20));
    // A repository made before the bounds gets them when it is opened again.
    QVERIFY(GitCli::inRepo(
        s.gitDir, {QStringLiteral("config"), QStringLiteral("--unset"), QStringLiteral("pack.deltaCacheSize")})
                .ok());
    QVERIFY(config("pack.deltaCacheSize").isEmpty());
    // Reopening finds the same repository.
    s.ws.reset();
    TestSession again = TestSession::open(root.path(), QStringLiteral("s1"), m_clock);
    QVERIFY(again.ws);
    QCOMPARE(again.ws->refId("session").value(), QByteArray(Workspace::kRootCommitId));
    QCOMPARE(config("pack.deltaCacheSize"), QByteArray::number(8 << 20));
}

void tst_WorkspaceSave::refusesBadArguments()
{
    QTemporaryDir root;
    for (const QString &id : {QStringLiteral(""), QStringLiteral("../x"), QStringLiteral("a b"),
             QStringLiteral("x.lock"), QStringLiteral(".hidden")}) {
        auto ws = Workspace::open(root.path() + QStringLiteral("/g"), root.path() + QStringLiteral("/w"), id, m_clock);
        QVERIFY2(!ws, qPrintable(id));
    }
    // History inside the worktree would be visible to the sandbox.
    auto inside = Workspace::open(
        root.path() + QStringLiteral("/w/.hist"), root.path() + QStringLiteral("/w"), QStringLiteral("s"), m_clock);
    QVERIFY(!inside);
    // One git dir, one session.
    TestSession s = TestSession::open(root.path(), QStringLiteral("a"), m_clock);
    QVERIFY(s.ws);
    s.ws.reset();
    auto other = Workspace::open(s.gitDir, s.work, QStringLiteral("b"), m_clock);
    QVERIFY(!other);
    QVERIFY(other.error().message.contains(QStringLiteral("another session")));
}

void tst_WorkspaceSave::saveAll()
{
    QTemporaryDir root;
    TestSession s = TestSession::open(root.path(), QStringLiteral("s1"), m_clock);
    QVERIFY(s.ws);
    QVERIFY(GitCli::writeFile(s.work + QStringLiteral("/a.txt"), "alpha\n"));
    QVERIFY(GitCli::writeFile(s.work + QStringLiteral("/dir/b.txt"), "beta\n"));
    QVERIFY(GitCli::writeFile(s.work + QStringLiteral("/dir/deeper/c.bin"), QByteArray("\0\1\2\3", 4)));
    auto changes = s.ws->changes();
    QVERIFY(changes);
    QCOMPARE(changes.value().files.size(), 3);
    QCOMPARE(changes.value().files.at(0).status, FileStatus::Untracked);

    m_clock.advance(std::chrono::seconds(10));
    auto c = s.ws->commit({}, QStringLiteral("first"));
    QVERIFY2(c, qPrintable(c ? QString() : c.error().message));
    QVERIFY(c.value().created);
    QCOMPARE(c.value().commit, s.ws->refId("session").value());
    QCOMPARE(s.files(QStringLiteral("session/s1")), QStringLiteral("a.txt\ndir/b.txt\ndir/deeper/c.bin"));
    QCOMPARE(GitCli::inRepo(s.gitDir, {QStringLiteral("show"), QStringLiteral("session/s1:dir/deeper/c.bin")}).out,
        QByteArray("\0\1\2\3", 4));
    QVERIFY(s.ws->changes().value().files.isEmpty());
    QCOMPARE(s.ws->changes().value().ahead, 1);
    // git agrees that nothing is left to commit.
    QCOMPARE(
        GitCli::inRepo(s.gitDir, {QStringLiteral("status"), QStringLiteral("--porcelain")}, s.work).out, QByteArray());

    // Modify, delete, add: all in the next commit.
    QVERIFY(GitCli::writeFile(s.work + QStringLiteral("/a.txt"), "alpha 2\n"));
    QVERIFY(QFile::remove(s.work + QStringLiteral("/dir/b.txt")));
    QVERIFY(GitCli::writeFile(s.work + QStringLiteral("/new.txt"), "new\n"));
    auto c2 = s.ws->commit();
    QVERIFY(c2 && c2.value().created);
    QCOMPARE(s.files(QStringLiteral("session/s1")), QStringLiteral("a.txt\ndir/deeper/c.bin\nnew.txt"));
    // Nothing changed: no commit.
    auto c3 = s.ws->commit();
    QVERIFY(c3);
    QVERIFY(!c3.value().created);
    QCOMPARE(c3.value().commit, c2.value().commit);
}

void tst_WorkspaceSave::saveSelection_data()
{
    QTest::addColumn<QStringList>("selection");
    QTest::addColumn<QString>("committed");
    QTest::addColumn<QStringList>("stillChanged");
    QTest::newRow("one file") << QStringList {QStringLiteral("keep/one.txt")}
                              << QStringLiteral("base.txt\nkeep/one.txt\nold.txt")
                              << QStringList {QStringLiteral("base.txt"), QStringLiteral("keep/two.txt"),
                                     QStringLiteral("old.txt"), QStringLiteral("other/three.txt")};
    QTest::newRow("a directory") << QStringList {QStringLiteral("keep/")}
                                 << QStringLiteral("base.txt\nkeep/one.txt\nkeep/two.txt\nold.txt")
                                 << QStringList {QStringLiteral("base.txt"), QStringLiteral("old.txt"),
                                        QStringLiteral("other/three.txt")};
    QTest::newRow("a deletion and a modification")
        << QStringList {QStringLiteral("old.txt"), QStringLiteral("./base.txt")} << QStringLiteral("base.txt")
        << QStringList {
               QStringLiteral("keep/one.txt"), QStringLiteral("keep/two.txt"), QStringLiteral("other/three.txt")};
}

void tst_WorkspaceSave::saveSelection()
{
    QFETCH(QStringList, selection);
    QFETCH(QString, committed);
    QFETCH(QStringList, stillChanged);
    QTemporaryDir root;
    TestSession s = TestSession::open(root.path(), QStringLiteral("s1"), m_clock);
    QVERIFY(s.ws);
    QVERIFY(GitCli::writeFile(s.work + QStringLiteral("/base.txt"), "base\n"));
    QVERIFY(GitCli::writeFile(s.work + QStringLiteral("/old.txt"), "old\n"));
    QVERIFY(s.ws->commit().value().created);
    const QByteArray before = s.ws->refId("session").value();

    QVERIFY(GitCli::writeFile(s.work + QStringLiteral("/base.txt"), "base, changed\n"));
    QVERIFY(QFile::remove(s.work + QStringLiteral("/old.txt")));
    QVERIFY(GitCli::writeFile(s.work + QStringLiteral("/keep/one.txt"), "one\n"));
    QVERIFY(GitCli::writeFile(s.work + QStringLiteral("/keep/two.txt"), "two\n"));
    QVERIFY(GitCli::writeFile(s.work + QStringLiteral("/other/three.txt"), "three\n"));
    const auto worktreeBefore = GitCli::snapshot(s.work);

    auto c = s.ws->commit(selection, QStringLiteral("selected"));
    QVERIFY2(c, qPrintable(c ? QString() : c.error().message));
    QVERIFY(c.value().created);
    QCOMPARE(GitCli::out(
                 {QStringLiteral("--git-dir=") + s.gitDir, QStringLiteral("rev-parse"), QStringLiteral("session/s1^")}),
        before);
    QCOMPARE(s.files(QStringLiteral("session/s1")), committed);
    // The rest stays in the worktree, uncommitted, byte for byte.
    QCOMPARE(GitCli::snapshot(s.work), worktreeBefore);
    auto changes = s.ws->changes();
    QVERIFY(changes);
    QStringList changed;
    for (const FileChange &f : changes.value().files)
        changed << f.path;
    QCOMPARE(changed, stillChanged);
    // And a save of everything takes it.
    QVERIFY(s.ws->commit().value().created);
    QVERIFY(s.ws->changes().value().files.isEmpty());
    QCOMPARE(GitCli::snapshot(s.work), worktreeBefore);
}

void tst_WorkspaceSave::selectionOfMissingPathFails()
{
    QTemporaryDir root;
    TestSession s = TestSession::open(root.path(), QStringLiteral("s1"), m_clock);
    QVERIFY(s.ws);
    QVERIFY(GitCli::writeFile(s.work + QStringLiteral("/a.txt"), "a\n"));
    auto missing = s.ws->commit({QStringLiteral("nope.txt")});
    QVERIFY(!missing);
    QCOMPARE(missing.error().code, WorkspaceError::Code::NotFound);
    auto outside = s.ws->commit({QStringLiteral("../escape")});
    QVERIFY(!outside);
    QCOMPARE(s.ws->refId("session").value(), QByteArray(Workspace::kRootCommitId));
}

void tst_WorkspaceSave::failedCommitLeavesNoTrace()
{
    QTemporaryDir root;
    TestSession s = TestSession::open(root.path(), QStringLiteral("s1"), m_clock);
    QVERIFY(s.valid());
    QVERIFY(s.write(QStringLiteral("a.txt"), "a\n"));
    QVERIFY(s.write(QStringLiteral("b.txt"), "b\n"));
    // Another writer holds the index: the commit of a.txt fails after staging it in memory.
    QVERIFY(GitCli::writeFile(s.gitDir + QStringLiteral("/index.lock"), ""));
    auto locked = s.ws->commit({QStringLiteral("a.txt")});
    QVERIFY(!locked);
    QCOMPARE(locked.error().code, WorkspaceError::Code::Conflict);
    QVERIFY(locked.error().retryable());
    QVERIFY(QFile::remove(s.gitDir + QStringLiteral("/index.lock")));
    QCOMPARE(s.ws->refId("session").value(), QByteArray(Workspace::kRootCommitId));
    // The next commit of another selection carries nothing of the failed one.
    QVERIFY(s.ws->commit({QStringLiteral("b.txt")}).value().created);
    QCOMPARE(s.files(QStringLiteral("session/s1")), QStringLiteral("b.txt"));
}

void tst_WorkspaceSave::dataDirectoryMoved()
{
    QTemporaryDir root;
    {
        TestSession s = TestSession::open(root.path() + QStringLiteral("/old"), QStringLiteral("s1"), m_clock);
        QVERIFY(s.valid());
        QVERIFY(s.write(QStringLiteral("a.txt"), "a\n"));
        QVERIFY(s.ws->commit().value().created);
    }
    QVERIFY(QDir().rename(root.path() + QStringLiteral("/old"), root.path() + QStringLiteral("/new")));
    TestSession s = TestSession::open(root.path() + QStringLiteral("/new"), QStringLiteral("s1"), m_clock);
    QVERIFY(s.valid());
    QVERIFY(s.ws->changes().value().files.isEmpty());
    QCOMPARE(
        s.git({QStringLiteral("config"), QStringLiteral("core.worktree")}).out.trimmed(), QFile::encodeName(s.work));
    QVERIFY(s.write(QStringLiteral("b.txt"), "b\n"));
    QVERIFY(s.ws->commit().value().created);
    QCOMPARE(s.files(QStringLiteral("session/s1")), QStringLiteral("a.txt\nb.txt"));
}

void tst_WorkspaceSave::mergeCommitHasTwoParents()
{
    QTemporaryDir root;
    TestSession s = TestSession::open(root.path(), QStringLiteral("s1"), m_clock);
    QVERIFY(s.ws);
    QVERIFY(GitCli::writeFile(s.work + QStringLiteral("/a.txt"), "a\n"));
    QVERIFY(s.ws->commit().value().created);
    const QByteArray session = s.ws->refId("session").value();
    auto m = s.ws->mergeIntoMain();
    QVERIFY2(m, qPrintable(m ? QString() : m.error().message));
    QVERIFY(m.value().merged);
    QCOMPARE(m.value().previousMain, QByteArray(Workspace::kRootCommitId));
    QCOMPARE(s.ws->refId("main").value(), m.value().main);
    // No fast-forward: a merge commit whose parents are old main and the session branch.
    const QByteArray parents = GitCli::out({QStringLiteral("--git-dir=") + s.gitDir, QStringLiteral("rev-list"),
        QStringLiteral("--parents"), QStringLiteral("-n1"), QStringLiteral("main")});
    QCOMPARE(parents, m.value().main + ' ' + QByteArray(Workspace::kRootCommitId) + ' ' + session);
    QCOMPARE(s.files(QStringLiteral("main")), QStringLiteral("a.txt"));
    QVERIFY(s.ws->savePending().value());
    // The merge changed no file of the session: the session branch took it (what a sync would do).
    QCOMPARE(s.ws->refId("session").value(), m.value().main);
    QCOMPARE(s.rev(QStringLiteral("main^2")), session);
    // Merging again brings nothing new.
    auto again = s.ws->mergeIntoMain();
    QVERIFY(again);
    QVERIFY(!again.value().merged);
    QCOMPARE(again.value().main, m.value().main);
}

void tst_WorkspaceSave::upToDateAfterSave()
{
    QTemporaryDir root;
    TestSession a = TestSession::open(root.path(), QStringLiteral("a"), m_clock);
    TestSession b = TestSession::open(root.path(), QStringLiteral("b"), m_clock);
    QVERIFY(a.valid() && b.valid());
    auto upToDate = [](TestSession &s) {
        auto c = s.ws->changes();
        return c && c.value().ahead == 0 && c.value().behind == 0;
    };

    // Right after a save the session is neither ahead of main nor behind it, an unsaved file stays
    // unsaved, and a sync finds nothing to do.
    QVERIFY(a.write(QStringLiteral("one.txt"), "one\n"));
    const QByteArray first = a.save();
    QVERIFY(!first.isEmpty());
    QVERIFY(upToDate(a));
    QVERIFY(a.write(QStringLiteral("later.txt"), "not saved yet\n"));
    auto changes = a.ws->changes();
    QCOMPARE(changes.value().files.size(), 1);
    QCOMPARE(changes.value().files.first().status, FileStatus::Untracked);
    QCOMPARE(a.ws->mergeMainIntoSession().value().outcome, SyncOutcome::UpToDate);
    QCOMPARE(a.read(QStringLiteral("later.txt")), QByteArray("not saved yet\n"));

    // The next save builds on it: one commit ahead, then a merge with main and the commit as parents.
    QVERIFY(a.write(QStringLiteral("one.txt"), "one, again\n"));
    QVERIFY(a.ws->commit({QStringLiteral("one.txt")}).value().created);
    const QByteArray second = a.rev(QStringLiteral("session/a"));
    QCOMPARE(a.ws->changes().value().ahead, 1);
    QCOMPARE(a.ws->changes().value().behind, 0);
    const QByteArray mainBefore = a.rev(QStringLiteral("main"));
    auto m = a.ws->mergeIntoMain();
    QVERIFY(m && m.value().merged);
    QCOMPARE(a.rev(QStringLiteral("main^1")), mainBefore);
    QCOMPARE(a.rev(QStringLiteral("main^2")), second);
    QBuffer segment;
    segment.open(QIODevice::WriteOnly);
    auto seg = a.ws->writeSegment(segment);
    QVERIFY(seg && seg.value().written);
    QVERIFY(a.ws->markPublished(seg.value()));
    QVERIFY(upToDate(a));
    // Nothing new: nothing to write either (the hub has the session branch where it is).
    QVERIFY(!a.ws->mergeIntoMain().value().merged);
    QBuffer none;
    none.open(QIODevice::WriteOnly);
    QVERIFY(!a.ws->writeSegment(none).value().written);

    // Another session takes both saves by fast-forward; its own save is then up to date too.
    QVERIFY(b.apply(first));
    QVERIFY(b.apply(segment.data()));
    QCOMPARE(b.ws->changes().value().behind, 4);
    QCOMPARE(b.ws->mergeMainIntoSession().value().outcome, SyncOutcome::FastForwarded);
    QVERIFY(upToDate(b));
    QVERIFY(b.write(QStringLiteral("two.txt"), "two\n"));
    const QByteArray fromB = b.save();
    QVERIFY(!fromB.isEmpty());
    QVERIFY(upToDate(b));

    // Main really has work the session lacks: behind, and still behind after a save whose merge
    // brings main's work in (the session's files do not have it until it syncs).
    QVERIFY(a.apply(fromB));
    QCOMPARE(a.ws->changes().value().behind, 2);
    QVERIFY(a.write(QStringLiteral("three.txt"), "three\n"));
    QVERIFY(a.ws->commit().value().created);
    const QByteArray own = a.rev(QStringLiteral("session/a"));
    QVERIFY(a.ws->mergeIntoMain().value().merged);
    QCOMPARE(a.rev(QStringLiteral("session/a")), own);
    QCOMPARE(a.files(QStringLiteral("main")), QStringLiteral("later.txt\none.txt\nthree.txt\ntwo.txt"));
    QVERIFY(!QFile::exists(a.work + QStringLiteral("/two.txt")));
    QCOMPARE(a.ws->changes().value().behind, 3);
    QCOMPARE(a.ws->mergeMainIntoSession().value().outcome, SyncOutcome::FastForwarded);
    QCOMPARE(a.read(QStringLiteral("two.txt")), QByteArray("two\n"));
    QVERIFY(upToDate(a));
}

void tst_WorkspaceSave::killedBeforeTheSessionTookTheMerge()
{
    // main moved, the process died before the session branch took the merge: the next save's
    // merge step (a no-op for main) takes it.
    QTemporaryDir root;
    TestSession s = TestSession::open(root.path(), QStringLiteral("s1"), m_clock);
    QVERIFY(s.valid());
    QVERIFY(s.write(QStringLiteral("a.txt"), "a\n"));
    QVERIFY(s.ws->commit().value().created);
    const QByteArray own = s.rev(QStringLiteral("session/s1"));
    auto m = s.ws->mergeIntoMain();
    QVERIFY(m && m.value().merged);
    QCOMPARE(s.rev(QStringLiteral("session/s1")), m.value().main);
    s.ws.reset();
    QVERIFY(
        s.git({QStringLiteral("update-ref"), QStringLiteral("refs/heads/session/s1"), QString::fromLatin1(own)}).ok());
    s = TestSession::open(root.path(), QStringLiteral("s1"), m_clock);
    QVERIFY(s.valid());
    QCOMPARE(s.ws->changes().value().behind, 1);
    auto again = s.ws->mergeIntoMain();
    QVERIFY(again && !again.value().merged);
    QCOMPARE(s.rev(QStringLiteral("session/s1")), m.value().main);
    QCOMPARE(s.ws->changes().value().behind, 0);
    QVERIFY(s.ws->changes().value().files.isEmpty());
    // The undo after a 412 puts the session back on its own commit, and main before the merge.
    QVERIFY(s.ws->undoMerge());
    QCOMPARE(s.rev(QStringLiteral("session/s1")), own);
    QCOMPARE(s.rev(QStringLiteral("main")), QByteArray(Workspace::kRootCommitId));
    QCOMPARE(s.ws->changes().value().ahead, 1);
    QVERIFY(s.ws->changes().value().files.isEmpty());
}

void tst_WorkspaceSave::undoMergeAfterRefusedUpload()
{
    QTemporaryDir root;
    TestSession s = TestSession::open(root.path(), QStringLiteral("s1"), m_clock);
    QVERIFY(s.ws);
    QVERIFY(GitCli::writeFile(s.work + QStringLiteral("/a.txt"), "a\n"));
    QVERIFY(s.ws->commit().value().created);
    QVERIFY(s.ws->mergeIntoMain().value().merged);
    QBuffer first;
    first.open(QIODevice::WriteOnly);
    auto seg = s.ws->writeSegment(first);
    QVERIFY(seg && seg.value().written);
    QVERIFY(s.ws->markPublished(seg.value()));
    QVERIFY(!s.ws->savePending().value());
    const QByteArray published = s.ws->refId("main").value();

    // Second save: commit, merge, segment written ... and the store answers 412.
    QVERIFY(GitCli::writeFile(s.work + QStringLiteral("/b.txt"), "b\n"));
    QVERIFY(s.ws->commit().value().created);
    const QByteArray session = s.ws->refId("session").value();
    QVERIFY(s.ws->mergeIntoMain().value().merged);
    QBuffer second;
    second.open(QIODevice::WriteOnly);
    QVERIFY(s.ws->writeSegment(second).value().written);
    QVERIFY(s.ws->savePending().value());
    QVERIFY(s.ws->undoMerge());
    QCOMPARE(s.ws->refId("main").value(), published);
    QCOMPARE(s.ws->refId("session").value(), session);
    QCOMPARE(s.files(QStringLiteral("session/s1")), QStringLiteral("a.txt\nb.txt"));
    QVERIFY(!s.ws->savePending().value());
    QVERIFY(s.ws->undoMerge()); // nothing left to undo: still fine
    QCOMPARE(s.ws->refId("main").value(), published);
    // The save can be redone.
    QVERIFY(s.ws->mergeIntoMain().value().merged);
    QCOMPARE(s.files(QStringLiteral("main")), QStringLiteral("a.txt\nb.txt"));
}

void tst_WorkspaceSave::mergeIntoMainRefusesConflicts()
{
    QTemporaryDir root;
    TestSession a = TestSession::open(root.path(), QStringLiteral("a"), m_clock);
    TestSession b = TestSession::open(root.path(), QStringLiteral("b"), m_clock);
    QVERIFY(a.ws && b.ws);
    // A publishes f; B starts from it.
    QVERIFY(GitCli::writeFile(a.work + QStringLiteral("/f.txt"), "line 1\nline 2\nline 3\n"));
    QVERIFY(a.ws->commit().value().created);
    QVERIFY(a.ws->mergeIntoMain().value().merged);
    QBuffer seg1;
    seg1.open(QIODevice::ReadWrite);
    QVERIFY(a.ws->writeSegment(seg1).value().written);
    seg1.seek(0);
    QVERIFY(b.ws->applyBundle(seg1));
    QCOMPARE(b.ws->mergeMainIntoSession().value().outcome, SyncOutcome::FastForwarded);
    // Both change line 2; A publishes first.
    QVERIFY(GitCli::writeFile(a.work + QStringLiteral("/f.txt"), "line 1\nline 2 by A\nline 3\n"));
    QVERIFY(a.ws->commit().value().created);
    QVERIFY(a.ws->mergeIntoMain().value().merged);
    QBuffer seg2;
    seg2.open(QIODevice::ReadWrite);
    QVERIFY(a.ws->writeSegment(seg2).value().written);
    QVERIFY(GitCli::writeFile(b.work + QStringLiteral("/f.txt"), "line 1\nline 2 by B\nline 3\n"));
    QVERIFY(b.ws->commit().value().created);
    seg2.seek(0);
    QVERIFY(b.ws->applyBundle(seg2));
    const QByteArray mainBefore = b.ws->refId("main").value();
    const QByteArray sessionBefore = b.ws->refId("session").value();
    auto m = b.ws->mergeIntoMain();
    QVERIFY(!m);
    QCOMPARE(m.error().code, WorkspaceError::Code::Conflict);
    QVERIFY(m.error().message.contains(QStringLiteral("sync first")));
    QCOMPARE(b.ws->refId("main").value(), mainBefore);
    QCOMPARE(b.ws->refId("session").value(), sessionBefore);
    QVERIFY(!b.ws->savePending().value());
}

void tst_WorkspaceSave::nestedRepositoriesStayOut()
{
    QTemporaryDir root;
    TestSession s = TestSession::open(root.path(), QStringLiteral("s1"), m_clock);
    QVERIFY(s.ws);
    QVERIFY(GitCli::writeFile(s.work + QStringLiteral("/top.txt"), "top\n"));
    // A cloned repository with files and history of its own.
    const QString clone = s.work + QStringLiteral("/vendor/lib");
    QVERIFY(GitCli::run({QStringLiteral("init"), QStringLiteral("-q"), clone}).ok());
    QVERIFY(GitCli::writeFile(clone + QStringLiteral("/lib.c"), "int lib;\n"));
    QVERIFY(GitCli::run({QStringLiteral("add"), QStringLiteral(".")}, clone).ok());
    QVERIFY(GitCli::run({QStringLiteral("commit"), QStringLiteral("-qm"), QStringLiteral("lib")}, clone).ok());
    QVERIFY(GitCli::writeFile(clone + QStringLiteral("/untracked.c"), "x\n"));
    // Two levels deep, with a space and a glob character in its name.
    const QString deep = s.work + QStringLiteral("/a/b [x]/deep repo");
    QVERIFY(GitCli::run({QStringLiteral("init"), QStringLiteral("-q"), deep}).ok());
    QVERIFY(GitCli::writeFile(deep + QStringLiteral("/secret.txt"), "deep\n"));
    QVERIFY(GitCli::writeFile(s.work + QStringLiteral("/a/sibling.txt"), "sibling\n"));
    // A worktree-style checkout: `.git` is a file.
    QVERIFY(GitCli::writeFile(s.work + QStringLiteral("/wt/.git"), "gitdir: /nonexistent/worktrees/wt\n"));
    QVERIFY(GitCli::writeFile(s.work + QStringLiteral("/wt/file.txt"), "wt\n"));

    auto changes = s.ws->changes();
    QVERIFY(changes);
    QStringList paths;
    for (const FileChange &f : changes.value().files)
        paths << f.path;
    QCOMPARE(paths, QStringList({QStringLiteral("a/sibling.txt"), QStringLiteral("top.txt")}));

    // Selecting inside one is refused.
    auto refused = s.ws->commit({QStringLiteral("vendor/lib/lib.c")});
    QVERIFY(!refused);
    QVERIFY(refused.error().message.contains(QStringLiteral("nested repository")));

    QVERIFY(s.ws->commit().value().created);
    QVERIFY(s.ws->mergeIntoMain().value().merged);
    const QString expected = QStringLiteral("a/sibling.txt\ntop.txt");
    QCOMPARE(s.files(QStringLiteral("session/s1")), expected);
    QCOMPARE(s.files(QStringLiteral("main")), expected);

    // Nor do they reach a bundle: every bundled ref's tree, as git reads the bundle.
    const QString bundle = root.path() + QStringLiteral("/out.bundle");
    QFile out(bundle);
    QVERIFY(out.open(QIODevice::WriteOnly));
    QVERIFY(s.ws->exportBundle(out));
    out.close();
    const QString check = root.path() + QStringLiteral("/check");
    QVERIFY(
        GitCli::run({QStringLiteral("clone"), QStringLiteral("-q"), QStringLiteral("--mirror"), bundle, check}).ok());
    const QByteArray refs = GitCli::out(
        {QStringLiteral("--git-dir=") + check, QStringLiteral("for-each-ref"), QStringLiteral("--format=%(refname)")});
    QVERIFY(!refs.isEmpty());
    for (const QByteArray &ref : refs.split('\n')) {
        const QByteArray files = GitCli::out({QStringLiteral("--git-dir=") + check, QStringLiteral("ls-tree"),
            QStringLiteral("-r"), QStringLiteral("--name-only"), QString::fromUtf8(ref)});
        QVERIFY2(!files.contains("lib.c") && !files.contains("secret") && !files.contains("wt/")
                && !files.contains("untracked"),
            files.constData());
    }
    // No object of the nested repositories either.
    const QByteArray libBlob = GitCli::out({QStringLiteral("hash-object"), clone + QStringLiteral("/lib.c")});
    QVERIFY(!GitCli::run({QStringLiteral("--git-dir=") + check, QStringLiteral("cat-file"), QStringLiteral("-e"),
                             QString::fromLatin1(libBlob)})
                 .ok());
}

void tst_WorkspaceSave::twoWritersOneLoses()
{
    // Two handles on one repository, each on its own thread, committing as fast as they can: a
    // commit either lands or fails with Conflict; none is lost.
    QTemporaryDir root;
    TestSession s = TestSession::open(root.path(), QStringLiteral("s1"), m_clock);
    QVERIFY(s.ws);
    auto second = Workspace::open(s.gitDir, s.work, QStringLiteral("s1"), m_clock);
    QVERIFY(second);
    std::atomic_int conflicts = 0;
    QList<QByteArray> landed[2];
    QStringList otherErrors;
    std::mutex mutex;
    auto writer = [&](Workspace *ws, int who) {
        for (int i = 0; i < 25; ++i) {
            GitCli::writeFile(s.work + QStringLiteral("/w%1/%2.txt").arg(who).arg(i), QByteArray::number(i));
            auto c = ws->commit();
            if (c && c.value().created) {
                landed[who].append(c.value().commit);
            } else if (!c && c.error().code == WorkspaceError::Code::Conflict) {
                ++conflicts;
            } else if (!c) {
                std::lock_guard lock(mutex);
                otherErrors << c.error().message;
            }
        }
    };
    std::thread t0(writer, s.ws.get(), 0);
    std::thread t1(writer, second.value().get(), 1);
    t0.join();
    t1.join();
    QVERIFY2(otherErrors.isEmpty(), qPrintable(otherErrors.join(QLatin1Char('\n'))));
    const QByteArray history = GitCli::out(
        {QStringLiteral("--git-dir=") + s.gitDir, QStringLiteral("rev-list"), QStringLiteral("session/s1")});
    for (const auto &list : landed) {
        for (const QByteArray &id : list)
            QVERIFY2(history.contains(id), id.constData());
    }
    // Linear: every landed commit is on the one branch, each on top of the previous.
    QCOMPARE(history.split('\n').size(), landed[0].size() + landed[1].size() + 1);
    qInfo() << "landed" << landed[0].size() << "+" << landed[1].size() << "commits," << conflicts << "conflicts";
}

QTEST_GUILESS_MAIN(tst_WorkspaceSave)
#include "tst_workspacesave.moc"
