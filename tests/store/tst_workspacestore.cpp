// The engine's store client against the real isolation-hub: a real git bundle saved, read back
// and cloned on "another computer", 304 when nothing moved, a losing writer that writes nothing,
// compaction, bearers renewed, rollback memory, a large segment with the event loop free, uploads
// without Nagle's algorithm, a silent hub named as such, and no token or credential in any log.
#include "storefixture.h"

#include "core/clock.h"
#include "core/logging.h"
#include "crypto/objectcipher.h"
#include "store/segmentfile.h"

#include <QDateTime>
#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QProcess>
#include <QTcpServer>
#include <QTcpSocket>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>

#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>

using namespace isolation;
using namespace isolation::test;

using Fetched = StoreResult<WorkspaceStore::Fetched>;
using Uploaded = StoreResult<ManifestSegment>;
using Published = StoreResult<WorkspaceStore::Publication>;
using Downloaded = StoreResult<void>;

namespace {

bool git(const QStringList &args, QString *out = nullptr)
{
    QProcess p;
    p.start(QStringLiteral("git"),
        QStringList {QStringLiteral("-c"), QStringLiteral("user.name=Store Test"), QStringLiteral("-c"),
            QStringLiteral("user.email=store@test.invalid"), QStringLiteral("-c"),
            QStringLiteral("init.defaultBranch=main")}
            + args);
    if (!p.waitForFinished(60000) || p.exitCode() != 0) {
        qWarning() << "git" << args << "failed:" << p.readAllStandardError();
        return false;
    }
    if (out)
        *out = QString::fromUtf8(p.readAllStandardOutput()).trimmed();
    return true;
}

Fetched fetch(WorkspaceStore &store, const QByteArray &etag = {})
{
    return await<Fetched>([&](auto done) { store.fetchManifest(etag, done); });
}

Uploaded upload(WorkspaceStore &store, const QString &file, ManifestSegment::Kind kind = ManifestSegment::Kind::Full)
{
    return await<Uploaded>([&](auto done) { store.uploadSegment(file, kind, {}, {}, done); });
}

Published publish(WorkspaceStore &store, const Manifest &next, const QByteArray &ifMatch)
{
    return await<Published>([&](auto done) { store.publish(next, ifMatch, done); });
}

// TCP_NODELAY of each of this process's connections to `port` (read through /proc/self/fd).
QList<int> noDelayOfConnectionsTo(quint16 port)
{
    QList<int> found;
    const QDir fds(QStringLiteral("/proc/self/fd"));
    for (const QString &name : fds.entryList(QDir::System | QDir::NoDotAndDotDot)) {
        const int fd = name.toInt();
        sockaddr_storage peer = {};
        socklen_t length = sizeof peer;
        if (::getpeername(fd, reinterpret_cast<sockaddr *>(&peer), &length) != 0)
            continue;
        quint16 peerPort = 0;
        if (peer.ss_family == AF_INET)
            peerPort = ntohs(reinterpret_cast<const sockaddr_in &>(peer).sin_port);
        else if (peer.ss_family == AF_INET6)
            peerPort = ntohs(reinterpret_cast<const sockaddr_in6 &>(peer).sin6_port);
        if (peerPort != port)
            continue;
        int noDelay = -1;
        socklen_t size = sizeof noDelay;
        if (::getsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &noDelay, &size) == 0)
            found.append(noDelay);
    }
    return found;
}

// The first manifest of a workspace, naming one full segment.
Manifest firstManifest(const QString &workspaceId, const ManifestSegment &full)
{
    Manifest m = Manifest().successor(Manifest::newSaveId());
    m.workspaceId = workspaceId;
    m.segments = {full};
    return m;
}

} // namespace

