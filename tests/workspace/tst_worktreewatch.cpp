// A save looks only at the paths the kernel heard change (WorktreeWatch), and must still save
// exactly what a whole scan would: after every save the real git CLI finds the worktree clean.
// Random edits (files and directories made, changed, moved, deleted, modes, links, ignore rules)
// from a seed that is printed (ISOLATION_WATCH_SEED= to run one again), then the cases where the
// watch must give up and scan the whole worktree.
#include "gitcli.h"
#include "testsession.h"
#include "workspace/workspace.h"
#include "workspace/worktreewatch.h"

#include "core/clock.h"

#include <QDir>
#include <QFile>
#include <QRandomGenerator>
#include <QTemporaryDir>
#include <QTest>

#include <sys/stat.h>
#include <unistd.h>

using namespace isolation;
using isolation::test::GitCli;
using isolation::test::GitRun;
using isolation::test::TestSession;

class tst_WorktreeWatch final : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void randomEditsSaveWhatGitSees();
    void onlyWhatChangedIsLookedAt();
    void newDirectoryFilledBeforeAndAfterASave();
    void directoryMoveAndIgnoreRulesScanEverything();
    void indexWrittenElsewhereScansEverything();
    void selectionLeavesTheRestPending();
    void worktreeDeletedAndMadeAgain();
    void watchOutlivesItsDirectory();
    void tooManyDirectoriesAreNotWatched();
    void nestedRepositoryAppears();
    void overflowScansEverything();

private:
    ManualClock m_clock;
};

namespace {

// `git status` as the CLI sees the session's worktree against its branch: empty when the last
// save took everything. (No optional locks: git must not refresh the index on its own.)
QByteArray gitStatus(const TestSession &s)
{
    const GitRun r = GitCli::run({QStringLiteral("--no-optional-locks"), QStringLiteral("--git-dir=") + s.gitDir,
                                     QStringLiteral("--work-tree=") + s.work, QStringLiteral("status"),
                                     QStringLiteral("--porcelain"), QStringLiteral("--untracked-files=all")},
        s.work);
    if (!r.ok())
        return "git status failed: " + r.err;
    return r.out;
}

bool commitOk(TestSession &s, bool *whole = nullptr)
{
    auto c = s.ws->commit();
    if (!c) {
        qWarning() << "commit failed:" << c.error().message;
        return false;
    }
    if (whole)
        *whole = c.value().wholeScan;
    return true;
}

// Every path below `root` (relative, files and directories, links not followed), sorted.
QStringList entries(const QString &root, bool dirs)
{
    QStringList out;
    QList<QString> todo {QString()};
    while (!todo.isEmpty()) {
        const QString rel = todo.takeLast();
        const QDir d(rel.isEmpty() ? root : root + u'/' + rel);
        for (const QFileInfo &fi :
            d.entryInfoList(QDir::AllEntries | QDir::NoDotAndDotDot | QDir::Hidden | QDir::System)) {
            const QString path = rel.isEmpty() ? fi.fileName() : rel + u'/' + fi.fileName();
            if (fi.isDir() && !fi.isSymLink()) {
                todo.append(path);
                if (dirs)
                    out.append(path);
            } else if (!dirs) {
                out.append(path);
            }
        }
    }
    out.sort();
    return out;
}

} // namespace

