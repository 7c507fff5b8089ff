// WebSocketConnector over wss://, the path every real hub takes: a QSslSocket with the default
// configuration's trust store. The certificates are made here with OpenSSL (a CA the client is
// told to trust, server certificates it signed, one self-signed that no one trusts), in memory;
// the server is a QSslServer whose connections go to HttpServer, serverAnswer() and a
// WebSocketLink in the server role, as in tst_websocketlink's ws:// tests.
// Through an HTTP proxy: a real tinyproxy relays the CONNECT; the engine's proxy rules
// (HTTPS_PROXY, NO_PROXY, loopback direct) decide for hub calls and the tunnel alike.
#include "websocketwire.h"

#include "http/httpserver.h"
#include "hubapi/hubclient.h"
#include "net/proxyrules.h"
#include "websocket/websockethandshake.h"
#include "websocket/websocketlink.h"

#include <QDeadlineTimer>
#include <QFile>
#include <QJsonObject>
#include <QNetworkAccessManager>
#include <QNetworkInterface>
#include <QPointer>
#include <QProcess>
#include <QSignalSpy>
#include <QSslCertificate>
#include <QSslConfiguration>
#include <QSslKey>
#include <QSslServer>
#include <QSslSocket>
#include <QTcpServer>
#include <QTcpSocket>
#include <QTemporaryDir>
#include <QTest>

#include <openssl/bio.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

#include <memory>
#include <optional>

using namespace isolation;
using namespace isolation::test;

