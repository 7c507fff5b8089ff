// Test kit for the tunnel tests: a real Ed25519 key (OpenSSL, standing in for the crypto
// module), an in-process hub with a server registry of the test's making, and a TCP relay the
// test can freeze to play a hub that stopped answering.
#pragma once

#include "core/clock.h"
#include "hubserver.h"
#include "tunnel/tunnelclient.h"
#include "tunnelauthenticator.h"

#include <QHash>
#include <QTcpServer>
#include <QTemporaryDir>

#include <memory>

struct evp_pkey_st;

namespace isolation::test {

class TestKey
{
public:
    TestKey();
    ~TestKey();
    TestKey(const TestKey &) = delete;
    TestKey &operator=(const TestKey &) = delete;

    QByteArray sign(const QByteArray &message) const;
    QByteArray publicKey() const { return m_public; }
    static bool verify(const QByteArray &publicKey, const QByteArray &message, const QByteArray &signature);

private:
    evp_pkey_st *m_key = nullptr;
    QByteArray m_public;
};

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

// Forwards TCP connections to a target; freeze() stops moving bytes both ways without closing.
class TcpRelay : public QObject
{
    Q_OBJECT
public:
    explicit TcpRelay(quint16 targetPort, QObject *parent = nullptr);
    quint16 port() const { return m_server.serverPort(); }
    void freeze() { m_frozen = true; }
    int connections() const { return m_connections; }

private:
    QTcpServer m_server;
    quint16 m_target;
    bool m_frozen = false;
    int m_connections = 0;
};

} // namespace isolation::test
