// The warm cache's pieces without the hub: a WorkspaceMirror takes segments and refs; ObjectLinker
// links its objects into a session (hard links, no alternates: deleting the mirror loses nothing);
// Workspace::adoptHubRefs takes the mirror's branches and refuses a commit it lacks; the mirror's
// bundle clones with the real git; WarmCache leases, eviction in use, clear, and the LRU cap;
// background work (a spare being built) neither counts as a use nor holds an eviction off;
// ObjectLinker::linkSince reads only what changed since the last link into the same mirror.
#include "../workspace/gitcli.h"
#include "../workspace/testsession.h"

#include "cache/warmcache.h"
#include "core/clock.h"
#include "workspace/objectlinker.h"
#include "workspace/workspacemirror.h"

#include <QBuffer>
#include <QDir>
#include <QDirIterator>
#include <QFile>
#include <QTemporaryDir>
#include <QTest>

#include <sys/stat.h>

using namespace isolation;
using isolation::test::GitCli;
using isolation::test::TestSession;

class tst_WarmCache final : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void mirrorFeedsASessionWithoutAlternates();
    void adoptRefusesACommitItLacks();
    void mirrorBundleClones();
    void leasesEvictionAndCap();
    void backgroundWorkYieldsToEviction();
    void linkSinceReadsOnlyWhatChanged();

private:
    // A mirror at `gitDir` holding `a`'s published state (its segments and hub refs).
    bool fill(const QString &gitDir, const QList<QByteArray> &segments, TestSession &a);
    ManualClock m_clock;
};

// The cached workspaces' ids, most recently used first.
static QStringList cachedIds(const WarmCache &cache)
{
    QStringList out;
    for (const CacheEntry &e : cache.list())
        out.append(e.workspaceId);
    return out;
}

bool tst_WarmCache::fill(const QString &gitDir, const QList<QByteArray> &segments, TestSession &a)
{
    auto mirror = WorkspaceMirror::open(gitDir);
    if (!mirror)
        return false;
    for (const QByteArray &segment : segments) {
        QBuffer in;
        in.setData(segment);
        in.open(QIODevice::ReadOnly);
        if (!mirror.value()->addBundle(in))
            return false;
    }
    auto refs = a.ws->hubRefs();
    return refs && mirror.value()->setRefs(refs.value());
}

void tst_WarmCache::mirrorFeedsASessionWithoutAlternates()
{
    QTemporaryDir root;
    TestSession a = TestSession::open(root.path(), QStringLiteral("a"), m_clock);
    TestSession b = TestSession::open(root.path(), QStringLiteral("b"), m_clock);
    QVERIFY(a.valid() && b.valid());
    QVERIFY(a.write(QStringLiteral("one.txt"), "one\n"));
    const QByteArray first = a.save();
    QVERIFY(a.write(QStringLiteral("two.txt"), "two\n"));
    const QByteArray second = a.save();
    QVERIFY(!first.isEmpty() && !second.isEmpty());
    const QString mirrorDir = root.filePath(QStringLiteral("mirror.git"));
    QVERIFY(fill(mirrorDir, {first, second}, a));
    auto mirror = WorkspaceMirror::open(mirrorDir);
    QVERIFY(mirror);
    auto refs = mirror.value()->refs();
    QVERIFY(refs);
    QCOMPARE(refs.value(), a.ws->hubRefs().value());
    QVERIFY(mirror.value()->hasCommits({QString::fromLatin1(a.rev(QStringLiteral("main")))}).value());

    // Into B: objects linked, the mirror's branches taken, then B syncs as usual.
    auto linked = ObjectLinker::link(mirrorDir, b.gitDir);
    QVERIFY(linked);
    QVERIFY(linked.value().packs + linked.value().loose > 0);
    auto adopted = b.ws->adoptHubRefs(refs.value());
    QVERIFY2(adopted, adopted ? "" : qPrintable(adopted.error().message));
    QCOMPARE(adopted.value().main, a.rev(QStringLiteral("main")));
    QVERIFY(b.ws->mergeMainIntoSession());
    QCOMPARE(b.read(QStringLiteral("two.txt")), QByteArray("two\n"));

    // Hard links where possible, never alternates; the mirror can go.
    QVERIFY(!QFile::exists(b.gitDir + QStringLiteral("/objects/info/alternates")));
    bool shared = false;
    QDirIterator packs(b.gitDir + QStringLiteral("/objects/pack"), {QStringLiteral("*.pack")}, QDir::Files);
    while (packs.hasNext()) {
        struct stat st
        {
        };
        QVERIFY(::stat(QFile::encodeName(packs.next()).constData(), &st) == 0);
        shared = shared || st.st_nlink > 1;
    }
    QVERIFY2(shared || linked.value().copied > 0, "a pack is neither hard-linked nor copied");
    mirror.value().reset();
    QVERIFY(QDir(mirrorDir).removeRecursively());
    const auto fsck = b.git({QStringLiteral("fsck"), QStringLiteral("--full"), QStringLiteral("--no-progress")});
    QVERIFY2(fsck.ok(), qPrintable(fsck.describe()));
    // Linking again adds nothing.
    QVERIFY(fill(mirrorDir, {first, second}, a));
    QVERIFY(ObjectLinker::link(mirrorDir, b.gitDir));
    auto again = ObjectLinker::link(mirrorDir, b.gitDir);
    QVERIFY(again);
    QCOMPARE(again.value().packs + again.value().loose, 0);
}

