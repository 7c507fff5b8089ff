// A manifest upload whose outcome the engine cannot know: a proxy between engine and hub cuts the
// connection after the whole PUT reached the hub (the hub commits; the answer is lost) or before
// its last byte (the hub never commits). The engine says Unknown, settles by reading the manifest
// back — never by sending the save again — and lands on the truth: no false success, no double
// write.
#include "cutproxy.h"
#include "storefixture.h"

#include <QTest>

using namespace isolation;
using namespace isolation::test;

using Fetched = StoreResult<WorkspaceStore::Fetched>;
using Uploaded = StoreResult<ManifestSegment>;
using Published = StoreResult<WorkspaceStore::Publication>;
using Settled = StoreResult<WorkspaceStore::Settlement>;

class tst_AmbiguousUpload final : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void connectionCut_data();
    void connectionCut();

private:
    StoreFixture m_f;
};

void tst_AmbiguousUpload::initTestCase()
{
    QVERIFY(m_f.start());
}

void tst_AmbiguousUpload::connectionCut_data()
{
    QTest::addColumn<int>("cut");
    QTest::addColumn<bool>("committed");
    QTest::newRow("cut after the hub committed") << int(CutProxy::Cut::AfterAnswer) << true;
    QTest::newRow("cut before the last byte") << int(CutProxy::Cut::BeforeLastByte) << false;
}

void tst_AmbiguousUpload::connectionCut()
{
    QFETCH(int, cut);
    QFETCH(bool, committed);
    CutProxy proxy(quint16(m_f.hub().appUrl().port()));
    QVERIFY(proxy.listen());
    StoreClient viaProxy(&m_f.network(), proxy.url(), m_f.server());
    viaProxy.setTimeout(20000);
    const QString ws = m_f.createWorkspace(QStringLiteral("ambiguous"));
    auto s = m_f.store(ws, QStringLiteral("ambiguous-%1").arg(cut), &viaProxy);

    // Generation 1 goes through untouched.
    const Uploaded full = await<Uploaded>([&](auto done) {
        s->uploadSegment(m_f.writeFile(QStringLiteral("full"), 5000, 'f'), ManifestSegment::Kind::Full, {}, {}, done);
    });
    QVERIFY(full.ok());
    Manifest first = Manifest().successor(Manifest::newSaveId());
    first.workspaceId = ws;
    first.segments = {full.value()};
    const Published one = await<Published>([&](auto done) { s->publish(first, {}, done); });
    QCOMPARE(one.value().outcome, PublishOutcome::Published);

    // Generation 2: its segment uploads, then every PUT of the manifest is cut.
    const Uploaded thin = await<Uploaded>([&](auto done) {
        s->uploadSegment(m_f.writeFile(QStringLiteral("thin"), 700, 't'), ManifestSegment::Kind::Thin, {}, {}, done);
    });
    QVERIFY(thin.ok());
    Manifest second = first.successor(Manifest::newSaveId());
    second.segments.append(thin.value());
    proxy.arm(CutProxy::Cut(cut), "PUT /v1/workspaces/" + ws.toLatin1() + "/manifest ");
    const Published unknown = await<Published>([&](auto done) { s->publish(second, one.value().etag, done); });
    proxy.disarm();
    QVERIFY2(unknown.ok(), qPrintable(unknown.ok() ? QString() : unknown.error().message));
    QCOMPARE(unknown.value().outcome, PublishOutcome::Unknown);
    QVERIFY(proxy.cuts() >= 1);
    qInfo("manifest PUTs seen on the wire: %d (an HTTP client may resend on a broken connection; "
          "If-Match keeps a resend from writing twice)",
        proxy.matched());
    QCOMPARE(m_f.actions(QStringLiteral("manifest.stored"), ws), committed ? 2 : 1);
    QCOMPARE(s->lastSeenGeneration(), 1); // nothing assumed

    // Settle by reading back.
    const Settled settled = await<Settled>([&](auto done) { s->settle(second.saveId, done); });
    QVERIFY(settled.ok());
    QCOMPARE(settled.value().published, committed);
    QCOMPARE(settled.value().manifest->generation, committed ? 2 : 1);
    QCOMPARE(s->lastSeenGeneration(), committed ? 2 : 1);
    // Settling wrote nothing on the hub.
    QCOMPARE(m_f.actions(QStringLiteral("manifest.stored"), ws), committed ? 2 : 1);

    if (!committed) {
        // Not published: safe to save again on top of what the hub has, and it lands once.
        Manifest retry = s->current()->successor(Manifest::newSaveId());
        retry.segments.append(thin.value());
        const Published again = await<Published>([&](auto done) { s->publish(retry, s->currentEtag(), done); });
        QCOMPARE(again.value().outcome, PublishOutcome::Published);
        QCOMPARE(m_f.actions(QStringLiteral("manifest.stored"), ws), 2);
    }
    // However it went, the hub's manifest is generation 2 with exactly one copy of the thin segment.
    auto reader = m_f.store(ws, QStringLiteral("reader-%1").arg(cut));
    const Fetched now = await<Fetched>([&](auto done) { reader->fetchManifest({}, done); });
    QVERIFY(now.ok());
    QCOMPARE(now.value().manifest->generation, 2);
    QCOMPARE(now.value().manifest->segments.size(), 2);
    QCOMPARE(now.value().manifest->segments.at(1).name, thin.value().name);
}

QTEST_GUILESS_MAIN(tst_AmbiguousUpload)
#include "tst_ambiguousupload.moc"
