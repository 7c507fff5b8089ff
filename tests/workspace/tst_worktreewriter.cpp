// A session filled from nothing is checked out from several threads (WorktreeWriter): its files
// are byte for byte what `git clone` and libgit2's own checkout write (line-ending and ident
// filters from .gitattributes at any level, executable bits, symbolic links, deep directories),
// its index carries their stat data (`git diff-files` clean without a refresh), progress counts
// the bytes, and a tree it cannot write leaves the worktree and the index as they were.
#include "gitcli.h"
#include "testsession.h"

#include "core/clock.h"
#include "workspace/worktreewriter.h"

#include <QBuffer>
#include <QDir>
#include <QDirIterator>
#include <QFile>
#include <QFileInfo>
#include <QTemporaryDir>
#include <QTest>

using namespace isolation;
using isolation::test::GitCli;
using isolation::test::GitRun;
using isolation::test::TestSession;

namespace {

QStringList lines(const QByteArray &text)
{
    QStringList out = QString::fromUtf8(text).split(u'\n', Qt::SkipEmptyParts);
    out.sort();
    return out;
}

} // namespace

class tst_WorktreeWriter final : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void sameFilesAsGitAndLibgit2();
    void namesCheckoutTreatsSpeciallyGoToLibgit2();
    void aTreeItCannotWriteLeavesNothing();
    void aKilledWriteLeavesNoHalfFile();
    void largeFilesTakeTurns();

private:
    // Session "a" saves the tree; the segment, and main afterwards.
    QByteArray m_segment;
    QByteArray m_main;
    QTemporaryDir m_dir;
    ManualClock m_clock;
};

void tst_WorktreeWriter::initTestCase()
{
    QVERIFY(m_dir.isValid());
    TestSession a = TestSession::open(m_dir.path(), QStringLiteral("a"), m_clock);
    QVERIFY(a.valid());
    // Attributes at two levels: CRLF on checkout for *.crlf, $Id$ expanded for *.id; a deeper
    // rule that takes text back for one directory; files named to sort before .gitattributes.
    QVERIFY(a.write(QStringLiteral(".gitattributes"), "*.crlf text eol=crlf\n*.id ident\n"));
    QVERIFY(a.write(QStringLiteral("docs/.gitattributes"), "*.crlf -text\n"));
    QVERIFY(a.write(QStringLiteral("top.crlf"), "one\ntwo\n"));
    QVERIFY(a.write(QStringLiteral("docs/raw.crlf"), "kept\nas is\n"));
    QVERIFY(a.write(QStringLiteral("deep/-first.crlf"), "dash\nfirst\n"));
    QVERIFY(a.write(QStringLiteral("deep/!bang.crlf"), "bang\n"));
    QVERIFY(a.write(QStringLiteral("deep/.gitattributes"), "*.txt text eol=crlf\n"));
    QVERIFY(a.write(QStringLiteral("deep/note.txt"), "a\nb\n"));
    QVERIFY(a.write(QStringLiteral("deep/!early.txt"), "sorts\nfirst\n"));
    QVERIFY(a.write(QStringLiteral("ident.id"), "rev $Id$ here\n"));
    QVERIFY(a.write(QStringLiteral("empty"), ""));
    QByteArray binary(70000, '\0');
    for (int i = 0; i < binary.size(); ++i)
        binary[i] = char((i * 7919) % 251);
    QVERIFY(a.write(QStringLiteral("bin/blob.bin"), binary));
    QVERIFY(a.write(QStringLiteral("bin/run.sh"), "#!/bin/sh\necho hi\n"));
    QVERIFY(QFile::setPermissions(a.work + QStringLiteral("/bin/run.sh"),
        QFile::permissions(a.work + QStringLiteral("/bin/run.sh")) | QFile::ExeOwner | QFile::ExeGroup
            | QFile::ExeOther));
    QVERIFY(QFile::link(QStringLiteral("run.sh"), a.work + QStringLiteral("/bin/link")));
    QVERIFY(QFile::link(QStringLiteral("../nowhere"), a.work + QStringLiteral("/bin/dangling")));
    QVERIFY(a.write(QStringLiteral(".github/workflow.yml"), "on: push\n"));
    QVERIFY(a.write(QStringLiteral("uni/caf\u00e9 \u00fcber.txt"), "unicode\n"));
    for (int i = 0; i < 300; ++i)
        QVERIFY(a.write(QStringLiteral("d%1/e%2/f%3/file%4.c").arg(i % 3).arg(i % 5).arg(i % 7).arg(i),
            QByteArray("int x") + QByteArray::number(i) + ";\n"));
    m_segment = a.save(QStringLiteral("tree"));
    QVERIFY(!m_segment.isEmpty());
    m_main = a.rev(QStringLiteral("main"));
}

