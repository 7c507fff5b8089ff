#include "eventhub.h"

#include <QJsonDocument>
#include <QRandomGenerator>

namespace isolation {

EventHub::EventHub(int capacity, qint64 maxBytes, QString runId, QObject *parent)
    : QObject(parent)
    , m_capacity(std::max(capacity, 1))
    , m_maxBytes(maxBytes)
    , m_runId(std::move(runId))
{
    if (m_runId.isEmpty()) {
        // 64 random bits: two runs of one engine never share an id, so an old Last-Event-ID
        // can only mean "reset", never a wrong replay.
        m_runId = QString::number(QRandomGenerator::system()->generate64(), 16).rightJustified(16, QLatin1Char('0'));
    }
}

QString EventHub::idOf(quint64 number) const
{
    return m_runId + QLatin1Char('-') + QString::number(number);
}

void EventHub::publish(const QByteArray &kind, const QJsonObject &data)
{
    EngineEvent e {m_next++, kind, QJsonDocument(data).toJson(QJsonDocument::Compact)};
    m_bytes += e.data.size();
    m_ring.push_back(std::move(e));
    // The newest always stays, whatever its size.
    while (m_ring.size() > 1 && (int(m_ring.size()) > m_capacity || m_bytes > m_maxBytes)) {
        m_bytes -= m_ring.front().data.size();
        m_ring.pop_front();
    }
    Q_EMIT published(m_ring.back());
}

std::optional<quint64> EventHub::resumeAfter(const QByteArray &lastEventId, QString *why) const
{
    const qsizetype dash = lastEventId.indexOf('-'); // run ids are hex: the first dash splits
    bool ok = false;
    const quint64 n = dash > 0 ? lastEventId.mid(dash + 1).toULongLong(&ok) : 0;
    if (!ok) {
        *why = QStringLiteral("unknown_id");
        return std::nullopt;
    }
    if (QString::fromLatin1(lastEventId.first(dash)) != m_runId) {
        *why = QStringLiteral("engine_restarted");
        return std::nullopt;
    }
    if (n > lastNumber()) {
        *why = QStringLiteral("unknown_id");
        return std::nullopt;
    }
    // The client has n: it can go on when the ring still holds n + 1 (or n is the last).
    if (n + 1 < oldestNumber()) {
        *why = QStringLiteral("too_old");
        return std::nullopt;
    }
    return n;
}

const EngineEvent *EventHub::event(quint64 number) const
{
    if (m_ring.empty() || number < m_ring.front().number || number > m_ring.back().number)
        return nullptr;
    return &m_ring[number - m_ring.front().number];
}

} // namespace isolation
