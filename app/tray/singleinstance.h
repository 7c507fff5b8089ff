// One tray per state directory: the first tray listens on a socket in the runtime directory;
// a second start connects, asks the first to show its window, and exits. Plain unix sockets
// (localapi/unixsocket.h), so the tray needs no Qt Network.
#pragma once

#include "localapi/unixsocket.h"

#include <QObject>
#include <QString>

class QSocketNotifier;

namespace isolation {

class SingleInstance final : public QObject
{
    Q_OBJECT
public:
    explicit SingleInstance(QString socketPath, QObject *parent = nullptr);
    ~SingleInstance() override;

    // True when another tray answered and was asked to raise its window.
    bool notifyRunning();
    // Becomes the running instance. False (with errorString()) when that is impossible.
    bool listen();
    QString errorString() const { return m_error; }

Q_SIGNALS:
    void raiseRequested();

private:
    void accept();
    void serve(int client);

    QString m_path;
    QString m_error;
    unixsocket::Fd m_listener;
    QSocketNotifier *m_incoming = nullptr;
};

} // namespace isolation
