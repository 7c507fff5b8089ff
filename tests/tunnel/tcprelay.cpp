#include "tcprelay.h"

#include <QTcpSocket>

namespace isolation::test {

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
            auto forward = [this, pump, in, out] {
                if (!m_frozen && out->state() == QAbstractSocket::ConnectedState)
                    m_bytesToTarget += in->bytesAvailable();
                pump(in, out);
            };
            connect(in, &QTcpSocket::readyRead, this, forward);
            connect(out, &QTcpSocket::readyRead, this, [=] { pump(out, in); });
            connect(out, &QTcpSocket::connected, this, forward);
            connect(in, &QTcpSocket::disconnected, out, &QTcpSocket::disconnectFromHost);
            connect(out, &QTcpSocket::disconnected, in, &QTcpSocket::disconnectFromHost);
        }
    });
}

} // namespace isolation::test