namespace {

constexpr quint64 kLimit = 1 << 20;
const QByteArray kRefusal = "HTTP/1.1 401 Unauthorized\r\nContent-Length: 0\r\nConnection: close\r\n\r\n";

// ---------------------------------------------------------------------------------------------
// Certificates, with OpenSSL 3

using PKey = std::unique_ptr<EVP_PKEY, decltype(&EVP_PKEY_free)>;
using Cert = std::unique_ptr<X509, decltype(&X509_free)>;

struct Issued
{
    PKey key {nullptr, EVP_PKEY_free};
    Cert cert {nullptr, X509_free};
};

bool addExtension(X509 *cert, X509 *issuer, int nid, const char *value)
{
    X509V3_CTX ctx;
    X509V3_set_ctx_nodb(&ctx);
    X509V3_set_ctx(&ctx, issuer, cert, nullptr, nullptr, 0);
    X509_EXTENSION *ext = X509V3_EXT_conf_nid(nullptr, &ctx, nid, value);
    if (!ext)
        return false;
    const bool ok = X509_add_ext(cert, ext, -1) == 1;
    X509_EXTENSION_free(ext);
    return ok;
}

// A P-256 key and a certificate for it with `commonName`, the subjectAltName `sans` (none when
// null), valid from an hour ago for a day, signed with SHA-256 by `issuer` (self-signed when
// null). A CA gets basicConstraints CA:TRUE and may sign certificates; a server certificate is
// CA:FALSE, for serverAuth.
Issued issue(const char *commonName, const char *sans, bool ca, const Issued *issuer)
{
    static long serial = 1000;
    Issued out;
    out.key.reset(EVP_EC_gen("P-256"));
    out.cert.reset(X509_new());
    X509 *x = out.cert.get();
    if (!out.key || !x)
        return {};
    X509 *signer = issuer ? issuer->cert.get() : x;
    EVP_PKEY *signerKey = issuer ? issuer->key.get() : out.key.get();
    bool ok = X509_set_version(x, X509_VERSION_3) == 1 && ASN1_INTEGER_set(X509_get_serialNumber(x), ++serial) == 1
        && X509_gmtime_adj(X509_getm_notBefore(x), -3600) && X509_gmtime_adj(X509_getm_notAfter(x), 24 * 3600)
        && X509_set_pubkey(x, out.key.get()) == 1
        && X509_NAME_add_entry_by_txt(X509_get_subject_name(x), "CN", MBSTRING_ASC,
               reinterpret_cast<const unsigned char *>(commonName), -1, -1, 0)
            == 1
        && X509_set_issuer_name(x, X509_get_subject_name(signer)) == 1
        && addExtension(x, signer, NID_subject_key_identifier, "hash")
        && addExtension(x, signer, NID_authority_key_identifier, "keyid:always");
    if (ca) {
        ok = ok && addExtension(x, signer, NID_basic_constraints, "critical,CA:TRUE")
            && addExtension(x, signer, NID_key_usage, "critical,keyCertSign,cRLSign");
    } else {
        ok = ok && addExtension(x, signer, NID_basic_constraints, "critical,CA:FALSE")
            && addExtension(x, signer, NID_key_usage, "critical,digitalSignature")
            && addExtension(x, signer, NID_ext_key_usage, "serverAuth");
    }
    if (sans)
        ok = ok && addExtension(x, signer, NID_subject_alt_name, sans);
    ok = ok && X509_sign(x, signerKey, EVP_sha256()) > 0;
    if (!ok)
        return {};
    return out;
}

QByteArray drain(BIO *bio)
{
    char *data = nullptr;
    const long n = BIO_get_mem_data(bio, &data);
    QByteArray out(data, n > 0 ? qsizetype(n) : 0);
    BIO_free(bio);
    return out;
}

QSslCertificate toQt(const Cert &cert)
{
    BIO *bio = BIO_new(BIO_s_mem());
    if (PEM_write_bio_X509(bio, cert.get()) != 1) {
        BIO_free(bio);
        return QSslCertificate(QByteArray(), QSsl::Pem);
    }
    return QSslCertificate(drain(bio), QSsl::Pem);
}

QSslKey toQt(const PKey &key)
{
    BIO *bio = BIO_new(BIO_s_mem());
    if (PEM_write_bio_PrivateKey_traditional(bio, key.get(), nullptr, nullptr, 0, nullptr, nullptr) != 1) {
        BIO_free(bio);
        return {};
    }
    return QSslKey(drain(bio), QSsl::Ec, QSsl::Pem, QSsl::PrivateKey);
}

struct Identity
{
    QSslCertificate certificate;
    QSslKey key;
    bool isNull() const { return certificate.isNull() || key.isNull(); }
};

Identity toQt(const Issued &issued)
{
    if (!issued.cert || !issued.key)
        return Identity {QSslCertificate(QByteArray(), QSsl::Pem), QSslKey()};
    return {toQt(issued.cert), toQt(issued.key)};
}

// ---------------------------------------------------------------------------------------------
// The server and the client

// A QSslServer on 127.0.0.1 (or `address`) presenting `identity`; each connection, once encrypted,
// is served by an HttpServer whose upgrade handler records the request, then either answers with
// serverAnswer() and echoes every binary message through a WebSocketLink, or refuses with a 401
// and closes. Plain requests get a 200 from GET /v1/ping.
struct TlsServer
{
    enum class Mode { Echo, Refuse401 };

    QSslServer ssl;
    HttpServer http;
    QObject holder; // the links and refused sockets, deleted first
    QList<HttpRequest> upgrades;
    QList<bool> encryptedWhenServed;
    QList<QPointer<WebSocketLink>> links;
    QStringList gone; // the reasons of the links' disconnected()
    quint16 port = 0;

