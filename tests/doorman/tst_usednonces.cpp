// A view token opens a view once, also across a restart of the engine: the doorman keeps the
// nonces it accepted in a file of the data directory until their tokens expire. A record that is
// lost (a corrupt or unreadable file) must not reopen replay: tokens that could have been used
// before are refused until they expire. Doormans are re-created over the same file, as the engine
// does on a restart (Engine::startDoorman()).
#include "doormanfixture.h"

#include "crypto/ed25519.h"
#include "doorman/doorman.h"
#include "views/viewtoken.h"

#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QTest>

using namespace isolation;
using namespace isolation::test;
using namespace std::chrono_literals;

class tst_UsedNonces final : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void init();
    void usedTokenRefusedAfterRestart();
    void expiredNoncesArePruned();
    void corruptRecordRefusesEarlierTokens_data();
    void corruptRecordRefusesEarlierTokens();
    void unwritableRecordRefuses();

private:
    // A doorman as the engine starts one, keeping its used nonces in m_file. Returns what keeping
    // them said (empty when all was well).
    QString restart();
    QByteArray mint(qint64 lifetime = 3600, qint64 issuedAgo = 1);
    int open(const QByteArray &token);
    QJsonObject record() const;

    ManualClock m_clock {1'700'000'000};
    Ed25519KeyPair m_hub = ed25519Generate();
    StaticTargets m_targets;
    std::unique_ptr<QTemporaryDir> m_dir;
    QString m_file;
    std::unique_ptr<Doorman> m_doorman;
    const QString m_view = QStringLiteral("v0000000000000000000000e1");
};

void tst_UsedNonces::init()
{
    m_doorman.reset();
    m_dir = std::make_unique<QTemporaryDir>();
    QVERIFY(m_dir->isValid());
    m_file = m_dir->filePath(QStringLiteral("used-view-nonces.json"));
}

QString tst_UsedNonces::restart()
{
    m_doorman.reset();
    Doorman::Options o;
    o.serverId = QStringLiteral("srv_test");
    o.hubPublicKey = m_hub.publicKey;
    m_doorman = std::make_unique<Doorman>(o, m_clock, &m_targets);
    auto kept = m_doorman->sessions().keepUsedNoncesIn(m_file, m_clock.unixSeconds());
    return kept ? QString() : kept.error().message;
}

QByteArray tst_UsedNonces::mint(qint64 lifetime, qint64 issuedAgo)
{
    ViewClaims c;
    c.viewId = m_view;
    c.sessionId = QStringLiteral("s1");
    c.serverId = QStringLiteral("srv_test");
    c.kind = ViewKind::Preview;
    c.port = 8080;
    c.issuedAt = m_clock.unixSeconds() - issuedAgo;
    c.expiresAt = c.issuedAt + lifetime;
    c.nonce = ViewToken::newNonce();
    return ViewToken::mint(c, m_hub.privateKey.view()).value();
}

int tst_UsedNonces::open(const QByteArray &token)
{
    DoorRequest r;
    r.method = "GET";
    r.target = "/?view_token=" + token;
    r.viewId = m_view;
    r.proto = "http";
    r.host = m_view.toLatin1() + ".localhost:8090";
    r.clientAddress = "127.0.0.1";
    const Admission a = m_doorman->admit(r);
    return a.answer ? a.answer->status : 0;
}

QJsonObject tst_UsedNonces::record() const
{
    QFile f(m_file);
    if (!f.open(QIODevice::ReadOnly))
        return {};
    return QJsonDocument::fromJson(f.readAll()).object();
}

void tst_UsedNonces::usedTokenRefusedAfterRestart()
{
    QCOMPARE(restart(), QString());
    const QByteArray token = mint();
    const QByteArray other = mint();
    QCOMPARE(open(token), 200);
    QCOMPARE(open(token), 401); // single use within one run (as before)
    QCOMPARE(QFile::permissions(m_file), QFileDevice::ReadOwner | QFileDevice::WriteOwner | QFileDevice::ReadUser | QFileDevice::WriteUser);
    QCOMPARE(record().value(QStringLiteral("nonces")).toObject().size(), 1);

    m_clock.advance(5s);
    QCOMPARE(restart(), QString());
    QCOMPARE(m_doorman->sessions().size(), 0); // the cookie is gone with the old engine...
    QCOMPARE(open(token), 401); // ...but the token stays used
    QCOMPARE(open(other), 200); // and one never used still opens
    m_clock.advance(5s);
    QCOMPARE(restart(), QString());
    QCOMPARE(open(token), 401);
    QCOMPARE(open(other), 401);
}

