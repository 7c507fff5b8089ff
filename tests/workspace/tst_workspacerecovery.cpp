// `kill -9` during a save: after a real SIGKILL at each step the session branch is intact and the
// next start finishes the save (or redoes it) to the same result; what libgit2 can leave behind
// mid-step (lock files, a merge state already committed) is cleared on open.
#include "gitcli.h"
#include "testsession.h"

#include "core/clock.h"

#include <QBuffer>
#include <QFile>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

using namespace isolation;
using isolation::test::GitCli;
using isolation::test::GitRun;
using isolation::test::TestSession;

class tst_WorkspaceRecovery final : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void killedBetweenSteps_data();
    void killedBetweenSteps();
    void staleLocksAreCleared();
    void finishedMergeStateIsCleared();

private:
    ManualClock m_clock;
};

void tst_WorkspaceRecovery::killedBetweenSteps_data()
{
    QTest::addColumn<QString>("step");
    QTest::addColumn<bool>("pendingAfter");
    QTest::newRow("after commit") << "commit" << false;
    QTest::newRow("after merge") << "merge" << true;
    QTest::newRow("after segment") << "segment" << true;
    QTest::newRow("after publish") << "published" << false;
}

void tst_WorkspaceRecovery::killedBetweenSteps()
{
    QFETCH(QString, step);
    QFETCH(bool, pendingAfter);
    QTemporaryDir root;
    QByteArray first;
    QString gitDir, work;
    {
        TestSession s = TestSession::open(root.path(), QStringLiteral("s1"), m_clock);
        QVERIFY(s.valid());
        QVERIFY(s.write(QStringLiteral("one.txt"), "one\n"));
        first = s.save();
        QVERIFY(!first.isEmpty());
        QVERIFY(s.write(QStringLiteral("two.txt"), "two\n"));
        QVERIFY(s.write(QStringLiteral("one.txt"), "one, again\n"));
        gitDir = s.gitDir;
        work = s.work;
    }
    const QString segmentFile = root.path() + QStringLiteral("/killed.bundle");
    QProcess helper;
    helper.start(QStringLiteral(ISOLATION_SAVE_STEP_BIN), {gitDir, work, QStringLiteral("s1"), step, segmentFile});
    QVERIFY(helper.waitForFinished(60000));
    QVERIFY2(helper.exitStatus() == QProcess::CrashExit, helper.readAllStandardError().constData());

    TestSession s = TestSession::open(root.path(), QStringLiteral("s1"), m_clock);
    QVERIFY(s.valid());
    // The session branch holds the work whatever the step.
    QCOMPARE(s.git({QStringLiteral("show"), QStringLiteral("session/s1:two.txt")}).out, QByteArray("two\n"));
    QCOMPARE(s.git({QStringLiteral("show"), QStringLiteral("session/s1:one.txt")}).out, QByteArray("one, again\n"));
    QVERIFY(s.ws->changes().value().files.isEmpty());
    QCOMPARE(s.ws->savePending().value(), pendingAfter);
    const GitRun fsck = s.git({QStringLiteral("fsck"), QStringLiteral("--no-dangling")});
    QVERIFY2(fsck.ok(), qPrintable(fsck.describe()));

    // The next start runs the whole save again: finished steps are no-ops.
    auto c = s.ws->commit();
    QVERIFY(c);
    QVERIFY(!c.value().created);
    auto m = s.ws->mergeIntoMain();
    QVERIFY(m);
    QCOMPARE(m.value().merged, step == QLatin1String("commit"));
    QBuffer segment;
    segment.open(QIODevice::WriteOnly);
    auto seg = s.ws->writeSegment(segment);
    QVERIFY(seg);
    QCOMPARE(seg.value().written, step != QLatin1String("published"));
    if (seg.value().written) {
        QVERIFY(s.ws->markPublished(seg.value()));
        // What the killed process had written is the same segment.
        if (step == QLatin1String("segment"))
            QCOMPARE(GitCli::readFile(segmentFile), segment.data());
    }
    QVERIFY(!s.ws->savePending().value());

    // A fresh engine rebuilds it all from the segments.
    const QByteArray second = step == QLatin1String("published") ? GitCli::readFile(segmentFile) : segment.data();
    TestSession other = TestSession::open(root.path(), QStringLiteral("other"), m_clock);
    QVERIFY(other.valid());
    QVERIFY(other.apply(first));
    auto applied = other.apply(second);
    QVERIFY2(applied, qPrintable(applied ? QString() : applied.error().message));
    QCOMPARE(other.rev(QStringLiteral("main")), s.rev(QStringLiteral("main")));
    QCOMPARE(other.ws->mergeMainIntoSession().value().outcome, SyncOutcome::FastForwarded);
    QCOMPARE(other.read(QStringLiteral("one.txt")), QByteArray("one, again\n"));
    QCOMPARE(other.read(QStringLiteral("two.txt")), QByteArray("two\n"));
}

