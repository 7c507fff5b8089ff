// The bug report's redaction rules (core/reportredaction.h; docs/security.md, "Bug reports"): each
// shape of secret that could reach a report is removed, what a report needs (paths, ids, commit
// ids, digests, dates, states) is kept, and a redacted text redacts to itself.
#include "core/reportredaction.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTest>

using namespace isolation;
using reportredaction::redactText;

namespace {

// Shaped like the engine's secrets: 32 random bytes as base64url (a server credential, an execd
// token), a view token (claims.signature), an API key, a password that is only a word.
const QString kCredential = QStringLiteral("q8Vf3kT0bZ2mXw9YcR1sL7uH4nJ6pD5aE0gK2iO8tQy");
const QString kViewToken = QStringLiteral(
    "eyJ2IjoidjFhYjJjM2Q0ZTVmNmE3YjhjOWQwZTEifQ.Zm9vYmFyQmF6UXV4MTIzNDU2Nzg5MGFiY2RlZmdoaWprbG1ub3BxcnN0dXZ3eHl6QUJD");
const QString kApiKey = QStringLiteral("sk-proj-Ab12Cd34Ef56Gh78Ij90Kl");
const QString kWordPassword = QStringLiteral("correcthorsebattery");

} // namespace

class tst_ReportRedaction final : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void removed_data();
    void removed();
    void kept_data();
    void kept();
    void idempotent();
    void secretNames_data();
    void secretNames();
    void json();
};

