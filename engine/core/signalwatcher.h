// Turns SIGINT and SIGTERM into a Qt signal on the event loop (self-pipe + QSocketNotifier),
// so a process can shut down cleanly instead of dying inside a signal handler.
#pragma once

#include <QObject>

class QSocketNotifier;

namespace isolation {

class SignalWatcher final : public QObject
{
    Q_OBJECT
public:
    // Only one watcher may exist per process: signal dispositions are process-wide.
    explicit SignalWatcher(QObject *parent = nullptr);
    ~SignalWatcher() override;

Q_SIGNALS:
    void terminationRequested(int signalNumber);

private:
    QSocketNotifier *m_notifier = nullptr;
};

} // namespace isolation