    TlsServer(const Identity &identity, Mode mode, const QHostAddress &address = QHostAddress(QHostAddress::LocalHost))
    {
        http.route("GET", QStringLiteral("/v1/ping"), [](const HttpRequest &, HttpReply reply) {
            reply.send(HttpResponse::json(200, QJsonObject {{QStringLiteral("pong"), true}}));
        });
        QSslConfiguration config = QSslConfiguration::defaultConfiguration();
        config.setLocalCertificate(identity.certificate);
        config.setPrivateKey(identity.key);
        config.setPeerVerifyMode(QSslSocket::VerifyNone);
        ssl.setSslConfiguration(config);
        QObject::connect(&ssl, &QSslServer::pendingConnectionAvailable, &holder, [this] {
            while (auto *socket = qobject_cast<QSslSocket *>(ssl.nextPendingConnection())) {
                encryptedWhenServed << socket->isEncrypted();
                http.serve(socket, socket->peerAddress());
            }
        });
        http.setUpgradeHandler([this, mode](const HttpRequest &request, QIODevice *device, const QByteArray &,
                                   const QByteArray &rest) {
            upgrades << request;
            if (mode == Mode::Refuse401) {
                device->setParent(&holder);
                device->write(kRefusal);
                if (auto *socket = qobject_cast<QAbstractSocket *>(device))
                    socket->disconnectFromHost();
                return true;
            }
            const auto answer = websocket::serverAnswer(request);
            if (!answer)
                return false;
            device->write(answer.value());
            auto *link = new WebSocketLink(WebSocketLink::Role::Server, device, rest, kLimit, &holder);
            link->setMessageHandler([link](QByteArrayView m) { link->sendBinary(m); });
            QObject::connect(link, &WebSocketLink::disconnected, &holder, [this](const QString &why) { gone << why; });
            links << link;
            link->start();
            return true;
        });
        if (ssl.listen(address, 0))
            port = ssl.serverPort();
    }

    QUrl url(const QString &host) const { return QUrl(QStringLiteral("wss://%1:%2/v1/tunnel").arg(host).arg(port)); }
};

// One WebSocketConnector::open(): the link taken and started once opened, its messages copied
// into `received`.
struct Attempt
{
    WebSocketConnector connector;
    QSignalSpy opened {&connector, &WebSocketConnector::opened};
    QSignalSpy failed {&connector, &WebSocketConnector::failed};
    std::unique_ptr<WebSocketLink> link;
    QList<QByteArray> received;

    Attempt()
    {
        QObject::connect(&connector, &WebSocketConnector::opened, &connector, [this](WebSocketLink *l) {
            l->setParent(nullptr);
            link.reset(l);
            link->setMessageHandler([this](QByteArrayView m) { received << m.toByteArray(); });
            link->start();
        });
    }
    void open(const QUrl &url, const HttpHeaders &headers = {}, const QNetworkProxy &proxy = QNetworkProxy::NoProxy)
    {
        connector.open(url, headers, kLimit, proxy);
    }
    bool done() const { return !opened.isEmpty() || !failed.isEmpty(); }
    QString failure() const
    {
        return failed.isEmpty()
            ? QString()
            : QStringLiteral("%1 %2").arg(failed.first().at(0).toInt()).arg(failed.first().at(1).toString());
    }
};

// A real HTTP proxy (Debian's tinyproxy) on a free loopback port, in the foreground, logging every
// request it relays (a CONNECT for each TLS connection) to a file the test reads.
struct TinyProxy
{
    QTemporaryDir dir;
    QProcess process;
    quint16 port = 0;