void tst_WorktreeWatch::randomEditsSaveWhatGitSees()
{
    QTemporaryDir root;
    TestSession s = TestSession::open(root.path(), QStringLiteral("w"), m_clock);
    QVERIFY(s.ws);
    for (int d = 0; d < 8; ++d)
        for (int f = 0; f < 6; ++f)
            QVERIFY(s.write(QStringLiteral("d%1/sub%2/f%3.txt").arg(d).arg(d % 3).arg(f), "seed\n"));
    bool whole = false;
    QVERIFY(commitOk(s, &whole));
    QVERIFY(whole); // the first save scans everything
    QCOMPARE(gitStatus(s), QByteArray());

    const quint32 seed = qEnvironmentVariableIsSet("ISOLATION_WATCH_SEED")
        ? quint32(qEnvironmentVariableIntValue("ISOLATION_WATCH_SEED"))
        : QRandomGenerator::global()->generate();
    qInfo() << "seed" << seed << "(ISOLATION_WATCH_SEED to repeat)";
    QRandomGenerator rng(seed);
    auto pick = [&rng](const QStringList &from) {
        return from.isEmpty() ? QString() : from.at(rng.bounded(int(from.size())));
    };
    int partial = 0;
    int counter = 0;
    const int rounds = 120;
    for (int round = 0; round < rounds; ++round) {
        const int edits = 1 + rng.bounded(3);
        QStringList done;
        for (int e = 0; e < edits; ++e) {
            const QStringList files = entries(s.work, false);
            const QStringList dirs = entries(s.work, true);
            const QString file = pick(files);
            const QString dir = pick(dirs);
            const QString at = dir.isEmpty() ? s.work : s.work + u'/' + dir;
            const QString fresh = QStringLiteral("n%1").arg(++counter);
            switch (rng.bounded(12)) {
            case 0: // change a file's content
            case 1:
                if (!file.isEmpty() && !QFileInfo(s.work + u'/' + file).isSymLink()) {
                    QVERIFY(GitCli::writeFile(s.work + u'/' + file, "changed " + QByteArray::number(round) + '\n'));
                    done << QStringLiteral("change ") + file;
                }
                break;
            case 2: // a new file in an existing directory
            case 3:
                QVERIFY(GitCli::writeFile(at + u'/' + fresh + QStringLiteral(".txt"), fresh.toUtf8()));
                done << QStringLiteral("new file in ") + dir;
                break;
            case 4: // a new directory with files in it
                QVERIFY(GitCli::writeFile(at + u'/' + fresh + QStringLiteral("/a/b.txt"), "b\n"));
                QVERIFY(GitCli::writeFile(at + u'/' + fresh + QStringLiteral("/c.txt"), "c\n"));
                done << QStringLiteral("new directory in ") + dir;
                break;
            case 5: // delete a file
                if (!file.isEmpty()) {
                    QVERIFY(QFile::remove(s.work + u'/' + file));
                    done << QStringLiteral("delete ") + file;
                }
                break;
            case 6: // delete a directory and all in it
                if (!dir.isEmpty() && rng.bounded(3) == 0) {
                    QVERIFY(QDir(at).removeRecursively());
                    done << QStringLiteral("delete directory ") + dir;
                }
                break;
            case 7: // rename a file, maybe into another directory
                if (!file.isEmpty()) {
                    QVERIFY(QFile::rename(s.work + u'/' + file, at + u'/' + fresh));
                    done << QStringLiteral("move ") + file + QStringLiteral(" into ") + dir;
                }
                break;
            case 8: // rename a directory
                if (!dir.isEmpty() && rng.bounded(2) == 0) {
                    QVERIFY(QDir().rename(at, at + QStringLiteral("-") + fresh));
                    done << QStringLiteral("move directory ") + dir;
                }
                break;
            case 9: // flip the executable bit
                if (!file.isEmpty() && !QFileInfo(s.work + u'/' + file).isSymLink()) {
                    const QByteArray native = QFile::encodeName(s.work + u'/' + file);
                    struct stat st
                    {
                    };
                    QCOMPARE(::stat(native.constData(), &st), 0);
                    QCOMPARE(::chmod(native.constData(), (st.st_mode & 0777) ^ 0100), 0);
                    done << QStringLiteral("chmod ") + file;
                }
                break;
            case 10: // a symbolic link
                QVERIFY(QFile::link(QStringLiteral("target-") + fresh, at + u'/' + fresh + QStringLiteral(".lnk")));
                done << QStringLiteral("link in ") + dir;
                break;
            case 11: // an ignore rule, then a file it ignores and one it does not
                if (rng.bounded(4) == 0) {
                    QVERIFY(GitCli::writeFile(at + QStringLiteral("/.gitignore"), "*.log\n"));
                    QVERIFY(GitCli::writeFile(at + u'/' + fresh + QStringLiteral(".log"), "ignored\n"));
                    done << QStringLiteral("ignore rule in ") + dir;
                } else {
                    QVERIFY(GitCli::writeFile(at + u'/' + fresh + QStringLiteral(".log"), "log\n"));
                    done << QStringLiteral("a .log file in ") + dir;
                }
                break;
            }
        }
        QVERIFY2(commitOk(s, &whole), qPrintable(done.join(QStringLiteral("; "))));
        if (!whole)
            ++partial;
        const QByteArray status = gitStatus(s);
        QVERIFY2(status.isEmpty(),
            qPrintable(QStringLiteral("round %1 (seed %2) after: %3\ngit status:\n%4")
                           .arg(round)
                           .arg(seed)
                           .arg(done.join(QStringLiteral("; ")), QString::fromUtf8(status))));
    }
    // Most rounds change a few files and no directory's name or ignore rule: those looked only at
    // what changed. (A round that moved a directory or wrote a .gitignore scanned everything.)
    qInfo() << partial << "of" << rounds << "saves looked only at what changed";
    QVERIFY2(partial > rounds / 3, qPrintable(QString::number(partial)));
}