void tst_WorktreeWriter::sameFilesAsGitAndLibgit2()
{
    // b: filled from nothing, the threads' path; c: an untracked file first, so libgit2's checkout.
    TestSession b = TestSession::open(m_dir.path(), QStringLiteral("b"), m_clock);
    TestSession c = TestSession::open(m_dir.path(), QStringLiteral("c"), m_clock);
    QVERIFY(b.valid() && c.valid());
    QVERIFY(b.apply(m_segment) && c.apply(m_segment));
    QVERIFY(c.write(QStringLiteral("zz-untracked"), "mine\n"));
    QList<std::pair<qint64, qint64>> reports;
    auto synced = b.ws->mergeMainIntoSession(ConflictMode::Stop, [&](qint64 bytes, qint64 total) {
        reports.append({bytes, total});
    });
    QVERIFY2(synced, qPrintable(synced ? QString() : synced.error().message));
    QCOMPARE(synced.value().outcome, SyncOutcome::FastForwarded);
    bool viaLibgit2 = true;
    auto fallback = c.ws->mergeMainIntoSession(ConflictMode::Stop, [&](qint64, qint64) { viaLibgit2 = false; });
    QVERIFY(fallback && fallback.value().outcome == SyncOutcome::FastForwarded);
    QVERIFY2(viaLibgit2, "a worktree with a file in it is libgit2's to check out");

    // Progress: the bytes of the blobs, ending at the total.
    QVERIFY(!reports.isEmpty());
    const QByteArray sizes
        = b.git({QStringLiteral("ls-tree"), QStringLiteral("-r"), QStringLiteral("-l"), QStringLiteral("main")}).out;
    qint64 total = 0;
    for (const QString &line : lines(sizes))
        total += line.section(u'\t', 0, 0).simplified().section(u' ', 3, 3).toLongLong();
    QCOMPARE(reports.last(), std::make_pair(total, total));
    for (const auto &r : std::as_const(reports))
        QVERIFY(r.first > 0 && r.first <= r.second && r.second == total);

    // What the real git writes from the same commits.
    const QString bundle = m_dir.filePath(QStringLiteral("tree.bundle"));
    {
        QFile out(bundle);
        QVERIFY(out.open(QIODevice::WriteOnly));
        QVERIFY(b.ws->exportBundle(out));
    }
    const QString clone = m_dir.filePath(QStringLiteral("clone"));
    QVERIFY(GitCli::run({QStringLiteral("clone"), QStringLiteral("-q"), bundle, clone}).ok());
    const auto cloned = GitCli::snapshot(clone, {QStringLiteral(".git/")});
    QCOMPARE(GitCli::snapshot(b.work), cloned);
    // libgit2's checkout writes a file that sorts before its directory's .gitattributes ('!' <
    // '.') before that file, so without its rules; git and the threads read the commit's.
    QCOMPARE(b.read(QStringLiteral("deep/!early.txt")), QByteArray("sorts\r\nfirst\r\n"));
    QCOMPARE(c.read(QStringLiteral("deep/!early.txt")), QByteArray("sorts\nfirst\n"));
    QCOMPARE(GitCli::snapshot(c.work, {QStringLiteral("zz-untracked"), QStringLiteral("deep/!early.txt")}),
        GitCli::snapshot(clone, {QStringLiteral(".git/"), QStringLiteral("deep/!early.txt")}));
    QCOMPARE(GitCli::kinds(b.work), GitCli::kinds(clone, QStringLiteral(".git/")));
    QCOMPARE(GitCli::kinds(c.work, QStringLiteral("zz-untracked")), GitCli::kinds(b.work));
    QCOMPARE(b.read(QStringLiteral("top.crlf")), QByteArray("one\r\ntwo\r\n"));
    QCOMPARE(b.read(QStringLiteral("docs/raw.crlf")), QByteArray("kept\nas is\n"));
    QVERIFY(b.read(QStringLiteral("ident.id")).startsWith("rev $Id: "));

    // The index: every file of main with its stat data, so nothing reads as changed, not even to
    // `git diff-files`, which trusts the stat data without refreshing it.
    QCOMPARE(b.rev(QStringLiteral("HEAD")), m_main);
    QCOMPARE(b.git({QStringLiteral("status"), QStringLiteral("--porcelain")}, true).out, QByteArray());
    QCOMPARE(b.git({QStringLiteral("diff-files")}, true).out, QByteArray());
    QStringList indexed;
    for (const QString &line : lines(b.git({QStringLiteral("ls-files"), QStringLiteral("-s")}).out))
        indexed.append(line.section(u' ', 0, 1) + u' ' + line.section(u'\t', 1));
    QStringList tree;
    for (const QString &line :
        lines(b.git({QStringLiteral("ls-tree"), QStringLiteral("-r"), QStringLiteral("main")}).out))
        tree.append(line.section(u' ', 0, 0) + u' ' + line.section(u' ', 2, 2).section(u'\t', 0, 0) + u' '
            + line.section(u'\t', 1));
    indexed.sort();
    tree.sort();
    QCOMPARE(indexed, tree);
    auto changes = b.ws->changes();
    QVERIFY(changes && changes.value().files.isEmpty());
    // Nothing left beside the objects.
    QVERIFY(
        QDir(b.gitDir + QStringLiteral("/isolation/tmp")).entryList(QDir::AllEntries | QDir::NoDotAndDotDot).isEmpty());
}

