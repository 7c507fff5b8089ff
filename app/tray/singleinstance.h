// One tray per state directory: the first tray listens on a socket in the runtime directory;
// a second start connects, asks the first to show its window, and exits.
#pragma once

#include <QObject>
#include <QString>

class QLocalServer;

namespace isolation {

class SingleInstance final : public QObject
{
    Q_OBJECT
public:
    explicit SingleInstance(QString socketPath, QObject *parent = nullptr);

    // True when another tray answered and was asked to raise its window.
    bool notifyRunning();
    // Becomes the running instance. False (with errorString()) when that is impossible.
    bool listen();
    QString errorString() const { return m_error; }

Q_SIGNALS:
    void raiseRequested();

private:
    QString m_path;
    QString m_error;
    QLocalServer *m_server = nullptr;
};

} // namespace isolation
