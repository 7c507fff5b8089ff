// The warm cache and exports end to end, with real engine processes and the real hub: a session
// starts from the cache and downloads only the segments newer than it, or takes the spare session
// built behind the last one (by rename: no file written); `cache`, `cache evict`,
// `cache clear`; deleting the cache loses nothing; the size cap evicts the least recently used;
// `workspace bundle` clones with the real git, `workspace export` leaves credentials out.
#include "sessionfixture.h"

#include "../workspace/gitcli.h"

#include <QDeadlineTimer>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QProcess>
#include <QTest>

#include <sys/stat.h>

using namespace isolation::test;

namespace {

struct Sess
{
    QString id;
    QString work;
    QString gitDir;
    int downloaded = -1; // segments the session's first sync downloaded

    GitRun git(const QStringList &args) const { return GitCli::inRepo(gitDir, args, work); }
    bool write(const QString &path, const QByteArray &bytes) const
    {
        return GitCli::writeFile(work + '/' + path, bytes);
    }
    QByteArray read(const QString &path) const { return GitCli::readFile(work + '/' + path); }
};

Sess sessionOf(const QJsonObject &o)
{
    const QString work = o.value(QStringLiteral("worktree")).toString();
    Sess s {o.value(QStringLiteral("id")).toString(), work, QFileInfo(work).path() + QStringLiteral("/git")};
    const QJsonObject sync = o.value(QStringLiteral("lastSync")).toObject();
    if (sync.contains(QStringLiteral("segmentsDownloaded")))
        s.downloaded = sync.value(QStringLiteral("segmentsDownloaded")).toInt();
    return s;
}

QJsonObject cacheEntry(const QJsonObject &cache, const QString &workspaceId)
{
    for (const QJsonValue v : cache.value(QStringLiteral("workspaces")).toArray()) {
        if (v.toObject().value(QStringLiteral("workspace")).toString() == workspaceId)
            return v.toObject();
    }
    return {};
}

} // namespace

class tst_SessionCache final : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void cleanupTestCase();
    void warmStartFetchesOnlyNewSegments();
    void warmStartTakesTheSpareSession();
    void aSpareIsBroughtForward();
    void cacheListEvictClear();
    void deletingTheCacheLosesNothing();
    void sizeCapEvictsLeastRecentlyUsed();
    void bundleClonesWithGit();
    void exportLeavesCredentialsOut();

private:
    Sess newSession(int engine, const QString &workspace) const
    {
        return sessionOf(m_fx->newSession(engine, workspace));
    }
    bool save(int engine, const Sess &s, const QString &file, const QByteArray &bytes) const;
    QJsonObject cache(int engine) const;
    // Waits for the spare session of `workspaceId` on `engine` built at the cache's generation; its generation.
    qint64 waitForSpare(int engine, const QString &workspaceId) const;

    std::unique_ptr<SessionFixture> m_fx;
};

void tst_SessionCache::initTestCase()
{
    m_fx = std::make_unique<SessionFixture>();
    QVERIFY(m_fx->start(2));
    QVERIFY(m_fx->startEngine(0));
    QVERIFY(m_fx->startEngine(1));
}

void tst_SessionCache::cleanupTestCase()
{
    for (int i : {0, 1}) {
        const int rc = m_fx->stopEngine(i);
        QCOMPARE(rc, 0);
    }
    m_fx.reset();
}

bool tst_SessionCache::save(int engine, const Sess &s, const QString &file, const QByteArray &bytes) const
{
    if (!s.write(file, bytes))
        return false;
    const CliRun r = m_fx->cli(engine, {QStringLiteral("save"), s.id, QStringLiteral("-m"), file});
    if (r.exitCode != 0)
        qWarning().noquote() << r.describe();
    return r.exitCode == 0;
}

QJsonObject tst_SessionCache::cache(int engine) const
{
    return m_fx->cli(engine, {QStringLiteral("cache"), QStringLiteral("--json")}).json();
}

qint64 tst_SessionCache::waitForSpare(int engine, const QString &workspaceId) const
{
    QDeadlineTimer deadline(60000);
    while (!deadline.hasExpired()) {
        const QJsonObject entry = cacheEntry(cache(engine), workspaceId);
        const QJsonObject spare = entry.value(QStringLiteral("spare")).toObject();
        if (!spare.isEmpty()
            && spare.value(QStringLiteral("generation")).toInteger() == entry.value(QStringLiteral("generation")).toInteger())
            return spare.value(QStringLiteral("generation")).toInteger();
        QTest::qWait(100);
    }
    return -1;
}