    ~TinyProxy()
    {
        process.terminate();
        if (!process.waitForFinished(5000))
            process.kill();
    }
    // `extra`: more configuration lines (BasicAuth).
    bool start(const QByteArray &extra = {})
    {
        QTcpServer probe; // a free port, given back just before tinyproxy takes it
        if (!probe.listen(QHostAddress::LocalHost, 0))
            return false;
        port = probe.serverPort();
        probe.close();
        QFile conf(dir.filePath(QStringLiteral("tinyproxy.conf")));
        if (!conf.open(QIODevice::WriteOnly))
            return false;
        conf.write("Port " + QByteArray::number(port)
            + "\nListen 127.0.0.1\nTimeout 60\nMaxClients 20\n"
              "Allow 127.0.0.1\nLogLevel Info\nLogFile \""
            + dir.filePath(QStringLiteral("log")).toUtf8() + "\"\n" + extra);
        conf.close();
        process.setProcessChannelMode(QProcess::ForwardedChannels);
        process.start(QStringLiteral("tinyproxy"), {QStringLiteral("-d"), QStringLiteral("-c"), conf.fileName()});
        if (!process.waitForStarted()) {
            qWarning() << "tinyproxy did not start (./dev test installs it):" << process.errorString();
            return false;
        }
        QDeadlineTimer deadline(10000);
        while (!deadline.hasExpired() && process.state() == QProcess::Running) {
            QTcpSocket s;
            s.connectToHost(QHostAddress::LocalHost, port);
            if (s.waitForConnected(200))
                return true;
            QTest::qWait(50);
        }
        return false;
    }
    QByteArray log() const
    {
        QFile f(dir.filePath(QStringLiteral("log")));
        return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
    }
    int connects(const QString &target) const
    {
        const QByteArray line = "CONNECT " + target.toUtf8() + " HTTP/1.1";
        return int(log().count(line));
    }
    QNetworkProxy proxy(const QString &user = {}, const QString &password = {}) const
    {
        return QNetworkProxy(QNetworkProxy::HttpProxy, QStringLiteral("127.0.0.1"), port, user, password);
    }
};

// An IPv4 address of this computer that is not loopback (the proxy rules never proxy loopback).
QHostAddress outsideAddress()
{
    for (const QHostAddress &a : QNetworkInterface::allAddresses()) {
        if (a.protocol() == QAbstractSocket::IPv4Protocol && !a.isLoopback() && !a.isLinkLocal())
            return a;
    }
    return {};
}

} // namespace

class tst_WebSocketTls final : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void wssEcho();
    void wssByIpAddress();
    void wssUntrustedCertificateFails();
    void wssWrongNameFails();
    void wssRefusedHandshakeReportsStatus();
    void wssThroughProxy();
    void wssThroughProxyWithCredentials();
    void wssProxyDownSaysSo();
    void hubCallsFollowTheProxyRules();

private:
    // A failed attempt: failed(0, a message that tells `why`) and never opened, and no request
    // reached the server (nothing was sent over a connection that was not verified).
    void expectCertificateRefused(const Identity &identity, const QString &host, QSslError::SslError why);

    QSslCertificate m_ca;
    Identity m_localhost; // DNS:localhost, IP:127.0.0.1, signed by m_ca
    Identity m_untrusted; // DNS:localhost, IP:127.0.0.1, self-signed
    Identity m_elsewhere; // DNS:elsewhere.example only, signed by m_ca
};

void tst_WebSocketTls::initTestCase()
{
    QVERIFY2(QSslSocket::supportsSsl(), "no TLS backend: the wss:// path cannot be tested");
    const Issued ca = issue("isolation test CA", nullptr, true, nullptr);
    QVERIFY(ca.cert);
    const Issued localhost = issue("localhost", "DNS:localhost,IP:127.0.0.1", false, &ca);
    const Issued untrusted = issue("localhost", "DNS:localhost,IP:127.0.0.1", false, nullptr);
    const Issued elsewhere = issue("elsewhere.example", "DNS:elsewhere.example", false, &ca);
    QVERIFY(localhost.cert && untrusted.cert && elsewhere.cert);
    m_ca = toQt(ca.cert);
    m_localhost = toQt(localhost);
    m_untrusted = toQt(untrusted);
    m_elsewhere = toQt(elsewhere);
    QVERIFY(!m_ca.isNull());
    QVERIFY(!m_localhost.isNull());
    QVERIFY(!m_untrusted.isNull());
    QVERIFY(!m_elsewhere.isNull());

    // The connector takes the default configuration's trust store.
    QSslConfiguration config = QSslConfiguration::defaultConfiguration();
    config.addCaCertificate(m_ca);
    QSslConfiguration::setDefaultConfiguration(config);

    // The certificates are what the tests take them for: each failing one fails for its reason
    // alone.
    QCOMPARE(QSslCertificate::verify({m_localhost.certificate, m_ca}, QStringLiteral("localhost")), QList<QSslError>());
    const auto untrustedErrors = QSslCertificate::verify({m_untrusted.certificate}, QStringLiteral("localhost"));
    QCOMPARE(untrustedErrors.size(), 1);
    QCOMPARE(untrustedErrors.first().error(), QSslError::SelfSignedCertificate);
    const auto elsewhereErrors = QSslCertificate::verify({m_elsewhere.certificate, m_ca}, QStringLiteral("localhost"));
    QCOMPARE(elsewhereErrors.size(), 1);
    QCOMPARE(elsewhereErrors.first().error(), QSslError::HostNameMismatch);
    QCOMPARE(QSslCertificate::verify({m_elsewhere.certificate, m_ca}, QStringLiteral("elsewhere.example")),
        QList<QSslError>());
}

