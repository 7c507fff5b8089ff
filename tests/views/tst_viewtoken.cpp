// View tokens (engine/views/viewtoken.h): what the hub mints verifies; everything else — another
// key, another server, a flipped bit, a cut, an expiry one second past, claims signed but not
// allowed (a longer life, a field more) — is refused with the right code, never accepted.
#include "core/base64url.h"
#include "crypto/ed25519.h"
#include "views/viewtoken.h"

#include <QJsonDocument>
#include <QJsonObject>
#include <QTest>

using namespace isolation;

namespace {

constexpr qint64 kNow = 1'700'000'000;

ViewClaims claims()
{
    ViewClaims c;
    c.viewId = QStringLiteral("v0123456789abcdef01234567");
    c.sessionId = QStringLiteral("s1");
    c.serverId = QStringLiteral("srv_1");
    c.kind = ViewKind::Preview;
    c.port = 8000;
    c.issuedAt = kNow;
    c.expiresAt = kNow + 3600;
    c.nonce = QByteArray(16, 'n');
    return c;
}

// Signs any claims object the way the hub signs, so verify() is tested on claims mint() refuses.
QByteArray signRaw(const QJsonObject &o, QByteArrayView privateKey)
{
    const QByteArray encoded = QJsonDocument(o).toJson(QJsonDocument::Compact).toBase64(kBase64Url);
    const QByteArray signature
        = ed25519Sign(privateKey, QByteArray(QByteArray(ViewToken::SigningPrefix) + '\n' + encoded)).value();
    return encoded + '.' + signature.toBase64(kBase64Url);
}

QJsonObject rawClaims()
{
    return {{QStringLiteral("v"), 1}, {QStringLiteral("view"), QStringLiteral("v0123456789abcdef01234567")},
        {QStringLiteral("session"), QStringLiteral("s1")}, {QStringLiteral("server"), QStringLiteral("srv_1")},
        {QStringLiteral("kind"), QStringLiteral("preview")}, {QStringLiteral("port"), 8000},
        {QStringLiteral("iat"), kNow}, {QStringLiteral("exp"), kNow + 3600},
        {QStringLiteral("nonce"), QString::fromLatin1(QByteArray(16, 'n').toBase64(kBase64Url))}};
}

} // namespace

class tst_ViewToken final : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void roundTrip();
    void kindsAndPorts_data();
    void kindsAndPorts();
    void refused_data();
    void refused();
    void expiryBoundary();
    void mintRefusesImpossibleClaims();
    void everySingleBitFlipIsRefused();

private:
    Ed25519KeyPair m_hub;
    Ed25519KeyPair m_otherHub;
};

void tst_ViewToken::initTestCase()
{
    m_hub = ed25519Generate();
    m_otherHub = ed25519Generate();
}

void tst_ViewToken::roundTrip()
{
    const ViewClaims c = claims();
    auto token = ViewToken::mint(c, m_hub.privateKey.view());
    QVERIFY(token);
    QCOMPARE(token.value().count('.'), 1);
    QVERIFY(token.value().size() < ViewToken::MaxTokenBytes);
    auto verified = ViewToken::verify(token.value(), m_hub.publicKey, QStringLiteral("srv_1"), kNow + 10);
    QVERIFY2(verified, verified ? "" : qPrintable(verified.error().message));
    QCOMPARE(verified.value(), c);
    // No algorithm to choose: the claims carry none.
    const QByteArray json = QByteArray::fromBase64(token.value().split('.').first(), kBase64Url);
    QVERIFY(!json.contains("alg"));
}