void tst_WorktreeWriter::namesCheckoutTreatsSpeciallyGoToLibgit2()
{
    // An 8.3 short name (what NTFS would read as GIT~1) is libgit2's to judge: the whole tree goes there.
    TestSession g = TestSession::open(m_dir.path(), QStringLiteral("g"), m_clock);
    TestSession h = TestSession::open(m_dir.path(), QStringLiteral("h"), m_clock);
    QVERIFY(g.valid() && h.valid());
    QVERIFY(g.write(QStringLiteral("notes/report~1.txt"), "short name\n"));
    QVERIFY(g.write(QStringLiteral("plain.txt"), "plain\n"));
    const QByteArray segment = g.save();
    QVERIFY(!segment.isEmpty() && h.apply(segment));
    bool threaded = false;
    auto synced = h.ws->mergeMainIntoSession(ConflictMode::Stop, [&](qint64, qint64) { threaded = true; });
    QVERIFY(synced && synced.value().outcome == SyncOutcome::FastForwarded);
    QVERIFY(!threaded);
    QCOMPARE(h.read(QStringLiteral("notes/report~1.txt")), QByteArray("short name\n"));
    QCOMPARE(h.git({QStringLiteral("status"), QStringLiteral("--porcelain")}, true).out, QByteArray());
}

void tst_WorktreeWriter::aTreeItCannotWriteLeavesNothing()
{
    // A tree that names "a" twice (git hash-object --literally makes what git itself would not):
    // the second file cannot be made, and nothing of the first stays behind.
    TestSession d = TestSession::open(m_dir.path(), QStringLiteral("d"), m_clock);
    QVERIFY(d.valid());
    const QByteArray indexBefore = GitCli::readFile(d.gitDir + QStringLiteral("/index"));
    const QByteArray blobId = GitCli::run({QStringLiteral("--git-dir=") + d.gitDir, QStringLiteral("hash-object"),
                                              QStringLiteral("-w"), QStringLiteral("--stdin")},
        {}, "twice\n")
                                  .out.trimmed();
    QCOMPARE(blobId.size(), 40);
    const QByteArray raw = QByteArray::fromHex(blobId);
    QByteArray treeBytes;
    for (const char *name : {"a", "a", "b"})
        treeBytes += QByteArray("100644 ") + name + '\0' + raw;
    const GitRun tree = GitCli::run(
        {QStringLiteral("--git-dir=") + d.gitDir, QStringLiteral("hash-object"), QStringLiteral("-t"),
            QStringLiteral("tree"), QStringLiteral("--literally"), QStringLiteral("-w"), QStringLiteral("--stdin")},
        {}, treeBytes);
    QVERIFY2(tree.ok(), qPrintable(tree.describe()));
    const QByteArray root = d.rev(QStringLiteral("main"));
    const GitRun commit = GitCli::run({QStringLiteral("--git-dir=") + d.gitDir, QStringLiteral("commit-tree"),
        QString::fromLatin1(tree.out.trimmed()), QStringLiteral("-p"), QString::fromLatin1(root), QStringLiteral("-m"),
        QStringLiteral("twice")});
    QVERIFY2(commit.ok(), qPrintable(commit.describe()));
    QVERIFY(GitCli::run({QStringLiteral("--git-dir=") + d.gitDir, QStringLiteral("update-ref"),
                            QStringLiteral("refs/heads/main"), QString::fromLatin1(commit.out.trimmed())})
                .ok());

    auto synced = d.ws->mergeMainIntoSession();
    QVERIFY(!synced);
    QCOMPARE(synced.error().code, WorkspaceError::Code::Corrupt);
    QVERIFY2(synced.error().message.endsWith(QStringLiteral("/sessions/d/workspace/a twice")),
        qPrintable(synced.error().message));
    QVERIFY(QDir(d.work).isEmpty(QDir::AllEntries | QDir::NoDotAndDotDot | QDir::Hidden | QDir::System));
    QVERIFY(
        QDir(d.gitDir + QStringLiteral("/isolation/tmp")).entryList(QDir::AllEntries | QDir::NoDotAndDotDot).isEmpty());
    QCOMPARE(GitCli::readFile(d.gitDir + QStringLiteral("/index")), indexBefore);
    QCOMPARE(d.rev(QStringLiteral("HEAD")), root);
}

