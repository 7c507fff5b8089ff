#include "testhub.h"

#include <QCryptographicHash>

namespace isolation::test {

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
                QCryptographicHash::hash(it->credential, QCryptographicHash::Sha256),
                [publicKey](const QByteArray &message, const QByteArray &signature) {
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

} // namespace isolation::test
