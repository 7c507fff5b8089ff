// The engine's recent events (connection, pairing, runtime, workspace...), newest last, kept in
// memory for the tray's Activity view. Messages are user-facing text and never hold a secret.
#pragma once

#include <QDateTime>
#include <QObject>
#include <QString>

#include <deque>

namespace isolation {

struct ActivityEntry
{
    QDateTime time; // UTC
    QString kind; // "connection", "pairing", "runtime", "workspace", ...
    QString message;
};

class ActivityLog final : public QObject
{
    Q_OBJECT
public:
    static constexpr int Capacity = 1000;

    explicit ActivityLog(QObject *parent = nullptr);

    void record(const QString &kind, const QString &message);
    // An entry as another process recorded it (the tray's copy of its engine's log).
    void append(const ActivityEntry &entry);
    // Forgets every entry (the copy is read again whole).
    void clear();
    const std::deque<ActivityEntry> &entries() const { return m_entries; }

Q_SIGNALS:
    // An entry was added at the end; when the log was full, the oldest was dropped first.
    void recorded(const isolation::ActivityEntry &entry, bool droppedOldest);
    void cleared();

private:
    std::deque<ActivityEntry> m_entries;
};

} // namespace isolation
