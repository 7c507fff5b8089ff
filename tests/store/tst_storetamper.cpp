// The tamper matrix: what an attacker (or a broken disk) can do to a workspace's objects on the
// hub — swap segments, bring another workspace's object, roll the manifest back, flip a byte,
// drop the manifest — is refused by the engine with a clear error, and nothing is written locally.
#include "storefixture.h"

#include <QDir>
#include <QDirIterator>
#include <QFile>
#include <QTest>

using namespace isolation;
using namespace isolation::test;

using Fetched = StoreResult<WorkspaceStore::Fetched>;
using Uploaded = StoreResult<ManifestSegment>;
using Published = StoreResult<WorkspaceStore::Publication>;

namespace {

QByteArray readFile(const QString &path)
{
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

bool writeFile(const QString &path, const QByteArray &bytes)
{
    QFile f(path);
    return f.open(QIODevice::WriteOnly | QIODevice::Truncate) && f.write(bytes) == bytes.size();
}

// Every file under a directory with its bytes: the engine's local state, before and after.
QMap<QString, QByteArray> snapshot(const QString &dir)
{
    QMap<QString, QByteArray> files;
    QDirIterator it(dir, QDir::Files | QDir::Hidden, QDirIterator::Subdirectories);
    while (it.hasNext()) {
        const QString path = it.next();
        files.insert(path, readFile(path));
    }
    return files;
}

} // namespace

class tst_StoreTamper final : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void tampered_data();
    void tampered();
    void untouchedStillWorks();

private:
    struct Workspace
    {
        QString id;
        QList<ManifestSegment> segments; // full, thin
        QByteArray firstManifest; // the stored bytes of generation 1
    };
    // A workspace with generation 2 (a full and a thin segment), seen by `computer`.
    Workspace make(const QString &name, const QString &computer);

    StoreFixture m_f;
    int m_rows = 0;
};

void tst_StoreTamper::initTestCase()
{
    QVERIFY(m_f.start());
}

tst_StoreTamper::Workspace tst_StoreTamper::make(const QString &name, const QString &computer)
{
    Workspace w;
    w.id = m_f.createWorkspace(name);
    auto s = m_f.store(w.id, computer);
    const Uploaded full = await<Uploaded>([&](auto done) {
        s->uploadSegment(
            m_f.writeFile(name + QStringLiteral(".full"), 200000, 'f'), ManifestSegment::Kind::Full, {}, {}, done);
    });
    const Uploaded thin = await<Uploaded>([&](auto done) {
        s->uploadSegment(
            m_f.writeFile(name + QStringLiteral(".thin"), 3000, 't'), ManifestSegment::Kind::Thin, {}, {}, done);
    });
    if (!full.ok() || !thin.ok())
        return {};
    Manifest first = Manifest().successor(Manifest::newSaveId());
    first.workspaceId = w.id;
    first.segments = {full.value()};
    const Published one = await<Published>([&](auto done) { s->publish(first, {}, done); });
    w.firstManifest = readFile(m_f.workspaceDir(w.id) + QStringLiteral("/manifest"));
    Manifest second = first.successor(Manifest::newSaveId());
    second.segments.append(thin.value());
    const Published two = await<Published>([&](auto done) { s->publish(second, one.value().etag, done); });
    if (!one.ok() || !two.ok() || two.value().outcome != PublishOutcome::Published)
        return {};
    w.segments = second.segments;
    return w;
}

void tst_StoreTamper::tampered_data()
{
    QTest::addColumn<QString>("tamper");
    QTest::addColumn<bool>("manifestRefused"); // else the manifest reads and a segment is refused
    QTest::addColumn<QString>("why"); // a word the error must say
    QTest::newRow("segments swapped on the hub")
        << QStringLiteral("swap") << false << QStringLiteral("not what the manifest names");
    QTest::newRow("another workspace's segment")
        << QStringLiteral("foreign-segment") << false << QStringLiteral("not what the manifest names");
    QTest::newRow("segment byte flipped")
        << QStringLiteral("flip-segment") << false << QStringLiteral("not what the manifest names");
    QTest::newRow("another workspace's manifest")
        << QStringLiteral("foreign-manifest") << true << QStringLiteral("does not verify");
    QTest::newRow("manifest rolled back") << QStringLiteral("rollback") << true << QStringLiteral("older");
    QTest::newRow("manifest byte flipped")
        << QStringLiteral("flip-manifest") << true << QStringLiteral("does not verify");
    QTest::newRow("manifest deleted") << QStringLiteral("delete-manifest") << true << QStringLiteral("no manifest");
}