// wss:// to a server whose certificate the trusted CA signed for localhost: the link opens over
// an encrypted socket that presented that certificate; the opening request reached the server
// with the caller's header; messages of 1, 70000 and 300000 bytes (several TLS records each for
// the larger two) come back byte-identical; the closing handshake completes.
void tst_WebSocketTls::wssEcho()
{
    TlsServer server(m_localhost, TlsServer::Mode::Echo);
    QVERIFY(server.port != 0);
    Attempt attempt;
    attempt.open(server.url(QStringLiteral("localhost")), {{"X-Test", "1"}});
    QTRY_VERIFY_WITH_TIMEOUT(attempt.done(), kTimeoutMs);
    QVERIFY2(attempt.link, qPrintable(attempt.failure()));
    QCOMPARE(attempt.failed.count(), 0);
    QVERIFY(attempt.link->isOpen());
    auto *socket = qobject_cast<QSslSocket *>(attempt.link->device());
    QVERIFY(socket);
    QVERIFY(socket->isEncrypted());
    QCOMPARE(socket->peerCertificate(), m_localhost.certificate);

    QCOMPARE(server.encryptedWhenServed, QList<bool> {true});
    QCOMPARE(server.upgrades.size(), 1);
    const HttpRequest &request = server.upgrades.first();
    QCOMPARE(request.path, QStringLiteral("/v1/tunnel"));
    QCOMPARE(request.header("x-test"), QByteArray("1"));
    QCOMPARE(request.header("host"), QStringLiteral("localhost:%1").arg(server.port).toLatin1());
    QCOMPARE(server.links.size(), 1);

    QList<QByteArray> sent;
    for (const qsizetype size : {qsizetype(1), qsizetype(70000), qsizetype(300000)}) {
        sent << pattern(size, quint32(size) + 7);
        attempt.link->sendBinary(sent.last());
    }
    QTRY_COMPARE_WITH_TIMEOUT(attempt.received.size(), sent.size(), kTimeoutMs);
    for (qsizetype i = 0; i < sent.size(); ++i)
        QVERIFY2(attempt.received[i] == sent[i],
            qPrintable(QStringLiteral("message %1: %2 bytes sent, %3 back")
                           .arg(i)
                           .arg(sent[i].size())
                           .arg(attempt.received[i].size())));

    QSignalSpy gone(attempt.link.get(), &WebSocketLink::disconnected);
    attempt.link->close(websocket::CloseNormal, QStringLiteral("done"));
    QTRY_COMPARE_WITH_TIMEOUT(server.gone.size(), 1, kTimeoutMs);
    QCOMPARE(server.gone.first(), QStringLiteral("done"));
    QTRY_COMPARE_WITH_TIMEOUT(gone.count(), 1, kTimeoutMs);
    QVERIFY(!attempt.link->peerBrokeProtocol());
}

