#include "tunneltestkit.h"

#include <QTcpSocket>

#include <openssl/evp.h>

namespace isolation::test {

TestKey::TestKey()
{
    m_key = EVP_PKEY_Q_keygen(nullptr, nullptr, "ED25519");
    size_t len = 32;
    m_public.resize(32);
    if (m_key)
        EVP_PKEY_get_raw_public_key(m_key, reinterpret_cast<unsigned char *>(m_public.data()), &len);
}

TestKey::~TestKey()
{
    EVP_PKEY_free(m_key);
}

QByteArray TestKey::sign(const QByteArray &message) const
{
    std::unique_ptr<EVP_MD_CTX, decltype(&EVP_MD_CTX_free)> ctx(EVP_MD_CTX_new(), EVP_MD_CTX_free);
    QByteArray sig(64, Qt::Uninitialized);
    size_t len = size_t(sig.size());
    if (!ctx || EVP_DigestSignInit(ctx.get(), nullptr, nullptr, nullptr, m_key) != 1
        || EVP_DigestSign(ctx.get(), reinterpret_cast<unsigned char *>(sig.data()), &len,
               reinterpret_cast<const unsigned char *>(message.constData()), size_t(message.size()))
            != 1)
        return {};
    sig.resize(qsizetype(len));
    return sig;
}

bool TestKey::verify(const QByteArray &publicKey, const QByteArray &message, const QByteArray &signature)
{
    std::unique_ptr<EVP_PKEY, decltype(&EVP_PKEY_free)> key(
        EVP_PKEY_new_raw_public_key(EVP_PKEY_ED25519, nullptr,
            reinterpret_cast<const unsigned char *>(publicKey.constData()), size_t(publicKey.size())),
        EVP_PKEY_free);
    std::unique_ptr<EVP_MD_CTX, decltype(&EVP_MD_CTX_free)> ctx(EVP_MD_CTX_new(), EVP_MD_CTX_free);
    if (!key || !ctx || EVP_DigestVerifyInit(ctx.get(), nullptr, nullptr, nullptr, key.get()) != 1)
        return false;
    return EVP_DigestVerify(ctx.get(), reinterpret_cast<const unsigned char *>(signature.constData()),
               size_t(signature.size()), reinterpret_cast<const unsigned char *>(message.constData()),
               size_t(message.size()))
        == 1;
}

TestHub::TestHub(const Clock &clock, quint16 port)
    : m_clock(clock)
    , m_port(port)
{
    m_auth = std::make_unique<hub::TunnelAuthenticator>(
        [this](const QString &id) -> std::optional<hub::TunnelAuthenticator::Server> {
            const auto it = m_servers.constFind(id);
            if (it == m_servers.constEnd())
                return std::nullopt;
            const QByteArray publicKey = it->publicKey;
            return hub::TunnelAuthenticator::Server {
                it->credential, [publicKey](const QByteArray &message, const QByteArray &signature) {
                    return TestKey::verify(publicKey, message, signature);
                }};
        },
        m_clock);
}

TestHub::~TestHub()
{
    stop();
}

bool TestHub::start()
{
    hub::HubServer::Options options;
    options.dataDir = m_dir.path() + QStringLiteral("/hub");
    options.listenPort = m_port;
    options.previewPort = 0;
    m_server = std::make_unique<hub::HubServer>(options);
    m_server->setTunnelVerifier([this](const HttpRequest &request) { return m_auth->verify(request); });
    if (!m_server->start()) {
        m_server.reset();
        return false;
    }
    m_port = quint16(m_server->appUrl().port());
    return true;
}

void TestHub::stop()
{
    if (!m_server)
        return;
    m_server->stop();
    m_server.reset();
}

void TestHub::addServer(const QString &id, const QByteArray &credential, const QByteArray &publicKey)
{
    m_servers.insert(id, {credential, publicKey});
}

TunnelClient::Options clientOptions(
    const QUrl &hub, const QString &id, const QByteArray &credential, const TestKey &key)
{
    TunnelClient::Options o;
    o.hub = hub;
    o.serverId = id;
    o.credential = credential;
    o.sign = [&key](const QByteArray &message) { return key.sign(message); };
    return o;
}

TcpRelay::TcpRelay(quint16 targetPort, QObject *parent)
    : QObject(parent)
    , m_target(targetPort)
{
    m_server.listen(QHostAddress::LocalHost, 0);
    connect(&m_server, &QTcpServer::newConnection, this, [this] {
        while (QTcpSocket *in = m_server.nextPendingConnection()) {
            ++m_connections;
            in->setParent(this);
            auto *out = new QTcpSocket(this);
            out->connectToHost(QHostAddress::LocalHost, m_target);
            auto pump = [this](QTcpSocket *from, QTcpSocket *to) {
                if (m_frozen || to->state() != QAbstractSocket::ConnectedState)
                    return;
                to->write(from->readAll());
            };
            connect(in, &QTcpSocket::readyRead, this, [=] { pump(in, out); });
            connect(out, &QTcpSocket::readyRead, this, [=] { pump(out, in); });
            connect(out, &QTcpSocket::connected, this, [=] { pump(in, out); });
            connect(in, &QTcpSocket::disconnected, out, &QTcpSocket::disconnectFromHost);
            connect(out, &QTcpSocket::disconnected, in, &QTcpSocket::disconnectFromHost);
        }
    });
}

} // namespace isolation::test
