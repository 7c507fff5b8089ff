// The engine's events (connection, pairing, runtime, sessions, saves, syncs), newest last, for the
// tray's Activity view and `isolation-server activity`. Kept in memory (the newest 1000) and, in
// the engine, in a JSON Lines file that survives restarts (docs/formats.md, "Activity log").
// Messages are user-facing text and never hold a secret.
#pragma once

#include "result.h"

#include <QDateTime>
#include <QFile>
#include <QJsonObject>
#include <QObject>
#include <QString>

#include <deque>
#include <memory>
#include <optional>

namespace isolation {

struct ActivityEntry
{
    QDateTime time; // UTC
    QString kind; // "connection", "pairing", "runtime", "session", "save", "sync"
    QString message;
    // What a program may branch on, beside the words: {"session", "workspace", "door", "outcome",
    // "files", "bytes", ...} as docs/formats.md lists them per kind. Empty for most kinds.
    QJsonObject details;
};

class ActivityLog final : public QObject
{
    Q_OBJECT
public:
    static constexpr int Capacity = 1000;

    explicit ActivityLog(QObject *parent = nullptr);
    ~ActivityLog() override;

    // Keeps the log in `path` from now on: reads the newest Capacity entries found there (a line
    // that does not parse, such as one cut by a crash, is skipped), then appends each new entry.
    // The file is rewritten with the newest Capacity entries when it holds twice as many, so it
    // stays bounded. 0600. Fails (and the log stays in memory only) when the file cannot be opened.
    Status keepIn(const QString &path);

    void record(const QString &kind, const QString &message, const QJsonObject &details = {});
    // An entry as another process recorded it (the tray's copy of its engine's log).
    void append(const ActivityEntry &entry);
    // Forgets every entry (the copy is read again whole).
    void clear();
    const std::deque<ActivityEntry> &entries() const { return m_entries; }

    static QJsonObject toJson(const ActivityEntry &entry);
    static std::optional<ActivityEntry> fromJson(const QJsonObject &o);

Q_SIGNALS:
    // An entry was added at the end; when the log was full, the oldest was dropped first.
    void recorded(const isolation::ActivityEntry &entry, bool droppedOldest);
    void cleared();

private:
    void write(const ActivityEntry &entry);
    void compact();

    std::deque<ActivityEntry> m_entries;
    std::unique_ptr<QFile> m_file;
    int m_linesInFile = 0;
};

} // namespace isolation
