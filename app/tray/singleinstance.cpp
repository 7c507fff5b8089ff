#include "singleinstance.h"

#include <QFile>
#include <QLocalServer>
#include <QLocalSocket>

namespace isolation {

namespace {
const QByteArray kRaise = QByteArrayLiteral("raise\n");
}

SingleInstance::SingleInstance(QString socketPath, QObject *parent)
    : QObject(parent)
    , m_path(std::move(socketPath))
{ }

bool SingleInstance::notifyRunning()
{
    QLocalSocket socket;
    socket.connectToServer(m_path);
    if (!socket.waitForConnected(500))
        return false;
    socket.write(kRaise);
    if (!socket.waitForBytesWritten(1000))
        return false;
    // Wait for the running tray to acknowledge, so a caller knows the window was raised.
    return socket.waitForReadyRead(2000) && socket.readAll().startsWith("ok");
}

bool SingleInstance::listen()
{
    m_server = new QLocalServer(this);
    m_server->setSocketOptions(QLocalServer::UserAccessOption);
    if (!m_server->listen(m_path)) {
        if (m_server->serverError() != QAbstractSocket::AddressInUseError || notifyRunning()) {
            m_error = m_server->errorString();
            return false;
        }
        // Nobody answers on the socket: a tray died without removing it.
        QLocalServer::removeServer(m_path);
        if (!m_server->listen(m_path)) {
            m_error = m_server->errorString();
            return false;
        }
    }
    QFile::setPermissions(m_path, QFileDevice::ReadOwner | QFileDevice::WriteOwner);
    connect(m_server, &QLocalServer::newConnection, this, [this] {
        while (QLocalSocket *client = m_server->nextPendingConnection()) {
            connect(client, &QLocalSocket::disconnected, client, &QObject::deleteLater);
            connect(client, &QLocalSocket::readyRead, this, [this, client] {
                if (client->readAll().startsWith(kRaise.trimmed())) {
                    Q_EMIT raiseRequested();
                    client->write("ok\n");
                }
                client->disconnectFromServer();
            });
        }
    });
    return true;
}

} // namespace isolation
