// Launch secrets: what the hub seals (tests/hub/launchsecretsealer) the engine opens only for its
// own server, the session named and before the expiry; anything tampered, for another session or
// server, expired or malformed is refused. The vault keeps every value redacted from log lines
// while it holds it, and only then.
#include "core/logging.h"
#include "crypto/random.h"
#include "crypto/x25519.h"
#include "launchsecretsealer.h"
#include "secrets/launchsecrets.h"
#include "secrets/secretvault.h"

#include <QFile>
#include <QTemporaryDir>
#include <QTest>

using namespace isolation;
using isolation::hub::LaunchSecretSealer;

namespace {

const QString kServer = QStringLiteral("srv-1");
const QString kSession = QStringLiteral("s-42");
constexpr qint64 kNow = 1'700'000'000;

// A value nobody would log by accident, fresh for every run.
QByteArray canary(const char *name)
{
    return QByteArray(name) + '-' + randomBytes(12).toHex();
}

} // namespace

class tst_LaunchSecrets final : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void opensWhatTheHubSealed();
    void refused_data();
    void refused();
    void tamperedAnywhere();
    void malformed_data();
    void malformed();
    void vaultRedactsWhileItHolds();
    void redactionIsCounted();
    void vaultRefusesWhatItCannotRedact_data();
    void vaultRefusesWhatItCannotRedact();
    void infoStringsAgree();

private:
    X25519KeyPair m_server;
    X25519KeyPair m_other;
};

void tst_LaunchSecrets::initTestCase()
{
    m_server = x25519Generate();
    m_other = x25519Generate();
}

void tst_LaunchSecrets::opensWhatTheHubSealed()
{
    const QByteArray token = canary("token");
    const QByteArray key = canary("key");
    auto sealed = LaunchSecretSealer::seal(m_server.publicKey, kServer, kSession, kNow + 600,
        {{QStringLiteral("GITHUB_TOKEN"), token}, {QStringLiteral("API_KEY"), key}});
    QVERIFY(sealed.ok());
    QVERIFY(!sealed.value().contains(token));
    auto opened = LaunchSecrets::open(sealed.value(), m_server.privateKey.view(), kServer, kSession, kNow);
    QVERIFY2(opened.ok(), opened.ok() ? "" : qPrintable(opened.error().message));
    QCOMPARE(opened.value().sessionId(), kSession);
    QCOMPARE(opened.value().expiresAt(), kNow + 600);
    QCOMPARE(opened.value().values().size(), size_t(2));
    QCOMPARE(opened.value().values().at(QStringLiteral("GITHUB_TOKEN")).view(), QByteArrayView(token));
    QCOMPARE(opened.value().values().at(QStringLiteral("API_KEY")).view(), QByteArrayView(key));

    SecretVault vault;
    vault.adopt(std::move(opened.value()));
    QCOMPARE(vault.names(), (QStringList {QStringLiteral("API_KEY"), QStringLiteral("GITHUB_TOKEN")}));
    QCOMPARE(vault.sessionId(), kSession);
    const QHash<QString, QString> env = vault.environment();
    QCOMPARE(env.value(QStringLiteral("GITHUB_TOKEN")).toUtf8(), token);
    QCOMPARE(env.value(QStringLiteral("API_KEY")).toUtf8(), key);
}

void tst_LaunchSecrets::refused_data()
{
    QTest::addColumn<QString>("sealedFor"); // the server id in the aad
    QTest::addColumn<bool>("otherKey");
    QTest::addColumn<QString>("session");
    QTest::addColumn<qint64>("expiresAt");
    QTest::addColumn<int>("code");
    const int wrongSession = int(SecretsError::Code::WrongSession);
    const int expired = int(SecretsError::Code::Expired);
    const int unreadable = int(SecretsError::Code::Unreadable);
    QTest::newRow("another session") << kServer << false << QStringLiteral("s-other") << kNow + 600 << wrongSession;
    QTest::newRow("expired") << kServer << false << kSession << kNow - 1 << expired;
    QTest::newRow("expiring this second") << kServer << false << kSession << kNow << expired;
    QTest::newRow("sealed for another server")
        << QStringLiteral("srv-2") << false << kSession << kNow + 600 << unreadable;
    QTest::newRow("sealed to another key") << kServer << true << kSession << kNow + 600 << unreadable;
}

