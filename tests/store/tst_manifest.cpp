// The store's local pieces: the manifest's JSON (strict), its encryption and binding, the
// compaction rule, sealed segment files (name, size, binding checked before any plaintext
// appears), and the ledger that refuses rolled-back manifests.
#include "crypto/objectcipher.h"
#include "crypto/random.h"
#include "store/generationledger.h"
#include "store/manifest.h"
#include "store/segmentfile.h"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QTest>

using namespace isolation;

namespace {

const QString kOid1 = QStringLiteral("1111111111111111111111111111111111111111");
const QString kOid2 = QStringLiteral("2222222222222222222222222222222222222222");

ManifestSegment segment(ManifestSegment::Kind kind, qint64 size)
{
    ManifestSegment s;
    s.id = Manifest::newSegmentId();
    s.name = QString::fromLatin1(randomBytes(32).toHex());
    s.size = size;
    s.kind = kind;
    s.refs = {{QStringLiteral("refs/heads/main"), kOid1}};
    if (kind == ManifestSegment::Kind::Thin)
        s.prerequisites = {kOid2};
    return s;
}

Manifest sample()
{
    Manifest m = Manifest().successor(Manifest::newSaveId());
    m.workspaceId = QStringLiteral("ws_0123456789abcdef0123");
    m.segments = {segment(ManifestSegment::Kind::Full, 1000), segment(ManifestSegment::Kind::Thin, 10)};
    m.refs = {{QStringLiteral("refs/heads/main"), kOid1}, {QStringLiteral("refs/heads/session/s1"), kOid2}};
    return m;
}

QByteArray edit(const Manifest &m, const std::function<void(QJsonObject &)> &change)
{
    QJsonObject o = QJsonDocument::fromJson(m.toJson()).object();
    change(o);
    return QJsonDocument(o).toJson();
}

} // namespace

class tst_Manifest final : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void jsonRoundTrip();
    void refused_data();
    void refused();
    void successorsRememberRecentSaves();
    void compaction_data();
    void compaction();
    void rollUp();
    void sealedManifestIsBound();
    void segmentFileRoundTrip();
    void segmentFileRefused_data();
    void segmentFileRefused();
    void ledgerRefusesRollbacks();
};

void tst_Manifest::jsonRoundTrip()
{
    const Manifest m = sample();
    StoreResult<Manifest> back = Manifest::fromJson(m.toJson());
    QVERIFY2(back.ok(), qPrintable(back.ok() ? QString() : back.error().message));
    QCOMPARE(back.value().workspaceId, m.workspaceId);
    QCOMPARE(back.value().generation, 1);
    QCOMPARE(back.value().saveId, m.saveId);
    QVERIFY(back.value().segments == m.segments);
    QCOMPARE(back.value().refs, m.refs);
    QCOMPARE(back.value().recentSaves, QStringList {m.saveId});
    QCOMPARE(back.value().savedAt, m.savedAt.toUTC());
}

void tst_Manifest::refused_data()
{
    QTest::addColumn<QByteArray>("json");
    const Manifest m = sample();
    auto segmentField = [&](int i, const QString &key, const QJsonValue &value) {
        return edit(m, [=](QJsonObject &o) {
            QJsonArray list = o.value(QStringLiteral("segments")).toArray();
            QJsonObject s = list.at(i).toObject();
            s.insert(key, value);
            list.replace(i, s);
            o.insert(QStringLiteral("segments"), list);
        });
    };
    QTest::newRow("not json") << QByteArray("{nope");
    QTest::newRow("an array") << QByteArray("[]");
    QTest::newRow("newer format") << edit(m, [](QJsonObject &o) { o.insert(QStringLiteral("format"), 2); });
    QTest::newRow("no workspace") << edit(m, [](QJsonObject &o) { o.remove(QStringLiteral("workspace")); });
    QTest::newRow("generation 0") << edit(m, [](QJsonObject &o) { o.insert(QStringLiteral("generation"), 0); });
    QTest::newRow("generation 1.5") << edit(m, [](QJsonObject &o) { o.insert(QStringLiteral("generation"), 1.5); });
    QTest::newRow("generation text") << edit(
        m, [](QJsonObject &o) { o.insert(QStringLiteral("generation"), QStringLiteral("3")); });
    QTest::newRow("no save id") << edit(m, [](QJsonObject &o) { o.remove(QStringLiteral("saveId")); });
    QTest::newRow("save not in recent saves") << edit(
        m, [](QJsonObject &o) { o.insert(QStringLiteral("recentSaves"), QJsonArray {QStringLiteral("sv_other")}); });
    QTest::newRow("segment id not hex") << segmentField(0, QStringLiteral("id"), QStringLiteral("zz"));
    QTest::newRow("segment name short") << segmentField(0, QStringLiteral("name"), QStringLiteral("abcd"));
    QTest::newRow("negative size") << segmentField(0, QStringLiteral("size"), -1);
    QTest::newRow("unknown kind") << segmentField(0, QStringLiteral("kind"), QStringLiteral("delta"));
    QTest::newRow("chain starts thin") << segmentField(0, QStringLiteral("kind"), QStringLiteral("thin"));
    QTest::newRow("second full") << segmentField(1, QStringLiteral("kind"), QStringLiteral("full"));
    QTest::newRow("bad prerequisite") << segmentField(
        1, QStringLiteral("prerequisites"), QJsonArray {QStringLiteral("main")});
    QTest::newRow("ref outside refs/") << edit(m, [](QJsonObject &o) {
        o.insert(QStringLiteral("refs"), QJsonObject {{QStringLiteral("HEAD"), kOid1}});
    });
    QTest::newRow("ref to a non-oid") << edit(m, [](QJsonObject &o) {
        o.insert(QStringLiteral("refs"), QJsonObject {{QStringLiteral("refs/heads/main"), QStringLiteral("main")}});
    });
}