void tst_WorktreeWriter::aKilledWriteLeavesNoHalfFile()
{
    // Files are written beside the objects and moved in whole: what a kill leaves there is gone
    // when the repository opens again, and the worktree, still empty, is filled by the next sync.
    TestSession e = TestSession::open(m_dir.path(), QStringLiteral("e"), m_clock);
    QVERIFY(e.valid() && e.apply(m_segment));
    const QString stage = e.gitDir + QStringLiteral("/isolation/tmp/checkout-killed");
    QVERIFY(GitCli::writeFile(stage + QStringLiteral("/top.crlf"), "one\r\n"));
    e.ws.reset();
    e = TestSession::open(m_dir.path(), QStringLiteral("e"), m_clock);
    QVERIFY(e.valid());
    QVERIFY(!QFileInfo::exists(stage));
    bool threaded = false;
    auto synced = e.ws->mergeMainIntoSession(ConflictMode::Stop, [&](qint64, qint64) { threaded = true; });
    QVERIFY(synced && synced.value().outcome == SyncOutcome::FastForwarded);
    QVERIFY(threaded);
    QCOMPARE(e.read(QStringLiteral("top.crlf")), QByteArray("one\r\ntwo\r\n"));
    QCOMPARE(e.git({QStringLiteral("status"), QStringLiteral("--porcelain")}, true).out, QByteArray());
}

// Files from WorktreeWriter::kLargeFileBytes up share a budget of bytes between the threads: one
// larger than all of it goes alone, two smaller ones share it; with enough small files for two
// threads. All of them written whole.
void tst_WorktreeWriter::largeFilesTakeTurns()
{
    TestSession g = TestSession::open(m_dir.path(), QStringLiteral("large-from"), m_clock);
    TestSession h = TestSession::open(m_dir.path(), QStringLiteral("large-to"), m_clock);
    QVERIFY(g.valid() && h.valid());
    QList<std::pair<QString, QByteArray>> files;
    for (int i = 0; i < 3; ++i) {
        const qint64 size = i == 1 ? WorktreeWriter::kLargeFilesBudget + 4096 : WorktreeWriter::kLargeFileBytes * 2;
        QByteArray large = "/* registers " + QByteArray::number(i) + " */\n";
        large += QByteArray("#define REG 0x1f\n").repeated(int(size / 16));
        large.truncate(size);
        // A directory each: a thread's turn is one directory's files (kFilesPerTurn).
        files.append({QStringLiteral("big%1/regs.h").arg(i), large});
        for (int j = 0; j < 50; ++j)
            files.append({QStringLiteral("big%1/small%2.h").arg(i).arg(j), QByteArray::number(j) + "\n"});
    }
    for (const auto &[path, bytes] : std::as_const(files))
        QVERIFY(g.write(path, bytes));
    const QByteArray segment = g.save(QStringLiteral("large"));
    QVERIFY(!segment.isEmpty());
    QVERIFY(h.apply(segment));
    bool threads = false;
    auto synced = h.ws->mergeMainIntoSession(ConflictMode::Stop, [&](qint64, qint64) { threads = true; });
    QVERIFY2(synced, qPrintable(synced ? QString() : synced.error().message));
    QVERIFY2(threads, "a worktree filled from nothing is the threads' to write");
    for (const auto &[path, bytes] : std::as_const(files))
        QVERIFY2(h.read(path) == bytes, qPrintable(path));
    QCOMPARE(h.git({QStringLiteral("status"), QStringLiteral("--porcelain")}, true).out, QByteArray());
}

QTEST_GUILESS_MAIN(tst_WorktreeWriter)
#include "tst_worktreewriter.moc"