// wss:// to 127.0.0.1: the certificate's IP address entry matches, and the link opens and echoes.
void tst_WebSocketTls::wssByIpAddress()
{
    TlsServer server(m_localhost, TlsServer::Mode::Echo);
    QVERIFY(server.port != 0);
    Attempt attempt;
    attempt.open(server.url(QStringLiteral("127.0.0.1")));
    QTRY_VERIFY_WITH_TIMEOUT(attempt.done(), kTimeoutMs);
    QVERIFY2(attempt.link, qPrintable(attempt.failure()));
    QCOMPARE(attempt.failed.count(), 0);
    QCOMPARE(server.upgrades.size(), 1);
    QCOMPARE(server.upgrades.first().header("host"), QStringLiteral("127.0.0.1:%1").arg(server.port).toLatin1());
    const QByteArray message = pattern(5000, 11);
    attempt.link->sendBinary(message);
    QTRY_COMPARE_WITH_TIMEOUT(attempt.received.size(), 1, kTimeoutMs);
    QVERIFY(attempt.received.first() == message);
}

void tst_WebSocketTls::expectCertificateRefused(const Identity &identity, const QString &host, QSslError::SslError why)
{
    TlsServer server(identity, TlsServer::Mode::Echo);
    QVERIFY(server.port != 0);
    Attempt attempt;
    attempt.open(server.url(host), {{"X-Test", "1"}});
    QTRY_VERIFY_WITH_TIMEOUT(attempt.done(), kTimeoutMs);
    QVERIFY2(!attempt.link, "opened over a certificate that should have been refused");
    QCOMPARE(attempt.failed.count(), 1);
    QCOMPARE(attempt.failed.first().at(0).toInt(), 0);
    const QString message = attempt.failed.first().at(1).toString();
    QVERIFY(!message.isEmpty());
    // For this reason and no other (a connection that failed some other way proves nothing): the
    // message is the socket's, which gives the certificate error's own text.
    const QString expected = QSslError(why).errorString();
    QVERIFY2(message.contains(expected), qPrintable(QStringLiteral("'%1', not '%2'").arg(message, expected)));
    QTest::qWait(300); // nothing more comes
    QCOMPARE(attempt.opened.count(), 0);
    QCOMPARE(attempt.failed.count(), 1);
    QCOMPARE(server.upgrades.size(), 0);
    QCOMPARE(server.links.size(), 0);
}

// A self-signed certificate for localhost that nothing trusts: failed(0, ...), no link, and the
// opening request (which carries the credential on a real hub) never left.
void tst_WebSocketTls::wssUntrustedCertificateFails()
{
    expectCertificateRefused(m_untrusted, QStringLiteral("localhost"), QSslError::SelfSignedCertificate);
}

// A certificate the trusted CA signed, but for another name: refused the same way.
void tst_WebSocketTls::wssWrongNameFails()
{
    expectCertificateRefused(m_elsewhere, QStringLiteral("localhost"), QSslError::HostNameMismatch);
}

// A server that refuses the upgrade with a 401 over a verified connection: failed(401, ...).
void tst_WebSocketTls::wssRefusedHandshakeReportsStatus()
{
    TlsServer server(m_localhost, TlsServer::Mode::Refuse401);
    QVERIFY(server.port != 0);
    Attempt attempt;
    attempt.open(server.url(QStringLiteral("localhost")), {{"X-Test", "1"}});
    QTRY_VERIFY_WITH_TIMEOUT(attempt.done(), kTimeoutMs);
    QVERIFY2(!attempt.link, "opened although the server answered 401");
    QCOMPARE(attempt.failed.count(), 1);
    QCOMPARE(attempt.failed.first().at(0).toInt(), 401);
    QVERIFY(!attempt.failed.first().at(1).toString().isEmpty());
    QCOMPARE(server.upgrades.size(), 1);
    QCOMPARE(server.upgrades.first().header("x-test"), QByteArray("1"));
    QTest::qWait(300);
    QCOMPARE(attempt.opened.count(), 0);
    QCOMPARE(attempt.failed.count(), 1);
}