class tst_WorkspaceStore final : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void listsTheMembersWorkspaces();
    void gitBundleSavedAndClonedElsewhere();
    void losingWriterWritesNothing();
    void resentSaveIsRecognised();
    void compactionDeletesSupersededSegments();
    void bearersAreRenewed();
    void staleGenerationIsNotSent();
    void largeSegmentLeavesTheEventLoopFree();
    void uploadsGoWithoutNagle();
    void silentHubIsNamedAsSuch();
    void noSecretInAnyLog();

private:
    StoreFixture m_f;
    QTemporaryDir m_logDir;
    QString m_logFile;
};

void tst_WorkspaceStore::initTestCase()
{
    m_logFile = m_logDir.filePath(QStringLiteral("engine-test.log"));
    QVERIFY(logging::install(m_logFile));
    QVERIFY(m_f.start({QStringLiteral("--workspace-token-lifetime"), QStringLiteral("3")}));
}

void tst_WorkspaceStore::listsTheMembersWorkspaces()
{
    const QString ws = m_f.createWorkspace(QStringLiteral("listed"));
    auto list
        = await<StoreResult<QList<StoreClient::Workspace>>>([&](auto done) { m_f.client().listWorkspaces(done); });
    QVERIFY(list.ok());
    QVERIFY(std::any_of(list.value().cbegin(), list.value().cend(),
        [&](const StoreClient::Workspace &w) { return w.id == ws && w.name == QLatin1String("listed"); }));
}

void tst_WorkspaceStore::gitBundleSavedAndClonedElsewhere()
{
    // A real repository and its bundle, made with the git command line.
    const QString repo = m_f.path(QStringLiteral("repo"));
    QVERIFY(git({QStringLiteral("init"), QStringLiteral("-q"), repo}));
    QFile readme(repo + QStringLiteral("/README.md"));
    QVERIFY(readme.open(QIODevice::WriteOnly));
    readme.write("saved through the hub, encrypted\n");
    readme.close();
    QString head;
    QVERIFY(git({QStringLiteral("-C"), repo, QStringLiteral("add"), QStringLiteral("README.md")}));
    QVERIFY(git({QStringLiteral("-C"), repo, QStringLiteral("commit"), QStringLiteral("-q"), QStringLiteral("-m"),
        QStringLiteral("first")}));
    QVERIFY(git({QStringLiteral("-C"), repo, QStringLiteral("rev-parse"), QStringLiteral("HEAD")}, &head));
    const QString bundle = m_f.path(QStringLiteral("first.bundle"));
    QVERIFY(git({QStringLiteral("-C"), repo, QStringLiteral("bundle"), QStringLiteral("create"), bundle,
        QStringLiteral("--all")}));

    const QString ws = m_f.createWorkspace(QStringLiteral("git"));
    auto laptop = m_f.store(ws, QStringLiteral("laptop"));
    Fetched empty = fetch(*laptop);
    QVERIFY(empty.ok());
    QVERIFY(!empty.value().manifest);
    QVERIFY(empty.value().etag.isEmpty());

    Uploaded segment = await<Uploaded>([&](auto done) {
        laptop->uploadSegment(
            bundle, ManifestSegment::Kind::Full, {{QStringLiteral("refs/heads/main"), head}}, {}, done);
    });
    QVERIFY2(segment.ok(), qPrintable(segment.ok() ? QString() : segment.error().message));
    QVERIFY(QFile::exists(m_f.segmentFile(ws, segment.value().name)));
    // The hub holds ciphertext only.
    QFile stored(m_f.segmentFile(ws, segment.value().name));
    QVERIFY(stored.open(QIODevice::ReadOnly));
    QVERIFY(!stored.readAll().contains("PACK"));

    Manifest first = firstManifest(ws, segment.value());
    first.refs = {{QStringLiteral("refs/heads/main"), head}};
    Published published = publish(*laptop, first, {});
    QVERIFY(published.ok());
    QCOMPARE(published.value().outcome, PublishOutcome::Published);
    QCOMPARE(laptop->lastSeenGeneration(), 1);
    QCOMPARE(m_f.actions(QStringLiteral("manifest.stored"), ws), 1);

    // Nothing moved: 304.
    Fetched same = fetch(*laptop, published.value().etag);
    QVERIFY(same.ok());
    QVERIFY(!same.value().moved);
    QCOMPARE(same.value().etag, published.value().etag);

    // Another computer of the member reads it back, downloads the segment and clones it.
    auto desktop = m_f.store(ws, QStringLiteral("desktop"));
    Fetched read = fetch(*desktop, "\"stale\"");
    QVERIFY(read.ok());
    QVERIFY(read.value().moved);
    QVERIFY(read.value().manifest);
    QCOMPARE(read.value().manifest->saveId, first.saveId);
    QCOMPARE(read.value().manifest->refs.value(QStringLiteral("refs/heads/main")), head);
    const QString copy = m_f.path(QStringLiteral("desktop/first.bundle"));
    Downloaded got = await<Downloaded>(
        [&](auto done) { desktop->downloadSegment(read.value().manifest->segments.first(), copy, done); });
    QVERIFY2(got.ok(), qPrintable(got.ok() ? QString() : got.error().message));
    const QString clone = m_f.path(QStringLiteral("desktop/clone"));
    QVERIFY(git({QStringLiteral("clone"), QStringLiteral("-q"), copy, clone}));
    QFile cloned(clone + QStringLiteral("/README.md"));
    QVERIFY(cloned.open(QIODevice::ReadOnly));
    QCOMPARE(cloned.readAll(), QByteArray("saved through the hub, encrypted\n"));
    QCOMPARE(desktop->lastSeenGeneration(), 1);
}