void tst_ReportRedaction::removed_data()
{
    QTest::addColumn<QString>("line");
    QTest::addColumn<QString>("secret");
    QTest::addColumn<QString>("stays"); // what of the line must still be there

    QTest::newRow("authorization header") << QStringLiteral("> Authorization: Bearer %1").arg(kCredential)
                                          << kCredential << QStringLiteral("Authorization: [redacted]");
    QTest::newRow("authorization, any case") << QStringLiteral("authorization:%1").arg(kWordPassword) << kWordPassword
                                             << QStringLiteral("authorization:[redacted]");
    QTest::newRow("basic header") << QStringLiteral("Proxy-Authorization: Basic dXNlcjpjb3JyZWN0aG9yc2U=")
                                  << QStringLiteral("dXNlcjpjb3JyZWN0aG9yc2U=")
                                  << QStringLiteral("Proxy-Authorization: [redacted]");
    QTest::newRow("cookie header") << QStringLiteral("Cookie: __Host-isolation_view=%1; other=1").arg(kWordPassword)
                                   << kWordPassword << QStringLiteral("Cookie: [redacted]");
    QTest::newRow("set-cookie") << QStringLiteral("Set-Cookie: __Host-isolation_view=%1; Secure").arg(kCredential)
                                << kCredential << QStringLiteral("Set-Cookie: [redacted]");
    QTest::newRow("view cookie alone") << QStringLiteral("cookie __Host-isolation_view=%1 sent").arg(kWordPassword)
                                       << kWordPassword << QStringLiteral("sent");
    QTest::newRow("signature header") << QStringLiteral("X-Isolation-Signature: %1").arg(kWordPassword) << kWordPassword
                                      << QStringLiteral("X-Isolation-Signature: [redacted]");
    QTest::newRow("bearer in a sentence") << QStringLiteral("retrying with bearer %1 now").arg(kWordPassword)
                                          << kWordPassword << QStringLiteral("retrying with bearer [redacted] now");
    QTest::newRow("url user info")
        << QStringLiteral("clone https://x-access-token:%1@github.com/o/r.git failed").arg(kWordPassword)
        << kWordPassword << QStringLiteral("https://[redacted]@github.com/o/r.git failed");
    QTest::newRow("url user only") << QStringLiteral("hub http://%1@127.0.0.1:8470/").arg(kWordPassword)
                                   << kWordPassword << QStringLiteral("http://[redacted]@127.0.0.1:8470/");
    QTest::newRow("token in a query") << QStringLiteral("GET /v/abc/?token=%1&x=1 HTTP/1.1").arg(kWordPassword)
                                      << kWordPassword << QStringLiteral("?token=[redacted]&x=1 HTTP/1.1");
    QTest::newRow("access_token in a query") << QStringLiteral("https://h/cb?access_token=%1").arg(kWordPassword)
                                             << kWordPassword << QStringLiteral("access_token=[redacted]");
    QTest::newRow("json member") << QStringLiteral("{\"credential\": \"%1\", \"server_id\": \"s1\"}").arg(kWordPassword)
                                 << kWordPassword
                                 << QStringLiteral("\"credential\": \"[redacted]\", \"server_id\": \"s1\"");
    QTest::newRow("json escaped quote") << QStringLiteral("{\"secret\":\"a\\\"%1\"}").arg(kWordPassword)
                                        << kWordPassword << QStringLiteral("\"secret\":\"[redacted]\"");
    QTest::newRow("ini line") << QStringLiteral("proxy/password = %1").arg(kWordPassword) << kWordPassword
                              << QStringLiteral("proxy/password = [redacted]");
    QTest::newRow("environment") << QStringLiteral("OPENAI_API_KEY=%1").arg(kWordPassword) << kWordPassword
                                 << QStringLiteral("OPENAI_API_KEY=[redacted]");
    QTest::newRow("launch secret name=value") << QStringLiteral("GITHUB_TOKEN='%1'").arg(kWordPassword) << kWordPassword
                                              << QStringLiteral("GITHUB_TOKEN='[redacted]'");
    QTest::newRow("qdebug member") << QStringLiteral("viewToken: \"%1\"").arg(kWordPassword) << kWordPassword
                                   << QStringLiteral("viewToken: \"[redacted]\"");
    QTest::newRow("random token alone") << QStringLiteral("unknown credential %1 refused").arg(kCredential)
                                        << kCredential << QStringLiteral("unknown credential [redacted] refused");
    QTest::newRow("view token alone") << QStringLiteral("opened /v/x?%1").arg(kViewToken) << kViewToken
                                      << QStringLiteral("opened /v/x?[redacted].[redacted]");
    QTest::newRow("view token's claims") << QStringLiteral("t=%1").arg(kViewToken.section(u'.', 0, 0))
                                         << kViewToken.section(u'.', 0, 0) << QStringLiteral("t=[redacted]");
    QTest::newRow("api key") << QStringLiteral("the agent got %1").arg(kApiKey) << kApiKey
                             << QStringLiteral("the agent got [redacted]");
    QTest::newRow("github token") << QStringLiteral("ghp_R2d2C3poBb8Ll9Yy0Zz1Aa2Qq3Ww4Ee5Rr6T")
                                  << QStringLiteral("R2d2C3po") << QString();
    QTest::newRow("pem private key") << QStringLiteral(
        "key:\n-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\nmore\n"
        "-----END OPENSSH PRIVATE KEY-----\nafter")
                                     << QStringLiteral("b3BlbnNzaC1rZXktdjEAAAAA")
                                     << QStringLiteral("[redacted private key]\nafter");
    QTest::newRow("pem without its end") << QStringLiteral("-----BEGIN PRIVATE KEY-----\nabcdef")
                                         << QStringLiteral("abcdef") << QStringLiteral("[redacted private key]");
}

void tst_ReportRedaction::removed()
{
    QFETCH(QString, line);
    QFETCH(QString, secret);
    QFETCH(QString, stays);
    const QString out = redactText(line);
    QVERIFY2(!out.contains(secret), qPrintable(out));
    QVERIFY2(out.contains(stays), qPrintable(out));
}