void tst_WarmCache::adoptRefusesACommitItLacks()
{
    QTemporaryDir root;
    TestSession b = TestSession::open(root.path(), QStringLiteral("b"), m_clock);
    QVERIFY(b.valid());
    const QByteArray mainBefore = b.rev(QStringLiteral("main"));
    const QByteArray refsBefore = b.git({QStringLiteral("for-each-ref")}).out;
    auto adopted = b.ws->adoptHubRefs({{QByteArray(40, '7'), "refs/heads/main"}});
    QVERIFY(!adopted);
    QCOMPARE(adopted.error().code, WorkspaceError::Code::Corrupt);
    QCOMPARE(b.rev(QStringLiteral("main")), mainBefore);
    QCOMPARE(b.git({QStringLiteral("for-each-ref")}).out, refsBefore);
}

void tst_WarmCache::mirrorBundleClones()
{
    QTemporaryDir root;
    TestSession a = TestSession::open(root.path(), QStringLiteral("a"), m_clock);
    QVERIFY(a.write(QStringLiteral("src/x.c"), "x\n"));
    const QByteArray segment = a.save();
    const QString mirrorDir = root.filePath(QStringLiteral("mirror.git"));
    QVERIFY(fill(mirrorDir, {segment}, a));
    auto mirror = WorkspaceMirror::open(mirrorDir);
    QVERIFY(mirror);
    QFile out(root.filePath(QStringLiteral("out.bundle")));
    QVERIFY(out.open(QIODevice::WriteOnly));
    QVERIFY(mirror.value()->exportBundle(out));
    out.close();
    const QString clone = root.filePath(QStringLiteral("clone"));
    QVERIFY(GitCli::run({QStringLiteral("clone"), QStringLiteral("-q"), out.fileName(), clone}).ok());
    QCOMPARE(GitCli::readFile(clone + QStringLiteral("/src/x.c")), QByteArray("x\n"));
    QCOMPARE(GitCli::out({QStringLiteral("rev-parse"), QStringLiteral("HEAD")}, clone), a.rev(QStringLiteral("main")));
}