void tst_WorkspaceStore::losingWriterWritesNothing()
{
    const QString ws = m_f.createWorkspace(QStringLiteral("two writers"));
    auto a = m_f.store(ws, QStringLiteral("a"));
    auto b = m_f.store(ws, QStringLiteral("b"));
    Uploaded base = upload(*a, m_f.writeFile(QStringLiteral("base"), 5000, 'b'));
    QVERIFY(base.ok());
    const Published first = publish(*a, firstManifest(ws, base.value()), {});
    QCOMPARE(first.value().outcome, PublishOutcome::Published);
    QVERIFY(fetch(*b).ok()); // both sessions now remember generation 1 and its ETag
    QCOMPARE(b->currentEtag(), first.value().etag);

    Uploaded mine = upload(*a, m_f.writeFile(QStringLiteral("a-thin"), 300, 'x'), ManifestSegment::Kind::Thin);
    Uploaded theirs = upload(*b, m_f.writeFile(QStringLiteral("b-thin"), 300, 'y'), ManifestSegment::Kind::Thin);
    Manifest nextA = a->current()->successor(Manifest::newSaveId());
    nextA.segments.append(mine.value());
    Manifest nextB = b->current()->successor(Manifest::newSaveId());
    nextB.segments.append(theirs.value());

    QCOMPARE(publish(*a, nextA, first.value().etag).value().outcome, PublishOutcome::Published);
    const Published lost = publish(*b, nextB, b->currentEtag());
    QVERIFY(lost.ok());
    QCOMPARE(lost.value().outcome, PublishOutcome::MovedOn);
    // The hub stored two manifests, the winner's last; the loser now knows the winner's.
    QCOMPARE(m_f.actions(QStringLiteral("manifest.stored"), ws), 2);
    QCOMPARE(m_f.actions(QStringLiteral("manifest.refused"), ws), 1);
    QCOMPARE(b->current()->saveId, nextA.saveId);
    // The loser's segment is named by nothing: it is deleted; the winner's stays.
    QTRY_VERIFY(!QFile::exists(m_f.segmentFile(ws, theirs.value().name)));
    QVERIFY(QFile::exists(m_f.segmentFile(ws, mine.value().name)));
    QVERIFY(QFile::exists(m_f.segmentFile(ws, base.value().name)));
    Fetched now = fetch(*m_f.store(ws, QStringLiteral("c")));
    QCOMPARE(now.value().manifest->saveId, nextA.saveId);
}