void tst_UsedNonces::expiredNoncesArePruned()
{
    QCOMPARE(restart(), QString());
    const QByteArray shortLived = mint(60);
    const QByteArray longLived = mint(3600);
    QCOMPARE(open(shortLived), 200);
    QCOMPARE(open(longLived), 200);
    QCOMPARE(record().value(QStringLiteral("nonces")).toObject().size(), 2);

    m_clock.advance(61s); // the short token expired: its nonce need not be kept
    m_doorman->sessions().purge(m_clock.unixSeconds());
    const QJsonObject nonces = record().value(QStringLiteral("nonces")).toObject();
    QCOMPARE(nonces.size(), 1);
    QCOMPARE(qint64(nonces.begin().value().toDouble()), m_clock.unixSeconds() - 61 - 1 + 3600);
    QCOMPARE(open(shortLived), 401); // expired, refused by its expiry now

    // A record written by an older run holds entries that expired meanwhile: not loaded, not kept.
    m_clock.advance(3600s);
    QCOMPARE(restart(), QString());
    QCOMPARE(record().value(QStringLiteral("nonces")).toObject().size(), 0);
}

void tst_UsedNonces::corruptRecordRefusesEarlierTokens_data()
{
    QTest::addColumn<QByteArray>("contents");
    QTest::newRow("truncated") << QByteArray(R"({"version":1,"nonces":{"AAAAAAAAAAAAAAAAAAAAAA":17000)");
    QTest::newRow("not JSON") << QByteArray("\x00\x01garbage", 9);
    QTest::newRow("empty") << QByteArray();
    QTest::newRow("other version") << QByteArray(R"({"version":2,"nonces":{}})");
    QTest::newRow("nonce too short") << QByteArray(R"({"version":1,"nonces":{"AAAA":1700003600}})");
    QTest::newRow("expiry not a number") << QByteArray(R"({"version":1,"nonces":{"AAAAAAAAAAAAAAAAAAAAAA":"x"}})");
    QTest::newRow("fractional expiry") << QByteArray(R"({"version":1,"nonces":{"AAAAAAAAAAAAAAAAAAAAAA":1.5}})");
}

void tst_UsedNonces::corruptRecordRefusesEarlierTokens()
{
    QFETCH(QByteArray, contents);
    // A token used by the run that wrote the lost record.
    QCOMPARE(restart(), QString());
    const QByteArray used = mint(3600, 30);
    const QByteArray neverUsed = mint(3600, 30);
    QCOMPARE(open(used), 200);
    m_doorman.reset();
    {
        QFile f(m_file);
        QVERIFY(f.open(QIODevice::WriteOnly | QIODevice::Truncate));
        f.write(contents);
    }

    m_clock.advance(10s);
    const qint64 started = m_clock.unixSeconds();
    const QString said = restart();
    QVERIFY2(said.contains(QStringLiteral("unreadable")), qPrintable(said));
    QVERIFY2(said.contains(QStringLiteral("refused until they expire")), qPrintable(said));
    QFile aside(m_file + QStringLiteral(".corrupt"));
    QVERIFY(aside.open(QIODevice::ReadOnly));
    QCOMPARE(aside.readAll(), contents); // kept for a person to look at
    QCOMPARE(open(used), 401);
    QCOMPARE(open(neverUsed), 401); // cannot be told apart from a used one: refused too
    // Issued within the allowed clock skew of the start: could have been used before it.
    QCOMPARE(open(mint(3600, -ViewToken::AllowedSkewSeconds + 1)), 401);
    // Issued after anything the old run could have accepted: opens.
    QCOMPARE(open(mint(3600, -ViewToken::AllowedSkewSeconds)), 200);
    QCOMPARE(qint64(record().value(QStringLiteral("refuseIssuedBefore")).toDouble()),
        started + ViewToken::AllowedSkewSeconds);

    // The rule outlives another restart (it is in the fresh file)...
    m_clock.advance(120s);
    QCOMPARE(restart(), QString());
    QCOMPARE(open(mint(3600, 100)), 401);
    QCOMPARE(open(mint(3600, 0)), 200);
    // ...and lapses once every token it covers has expired.
    m_clock.advance(std::chrono::seconds(ViewToken::MaxLifetimeSeconds));
    QCOMPARE(open(mint(3600, 3000)), 200);
    QVERIFY(!record().contains(QStringLiteral("refuseIssuedBefore")));
}

void tst_UsedNonces::unwritableRecordRefuses()
{
    // The record's directory is gone (root ignores file modes, so a missing directory it is): a
    // token that cannot be recorded could be used again after a restart, so it is refused.
    m_file = m_dir->filePath(QStringLiteral("gone/used-view-nonces.json"));
    QCOMPARE(restart(), QString());
    QCOMPARE(open(mint()), 401);
    QVERIFY(QDir().mkpath(m_dir->filePath(QStringLiteral("gone"))));
    QCOMPARE(open(mint()), 200);
}

QTEST_GUILESS_MAIN(tst_UsedNonces)
#include "tst_usednonces.moc"