void tst_StoreTamper::tampered()
{
    QFETCH(QString, tamper);
    QFETCH(bool, manifestRefused);
    QFETCH(QString, why);
    const QString computer = QStringLiteral("victim%1").arg(++m_rows);
    const Workspace a = make(QStringLiteral("a%1").arg(m_rows), computer);
    const Workspace b = make(QStringLiteral("b%1").arg(m_rows), QStringLiteral("other%1").arg(m_rows));
    QVERIFY(!a.id.isEmpty() && !b.id.isEmpty());
    const QString manifest = m_f.workspaceDir(a.id) + QStringLiteral("/manifest");
    const QString full = m_f.segmentFile(a.id, a.segments.at(0).name);
    const QString thin = m_f.segmentFile(a.id, a.segments.at(1).name);

    if (tamper == QLatin1String("swap")) {
        const QByteArray f = readFile(full);
        QVERIFY(writeFile(full, readFile(thin)) && writeFile(thin, f));
    } else if (tamper == QLatin1String("foreign-segment")) {
        QVERIFY(writeFile(full, readFile(m_f.segmentFile(b.id, b.segments.at(0).name))));
    } else if (tamper == QLatin1String("flip-segment")) {
        QByteArray bytes = readFile(full);
        bytes[bytes.size() / 2] = char(bytes[bytes.size() / 2] ^ 0x01);
        QVERIFY(writeFile(full, bytes));
    } else if (tamper == QLatin1String("foreign-manifest")) {
        QVERIFY(writeFile(manifest, readFile(m_f.workspaceDir(b.id) + QStringLiteral("/manifest"))));
    } else if (tamper == QLatin1String("rollback")) {
        QVERIFY(writeFile(manifest, a.firstManifest)); // a genuine manifest of this workspace, only older
    } else if (tamper == QLatin1String("flip-manifest")) {
        QByteArray bytes = readFile(manifest);
        bytes[bytes.size() - 20] = char(bytes[bytes.size() - 20] ^ 0x80);
        QVERIFY(writeFile(manifest, bytes));
    } else if (tamper == QLatin1String("delete-manifest")) {
        QVERIFY(QFile::remove(manifest));
    }

    // The computer that saw generation 2 starts afresh (an engine restart: only the ledger is left).
    const QString local = m_f.path(computer);
    const QMap<QString, QByteArray> before = snapshot(local);
    auto s = m_f.store(a.id, computer);
    const Fetched fetched = await<Fetched>([&](auto done) { s->fetchManifest({}, done); });
    StoreError error;
    if (manifestRefused) {
        QVERIFY(!fetched.ok());
        error = fetched.error();
    } else {
        QVERIFY2(fetched.ok(), qPrintable(fetched.ok() ? QString() : fetched.error().message));
        QCOMPARE(fetched.value().manifest->generation, 2);
        const QString out = m_f.path(computer + QStringLiteral("/restored.bundle"));
        const auto got = await<StoreResult<void>>([&](auto done) { s->downloadSegment(a.segments.at(0), out, done); });
        QVERIFY(!got.ok());
        error = got.error();
        QVERIFY(!QFile::exists(out));
    }
    qInfo().noquote() << tamper << "->" << error.message;
    QCOMPARE(error.code, StoreError::Code::Refused);
    QVERIFY2(error.message.contains(why), qPrintable(error.message));
    QVERIFY(error.message.contains(a.id));
    QVERIFY(!error.retryable());
    // Nothing written locally: the ledger and every other file are exactly as before.
    QCOMPARE(snapshot(local), before);
    QCOMPARE(s->lastSeenGeneration(), 2);
}

void tst_StoreTamper::untouchedStillWorks()
{
    // The control: the same steps with nothing tampered succeed.
    const Workspace a = make(QStringLiteral("control"), QStringLiteral("control"));
    auto s = m_f.store(a.id, QStringLiteral("control"));
    const Fetched fetched = await<Fetched>([&](auto done) { s->fetchManifest({}, done); });
    QVERIFY(fetched.ok());
    for (const ManifestSegment &segment : a.segments) {
        const QString out = m_f.path(QStringLiteral("control/") + segment.name);
        QVERIFY(await<StoreResult<void>>([&](auto done) { s->downloadSegment(segment, out, done); }).ok());
        QVERIFY(QFile::exists(out));
    }
}

QTEST_GUILESS_MAIN(tst_StoreTamper)
#include "tst_storetamper.moc"