void tst_WorkspaceStore::resentSaveIsRecognised()
{
    // An HTTP client may send a request again when its connection broke; if the first copy landed,
    // the second hears 412. The store reads the manifest back and sees its own save there.
    const QString ws = m_f.createWorkspace(QStringLiteral("resent"));
    auto s = m_f.store(ws, QStringLiteral("resent"));
    Uploaded full = upload(*s, m_f.writeFile(QStringLiteral("resent-full"), 800, 'r'));
    const Manifest first = firstManifest(ws, full.value());
    const SecureBytes key = workspaceKey(m_f.server().memberKey.view(), ws);
    const QByteArray sealed = first.seal(key.view()).value();
    auto landed = await<StoreResult<StoreClient::PutReply>>(
        [&](auto done) { m_f.client().putManifest(ws, sealed, {}, done); }); // the first copy
    QCOMPARE(landed.value().outcome, StoreClient::PutReply::Outcome::Stored);
    const Published resent = publish(*s, first, {}); // the same save again: 412
    QVERIFY(resent.ok());
    QCOMPARE(resent.value().outcome, PublishOutcome::Published);
    QCOMPARE(resent.value().etag, landed.value().etag);
    QCOMPARE(m_f.actions(QStringLiteral("manifest.stored"), ws), 1);
    QCOMPARE(m_f.actions(QStringLiteral("manifest.refused"), ws), 1);
    QCOMPARE(s->lastSeenGeneration(), 1);
}

void tst_WorkspaceStore::compactionDeletesSupersededSegments()
{
    const QString ws = m_f.createWorkspace(QStringLiteral("compaction"));
    auto s = m_f.store(ws, QStringLiteral("compactor"));
    Uploaded full = upload(*s, m_f.writeFile(QStringLiteral("full"), 1000, 'f'));
    Published p = publish(*s, firstManifest(ws, full.value()), {});
    QStringList names {full.value().name};
    // Thin segments until the rule asks for a full bundle.
    while (!s->current()->needsCompaction()) {
        Uploaded thin = upload(*s, m_f.writeFile(QStringLiteral("thin"), 400, 't'), ManifestSegment::Kind::Thin);
        Manifest next = s->current()->successor(Manifest::newSaveId());
        next.segments.append(thin.value());
        p = publish(*s, next, s->currentEtag());
        QCOMPARE(p.value().outcome, PublishOutcome::Published);
        names.append(thin.value().name);
    }
    QCOMPARE(names.size(), 4); // 1000 bytes of full, then 3 × ~450 sealed bytes of thin
    for (const QString &n : names)
        QVERIFY(QFile::exists(m_f.segmentFile(ws, n)));

    Uploaded compacted = upload(*s, m_f.writeFile(QStringLiteral("compacted"), 2000, 'c'));
    Manifest next = s->current()->successor(Manifest::newSaveId());
    next.segments = {compacted.value()};
    QCOMPARE(publish(*s, next, s->currentEtag()).value().outcome, PublishOutcome::Published);
    // The chain it replaced is deleted on the hub; only the new full bundle is left.
    QTRY_COMPARE(m_f.actions(QStringLiteral("segment.deleted"), ws), 4);
    for (const QString &n : names)
        QVERIFY(!QFile::exists(m_f.segmentFile(ws, n)));
    QCOMPARE(QDir(m_f.workspaceDir(ws) + QStringLiteral("/segments")).entryList(QDir::Files).size(), 1);
}