void tst_Manifest::refused()
{
    QFETCH(QByteArray, json);
    StoreResult<Manifest> m = Manifest::fromJson(json);
    QVERIFY(!m.ok());
    QCOMPARE(m.error().code, StoreError::Code::Refused);
    QVERIFY(!m.error().message.isEmpty());
}

void tst_Manifest::successorsRememberRecentSaves()
{
    Manifest m = sample();
    const QString first = m.saveId;
    QStringList ids {first};
    for (int i = 0; i < 40; ++i) {
        ids.append(Manifest::newSaveId());
        m = m.successor(ids.last());
    }
    QCOMPARE(m.generation, 41);
    QCOMPARE(m.saveId, ids.last());
    QCOMPARE(m.recentSaves.size(), Manifest::kRecentSaves);
    QVERIFY(m.carriesSave(ids.at(ids.size() - Manifest::kRecentSaves)));
    QVERIFY(!m.carriesSave(first));
    QVERIFY(Manifest::fromJson(m.toJson()).ok());
}

void tst_Manifest::compaction_data()
{
    QTest::addColumn<int>("thinCount");
    QTest::addColumn<qint64>("thinSize");
    QTest::addColumn<bool>("compact");
    // The full bundle is 1000 bytes.
    QTest::newRow("full alone") << 0 << qint64(0) << false;
    QTest::newRow("small chain") << 5 << qint64(10) << false;
    QTest::newRow("15 segments") << 14 << qint64(10) << false;
    QTest::newRow("16 segments") << 15 << qint64(10) << true;
    QTest::newRow("thin as large as full") << 2 << qint64(500) << false;
    QTest::newRow("thin larger than full") << 2 << qint64(501) << true;
}

void tst_Manifest::compaction()
{
    QFETCH(int, thinCount);
    QFETCH(qint64, thinSize);
    QFETCH(bool, compact);
    Manifest m = sample();
    m.segments = {segment(ManifestSegment::Kind::Full, 1000)};
    for (int i = 0; i < thinCount; ++i)
        m.segments.append(segment(ManifestSegment::Kind::Thin, thinSize));
    QCOMPARE(m.needsCompaction(), compact);
    // A full bundle when the thin ones outweigh it; a roll-up of thin ones when the chain is long.
    QCOMPARE(m.nextSegmentAt(), !compact ? m.segments.size() : thinSize * thinCount > 1000 ? 0 : 1);

    Manifest compacted = m.successor(Manifest::newSaveId());
    compacted.segments = {segment(ManifestSegment::Kind::Full, 1200)};
    QCOMPARE(m.segmentsDroppedBy(compacted).size(), m.segments.size());
    QVERIFY(!compacted.needsCompaction());
}