// wss:// through a real HTTP proxy: the connector asks tinyproxy for a CONNECT to the server, then
// speaks TLS to the server inside it (the certificate is still the server's, checked for
// localhost); the link opens and echoes.
void tst_WebSocketTls::wssThroughProxy()
{
    TinyProxy proxy;
    QVERIFY(proxy.start());
    TlsServer server(m_localhost, TlsServer::Mode::Echo);
    QVERIFY(server.port != 0);
    Attempt attempt;
    attempt.open(server.url(QStringLiteral("localhost")), {}, proxy.proxy());
    QTRY_VERIFY_WITH_TIMEOUT(attempt.done(), kTimeoutMs);
    QVERIFY2(attempt.link, qPrintable(attempt.failure()));
    QCOMPARE(proxy.connects(QStringLiteral("localhost:%1").arg(server.port)), 1);
    auto *socket = qobject_cast<QSslSocket *>(attempt.link->device());
    QVERIFY(socket && socket->isEncrypted());
    QCOMPARE(socket->peerCertificate(), m_localhost.certificate);
    const QByteArray message = pattern(70000, 5);
    attempt.link->sendBinary(message);
    QTRY_COMPARE_WITH_TIMEOUT(attempt.received.size(), 1, kTimeoutMs);
    QVERIFY(attempt.received.first() == message);
}

// A proxy that wants a password (BasicAuth): the credentials of the proxy URL get through, wrong
// ones fail with a message that names the proxy, and nothing reached the server.
void tst_WebSocketTls::wssThroughProxyWithCredentials()
{
    TinyProxy proxy;
    QVERIFY(proxy.start("BasicAuth alice s3cret\n"));
    TlsServer server(m_localhost, TlsServer::Mode::Echo);
    QVERIFY(server.port != 0);
    {
        Attempt wrong;
        wrong.open(
            server.url(QStringLiteral("localhost")), {}, proxy.proxy(QStringLiteral("alice"), QStringLiteral("nope")));
        QTRY_VERIFY_WITH_TIMEOUT(wrong.done(), kTimeoutMs);
        QVERIFY(!wrong.link);
        QVERIFY2(wrong.failure().contains(QStringLiteral("through the proxy 127.0.0.1:%1").arg(proxy.port)),
            qPrintable(wrong.failure()));
        QCOMPARE(server.upgrades.size(), 0);
    }
    Attempt right;
    right.open(
        server.url(QStringLiteral("localhost")), {}, proxy.proxy(QStringLiteral("alice"), QStringLiteral("s3cret")));
    QTRY_VERIFY_WITH_TIMEOUT(right.done(), kTimeoutMs);
    QVERIFY2(right.link, qPrintable(right.failure()));
    QCOMPARE(server.upgrades.size(), 1);
}

// Nothing listens where the proxy should be: the attempt fails at once and says it was the proxy.
void tst_WebSocketTls::wssProxyDownSaysSo()
{
    TinyProxy proxy;
    QVERIFY(proxy.start());
    const quint16 port = proxy.port;
    proxy.process.terminate();
    QVERIFY(proxy.process.waitForFinished(5000));
    TlsServer server(m_localhost, TlsServer::Mode::Echo);
    Attempt attempt;
    attempt.open(server.url(QStringLiteral("localhost")), {}, proxy.proxy());
    QTRY_VERIFY_WITH_TIMEOUT(attempt.done(), kTimeoutMs);
    QVERIFY(!attempt.link);
    QVERIFY2(attempt.failure().contains(QStringLiteral("through the proxy 127.0.0.1:%1").arg(port)),
        qPrintable(attempt.failure()));
    QCOMPARE(server.upgrades.size(), 0);
}

