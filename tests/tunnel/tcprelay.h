// A TCP relay for the tunnel tests: forwards connections to a port, and can stop moving bytes
// without closing anything, to play a hub (or a network) that went silent.
#pragma once

#include <QObject>
#include <QTcpServer>

namespace isolation::test {

// Forwards TCP connections to a target; freeze() stops moving bytes both ways without closing.
class TcpRelay : public QObject
{
    Q_OBJECT
public:
    explicit TcpRelay(quint16 targetPort, QObject *parent = nullptr);
    quint16 port() const { return m_server.serverPort(); }
    void freeze() { m_frozen = true; }
    int connections() const { return m_connections; }
    qint64 bytesToTarget() const { return m_bytesToTarget; } // what the client sent, relayed

private:
    QTcpServer m_server;
    quint16 m_target;
    bool m_frozen = false;
    int m_connections = 0;
    qint64 m_bytesToTarget = 0;
};

} // namespace isolation::test