void tst_WorktreeWatch::onlyWhatChangedIsLookedAt()
{
    QTemporaryDir root;
    TestSession s = TestSession::open(root.path(), QStringLiteral("w"), m_clock);
    QVERIFY(s.ws);
    QVERIFY(s.write(QStringLiteral("a/one.txt"), "1\n"));
    QVERIFY(s.write(QStringLiteral("b/two.txt"), "2\n"));
    bool whole = false;
    QVERIFY(commitOk(s, &whole));
    QVERIFY(whole);

    // Nothing changed: nothing to commit, and nothing scanned.
    auto c = s.ws->commit();
    QVERIFY(c);
    QVERIFY(!c.value().created);
    QVERIFY(!c.value().wholeScan);

    // A write the kernel reports to no watch of the worktree: through a hard link in a directory
    // outside it. The save looks only at what it heard, so this change waits...
    const QString outside = root.path() + QStringLiteral("/outside-link");
    QCOMPARE(::link(QFile::encodeName(s.work + QStringLiteral("/a/one.txt")).constData(),
                 QFile::encodeName(outside).constData()),
        0);
    QVERIFY(GitCli::writeFile(outside, "1 through a link\n"));
    QVERIFY(s.write(QStringLiteral("b/two.txt"), "2 changed\n"));
    QVERIFY(commitOk(s, &whole));
    QVERIFY(!whole);
    QCOMPARE(s.git({QStringLiteral("show"), QStringLiteral("HEAD:b/two.txt")}).out, QByteArray("2 changed\n"));
    QCOMPARE(s.git({QStringLiteral("show"), QStringLiteral("HEAD:a/one.txt")}).out, QByteArray("1\n"));
    // ... for the whole scan every ten minutes, which takes it.
    m_clock.advance(std::chrono::minutes(10));
    QVERIFY(commitOk(s, &whole));
    QVERIFY(whole);
    QCOMPARE(s.git({QStringLiteral("show"), QStringLiteral("HEAD:a/one.txt")}).out, QByteArray("1 through a link\n"));
    QCOMPARE(gitStatus(s), QByteArray());
}

void tst_WorktreeWatch::newDirectoryFilledBeforeAndAfterASave()
{
    QTemporaryDir root;
    TestSession s = TestSession::open(root.path(), QStringLiteral("w"), m_clock);
    QVERIFY(s.ws);
    QVERIFY(s.write(QStringLiteral("top.txt"), "top\n"));
    QVERIFY(commitOk(s));

    // Made, filled and filled deeper between two saves: the directory is looked at whole.
    QVERIFY(s.write(QStringLiteral("new/x/y/z.txt"), "z\n"));
    QVERIFY(s.write(QStringLiteral("new/a.txt"), "a\n"));
    bool whole = true;
    QVERIFY(commitOk(s, &whole));
    QVERIFY(!whole);
    QCOMPARE(s.files(QStringLiteral("HEAD")), QStringLiteral("new/a.txt\nnew/x/y/z.txt\ntop.txt"));

    // After that save the new directories are watched: what is written in them is heard.
    QVERIFY(s.write(QStringLiteral("new/x/y/later.txt"), "later\n"));
    QVERIFY(s.write(QStringLiteral("new/x/y/z.txt"), "z2\n"));
    QVERIFY(commitOk(s, &whole));
    QVERIFY(!whole);
    QCOMPARE(s.files(QStringLiteral("HEAD")), QStringLiteral("new/a.txt\nnew/x/y/later.txt\nnew/x/y/z.txt\ntop.txt"));
    QCOMPARE(s.git({QStringLiteral("show"), QStringLiteral("HEAD:new/x/y/z.txt")}).out, QByteArray("z2\n"));

    // Deleted with everything in it.
    QVERIFY(QDir(s.work + QStringLiteral("/new")).removeRecursively());
    QVERIFY(commitOk(s, &whole));
    QVERIFY(!whole);
    QCOMPARE(s.files(QStringLiteral("HEAD")), QStringLiteral("top.txt"));
    QCOMPARE(gitStatus(s), QByteArray());
}