void tst_ReportRedaction::kept_data()
{
    QTest::addColumn<QString>("line");
    QTest::newRow("log line") << QStringLiteral(
        "2026-12-04T20:45:53.123Z info isolation.core: language en_US; state online (Connected to the hub)");
    QTest::newRow("log category") << QStringLiteral("2026-12-04T21:11:50.772Z info isolation.secrets: session "
                                                    "sf0e2f37bf52e: 1 launch secrets held (OPENAI_API_KEY)");
    QTest::newRow("path") << QStringLiteral("/home/someone/.local/share/isolation/sessions/s-1a2b3c4d/worktree");
    QTest::newRow("commit id") << QStringLiteral("main 4f0c2a9e1b7d3c5a8f6e0d2b4a6c8e0f1a3b5c7d");
    QTest::newRow("image digest") << QStringLiteral(
        "sha256:9b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c6d7e8f90a");
    QTest::newRow("uuid") << QStringLiteral("workspace 123e4567-e89b-12d3-a456-426614174000");
    QTest::newRow("hub url") << QStringLiteral("hub https://hub.example.com:8470/v1/servers");
    QTest::newRow("store kind") << QStringLiteral("\"credentialStoreKind\": \"file\"");
    QTest::newRow("env") << QStringLiteral("ISOLATION_RUNTIME_LIFECYCLE_IMAGE=opensandbox/server:v0.1.2");
    QTest::newRow("secret names") << QStringLiteral("secretNames: OPENAI_API_KEY, GITHUB_TOKEN");
    QTest::newRow("words") << QStringLiteral("Authorized sessions: 3; tokens refused: 0");
}

void tst_ReportRedaction::kept()
{
    QFETCH(QString, line);
    QCOMPARE(redactText(line), line);
}

void tst_ReportRedaction::idempotent()
{
    const QString text = QStringLiteral("Authorization: Bearer %1\nhttps://u:p@h/?token=%2\n{\"secret\": \"%3\"}\n%4")
                             .arg(kCredential, kWordPassword, kWordPassword, kViewToken);
    const QString once = redactText(text);
    QCOMPARE(redactText(once), once);
}

void tst_ReportRedaction::secretNames_data()
{
    QTest::addColumn<QString>("name");
    QTest::addColumn<bool>("secret");
    for (const char *n : {"token", "viewToken", "access_token", "refresh-token", "secret", "secrets", "launchSecret",
             "password", "PASSWORD", "passwd", "credential", "credentials", "api_key", "apiKey", "OPENAI_API_KEY",
             "private_key", "sealed_member_key", "key", "cookie", "Authorization", "signature", "nonce", "device_code",
             "userCode", "__Host-isolation_view"})
        QTest::newRow(n) << QString::fromLatin1(n) << true;
    for (const char *n : {"credentialStoreKind", "credentialStoreProblem", "tokenExpiry", "secretNames", "state",
             "hubUrl", "serverId", "maxBytes", "monochrome", "workspace", "keyboard"})
        QTest::newRow(n) << QString::fromLatin1(n) << false;
}

void tst_ReportRedaction::secretNames()
{
    QFETCH(QString, name);
    QFETCH(bool, secret);
    QCOMPARE(reportredaction::isSecretName(name), secret);
}

void tst_ReportRedaction::json()
{
    const QJsonObject in {
        {QStringLiteral("serverId"), QStringLiteral("srv-1")},
        {QStringLiteral("credential"), kWordPassword},
        {QStringLiteral("apiKey"), 1234},
        {QStringLiteral("pairing"), QJsonObject {{QStringLiteral("userCode"), QStringLiteral("BCDF-GHJK")}}},
        {QStringLiteral("hub"), QStringLiteral("http://user:%1@127.0.0.1:8470").arg(kWordPassword)},
        {QStringLiteral("lines"), QJsonArray {QStringLiteral("Bearer %1").arg(kWordPassword), kCredential}},
    };
    const QJsonObject out = reportredaction::redactJson(in).toObject();
    const QByteArray text = QJsonDocument(out).toJson();
    QVERIFY2(!text.contains(kWordPassword.toUtf8()), text.constData());
    QVERIFY2(!text.contains(kCredential.toUtf8()), text.constData());
    QVERIFY2(!text.contains("BCDF-GHJK"), text.constData());
    QVERIFY2(!text.contains("1234"), text.constData());
    QCOMPARE(out.value(QStringLiteral("serverId")).toString(), QStringLiteral("srv-1"));
    QCOMPARE(out.value(QStringLiteral("credential")).toString(), QStringLiteral("[redacted]"));
    QCOMPARE(out.value(QStringLiteral("hub")).toString(), QStringLiteral("http://[redacted]@127.0.0.1:8470"));
}

QTEST_GUILESS_MAIN(tst_ReportRedaction)
#include "tst_reportredaction.moc"