void tst_WarmCache::leasesEvictionAndCap()
{
    QTemporaryDir root;
    TestSession a = TestSession::open(root.path(), QStringLiteral("a"), m_clock);
    QVERIFY(a.write(QStringLiteral("f.txt"), QByteArray(64 * 1024, 'f')));
    const QByteArray segment = a.save();
    WarmCache cache(root.filePath(QStringLiteral("cache")));
    auto use = [&](const QString &id, qint64 generation) {
        auto lease = cache.lease(id);
        lease->setName(id + QStringLiteral("-name"));
        if (!fill(lease->gitDir(), {segment}, a))
            return false;
        return lease->record("etag-" + id.toLatin1(), generation);
    };
    QVERIFY(use(QStringLiteral("ws1"), 1));
    QTest::qWait(1100); // last use is recorded to the second
    QVERIFY(use(QStringLiteral("ws2"), 1));
    QTest::qWait(1100);
    QVERIFY(use(QStringLiteral("ws3"), 1));
    QList<CacheEntry> list = cache.list();
    QCOMPARE(list.size(), 3);
    QCOMPARE(list.first().workspaceId, QStringLiteral("ws3")); // most recently used first
    QVERIFY(list.first().bytes > 0);
    QCOMPARE(list.first().name, QStringLiteral("ws3-name"));

    // An older generation is not taken.
    {
        auto lease = cache.lease(QStringLiteral("ws3"));
        QVERIFY(!lease->accepts(0));
        QVERIFY(lease->accepts(2));
        // In use: not evicted, kept by clear.
        QCOMPARE(cache.evict(QStringLiteral("ws3")).error().code, Error::Code::Unavailable);
    }
    QCOMPARE(cache.evict(QStringLiteral("nope")).error().code, Error::Code::NotFound);

    // The cap: the least recently used go first, never the one used last.
    const qint64 one = list.first().bytes;
    const auto ids = [&cache] { return cachedIds(cache); };
    cache.setMaxBytes(one * 2); // setting the cap enforces it
    QCOMPARE(ids(), (QStringList {QStringLiteral("ws3"), QStringLiteral("ws2")}));
    QCOMPARE(cache.enforceLimit(), QStringList());
    cache.setMaxBytes(0);
    QCOMPARE(ids(), QStringList {QStringLiteral("ws3")});
    QVERIFY(QFile::exists(root.filePath(QStringLiteral("cache/workspaces/ws3.git"))));
    QVERIFY(!QFile::exists(root.filePath(QStringLiteral("cache/workspaces/ws1.git"))));

    // The record survives a restart of the cache; clear keeps what is in use.
    WarmCache reopened(root.filePath(QStringLiteral("cache")));
    QCOMPARE(reopened.list().size(), 1);
    QCOMPARE(reopened.list().first().etag, QByteArray("etag-ws3"));
    QVERIFY(use(QStringLiteral("ws4"), 1));
    {
        auto lease = cache.lease(QStringLiteral("ws4"));
        QCOMPARE(cache.clear(), QStringList {QStringLiteral("ws4")});
    }
    QCOMPARE(cache.list().size(), 1);
    QCOMPARE(cache.clear(), QStringList());
    QVERIFY(cache.list().isEmpty());
}