void tst_SessionCache::warmStartFetchesOnlyNewSegments()
{
    const QString ws = m_fx->createWorkspace(QStringLiteral("warm"));
    QVERIFY(!ws.isEmpty());
    const Sess a = newSession(0, QStringLiteral("warm"));
    QVERIFY(!a.id.isEmpty());
    for (int i = 0; i < 3; ++i)
        QVERIFY(save(0, a, QStringLiteral("f%1.txt").arg(i), QByteArray(2000 + i, char('a' + i))));
    QVERIFY(cacheEntry(cache(0), ws).value(QStringLiteral("bytes")).toInteger() > 0);

    // From the cache: nothing to download.
    const Sess warm = newSession(0, QStringLiteral("warm"));
    QCOMPARE(warm.downloaded, 0);
    QCOMPARE(warm.read(QStringLiteral("f2.txt")), QByteArray(2002, 'c'));

    // The other engine has no cache: it downloads what the hub has.
    const Sess other = newSession(1, QStringLiteral("warm"));
    QVERIFY(other.downloaded >= 1);
    QCOMPARE(other.read(QStringLiteral("f0.txt")), QByteArray(2000, 'a'));
    QVERIFY(save(1, other, QStringLiteral("from-other.txt"), "other\n"));

    // Back on the first engine: only the other engine's segment travels.
    const Sess later = newSession(0, QStringLiteral("warm"));
    QCOMPARE(later.downloaded, 1);
    QCOMPARE(later.read(QStringLiteral("from-other.txt")), QByteArray("other\n"));
    QCOMPARE(later.read(QStringLiteral("f1.txt")), QByteArray(2001, 'b'));
    QVERIFY(later.git({QStringLiteral("fsck"), QStringLiteral("--no-progress")}).ok());
    // Sessions copy or link the objects: no alternates pointing into the cache.
    QVERIFY(!QFile::exists(later.gitDir + QStringLiteral("/objects/info/alternates")));
}

void tst_SessionCache::warmStartTakesTheSpareSession()
{
    const QString ws = m_fx->createWorkspace(QStringLiteral("spared"));
    QVERIFY(!ws.isEmpty());
    const Sess a = newSession(0, QStringLiteral("spared"));
    QVERIFY(save(0, a, QStringLiteral("dir/kept.txt"), "kept\n"));
    const qint64 generation = waitForSpare(0, ws);
    QVERIFY(generation > 0);

    // The spare's files are the new session's files: moved by a rename, not written again.
    const QString spareDir = m_fx->home(0) + QStringLiteral("/data/spares/") + ws;
    struct stat before {};
    QCOMPARE(::stat(QFile::encodeName(spareDir + QStringLiteral("/workspace/dir/kept.txt")).constData(), &before), 0);
    const Sess b = newSession(0, QStringLiteral("spared"));
    QVERIFY(!b.id.isEmpty());
    QCOMPARE(b.downloaded, 0);
    QCOMPARE(b.read(QStringLiteral("dir/kept.txt")), QByteArray("kept\n"));
    struct stat after {};
    QCOMPARE(::stat(QFile::encodeName(b.work + QStringLiteral("/dir/kept.txt")).constData(), &after), 0);
    QCOMPARE(after.st_ino, before.st_ino);
    QVERIFY(!QFileInfo::exists(spareDir + QStringLiteral("/spare.json")));
    QVERIFY(!QFileInfo::exists(QFileInfo(b.gitDir).path() + QStringLiteral("/spare.json")));

    // It is the session's repository in every way: its branch, HEAD, a clean worktree, nothing else.
    QCOMPARE(b.git({QStringLiteral("symbolic-ref"), QStringLiteral("HEAD")}).out.trimmed(),
        QByteArray("refs/heads/session/") + b.id.toUtf8());
    QCOMPARE(b.git({QStringLiteral("branch"), QStringLiteral("--list"), QStringLiteral("session/spare-*")}).out,
        QByteArray());
    QCOMPARE(b.git({QStringLiteral("status"), QStringLiteral("--porcelain")}).out, QByteArray());
    QCOMPARE(b.git({QStringLiteral("rev-parse"), QStringLiteral("HEAD")}).out,
        a.git({QStringLiteral("rev-parse"), QStringLiteral("main")}).out);
    const GitRun fsck = b.git({QStringLiteral("fsck"), QStringLiteral("--full"), QStringLiteral("--no-progress")});
    QVERIFY2(fsck.ok(), qPrintable(fsck.describe()));
    const QJsonObject changes = m_fx->cli(0, {QStringLiteral("changes"), b.id, QStringLiteral("--json")}).json();
    QVERIFY(changes.value(QStringLiteral("files")).toArray().isEmpty());
    QVERIFY(save(0, b, QStringLiteral("from-b.txt"), "b\n"));
    QCOMPARE(m_fx->cli(0, {QStringLiteral("sync"), a.id}).exitCode, 0);
    QCOMPARE(a.read(QStringLiteral("from-b.txt")), QByteArray("b\n"));

    // A new spare follows b's save. The other engine then moves the hub on: a session that takes
    // the (now older) spare brings in what is new, as any session does.
    const qint64 next = waitForSpare(0, ws);
    QVERIFY(next > generation);
    const Sess other = newSession(1, QStringLiteral("spared"));
    QVERIFY(save(1, other, QStringLiteral("from-other.txt"), "other\n"));
    const Sess c = newSession(0, QStringLiteral("spared"));
    QCOMPARE(c.downloaded, 1);
    QCOMPARE(c.read(QStringLiteral("from-other.txt")), QByteArray("other\n"));
    QCOMPARE(c.read(QStringLiteral("from-b.txt")), QByteArray("b\n"));
    QCOMPARE(c.git({QStringLiteral("status"), QStringLiteral("--porcelain")}).out, QByteArray());

    // Evicting the workspace from the cache takes its spare too.
    waitForSpare(0, ws);
    QVERIFY(QFileInfo::exists(spareDir + QStringLiteral("/spare.json")));
    QCOMPARE(m_fx->cli(0, {QStringLiteral("cache"), QStringLiteral("evict"), QStringLiteral("spared")}).exitCode, 0);
    QVERIFY(!QFileInfo::exists(spareDir));

    // A spare moved for a session whose record a kill kept from being written is removed at start.
    const QString orphan = m_fx->home(0) + QStringLiteral("/data/sessions/sorphan0000");
    QVERIFY(QDir().mkpath(orphan + QStringLiteral("/workspace")));
    QVERIFY(GitCli::writeFile(orphan + QStringLiteral("/spare.json"), "{}"));
    QCOMPARE(m_fx->stopEngine(0), 0);
    QVERIFY(m_fx->startEngine(0));
    QVERIFY(!QFileInfo::exists(orphan));
}