void tst_WorktreeWatch::directoryMoveAndIgnoreRulesScanEverything()
{
    QTemporaryDir root;
    TestSession s = TestSession::open(root.path(), QStringLiteral("w"), m_clock);
    QVERIFY(s.ws);
    QVERIFY(s.write(QStringLiteral("src/a.c"), "a\n"));
    QVERIFY(s.write(QStringLiteral("src/deep/b.c"), "b\n"));
    QVERIFY(s.write(QStringLiteral("notes.tmp"), "kept out later\n"));
    QVERIFY(s.write(QStringLiteral("build/out.o"), "object\n"));
    QVERIFY(commitOk(s));

    // A directory moved: every watch below it had the old name; the watch starts again.
    QVERIFY(QDir().rename(s.work + QStringLiteral("/src"), s.work + QStringLiteral("/lib")));
    bool whole = false;
    QVERIFY(commitOk(s, &whole));
    QVERIFY(whole);
    QCOMPARE(s.files(QStringLiteral("HEAD")), QStringLiteral("build/out.o\nlib/a.c\nlib/deep/b.c\nnotes.tmp"));
    // ... and hears what changes below the new name.
    QVERIFY(s.write(QStringLiteral("lib/deep/b.c"), "b2\n"));
    QVERIFY(commitOk(s, &whole));
    QVERIFY(!whole);
    QCOMPARE(s.git({QStringLiteral("show"), QStringLiteral("HEAD:lib/deep/b.c")}).out, QByteArray("b2\n"));

    // An ignore rule unignores or ignores paths nobody touched: everything is looked at.
    QVERIFY(s.write(QStringLiteral(".gitignore"), "*.tmp\nbuild/\n"));
    QVERIFY(s.write(QStringLiteral("fresh.tmp"), "ignored\n"));
    QVERIFY(commitOk(s, &whole));
    QVERIFY(whole);
    QCOMPARE(s.files(QStringLiteral("HEAD")),
        QStringLiteral(".gitignore\nbuild/out.o\nlib/a.c\nlib/deep/b.c\nnotes.tmp")); // tracked files stay
    QCOMPARE(gitStatus(s), QByteArray());
}

void tst_WorktreeWatch::indexWrittenElsewhereScansEverything()
{
    QTemporaryDir root;
    TestSession s = TestSession::open(root.path(), QStringLiteral("w"), m_clock);
    QVERIFY(s.ws);
    QVERIFY(s.write(QStringLiteral("a.txt"), "a\n"));
    QVERIFY(s.write(QStringLiteral("b.txt"), "b\n"));
    QVERIFY(commitOk(s));
    // Someone empties the index behind the save's back (no file in the worktree changes): only a
    // whole scan sees that both files must be added again.
    const GitRun r = s.git({QStringLiteral("read-tree"), QStringLiteral("--empty")});
    QVERIFY2(r.ok(), qPrintable(r.describe()));
    QVERIFY(s.write(QStringLiteral("c.txt"), "c\n"));
    bool whole = false;
    QVERIFY(commitOk(s, &whole));
    QVERIFY(whole);
    QCOMPARE(s.files(QStringLiteral("HEAD")), QStringLiteral("a.txt\nb.txt\nc.txt"));
    QCOMPARE(gitStatus(s), QByteArray());
}

void tst_WorktreeWatch::selectionLeavesTheRestPending()
{
    QTemporaryDir root;
    TestSession s = TestSession::open(root.path(), QStringLiteral("w"), m_clock);
    QVERIFY(s.ws);
    QVERIFY(s.write(QStringLiteral("a.txt"), "a\n"));
    QVERIFY(s.write(QStringLiteral("b.txt"), "b\n"));
    QVERIFY(commitOk(s));
    QVERIFY(s.write(QStringLiteral("a.txt"), "a2\n"));
    QVERIFY(s.write(QStringLiteral("b.txt"), "b2\n"));
    auto c = s.ws->commit({QStringLiteral("a.txt")});
    QVERIFY(c);
    QCOMPARE(s.git({QStringLiteral("show"), QStringLiteral("HEAD:b.txt")}).out, QByteArray("b\n"));
    // The save of the rest takes b.txt, heard before the selection was saved.
    QVERIFY(commitOk(s));
    QCOMPARE(s.git({QStringLiteral("show"), QStringLiteral("HEAD:b.txt")}).out, QByteArray("b2\n"));
    QCOMPARE(gitStatus(s), QByteArray());
}