void tst_LaunchSecrets::refused()
{
    QFETCH(QString, sealedFor);
    QFETCH(bool, otherKey);
    QFETCH(QString, session);
    QFETCH(qint64, expiresAt);
    QFETCH(int, code);
    const QByteArray value = canary("value");
    auto sealed = LaunchSecretSealer::seal(otherKey ? m_other.publicKey : m_server.publicKey, sealedFor, session,
        expiresAt, {{QStringLiteral("TOKEN"), value}});
    QVERIFY(sealed.ok());
    auto opened = LaunchSecrets::open(sealed.value(), m_server.privateKey.view(), kServer, kSession, kNow);
    QVERIFY(!opened.ok());
    QCOMPARE(int(opened.error().code), code);
    QVERIFY(!opened.error().message.contains(QString::fromUtf8(value)));
}

void tst_LaunchSecrets::tamperedAnywhere()
{
    auto sealed = LaunchSecretSealer::seal(
        m_server.publicKey, kServer, kSession, kNow + 600, {{QStringLiteral("TOKEN"), canary("value")}});
    QVERIFY(sealed.ok());
    const QByteArray good = sealed.value();
    // Every byte: the encapsulated key, the ciphertext and the tag.
    for (qsizetype i = 0; i < good.size(); ++i) {
        QByteArray bad = good;
        bad[i] = char(bad[i] ^ 0x01);
        auto opened = LaunchSecrets::open(bad, m_server.privateKey.view(), kServer, kSession, kNow);
        QVERIFY2(!opened.ok(), qPrintable(QStringLiteral("byte %1 flipped and still opened").arg(i)));
        QCOMPARE(opened.error().code, SecretsError::Code::Unreadable);
    }
    for (qsizetype keep : {qsizetype(0), qsizetype(31), qsizetype(32), good.size() - 1}) {
        auto opened = LaunchSecrets::open(good.left(keep), m_server.privateKey.view(), kServer, kSession, kNow);
        QVERIFY(!opened.ok());
        QCOMPARE(opened.error().code, SecretsError::Code::Unreadable);
    }
    QVERIFY(LaunchSecrets::open(good, m_server.privateKey.view(), kServer, kSession, kNow).ok());
}

void tst_LaunchSecrets::malformed_data()
{
    QTest::addColumn<QByteArray>("plaintext");
    const QByteArray tail = ",\"expiresAt\":1700000600";
    QTest::newRow("not JSON") << QByteArray("secrets: none");
    QTest::newRow("an array") << QByteArray("[1,2]");
    QTest::newRow("no sessionId") << QByteArray("{\"expiresAt\":1700000600,\"secrets\":{}}");
    QTest::newRow("expiresAt a string") << QByteArray(
        "{\"sessionId\":\"s-42\",\"expiresAt\":\"tomorrow\",\"secrets\":{}}");
    QTest::newRow("expiresAt a fraction")
        << QByteArray("{\"sessionId\":\"s-42\",\"expiresAt\":1700000600.5,\"secrets\":{}}");
    QTest::newRow("secrets an array") << QByteArray("{\"sessionId\":\"s-42\"" + tail + ",\"secrets\":[]}");
    QTest::newRow("a name with a dash") << QByteArray(
        "{\"sessionId\":\"s-42\"" + tail + ",\"secrets\":{\"MY-TOKEN\":\"abcdefgh\"}}");
    QTest::newRow("a name starting with a digit")
        << QByteArray("{\"sessionId\":\"s-42\"" + tail + ",\"secrets\":{\"1TOKEN\":\"abcdefgh\"}}");
    QTest::newRow("a number as value") << QByteArray(
        "{\"sessionId\":\"s-42\"" + tail + ",\"secrets\":{\"TOKEN\":12345678}}");
    QTest::newRow("a value too short to redact")
        << QByteArray("{\"sessionId\":\"s-42\"" + tail + ",\"secrets\":{\"TOKEN\":\"abc\"}}");
    QTest::newRow("a NUL in a value") << QByteArray(
        "{\"sessionId\":\"s-42\"" + tail + ",\"secrets\":{\"TOKEN\":\"abc\\u0000def\"}}");
    QByteArray many = "{\"sessionId\":\"s-42\"" + tail + ",\"secrets\":{";
    for (int i = 0; i <= LaunchSecrets::kMaxSecrets; ++i)
        many += (i ? "," : "") + QByteArray("\"S") + QByteArray::number(i) + "\":\"abcdefgh\"";
    QTest::newRow("too many secrets") << QByteArray(many + "}}");
    QTest::newRow("a value too long") << QByteArray("{\"sessionId\":\"s-42\"" + tail + ",\"secrets\":{\"TOKEN\":\""
        + QByteArray(LaunchSecrets::kMaxValueBytes + 1, 'x') + "\"}}");
}

void tst_LaunchSecrets::malformed()
{
    QFETCH(QByteArray, plaintext);
    auto sealed = LaunchSecretSealer::sealPlaintext(m_server.publicKey, kServer, plaintext);
    QVERIFY(sealed.ok());
    auto opened = LaunchSecrets::open(sealed.value(), m_server.privateKey.view(), kServer, kSession, kNow);
    QVERIFY(!opened.ok());
    QCOMPARE(opened.error().code, SecretsError::Code::Malformed);
}

