// localapi: the engine's event log for LocalAPI clients (GET /v1/events): numbered events kept
// in a bounded ring, so a client that lost its stream resumes from the last id it saw, and one
// that cannot (an id from before an engine restart, or older than the ring) is told to reset.
#pragma once

#include <QByteArray>
#include <QJsonObject>
#include <QObject>
#include <QString>

#include <deque>
#include <optional>

namespace isolation {

struct EngineEvent
{
    quint64 number = 0; // grows by one per event within one engine run, from 1
    QByteArray kind; // "state", "pairing", "runtime", "session.added", ... (docs/architecture.md)
    QByteArray data; // one line of compact JSON
};

class EventHub final : public QObject
{
    Q_OBJECT
public:
    static constexpr int kDefaultCapacity = 512;
    static constexpr qint64 kDefaultMaxBytes = 4 * 1024 * 1024; // events with large sessions: bytes bound it too

    // `runId` tells this run of the engine from any other; empty: a fresh random one.
    explicit EventHub(int capacity = kDefaultCapacity, qint64 maxBytes = kDefaultMaxBytes, QString runId = {},
        QObject *parent = nullptr);

    QString runId() const { return m_runId; }
    // The id clients see: "<run>-<number>". 0 is "before the first event".
    QString idOf(quint64 number) const;
    quint64 lastNumber() const { return m_next - 1; }
    QString lastId() const { return idOf(lastNumber()); }

    void publish(const QByteArray &kind, const QJsonObject &data);

    // Where a client that saw `lastEventId` goes on: the number of the last event it has (replay
    // from the one after), or nullopt when it must re-read the snapshot (another run, too old,
    // malformed, or ahead of this run). `why` says which.
    std::optional<quint64> resumeAfter(const QByteArray &lastEventId, QString *why) const;
    // Event `number` if the ring still holds it.
    const EngineEvent *event(quint64 number) const;
    quint64 oldestNumber() const { return m_ring.empty() ? m_next : m_ring.front().number; }

Q_SIGNALS:
    void published(const isolation::EngineEvent &event);

private:
    int m_capacity;
    qint64 m_maxBytes;
    qint64 m_bytes = 0; // of the events' data in the ring
    QString m_runId;
    quint64 m_next = 1;
    std::deque<EngineEvent> m_ring;
};

} // namespace isolation