void tst_WorktreeWatch::worktreeDeletedAndMadeAgain()
{
    QTemporaryDir root;
    TestSession s = TestSession::open(root.path(), QStringLiteral("w"), m_clock);
    QVERIFY(s.ws);
    QVERIFY(s.write(QStringLiteral("a.txt"), "a\n"));
    QVERIFY(commitOk(s));
    // The worktree's directory goes (its watch with it) and is checked out again.
    QVERIFY(QDir(s.work).removeRecursively());
    QVERIFY(s.ws->restoreWorkTree());
    QCOMPARE(s.read(QStringLiteral("a.txt")), QByteArray("a\n"));
    QVERIFY(s.write(QStringLiteral("a.txt"), "a2\n"));
    bool whole = false;
    QVERIFY(commitOk(s, &whole));
    QVERIFY(whole);
    QCOMPARE(s.git({QStringLiteral("show"), QStringLiteral("HEAD:a.txt")}).out, QByteArray("a2\n"));
    // The new directory is watched: later changes are heard.
    QVERIFY(s.write(QStringLiteral("b.txt"), "b\n"));
    QVERIFY(commitOk(s, &whole));
    QVERIFY(!whole);
    QCOMPARE(s.files(QStringLiteral("HEAD")), QStringLiteral("a.txt\nb.txt"));
    QCOMPARE(gitStatus(s), QByteArray());
}

void tst_WorktreeWatch::watchOutlivesItsDirectory()
{
    // The watch alone: asked while its directory is not there, then again once it is back.
    QTemporaryDir root;
    const QString dir = root.path() + QStringLiteral("/work");
    const QString index = root.path() + QStringLiteral("/index");
    QVERIFY(QDir().mkpath(dir));
    QVERIFY(GitCli::writeFile(index, "an index"));
    WorktreeWatch watch(dir, m_clock);
    QVERIFY(watch.take(index).everything);
    watch.settle(index, true);
    QVERIFY(GitCli::writeFile(dir + QStringLiteral("/one"), "1"));
    auto c = watch.take(index);
    QVERIFY(!c.everything);
    QCOMPARE(c.paths, QList<QByteArray> {"one"});
    watch.settle(index, false);

    QVERIFY(QDir(dir).removeRecursively());
    c = watch.take(index);
    QVERIFY(c.everything); // (a save would fail here: no worktree)
    QVERIFY(QDir().mkpath(dir));
    QVERIFY(GitCli::writeFile(dir + QStringLiteral("/two"), "2"));
    c = watch.take(index);
    QVERIFY2(c.everything, qPrintable(c.why));
    watch.settle(index, true);
    QVERIFY(watch.watchedDirectories() > 0);
    QVERIFY(GitCli::writeFile(dir + QStringLiteral("/three"), "3"));
    c = watch.take(index);
    QVERIFY(!c.everything);
    QCOMPARE(c.paths, QList<QByteArray> {"three"});
}

void tst_WorktreeWatch::tooManyDirectoriesAreNotWatched()
{
    // Beyond its limit of directories the watch gives every watch back and answers "everything".
    QTemporaryDir root;
    const QString dir = root.path() + QStringLiteral("/work");
    const QString index = root.path() + QStringLiteral("/index");
    QVERIFY(GitCli::writeFile(index, "an index"));
    for (int i = 0; i < 3; ++i)
        QVERIFY(QDir().mkpath(dir + QStringLiteral("/d%1").arg(i)));
    WorktreeWatch small(dir, m_clock, 8);
    QVERIFY(small.take(index).everything);
    small.settle(index, true);
    QCOMPARE(small.watchedDirectories(), 4);
    for (int i = 3; i < 8; ++i)
        QVERIFY(QDir().mkpath(dir + QStringLiteral("/d%1").arg(i)));
    const auto c = small.take(index); // the new directories are watched here: 9 > 8
    QVERIFY(c.everything);
    QVERIFY(!small.usable());
    QCOMPARE(small.watchedDirectories(), 0);
    small.settle(index, true);
    QVERIFY(small.take(index).everything);
}