// After a save, the spare follows by writing only what changed: a file the save did not touch keeps
// its inode; the changed one has the new bytes; the spare is clean and whole. A spare whose files
// were changed behind the engine's back is made anew instead.
void tst_SessionCache::aSpareIsBroughtForward()
{
    const QString ws = m_fx->createWorkspace(QStringLiteral("forward"));
    QVERIFY(!ws.isEmpty());
    const Sess a = newSession(0, QStringLiteral("forward"));
    QVERIFY(a.write(QStringLiteral("dir/kept.txt"), "kept\n"));
    QVERIFY(save(0, a, QStringLiteral("dir/changed.txt"), "one\n"));
    const qint64 generation = waitForSpare(0, ws);
    QVERIFY(generation > 0);
    const QString spareDir = m_fx->home(0) + QStringLiteral("/data/spares/") + ws;
    const auto inode = [&](const QString &file) {
        struct stat st {};
        return ::stat(QFile::encodeName(spareDir + QStringLiteral("/workspace/") + file).constData(), &st) == 0
            ? st.st_ino
            : ino_t(0);
    };
    const ino_t kept = inode(QStringLiteral("dir/kept.txt"));
    QVERIFY(kept != 0);
    const auto placeholder = [&] {
        return QJsonDocument::fromJson(GitCli::readFile(spareDir + QStringLiteral("/spare.json")))
            .object()
            .value(QStringLiteral("placeholder"))
            .toString();
    };
    const QString before = placeholder();
    QVERIFY(before.startsWith(QStringLiteral("spare-")));

    QVERIFY(save(0, a, QStringLiteral("dir/changed.txt"), "two\n"));
    const qint64 next = waitForSpare(0, ws);
    QVERIFY(next > generation);
    QTRY_VERIFY(GitCli::readFile(m_fx->home(0) + QStringLiteral("/state/engine.log")).contains("(brought forward)"));
    QCOMPARE(inode(QStringLiteral("dir/kept.txt")), kept); // not written again
    QCOMPARE(GitCli::readFile(spareDir + QStringLiteral("/workspace/dir/changed.txt")), QByteArray("two\n"));
    const QString gitDir = spareDir + QStringLiteral("/git");
    const QString work = spareDir + QStringLiteral("/workspace");
    QCOMPARE(GitCli::inRepo(gitDir, {QStringLiteral("status"), QStringLiteral("--porcelain")}, work).out, QByteArray());
    QCOMPARE(GitCli::inRepo(gitDir, {QStringLiteral("rev-parse"), QStringLiteral("HEAD")}, work).out,
        a.git({QStringLiteral("rev-parse"), QStringLiteral("main")}).out);
    const GitRun fsck = GitCli::inRepo(gitDir, {QStringLiteral("fsck"), QStringLiteral("--no-progress")}, work);
    QVERIFY2(fsck.ok(), qPrintable(fsck.describe()));
    QCOMPARE(placeholder(), before); // the same spare, brought forward

    // Changed behind the engine's back: made anew (every file written again), clean.
    QVERIFY(GitCli::writeFile(work + QStringLiteral("/dir/kept.txt"), "tampered\n"));
    QVERIFY(save(0, a, QStringLiteral("dir/changed.txt"), "three\n"));
    QVERIFY(waitForSpare(0, ws) > next);
    QTRY_VERIFY(GitCli::readFile(m_fx->home(0) + QStringLiteral("/state/engine.log")).contains("is made anew"));
    QCOMPARE(GitCli::readFile(work + QStringLiteral("/dir/kept.txt")), QByteArray("kept\n"));
    QCOMPARE(GitCli::readFile(work + QStringLiteral("/dir/changed.txt")), QByteArray("three\n"));
    QCOMPARE(GitCli::inRepo(gitDir, {QStringLiteral("status"), QStringLiteral("--porcelain")}, work).out, QByteArray());
    // And a new session takes it as before.
    const Sess b = newSession(0, QStringLiteral("forward"));
    QCOMPARE(b.downloaded, 0);
    QCOMPARE(b.read(QStringLiteral("dir/changed.txt")), QByteArray("three\n"));
}