void tst_WorkspaceStore::bearersAreRenewed()
{
    const QString ws = m_f.createWorkspace(QStringLiteral("bearers"));
    auto s = m_f.store(ws, QStringLiteral("bearers"));
    QVERIFY(fetch(*s).ok());
    QCOMPARE(m_f.actions(QStringLiteral("workspace.token"), ws), 1);
    QVERIFY(fetch(*s).ok());
    QCOMPARE(m_f.actions(QStringLiteral("workspace.token"), ws), 1); // reused
    QTest::qWait(2600); // past four fifths of the hub's 3 s: renewed before it expires
    QVERIFY(fetch(*s).ok());
    QCOMPARE(m_f.actions(QStringLiteral("workspace.token"), ws), 2);

    // A client whose clock says the bearer is fresh while the hub says it expired: it renews once
    // and the call goes through.
    ManualClock frozen(QDateTime::currentSecsSinceEpoch()); // its wall clock also dates the session's proof
    StoreClient stuck(&m_f.network(), m_f.server().hubUrl, m_f.server(), &frozen);
    auto t = m_f.store(ws, QStringLiteral("frozen"), &stuck);
    QVERIFY(fetch(*t).ok());
    QCOMPARE(m_f.actions(QStringLiteral("workspace.token"), ws), 3);
    QTest::qWait(3300);
    Fetched after = fetch(*t);
    QVERIFY2(after.ok(), qPrintable(after.ok() ? QString() : after.error().message));
    QCOMPARE(m_f.actions(QStringLiteral("workspace.token"), ws), 4);
}

void tst_WorkspaceStore::staleGenerationIsNotSent()
{
    const QString ws = m_f.createWorkspace(QStringLiteral("stale"));
    auto s = m_f.store(ws, QStringLiteral("stale"));
    Uploaded full = upload(*s, m_f.writeFile(QStringLiteral("stale-full"), 100, 's'));
    const Manifest first = firstManifest(ws, full.value());
    QCOMPARE(publish(*s, first, {}).value().outcome, PublishOutcome::Published);
    Manifest again = first; // generation 1 again, another save
    again.saveId = Manifest::newSaveId();
    again.recentSaves = {again.saveId};
    const Published refused = publish(*s, again, s->currentEtag());
    QVERIFY(!refused.ok());
    QCOMPARE(refused.error().code, StoreError::Code::Local);
    QCOMPARE(m_f.actions(QStringLiteral("manifest.stored"), ws), 1);
    QCOMPARE(m_f.actions(QStringLiteral("manifest.refused"), ws), 0);
    // The generation is remembered by a store made later (an engine restart).
    QCOMPARE(m_f.store(ws, QStringLiteral("stale"))->lastSeenGeneration(), 1);
}

void tst_WorkspaceStore::largeSegmentLeavesTheEventLoopFree()
{
    const qint64 size = qint64(96) * 1024 * 1024;
    const QString file = m_f.writeFile(QStringLiteral("large.bin"), size, 'L');
    const QString ws = m_f.createWorkspace(QStringLiteral("large"));
    auto s = m_f.store(ws, QStringLiteral("large"));

    // A timer that should fire every 10 ms: the longest gap says how long the loop was blocked.
    QElapsedTimer sinceTick;
    qint64 longestGap = 0;
    QTimer tick;
    connect(&tick, &QTimer::timeout, this, [&] { longestGap = std::max(longestGap, sinceTick.restart()); });
    QElapsedTimer timer;
    timer.start();
    sinceTick.start();
    tick.start(10);
    Uploaded up = upload(*s, file);
    const qint64 upMs = timer.restart();
    QVERIFY2(up.ok(), qPrintable(up.ok() ? QString() : up.error().message));
    const QString back = m_f.path(QStringLiteral("large.back.bin"));
    Downloaded down = await<Downloaded>([&](auto done) { s->downloadSegment(up.value(), back, done); });
    const qint64 downMs = timer.elapsed();
    tick.stop();
    QVERIFY2(down.ok(), qPrintable(down.ok() ? QString() : down.error().message));
    qInfo("96 MiB segment: sealed and uploaded in %lld ms, downloaded and opened in %lld ms; the event loop's "
          "longest gap was %lld ms",
        upMs, downMs, longestGap);
    QCOMPARE(QFileInfo(back).size(), size);
    QCOMPARE(sha256OfFile(back), sha256OfFile(file));
    // What the loop would have been blocked for, had the sealing run on it: measured here, on it.
    timer.restart();
    const SecureBytes key = workspaceKey(m_f.server().memberKey.view(), ws);
    QVERIFY(sealSegmentFile(
        key, Manifest::segmentBinding(ws, Manifest::newSegmentId()), file, m_f.path(QStringLiteral("large.sealed.bin")))
                .ok());
    const qint64 sealMs = timer.elapsed();
    qInfo("sealing it on the event loop's thread takes %lld ms", sealMs);
    QVERIFY2(longestGap < sealMs, "the event loop was blocked: crypto or file work ran on it");
    QCOMPARE(QDir(m_f.path(QStringLiteral("large/cache"))).entryList(QDir::Files | QDir::Hidden).size(), 0);
}