void tst_WorkspaceRecovery::staleLocksAreCleared()
{
    QTemporaryDir root;
    QString gitDir;
    {
        TestSession s = TestSession::open(root.path(), QStringLiteral("s1"), m_clock);
        QVERIFY(s.valid());
        QVERIFY(s.write(QStringLiteral("a.txt"), "a\n"));
        QVERIFY(!s.save().isEmpty());
        QVERIFY(s.write(QStringLiteral("b.txt"), "b\n"));
        gitDir = s.gitDir;
    }
    // What a process killed inside libgit2's index or ref writes leaves.
    QVERIFY(GitCli::writeFile(gitDir + QStringLiteral("/index.lock"), "partial"));
    QVERIFY(GitCli::writeFile(gitDir + QStringLiteral("/refs/heads/session/s1.lock"), "partial"));
    QVERIFY(GitCli::writeFile(gitDir + QStringLiteral("/refs/heads/main.lock"), "partial"));
    QVERIFY(GitCli::writeFile(gitDir + QStringLiteral("/isolation/tmp/incoming-abc/pack-x.pack"), "partial"));
    TestSession s = TestSession::open(root.path(), QStringLiteral("s1"), m_clock);
    QVERIFY(s.valid());
    QVERIFY(!QFile::exists(gitDir + QStringLiteral("/index.lock")));
    QVERIFY(!QFile::exists(gitDir + QStringLiteral("/isolation/tmp/incoming-abc")));
    QVERIFY(!s.save().isEmpty());
    QCOMPARE(s.files(QStringLiteral("main")), QStringLiteral("a.txt\nb.txt"));
}

void tst_WorkspaceRecovery::finishedMergeStateIsCleared()
{
    // Killed after the merge-completing commit moved the branch, before MERGE_HEAD went away.
    QTemporaryDir root;
    QString gitDir;
    QByteArray parent;
    {
        TestSession s = TestSession::open(root.path(), QStringLiteral("s1"), m_clock);
        QVERIFY(s.valid());
        QVERIFY(s.write(QStringLiteral("a.txt"), "a\n"));
        QVERIFY(s.ws->commit().value().created);
        parent = s.ws->refId("session").value();
        QVERIFY(s.write(QStringLiteral("b.txt"), "b\n"));
        QVERIFY(s.ws->commit().value().created);
        gitDir = s.gitDir;
    }
    QVERIFY(GitCli::writeFile(gitDir + QStringLiteral("/MERGE_HEAD"), parent + '\n'));
    QVERIFY(GitCli::writeFile(gitDir + QStringLiteral("/MERGE_MSG"), "Merge\n"));
    TestSession s = TestSession::open(root.path(), QStringLiteral("s1"), m_clock);
    QVERIFY(s.valid());
    QVERIFY(!QFile::exists(gitDir + QStringLiteral("/MERGE_HEAD")));
    QVERIFY(!s.ws->changes().value().mergeInProgress);

    // A merge head the branch does not contain is a real merge in progress: kept.
    const QByteArray elsewhere = GitCli::run({QStringLiteral("--git-dir=") + gitDir, QStringLiteral("commit-tree"),
                                                 QStringLiteral("4b825dc642cb6eb9a060e54bf8d69288fbee4904")},
        {}, "elsewhere\n")
                                     .out.trimmed();
    QCOMPARE(elsewhere.size(), 40);
    QVERIFY(GitCli::writeFile(gitDir + QStringLiteral("/MERGE_HEAD"), elsewhere + '\n'));
    s.ws.reset();
    TestSession again = TestSession::open(root.path(), QStringLiteral("s1"), m_clock);
    QVERIFY(again.valid());
    QVERIFY(QFile::exists(gitDir + QStringLiteral("/MERGE_HEAD")));
    QVERIFY(again.ws->changes().value().mergeInProgress);
}

QTEST_GUILESS_MAIN(tst_WorkspaceRecovery)
#include "tst_workspacerecovery.moc"