void tst_SessionCache::cacheListEvictClear()
{
    const QString ws = m_fx->createWorkspace(QStringLiteral("evictable"));
    const Sess a = newSession(0, QStringLiteral("evictable"));
    QVERIFY(save(0, a, QStringLiteral("x.txt"), "x\n"));
    const QJsonObject entry = cacheEntry(cache(0), ws);
    QCOMPARE(entry.value(QStringLiteral("name")).toString(), QStringLiteral("evictable"));
    QVERIFY(entry.value(QStringLiteral("bytes")).toInteger() > 0);
    QVERIFY(!entry.value(QStringLiteral("lastUsed")).toString().isEmpty());
    const CliRun plain = m_fx->cli(0, {QStringLiteral("cache")});
    QCOMPARE(plain.exitCode, 0);
    QVERIFY2(plain.out.contains("evictable"), plain.out.constData());

    // The spare session is rebuilt 2 s after a save and holds the mirror meanwhile: evicting does
    // not wait for it (the files go when it lets go), and is not refused.
    const CliRun evicted
        = m_fx->cli(0, {QStringLiteral("cache"), QStringLiteral("evict"), QStringLiteral("evictable")});
    QVERIFY2(evicted.exitCode == 0, evicted.err.constData());
    QVERIFY(cacheEntry(cache(0), ws).isEmpty());
    QTRY_VERIFY_WITH_TIMEOUT(
        !QFileInfo::exists(m_fx->home(0) + QStringLiteral("/cache/workspaces/") + ws + QStringLiteral(".git")), 60000);
    QCOMPARE(m_fx->cli(0, {QStringLiteral("cache"), QStringLiteral("evict"), QStringLiteral("evictable")}).exitCode, 1);

    // Cold again: everything comes from the hub; the session that was there goes on working.
    const Sess cold = newSession(0, QStringLiteral("evictable"));
    QVERIFY(cold.downloaded >= 1);
    QCOMPARE(cold.read(QStringLiteral("x.txt")), QByteArray("x\n"));
    QVERIFY(save(0, cold, QStringLiteral("y.txt"), "y\n"));
    QCOMPARE(m_fx->cli(0, {QStringLiteral("sync"), a.id}).exitCode, 0);
    QCOMPARE(a.read(QStringLiteral("y.txt")), QByteArray("y\n"));

    QVERIFY(!cacheEntry(cache(0), ws).isEmpty());
    const CliRun cleared = m_fx->cli(0, {QStringLiteral("cache"), QStringLiteral("clear"), QStringLiteral("--json")});
    QCOMPARE(cleared.exitCode, 0);
    QVERIFY(cleared.json().value(QStringLiteral("evicted")).toArray().contains(ws));
    const QJsonArray left = cache(0).value(QStringLiteral("workspaces")).toArray();
    QVERIFY2(left.isEmpty(), QJsonDocument(left).toJson().constData());
}