void tst_ViewToken::kindsAndPorts_data()
{
    QTest::addColumn<QString>("kind");
    QTest::addColumn<int>("port");
    QTest::addColumn<bool>("valid");
    QTest::newRow("preview 8000") << "preview" << 8000 << true;
    QTest::newRow("preview 65535") << "preview" << 65535 << true;
    QTest::newRow("preview without port") << "preview" << 0 << false;
    QTest::newRow("preview 65536") << "preview" << 65536 << false;
    QTest::newRow("terminal") << "terminal" << 0 << true;
    QTest::newRow("terminal with port") << "terminal" << 22 << false;
    QTest::newRow("files") << "files" << 0 << true;
    QTest::newRow("unknown kind") << "shell" << 0 << false;
}

void tst_ViewToken::kindsAndPorts()
{
    QFETCH(QString, kind);
    QFETCH(int, port);
    QFETCH(bool, valid);
    QJsonObject o = rawClaims();
    o.insert(QStringLiteral("kind"), kind);
    o.insert(QStringLiteral("port"), port);
    auto r = ViewToken::verify(signRaw(o, m_hub.privateKey.view()), m_hub.publicKey, QStringLiteral("srv_1"), kNow);
    QCOMPARE(bool(r), valid);
    if (!valid)
        QCOMPARE(r.error().code, ViewTokenError::Code::Invalid);
}

void tst_ViewToken::refused_data()
{
    QTest::addColumn<QByteArray>("token");
    QTest::addColumn<int>("status");
    const QByteArray good = ViewToken::mint(claims(), m_hub.privateKey.view()).value();
    const QByteArray claimsPart = good.split('.').first();
    const QByteArray sigPart = good.split('.').last();

    QTest::newRow("another hub's key") << ViewToken::mint(claims(), m_otherHub.privateKey.view()).value() << 401;
    ViewClaims other = claims();
    other.serverId = QStringLiteral("srv_2");
    QTest::newRow("another server") << ViewToken::mint(other, m_hub.privateKey.view()).value() << 403;
    QTest::newRow("empty") << QByteArray() << 401;
    QTest::newRow("claims only") << claimsPart << 401;
    QTest::newRow("claims and dot") << QByteArray(claimsPart + '.') << 401;
    QTest::newRow("three parts") << QByteArray(good + '.' + sigPart) << 401;
    QTest::newRow("truncated by one") << good.chopped(1) << 401;
    QTest::newRow("truncated claims") << QByteArray(claimsPart.chopped(4) + '.' + sigPart) << 401;
    QTest::newRow("padding added") << QByteArray(good + "==") << 401;
    QTest::newRow("standard base64 alphabet")
        << QByteArray(claimsPart + '.' + QByteArray::fromBase64(sigPart, kBase64Url).toBase64()) << 401;
    QTest::newRow("swapped parts") << QByteArray(sigPart + '.' + claimsPart) << 401;
    QTest::newRow("oversized") << QByteArray(good + QByteArray(2000, 'A')) << 401;
    QTest::newRow("whitespace") << QByteArray(' ' + good) << 401;

    // Signed by the right key, yet not allowed.
    QJsonObject longer = rawClaims();
    longer.insert(QStringLiteral("exp"), kNow + 3601);
    QTest::newRow("lifetime over an hour") << signRaw(longer, m_hub.privateKey.view()) << 401;
    QJsonObject extra = rawClaims();
    extra.insert(QStringLiteral("alg"), QStringLiteral("none"));
    QTest::newRow("an alg claim") << signRaw(extra, m_hub.privateKey.view()) << 401;
    QJsonObject missing = rawClaims();
    missing.remove(QStringLiteral("nonce"));
    QTest::newRow("no nonce") << signRaw(missing, m_hub.privateKey.view()) << 401;
    QJsonObject v2 = rawClaims();
    v2.insert(QStringLiteral("v"), 2);
    QTest::newRow("version 2") << signRaw(v2, m_hub.privateKey.view()) << 401;
    QJsonObject stringPort = rawClaims();
    stringPort.insert(QStringLiteral("port"), QStringLiteral("8000"));
    QTest::newRow("port as string") << signRaw(stringPort, m_hub.privateKey.view()) << 401;
    QJsonObject badView = rawClaims();
    badView.insert(QStringLiteral("view"), QStringLiteral("../v0123456789abcdef01234"));
    QTest::newRow("view id not a label") << signRaw(badView, m_hub.privateKey.view()) << 401;
    QJsonObject future = rawClaims();
    future.insert(QStringLiteral("iat"), kNow + 600);
    future.insert(QStringLiteral("exp"), kNow + 1200);
    QTest::newRow("issued in the future") << signRaw(future, m_hub.privateKey.view()) << 401;
    QJsonObject backwards = rawClaims();
    backwards.insert(QStringLiteral("exp"), kNow - 10);
    QTest::newRow("expires before issued") << signRaw(backwards, m_hub.privateKey.view()) << 401;
    // A signature over other bytes: the claims without the domain-separation prefix.
    const QByteArray plain = ed25519Sign(m_hub.privateKey.view(), claimsPart).value();
    QTest::newRow("signature without the prefix") << QByteArray(claimsPart + '.' + plain.toBase64(kBase64Url)) << 401;
}