void tst_Manifest::rollUp()
{
    // Sizes of a chain at kMaxChain: the full bundle, then thin ones.
    auto chain = [](const QList<qint64> &thin) {
        Manifest m = sample();
        m.segments = {segment(ManifestSegment::Kind::Full, 100000)};
        for (qint64 size : thin)
            m.segments.append(segment(ManifestSegment::Kind::Thin, size));
        return m;
    };
    QList<qint64> equal(Manifest::kMaxChain - 1, 10);
    QCOMPARE(chain(equal).nextSegmentAt(), 1); // all rolled up into one
    QList<qint64> rolled {150};
    rolled.append(QList<qint64>(Manifest::kMaxChain - 2, 10));
    QCOMPARE(chain(rolled).nextSegmentAt(), 2); // the roll-up kept, the 14 after it rolled up
    QList<qint64> shrinking {8000, 4000, 2000, 1000, 500, 250, 125, 60, 30, 15, 8, 4, 2, 1, 1};
    QCOMPARE(chain(shrinking).nextSegmentAt(), 8); // from 60, the first no larger than the 61 after it
    QList<qint64> steep {60000, 30000, 9000, 800, 70, 6, 5, 4, 3, 2, 1, 1, 1, 1, 1};
    QCOMPARE(chain(steep).nextSegmentAt(), 6); // 6 ≤ 5 + 4 + … + 1
    QList<qint64> noneSmall {50000, 20000, 10000, 5000, 2500, 1200, 600, 300, 150, 70, 30, 12, 5, 2, 1};
    QCOMPARE(chain(noneSmall).nextSegmentAt(), Manifest::kMaxChain - 2); // the last two
    // A roll-up's prerequisites: the tips of the segment before it, each once.
    Manifest m = chain(equal);
    m.segments[2].refs = {{QStringLiteral("refs/heads/main"), QString(40, QLatin1Char('a'))},
        {QStringLiteral("refs/heads/session/s1"), QString(40, QLatin1Char('a'))},
        {QStringLiteral("refs/heads/session/s2"), QString(40, QLatin1Char('b'))}};
    QCOMPARE(m.tipsBefore(3), (QStringList {QString(40, QLatin1Char('a')), QString(40, QLatin1Char('b'))}));
    QVERIFY(m.tipsBefore(0).isEmpty());
    // A chain that does not start with a full bundle gets one.
    m.segments.first().kind = ManifestSegment::Kind::Thin;
    QCOMPARE(m.nextSegmentAt(), 0);
}

void tst_Manifest::sealedManifestIsBound()
{
    const QByteArray member = randomBytes(32);
    const Manifest m = sample();
    const SecureBytes key = workspaceKey(member, m.workspaceId);
    StoreResult<QByteArray> sealed = m.seal(key.view());
    QVERIFY(sealed.ok());
    QVERIFY(!sealed.value().contains(m.saveId.toLatin1())); // nothing readable
    StoreResult<Manifest> opened = Manifest::open(key.view(), m.workspaceId, sealed.value());
    QVERIFY(opened.ok());
    QCOMPARE(opened.value().saveId, m.saveId);

    // Another workspace, another member key, a flipped byte: all refused.
    const QString other = QStringLiteral("ws_ffffffffffffffffffff");
    QCOMPARE(Manifest::open(workspaceKey(member, other).view(), other, sealed.value()).error().code,
        StoreError::Code::Refused);
    QCOMPARE(
        Manifest::open(workspaceKey(randomBytes(32), m.workspaceId).view(), m.workspaceId, sealed.value()).error().code,
        StoreError::Code::Refused);
    QByteArray flipped = sealed.value();
    flipped[flipped.size() / 2] = char(flipped[flipped.size() / 2] ^ 1);
    QCOMPARE(Manifest::open(key.view(), m.workspaceId, flipped).error().code, StoreError::Code::Refused);
    // A manifest that names another workspace inside is refused even when it decrypts.
    Manifest liar = m;
    liar.workspaceId = other;
    CryptoResult<QByteArray> forged = encryptObject(key.view(), Manifest::binding(m.workspaceId), liar.toJson());
    QVERIFY(forged.ok());
    StoreResult<Manifest> named = Manifest::open(key.view(), m.workspaceId, forged.value());
    QVERIFY(!named.ok());
    QVERIFY(named.error().message.contains(other));
}

void tst_Manifest::segmentFileRoundTrip()
{
    QTemporaryDir dir;
    const QString plain = dir.filePath(QStringLiteral("bundle"));
    QFile f(plain);
    QVERIFY(f.open(QIODevice::WriteOnly));
    const QByteArray bytes = randomBytes(3 * 1024 * 1024 + 17);
    f.write(bytes);
    f.close();
    const SecureBytes key = workspaceKey(randomBytes(32), QStringLiteral("ws_a"));
    const ObjectBinding binding = Manifest::segmentBinding(QStringLiteral("ws_a"), Manifest::newSegmentId());
    StoreResult<SealedSegment> sealed = sealSegmentFile(key, binding, plain, dir.filePath(QStringLiteral("sealed")));
    QVERIFY(sealed.ok());
    QCOMPARE(sealed.value().name, sha256OfFile(dir.filePath(QStringLiteral("sealed"))));
    QCOMPARE(sealed.value().size, QFileInfo(dir.filePath(QStringLiteral("sealed"))).size());
    QVERIFY(sealed.value().size > bytes.size());
    const QString out = dir.filePath(QStringLiteral("opened"));
    QVERIFY(openSegmentFile(key, binding, dir.filePath(QStringLiteral("sealed")), sealed.value(), out).ok());
    QFile o(out);
    QVERIFY(o.open(QIODevice::ReadOnly));
    QVERIFY(o.readAll() == bytes);
    QCOMPARE(o.permissions() & (QFileDevice::ReadGroup | QFileDevice::ReadOther), QFileDevice::Permissions());
}