// A spare session being built holds the mirror with a background lease: the member's evict and
// clear go through at once (the files go when the lease ends), and the work is not a use: the cap
// still takes the mirror the member used least recently.
void tst_WarmCache::backgroundWorkYieldsToEviction()
{
    QTemporaryDir root;
    TestSession a = TestSession::open(root.path(), QStringLiteral("a"), m_clock);
    QVERIFY(a.write(QStringLiteral("f.txt"), QByteArray(64 * 1024, 'f')));
    const QByteArray segment = a.save();
    WarmCache cache(root.filePath(QStringLiteral("cache")));
    auto use = [&](const QString &id) {
        auto lease = cache.lease(id);
        return fill(lease->gitDir(), {segment}, a) && lease->record("etag-" + id.toLatin1(), 1);
    };
    const QString mirror1 = root.filePath(QStringLiteral("cache/workspaces/ws1.git"));
    const auto ids = [&cache] { return cachedIds(cache); };
    QVERIFY(use(QStringLiteral("ws1")));
    QTest::qWait(1100); // last use is recorded to the second
    QVERIFY(use(QStringLiteral("ws2")));

    // Background work on ws1 (used first): not shown in use, and ws1 stays the least recently used.
    const QDateTime used1 = cache.list().constLast().lastUsed;
    QTest::qWait(1100);
    {
        auto background = cache.lease(QStringLiteral("ws1"), WarmCache::Use::Background);
        QCOMPARE(ids(), (QStringList {QStringLiteral("ws2"), QStringLiteral("ws1")}));
        QVERIFY(!cache.list().constLast().inUse);
    }
    QCOMPARE(cache.list().constLast().workspaceId, QStringLiteral("ws1"));
    QCOMPARE(cache.list().constLast().lastUsed, used1);
    const qint64 one = cache.list().constFirst().bytes;
    cache.setMaxBytes(one);
    QCOMPARE(ids(), QStringList {QStringLiteral("ws2")});
    QVERIFY(!QFile::exists(mirror1));
    cache.setMaxBytes(WarmCache::kDefaultMaxBytes);

    // Evicted while background work holds it: gone from the list now, its files when the work ends.
    QVERIFY(use(QStringLiteral("ws1")));
    {
        auto background = cache.lease(QStringLiteral("ws1"), WarmCache::Use::Background);
        QVERIFY(cache.evict(QStringLiteral("ws1")));
        QCOMPARE(ids(), QStringList {QStringLiteral("ws2")});
        QCOMPARE(cache.totalBytes(), one);
        QVERIFY(QFile::exists(mirror1));
        QCOMPARE(cache.evict(QStringLiteral("ws1")).error().code, Error::Code::NotFound);
    }
    QVERIFY(!QFile::exists(mirror1));
    QCOMPARE(ids(), QStringList {QStringLiteral("ws2")});

    // clear too; a session's operation still keeps its mirror.
    QVERIFY(use(QStringLiteral("ws1")));
    {
        auto background = cache.lease(QStringLiteral("ws1"), WarmCache::Use::Background);
        auto session = cache.lease(QStringLiteral("ws2"));
        QCOMPARE(cache.clear(), QStringList {QStringLiteral("ws2")});
        QCOMPARE(ids(), QStringList {QStringLiteral("ws2")});
        QCOMPARE(cache.evict(QStringLiteral("ws2")).error().code, Error::Code::Unavailable);
    }
    QVERIFY(!QFile::exists(mirror1));

    // The cap as well: ws1, used least recently, goes though background work holds it then.
    QVERIFY(use(QStringLiteral("ws1")));
    QTest::qWait(1100);
    QVERIFY(use(QStringLiteral("ws2")));
    {
        auto background = cache.lease(QStringLiteral("ws1"), WarmCache::Use::Background);
        cache.setMaxBytes(one);
        QCOMPARE(ids(), QStringList {QStringLiteral("ws2")});
        QVERIFY(QFile::exists(mirror1));
    }
    QVERIFY(!QFile::exists(mirror1));
    cache.setMaxBytes(WarmCache::kDefaultMaxBytes);
    QCOMPARE(cache.clear(), QStringList());
    QVERIFY(cache.list().isEmpty());
    // A mirror made after the eviction is whole again.
    QVERIFY(use(QStringLiteral("ws1")));
    QCOMPARE(ids(), QStringList {QStringLiteral("ws1")});
    QVERIFY(QFile::exists(mirror1 + QStringLiteral("/HEAD")));
}

namespace {

// The loose objects under `gitDir`, as "xx/yyyy…".
QSet<QString> looseObjects(const QString &gitDir)
{
    QSet<QString> names;
    QDirIterator it(gitDir + QStringLiteral("/objects"), QDir::Files, QDirIterator::Subdirectories);
    const QRegularExpression shape(QStringLiteral("/([0-9a-f]{2}/[0-9a-f]{38})$"));
    while (it.hasNext()) {
        const auto match = shape.match(it.next());
        if (match.hasMatch())
            names.insert(match.captured(1));
    }
    return names;
}

} // namespace

