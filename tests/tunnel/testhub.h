// An in-process hub for the tunnel tests: a HubServer whose server registry (until pairing
// provides one) is filled by the test, checked by the real TunnelAuthenticator.
#pragma once

#include "core/clock.h"
#include "hubserver.h"
#include "testkey.h"
#include "tunnel/tunnelclient.h"
#include "tunnelauthenticator.h"

#include <QHash>
#include <QTemporaryDir>

#include <memory>

namespace isolation::test {

// A HubServer in this process, app origin on `port` (0: any), accepting the servers added.
class TestHub
{
public:
    explicit TestHub(const Clock &clock, quint16 port = 0);
    ~TestHub();

    bool start();
    void stop();
    void addServer(const QString &id, const QByteArray &credential, const QByteArray &publicKey);
    hub::HubServer &server() { return *m_server; }
    hub::TunnelRegistry &tunnels() { return m_server->tunnels(); }
    QUrl url() const { return m_server->appUrl(); }
    quint16 port() const { return m_port; }
    QString dataDir() const { return m_dir.path(); }

private:
    struct Entry
    {
        QByteArray credential;
        QByteArray publicKey;
    };
    const Clock &m_clock;
    QTemporaryDir m_dir;
    quint16 m_port;
    QHash<QString, Entry> m_servers;
    std::unique_ptr<hub::TunnelAuthenticator> m_auth;
    std::unique_ptr<hub::HubServer> m_server;
};

// Options for a TunnelClient of server `id` signing with `key`.
TunnelClient::Options clientOptions(
    const QUrl &hub, const QString &id, const QByteArray &credential, const TestKey &key);

} // namespace isolation::test