void tst_Manifest::segmentFileRefused_data()
{
    QTest::addColumn<QString>("tamper");
    QTest::newRow("another segment's name") << QStringLiteral("name");
    QTest::newRow("wrong size") << QStringLiteral("size");
    QTest::newRow("flipped byte") << QStringLiteral("flip");
    QTest::newRow("truncated") << QStringLiteral("truncate");
    QTest::newRow("bound to another segment id") << QStringLiteral("id");
    QTest::newRow("another workspace's key") << QStringLiteral("key");
}

void tst_Manifest::segmentFileRefused()
{
    QFETCH(QString, tamper);
    QTemporaryDir dir;
    const QString plain = dir.filePath(QStringLiteral("bundle"));
    QFile f(plain);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write(randomBytes(300000));
    f.close();
    const SecureBytes key = workspaceKey(randomBytes(32), QStringLiteral("ws_a"));
    ObjectBinding binding = Manifest::segmentBinding(QStringLiteral("ws_a"), Manifest::newSegmentId());
    const QString sealedPath = dir.filePath(QStringLiteral("sealed"));
    SealedSegment expected = sealSegmentFile(key, binding, plain, sealedPath).value();
    SecureBytes openKey = key;
    if (tamper == QLatin1String("name"))
        expected.name = QString(64, QLatin1Char('0'));
    if (tamper == QLatin1String("size"))
        expected.size += 1;
    if (tamper == QLatin1String("flip") || tamper == QLatin1String("truncate")) {
        QFile s(sealedPath);
        QVERIFY(s.open(QIODevice::ReadWrite));
        QByteArray b = s.readAll();
        if (tamper == QLatin1String("flip"))
            b[1000] = char(b[1000] ^ 0x40);
        else
            b.chop(100);
        QVERIFY(s.seek(0) && s.resize(0));
        s.write(b);
    }
    if (tamper == QLatin1String("id")) // the hash still matches: the binding alone must refuse it
        binding.objectName = QStringLiteral("segment/") + Manifest::newSegmentId();
    if (tamper == QLatin1String("key"))
        openKey = workspaceKey(randomBytes(32), QStringLiteral("ws_b"));
    const QString out = dir.filePath(QStringLiteral("opened"));
    StoreResult<void> opened = openSegmentFile(openKey, binding, sealedPath, expected, out);
    QVERIFY(!opened.ok());
    QCOMPARE(opened.error().code, StoreError::Code::Refused);
    QVERIFY(!QFile::exists(out));
    // Nothing but the two inputs: no half-written output anywhere.
    QCOMPARE(QDir(dir.path()).entryList(QDir::Files | QDir::Hidden).size(), 2);
}

void tst_Manifest::ledgerRefusesRollbacks()
{
    QTemporaryDir dir;
    const QString ledgerDir = dir.filePath(QStringLiteral("store"));
    Manifest m = sample();
    for (int i = 0; i < 2; ++i)
        m = m.successor(Manifest::newSaveId()); // generation 3
    {
        GenerationLedger ledger(ledgerDir);
        QCOMPARE(ledger.seen(m.workspaceId).generation, 0);
        QVERIFY(ledger.admit(m).ok());
        QVERIFY(ledger.record(m).ok());
    }
    GenerationLedger ledger(ledgerDir); // remembered across instances (engine restarts)
    QCOMPARE(ledger.seen(m.workspaceId).generation, 3);
    QCOMPARE(QFileInfo(ledgerDir).permissions() & (QFileDevice::ReadOther | QFileDevice::ReadGroup),
        QFileDevice::Permissions());
    Manifest older = sample().successor(Manifest::newSaveId()); // generation 2
    older.workspaceId = m.workspaceId;
    StoreResult<void> rollback = ledger.admit(older);
    QVERIFY(!rollback.ok());
    QCOMPARE(rollback.error().code, StoreError::Code::Refused);
    QVERIFY(rollback.error().message.contains(QStringLiteral("older")));
    Manifest fork = older.successor(Manifest::newSaveId()); // generation 3, another save
    QVERIFY(!ledger.admit(fork).ok());
    QVERIFY(ledger.admit(m).ok()); // the same one again is fine
    QVERIFY(ledger.admit(m.successor(Manifest::newSaveId())).ok());
    // Recording an older one changes nothing.
    QVERIFY(ledger.record(older).ok());
    QCOMPARE(ledger.seen(m.workspaceId).generation, 3);
}

QTEST_GUILESS_MAIN(tst_Manifest)
#include "tst_manifest.moc"