// Qt's HTTP client leaves Nagle's algorithm on; a body's last piece then waited for the hub's
// delayed ACK (40 ms) in a third of the one-file saves (net/nagle.h). The store turns it off on
// its connections as an upload starts.
void tst_WorkspaceStore::uploadsGoWithoutNagle()
{
    const quint16 hubPort = quint16(m_f.hub().appUrl().port());
    const QString ws = m_f.createWorkspace(QStringLiteral("nagle"));
    auto s = m_f.store(ws, QStringLiteral("nagle"));
    const Uploaded up = upload(*s, m_f.writeFile(QStringLiteral("nagle.bin"), 300 * 1024, 'N'));
    QVERIFY2(up.ok(), qPrintable(up.ok() ? QString() : up.error().message));
    // The connection the upload went over is kept for the next request.
    const QList<int> noDelay = noDelayOfConnectionsTo(hubPort);
    QVERIFY2(!noDelay.isEmpty(), "no connection to the hub is open");
    QVERIFY2(!noDelay.contains(0), "a connection to the hub has Nagle's algorithm on");
}

// A hub that takes the connection and never answers: the transfer timeout ends the request, and
// the error says so rather than Qt's "Operation canceled".
void tst_WorkspaceStore::silentHubIsNamedAsSuch()
{
    QTcpServer silent;
    QVERIFY(silent.listen(QHostAddress::LocalHost));
    QList<QTcpSocket *> held;
    connect(&silent, &QTcpServer::newConnection, this, [&] {
        while (QTcpSocket *s = silent.nextPendingConnection())
            held.append(s); // read nothing, answer nothing
    });
    StoreClient client(
        &m_f.network(), QUrl(QStringLiteral("http://127.0.0.1:%1").arg(silent.serverPort())), m_f.server());
    client.setTimeout(1500);
    const auto list
        = await<StoreResult<QList<StoreClient::Workspace>>>([&](auto done) { client.listWorkspaces(done); });
    QVERIFY(!list.ok());
    QVERIFY(!held.isEmpty());
    QCOMPARE(list.error().code, StoreError::Code::Unavailable);
    QVERIFY2(list.error().message.contains(QLatin1String("nothing came from the hub for 1.5 s")),
        qPrintable(list.error().message));
}

void tst_WorkspaceStore::noSecretInAnyLog()
{
    logging::uninstall();
    const QByteArray credential = m_f.server().credential.toByteArray();
    QStringList logs {m_logFile, m_f.hub().dataDir() + QStringLiteral("/hub.log"),
        m_f.hub().dataDir() + QStringLiteral("/actions.log")};
    for (const QString &name : logs) {
        QFile log(name);
        QVERIFY2(log.open(QIODevice::ReadOnly), qPrintable(name));
        const QByteArray text = log.readAll();
        QVERIFY(!text.isEmpty());
        QVERIFY2(!text.contains("wst_"), qPrintable(name + QStringLiteral(" has a workspace token")));
        QVERIFY2(!text.contains(credential), qPrintable(name + QStringLiteral(" has the server credential")));
    }
}

QTEST_GUILESS_MAIN(tst_WorkspaceStore)
#include "tst_workspacestore.moc"