// The engine's rules (net/proxyrules.h) from an environment, as the engine applies them: hub calls
// through HubClient and its QNetworkAccessManager, and the tunnel's connector. A hub elsewhere
// (this computer's outside address, with a certificate for it) is reached through the proxy given
// by HTTPS_PROXY; NO_PROXY naming it, or a hub on loopback, goes direct.
void tst_WebSocketTls::hubCallsFollowTheProxyRules()
{
    const QHostAddress outside = outsideAddress();
    QVERIFY2(!outside.isNull(), "this computer has no IPv4 address besides loopback");
    const QString ip = outside.toString();
    const QByteArray sans = "IP:" + ip.toLatin1() + ",IP:127.0.0.1";
    const Issued issued = issue("hub", sans.constData(), false, nullptr);
    QVERIFY(issued.cert);
    const Identity identity = toQt(issued);
    QSslConfiguration config = QSslConfiguration::defaultConfiguration();
    config.addCaCertificate(identity.certificate); // self-signed, trusted here by name
    QSslConfiguration::setDefaultConfiguration(config);
    TlsServer server(identity, TlsServer::Mode::Echo, QHostAddress::Any);
    QVERIFY(server.port != 0);
    TinyProxy proxy;
    QVERIFY(proxy.start());
    const QString target = QStringLiteral("%1:%2").arg(ip).arg(server.port);

    auto call = [&](const QProcessEnvironment &env, const QString &host) {
        QNetworkAccessManager network;
        const ProxyRules rules = ProxyRules::fromEnvironment(env);
        network.setProxyFactory(new ProxyRulesFactory(rules));
        HubClient hub(&network);
        hub.setBaseUrl(QUrl(QStringLiteral("https://%1:%2").arg(host).arg(server.port)));
        std::optional<Result<QJsonObject, HubError>> answer;
        hub.call("GET", QStringLiteral("/v1/ping"), {}, [&answer](Result<QJsonObject, HubError> r) { answer = r; });
        QTRY_VERIFY_WITH_TIMEOUT(answer.has_value(), kTimeoutMs);
        QVERIFY2(answer->ok(), qPrintable(answer->ok() ? QString() : answer->error().message));
        QCOMPARE(answer->value().value(QStringLiteral("pong")).toBool(), true);
    };
    QProcessEnvironment env;
    env.insert(QStringLiteral("HTTPS_PROXY"), QStringLiteral("http://127.0.0.1:%1").arg(proxy.port));
    call(env, ip);
    if (QTest::currentTestFailed())
        return;
    QCOMPARE(proxy.connects(target), 1);
    call(env, QStringLiteral("127.0.0.1")); // this computer: never through the proxy
    if (QTest::currentTestFailed())
        return;
    QCOMPARE(proxy.log().count("): CONNECT "), 1); // "Request (file descriptor N): CONNECT host:port"
    QProcessEnvironment bypass = env;
    bypass.insert(QStringLiteral("no_proxy"), QStringLiteral("example.com, %1").arg(ip));
    call(bypass, ip);
    if (QTest::currentTestFailed())
        return;
    QCOMPARE(proxy.connects(target), 1);

    // The tunnel's connector with the same rules: through the proxy, then direct under NO_PROXY.
    const QUrl tunnel = server.url(ip);
    Attempt through;
    through.open(tunnel, {}, ProxyRules::fromEnvironment(env).proxyFor(tunnel));
    QTRY_VERIFY_WITH_TIMEOUT(through.done(), kTimeoutMs);
    QVERIFY2(through.link, qPrintable(through.failure()));
    QCOMPARE(proxy.connects(target), 2);
    Attempt direct;
    direct.open(tunnel, {}, ProxyRules::fromEnvironment(bypass).proxyFor(tunnel));
    QTRY_VERIFY_WITH_TIMEOUT(direct.done(), kTimeoutMs);
    QVERIFY2(direct.link, qPrintable(direct.failure()));
    QCOMPARE(proxy.connects(target), 2);
}

QTEST_GUILESS_MAIN(tst_WebSocketTls)
#include "tst_websockettls.moc"