void tst_WarmCache::linkSinceReadsOnlyWhatChanged()
{
    QTemporaryDir root;
    TestSession a = TestSession::open(root.path(), QStringLiteral("a"), m_clock);
    for (int i = 0; i < 300; ++i)
        QVERIFY(a.write(QStringLiteral("d%1/f%2.txt").arg(i % 7).arg(i), QByteArray::number(i) + "\n"));
    a.save();
    // A few of the file system's clock ticks (at most 10 ms each on Linux's local file systems)
    // between the save's last object and the link: the link starts after every directory the
    // save changed, so none of them counts as changed after it.
    QTest::qWait(50);
    WarmCache cache(root.filePath(QStringLiteral("cache")));
    LinkMark mark;
    const int fanout = QDir(a.gitDir + QStringLiteral("/objects"))
                           .entryList({QStringLiteral("??")}, QDir::Dirs | QDir::NoDotAndDotDot)
                           .size();
    QVERIFY2(fanout > 150, qPrintable(QString::number(fanout)));
    QString firstInstance;
    {
        // Nothing known: every directory is read, and the mirror has every loose object after.
        auto lease = cache.lease(QStringLiteral("ws1"));
        QVERIFY(lease->mirror());
        firstInstance = lease->instanceId();
        QCOMPARE(firstInstance.size(), 32);
        auto linked = ObjectLinker::linkSince(a.gitDir, lease->gitDir(), firstInstance, mark);
        QVERIFY2(linked, linked ? "" : qPrintable(linked.error().message));
        QCOMPARE(linked.value().directoriesRead, fanout);
        QVERIFY(looseObjects(a.gitDir).subtract(looseObjects(lease->gitDir())).isEmpty());
        QCOMPARE(mark.destination, firstInstance);
    }
    const QString mirrorDir = cache.directory() + QStringLiteral("/ws1.git");
    const qint64 sizeBefore = cache.list().value(0).bytes;
    QCOMPARE(sizeBefore, WarmCache::directorySize(mirrorDir));
    qint64 growth = 0;

    // One file changed and saved at once: only the directories its objects went into are read
    // (not those of the save before, however close), and the mirror again has every loose object
    // of the session.
    const QSet<QString> before = looseObjects(a.gitDir);
    QVERIFY(a.write(QStringLiteral("d3/f3.txt"), "changed\n"));
    a.save();
    const QSet<QString> added = looseObjects(a.gitDir).subtract(before);
    QVERIFY(!added.isEmpty());
    QSet<QString> addedDirs;
    for (const QString &name : added)
        addedDirs.insert(name.left(2));
    {
        auto lease = cache.lease(QStringLiteral("ws1"));
        QCOMPARE(lease->instanceId(), firstInstance); // the same mirror
        auto linked = ObjectLinker::linkSince(a.gitDir, lease->gitDir(), lease->instanceId(), mark);
        QVERIFY(linked);
        QCOMPARE(linked.value().directoriesRead, int(addedDirs.size()));
        QCOMPARE(linked.value().loose, int(added.size()));
        QVERIFY(looseObjects(a.gitDir).subtract(looseObjects(lease->gitDir())).isEmpty());
        lease->grew(linked.value().bytes);
        growth = linked.value().bytes;
    }
    // The size: measured at the end of the first lease, the growth added at the end of the second,
    // and both what the files add up to.
    QCOMPARE(cache.list().value(0).bytes, sizeBefore + growth);
    QCOMPARE(WarmCache::directorySize(mirrorDir), sizeBefore + growth);

    // The mirror made anew (cleared): nothing is assumed, every directory is read again.
    QVERIFY(cache.clear().isEmpty());
    {
        auto lease = cache.lease(QStringLiteral("ws1"));
        const QString instance = lease->instanceId();
        QCOMPARE(instance.size(), 32);
        QVERIFY(instance != firstInstance);
        auto linked = ObjectLinker::linkSince(a.gitDir, lease->gitDir(), instance, mark);
        QVERIFY(linked);
        QCOMPARE(linked.value().directoriesRead,
            QDir(a.gitDir + QStringLiteral("/objects"))
                .entryList({QStringLiteral("??")}, QDir::Dirs | QDir::NoDotAndDotDot)
                .size());
        QVERIFY(looseObjects(a.gitDir).subtract(looseObjects(lease->gitDir())).isEmpty());
    }
}

QTEST_GUILESS_MAIN(tst_WarmCache)
#include "tst_warmcache.moc"