void tst_SessionCache::deletingTheCacheLosesNothing()
{
    QVERIFY(!m_fx->createWorkspace(QStringLiteral("disposable")).isEmpty());
    const Sess a = newSession(0, QStringLiteral("disposable"));
    QVERIFY(save(0, a, QStringLiteral("one.txt"), "one\n"));
    const Sess b = newSession(0, QStringLiteral("disposable")); // from the cache
    QCOMPARE(b.downloaded, 0);
    QVERIFY(QDir(m_fx->home(0) + QStringLiteral("/cache")).removeRecursively());

    QVERIFY(save(0, b, QStringLiteral("two.txt"), "two\n"));
    QCOMPARE(m_fx->cli(0, {QStringLiteral("sync"), a.id}).exitCode, 0);
    QCOMPARE(a.read(QStringLiteral("two.txt")), QByteArray("two\n"));
    for (const Sess &s : {a, b}) {
        const GitRun fsck = s.git({QStringLiteral("fsck"), QStringLiteral("--full"), QStringLiteral("--no-progress")});
        QVERIFY2(fsck.ok(), qPrintable(fsck.describe()));
    }
    const Sess c = newSession(0, QStringLiteral("disposable"));
    QCOMPARE(c.read(QStringLiteral("one.txt")), QByteArray("one\n"));
    QCOMPARE(c.read(QStringLiteral("two.txt")), QByteArray("two\n"));
}

void tst_SessionCache::sizeCapEvictsLeastRecentlyUsed()
{
    // Engine 1 with a cap of one byte: the cache keeps only the workspace used last.
    QCOMPARE(m_fx->stopEngine(1), 0);
    QVERIFY(QDir().mkpath(m_fx->home(1) + QStringLiteral("/config")));
    QVERIFY(GitCli::writeFile(m_fx->home(1) + QStringLiteral("/config/settings.ini"), "[cache]\nmaxBytes=1\n"));
    QVERIFY(m_fx->startEngine(1));
    const QString first = m_fx->createWorkspace(QStringLiteral("capped-1"));
    const QString second = m_fx->createWorkspace(QStringLiteral("capped-2"));
    const Sess a = newSession(1, QStringLiteral("capped-1"));
    QVERIFY(save(1, a, QStringLiteral("a.txt"), "a\n"));
    QVERIFY(!cacheEntry(cache(1), first).isEmpty());
    const Sess b = newSession(1, QStringLiteral("capped-2"));
    QVERIFY(save(1, b, QStringLiteral("b.txt"), "b\n"));
    const QJsonObject c = cache(1);
    QCOMPARE(c.value(QStringLiteral("maxBytes")).toInteger(), 1);
    QVERIFY(!cacheEntry(c, second).isEmpty());
    QVERIFY(cacheEntry(c, first).isEmpty());
    // The evicted workspace's session still saves.
    QVERIFY(save(1, a, QStringLiteral("a2.txt"), "a2\n"));
}