void tst_WorktreeWatch::nestedRepositoryAppears()
{
    QTemporaryDir root;
    TestSession s = TestSession::open(root.path(), QStringLiteral("w"), m_clock);
    QVERIFY(s.ws);
    QVERIFY(s.write(QStringLiteral("top.txt"), "top\n"));
    QVERIFY(s.write(QStringLiteral("lib/a.txt"), "a\n"));
    QVERIFY(commitOk(s));
    QCOMPARE(s.files(QStringLiteral("HEAD")), QStringLiteral("lib/a.txt\ntop.txt"));

    // `git init` in a watched directory: it becomes a nested repository, kept out of the workspace
    // (its files once saved are saved as deleted), and its git data is not watched.
    const GitRun init = GitCli::run({QStringLiteral("init"), QStringLiteral("-q"), s.work + QStringLiteral("/lib")});
    QVERIFY2(init.ok(), qPrintable(init.describe()));
    bool whole = true;
    QVERIFY(commitOk(s, &whole));
    QVERIFY(!whole);
    QCOMPARE(s.files(QStringLiteral("HEAD")), QStringLiteral("top.txt"));
    QVERIFY(s.write(QStringLiteral("lib/b.txt"), "b\n"));
    QVERIFY(s.write(QStringLiteral("top.txt"), "top 2\n"));
    QVERIFY(commitOk(s, &whole));
    QVERIFY(!whole);
    QCOMPARE(s.files(QStringLiteral("HEAD")), QStringLiteral("top.txt"));
    QCOMPARE(s.git({QStringLiteral("show"), QStringLiteral("HEAD:top.txt")}).out, QByteArray("top 2\n"));

    // Gone again (its .git removed): its files are the workspace's once more.
    QVERIFY(QDir(s.work + QStringLiteral("/lib/.git")).removeRecursively());
    QVERIFY(commitOk(s, &whole));
    QVERIFY(!whole);
    QCOMPARE(s.files(QStringLiteral("HEAD")), QStringLiteral("lib/a.txt\nlib/b.txt\ntop.txt"));
    QCOMPARE(gitStatus(s), QByteArray());
}

void tst_WorktreeWatch::overflowScansEverything()
{
    QTemporaryDir root;
    TestSession s = TestSession::open(root.path(), QStringLiteral("w"), m_clock);
    QVERIFY(s.ws);
    // Directories watched already (in a new one, only the directory itself is reported).
    for (int d = 0; d < 50; ++d)
        QVERIFY(s.write(QStringLiteral("many/%1/first").arg(d), "first\n"));
    QVERIFY(commitOk(s));
    // More events than the kernel queues (each new file: create, modify, close), or more paths than
    // the watch keeps: either way the next save scans everything, and misses nothing.
    QFile limit(QStringLiteral("/proc/sys/fs/inotify/max_queued_events"));
    QVERIFY(limit.open(QIODevice::ReadOnly));
    const int queued = limit.readAll().trimmed().toInt();
    QVERIFY(queued > 0);
    const int files = std::min(queued / 3 + 100, 20001);
    for (int i = 0; i < files; ++i)
        QVERIFY(s.write(QStringLiteral("many/%1/f%2").arg(i % 50).arg(i), QByteArray::number(i)));
    bool whole = false;
    QVERIFY(commitOk(s, &whole));
    QVERIFY(whole);
    QCOMPARE(s.git({QStringLiteral("ls-tree"), QStringLiteral("-r"), QStringLiteral("--name-only"),
                       QStringLiteral("HEAD"), QStringLiteral("many")})
                 .out.count('\n'),
        files + 50);
    // Afterwards the watch is whole again.
    QVERIFY(s.write(QStringLiteral("many/7/f7"), "seven\n"));
    QVERIFY(commitOk(s, &whole));
    QVERIFY(!whole);
    QCOMPARE(s.git({QStringLiteral("show"), QStringLiteral("HEAD:many/7/f7")}).out, QByteArray("seven\n"));
    QCOMPARE(gitStatus(s), QByteArray());
}

QTEST_GUILESS_MAIN(tst_WorktreeWatch)
#include "tst_worktreewatch.moc"