void tst_LaunchSecrets::vaultRedactsWhileItHolds()
{
    QTemporaryDir dir;
    const QString logFile = dir.filePath(QStringLiteral("engine.log"));
    QVERIFY(logging::install(logFile));
    const QByteArray secret = canary("redact-me");
    {
        auto sealed = LaunchSecretSealer::seal(
            m_server.publicKey, kServer, kSession, kNow + 600, {{QStringLiteral("TOKEN"), secret}});
        auto opened = LaunchSecrets::open(sealed.value(), m_server.privateKey.view(), kServer, kSession, kNow);
        QVERIFY(opened.ok());
        SecretVault vault;
        vault.adopt(std::move(opened.value()));
        qCInfo(lcSecrets).noquote() << "an agent printed" << QString::fromUtf8(secret) << "by mistake";
        QCOMPARE(logging::redact(QStringLiteral("x=") + QString::fromUtf8(secret)), QStringLiteral("x=[redacted]"));
    }
    // Dropped: the value is no longer registered (the redactor holds nothing of a dead vault).
    QCOMPARE(logging::redact(QString::fromUtf8(secret)), QString::fromUtf8(secret));
    logging::uninstall();
    QFile log(logFile);
    QVERIFY(log.open(QIODevice::ReadOnly));
    const QByteArray written = log.readAll();
    QVERIFY(written.contains("an agent printed [redacted] by mistake"));
    QVERIFY(!written.contains(secret));
    QVERIFY(written.contains("launch secrets held (TOKEN)"));
}

void tst_LaunchSecrets::redactionIsCounted()
{
    const QByteArray shared = canary("shared");
    auto two = std::make_unique<SecretVault>();
    {
        SecretVault one;
        QVERIFY(one.insert(QStringLiteral("A"), SecureBytes(QByteArrayView(shared))).ok());
        QVERIFY(two->insert(QStringLiteral("B"), SecureBytes(QByteArrayView(shared))).ok());
    }
    // The first holder went; the second still holds the same value.
    QCOMPARE(logging::redact(QString::fromUtf8(shared)), QStringLiteral("[redacted]"));
    QVERIFY(two->remove(QStringLiteral("B")));
    QCOMPARE(logging::redact(QString::fromUtf8(shared)), QString::fromUtf8(shared));
    // A value replaced under the same name: the new one is redacted, the old one no more.
    const QByteArray first = canary("first");
    const QByteArray second = canary("second");
    QVERIFY(two->insert(QStringLiteral("C"), SecureBytes(QByteArrayView(first))).ok());
    QVERIFY(two->insert(QStringLiteral("C"), SecureBytes(QByteArrayView(second))).ok());
    QCOMPARE(logging::redact(QString::fromUtf8(first)), QString::fromUtf8(first));
    QCOMPARE(logging::redact(QString::fromUtf8(second)), QStringLiteral("[redacted]"));
    two->clear();
    QVERIFY(two->isEmpty());
    QCOMPARE(logging::redact(QString::fromUtf8(second)), QString::fromUtf8(second));
}

void tst_LaunchSecrets::vaultRefusesWhatItCannotRedact_data()
{
    QTest::addColumn<QString>("name");
    QTest::addColumn<QByteArray>("value");
    QTest::newRow("three bytes") << QStringLiteral("PIN") << QByteArray("123");
    QTest::newRow("a NUL") << QStringLiteral("TOKEN") << QByteArray("abc\0def", 7);
    QTest::newRow("a name with a space") << QStringLiteral("MY TOKEN") << QByteArray("abcdefgh");
    QTest::newRow("an empty name") << QString() << QByteArray("abcdefgh");
}

void tst_LaunchSecrets::vaultRefusesWhatItCannotRedact()
{
    QFETCH(QString, name);
    QFETCH(QByteArray, value);
    SecretVault vault;
    auto r = vault.insert(name, SecureBytes(QByteArrayView(value)));
    QVERIFY(!r.ok());
    QCOMPARE(r.error().code, SecretsError::Code::Malformed);
    QVERIFY(vault.isEmpty());
}

void tst_LaunchSecrets::infoStringsAgree()
{
    // The hub's side is written apart from the engine's; the two must name the same format.
    QCOMPARE(QByteArray(LaunchSecretSealer::kInfo), QByteArray(LaunchSecrets::kInfo));
}

QTEST_GUILESS_MAIN(tst_LaunchSecrets)
#include "tst_launchsecrets.moc"