void tst_SessionCache::bundleClonesWithGit()
{
    QVERIFY(!m_fx->createWorkspace(QStringLiteral("bundled")).isEmpty());
    const Sess a = newSession(0, QStringLiteral("bundled"));
    QVERIFY(save(0, a, QStringLiteral("src/main.c"), "int main(void) { return 0; }\n"));
    QVERIFY(save(0, a, QStringLiteral("README"), "readme\n"));
    const QString out = m_fx->dir() + QStringLiteral("/bundled.bundle");
    const CliRun r = m_fx->cli(1,
        {QStringLiteral("workspace"), QStringLiteral("bundle"), QStringLiteral("bundled"), out,
            QStringLiteral("--json")});
    QVERIFY2(r.exitCode == 0, qPrintable(r.describe()));
    const QString clone = m_fx->dir() + QStringLiteral("/bundled-clone");
    const GitRun cloned = GitCli::run({QStringLiteral("clone"), QStringLiteral("-q"), out, clone});
    QVERIFY2(cloned.ok(), qPrintable(cloned.describe()));
    // In a repository: git 2.39 verifies a bundle only there (the test's own directory may be none).
    const GitRun verified = GitCli::run({QStringLiteral("bundle"), QStringLiteral("verify"), out}, clone);
    QVERIFY2(verified.ok(), qPrintable(verified.describe()));
    QCOMPARE(GitCli::readFile(clone + QStringLiteral("/src/main.c")), QByteArray("int main(void) { return 0; }\n"));
    QCOMPARE(GitCli::readFile(clone + QStringLiteral("/README")), QByteArray("readme\n"));
    QCOMPARE(GitCli::out({QStringLiteral("rev-parse"), QStringLiteral("HEAD")}, clone),
        a.git({QStringLiteral("rev-parse"), QStringLiteral("main")}).out.trimmed());
    const QByteArray branches = GitCli::out({QStringLiteral("branch"), QStringLiteral("-r")}, clone);
    QVERIFY2(branches.contains(QByteArray(QByteArray("origin/session/") + a.id.toUtf8())), branches.constData());
    QVERIFY(GitCli::run({QStringLiteral("fsck"), QStringLiteral("--no-progress")}, clone).ok());
    // A relative path is taken from the current directory.
    const CliRun relative = m_fx->cli(0,
        {QStringLiteral("workspace"), QStringLiteral("bundle"), QStringLiteral("bundled"),
            QStringLiteral("rel.bundle")});
    QCOMPARE(relative.exitCode, 0);
    QVERIFY(QFileInfo(m_fx->dir() + QStringLiteral("/rel.bundle")).size() > 0);
    // An unknown workspace.
    QCOMPARE(m_fx->cli(0,
                     {QStringLiteral("workspace"), QStringLiteral("bundle"), QStringLiteral("no-such"),
                         m_fx->dir() + QStringLiteral("/x.bundle")})
                 .exitCode,
        1);
}

void tst_SessionCache::exportLeavesCredentialsOut()
{
    QVERIFY(!m_fx->createWorkspace(QStringLiteral("exported")).isEmpty());
    const Sess a = newSession(0, QStringLiteral("exported"));
    QVERIFY(a.write(QStringLiteral(".env"), "TOKEN=secret-value-123\n"));
    QVERIFY(a.write(QStringLiteral("deploy/id_ed25519"), "-----BEGIN OPENSSH PRIVATE KEY-----\n"));
    QVERIFY(a.write(QStringLiteral("deploy/id_ed25519.pub"), "ssh-ed25519 AAAA\n"));
    QVERIFY(save(0, a, QStringLiteral("app.py"), "print('hi')\n"));
    const QString out = m_fx->dir() + QStringLiteral("/exported.tar.gz");
    const CliRun r = m_fx->cli(0,
        {QStringLiteral("workspace"), QStringLiteral("export"), QStringLiteral("exported"), out,
            QStringLiteral("--json")});
    QVERIFY2(r.exitCode == 0, qPrintable(r.describe()));
    const QJsonArray stripped = r.json().value(QStringLiteral("stripped")).toArray();
    QVERIFY(stripped.contains(QStringLiteral(".env")) && stripped.contains(QStringLiteral("deploy/id_ed25519")));

    const QString dir = m_fx->dir() + QStringLiteral("/exported");
    QVERIFY(QDir().mkpath(dir));
    QProcess untar;
    untar.start(QStringLiteral("tar"), {QStringLiteral("-xzf"), out, QStringLiteral("-C"), dir});
    QVERIFY(untar.waitForFinished());
    QCOMPARE(untar.exitCode(), 0);
    QCOMPARE(GitCli::readFile(dir + QStringLiteral("/tree/app.py")), QByteArray("print('hi')\n"));
    QCOMPARE(GitCli::readFile(dir + QStringLiteral("/tree/deploy/id_ed25519.pub")), QByteArray("ssh-ed25519 AAAA\n"));
    QVERIFY(!QFile::exists(dir + QStringLiteral("/tree/.env")));
    QVERIFY(!QFile::exists(dir + QStringLiteral("/tree/deploy/id_ed25519")));
    const QByteArray definition = GitCli::readFile(dir + QStringLiteral("/definition.json"));
    QVERIFY(definition.contains("\"exported\""));
    QVERIFY(!definition.contains("secret-value-123"));
    QProcess grep;
    grep.start(QStringLiteral("grep"), {QStringLiteral("-r"), QStringLiteral("secret-value-123"), dir});
    QVERIFY(grep.waitForFinished());
    QCOMPARE(grep.exitCode(), 1); // nothing found
}

QTEST_GUILESS_MAIN(tst_SessionCache)
#include "tst_sessioncache.moc"