void tst_ViewToken::refused()
{
    QFETCH(QByteArray, token);
    QFETCH(int, status);
    auto r = ViewToken::verify(token, m_hub.publicKey, QStringLiteral("srv_1"), kNow + 1);
    QVERIFY(!r);
    QCOMPARE(r.error().httpStatus(), status);
    QVERIFY(!r.error().message.toUtf8().contains(token.left(20)) || token.size() < 20);
}

void tst_ViewToken::expiryBoundary()
{
    const QByteArray token = ViewToken::mint(claims(), m_hub.privateKey.view()).value();
    const qint64 exp = claims().expiresAt;
    QVERIFY(ViewToken::verify(token, m_hub.publicKey, QStringLiteral("srv_1"), exp - 1));
    auto atExpiry = ViewToken::verify(token, m_hub.publicKey, QStringLiteral("srv_1"), exp);
    QVERIFY(!atExpiry);
    QCOMPARE(atExpiry.error().code, ViewTokenError::Code::Expired);
    auto oneLater = ViewToken::verify(token, m_hub.publicKey, QStringLiteral("srv_1"), exp + 1);
    QVERIFY(!oneLater);
    QCOMPARE(oneLater.error().httpStatus(), 401);
}

void tst_ViewToken::mintRefusesImpossibleClaims()
{
    ViewClaims c = claims();
    c.expiresAt = c.issuedAt + 3601;
    QVERIFY(!ViewToken::mint(c, m_hub.privateKey.view()));
    c = claims();
    c.viewId = QStringLiteral("V0123456789ABCDEF01234567");
    QVERIFY(!ViewToken::mint(c, m_hub.privateKey.view()));
    c = claims();
    c.nonce = QByteArray(8, 'x');
    QVERIFY(!ViewToken::mint(c, m_hub.privateKey.view()));
    c = claims();
    QVERIFY(!ViewToken::mint(c, QByteArray(31, 'k')));
}

void tst_ViewToken::everySingleBitFlipIsRefused()
{
    const QByteArray good = ViewToken::mint(claims(), m_hub.privateKey.view()).value();
    int refused = 0;
    for (qsizetype i = 0; i < good.size(); ++i) {
        for (int bit = 0; bit < 8; ++bit) {
            QByteArray t = good;
            t[i] = char(t[i] ^ (1 << bit));
            auto r = ViewToken::verify(t, m_hub.publicKey, QStringLiteral("srv_1"), kNow + 1);
            QVERIFY2(!r, qPrintable(QStringLiteral("flip at %1 bit %2 verified").arg(i).arg(bit)));
            refused += r.error().httpStatus() == 401;
        }
    }
    QCOMPARE(refused, int(good.size()) * 8);
}

QTEST_GUILESS_MAIN(tst_ViewToken)
#include "tst_viewtoken.moc"
