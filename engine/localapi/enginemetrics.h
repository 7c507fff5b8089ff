// The engine's metrics, as `GET /metrics` answers them in the Prometheus text format (docs/
// operations.md lists every name). Counters move with what the engine does: the tunnel's connects
// and drops and the heartbeats (told by the Engine), saves and syncs by outcome, their bytes, and
// the save and restore durations (read off the event stream every client sees, so the numbers
// and the events cannot disagree). Gauges are what the engine is at the moment of the scrape,
// given by the Engine in `Now`. Counters start from zero with each engine run, as Prometheus
// expects of a process.
#pragma once

#include "core/metricstext.h"

#include <QDateTime>
#include <QHash>
#include <QMap>
#include <QObject>

namespace isolation {

class EventHub;
struct EngineEvent;

class EngineMetrics final : public QObject
{
    Q_OBJECT
public:
    // The engine's state when scraped. Each `...States` lists every name of its enum, so a series
    // exists for each state (1 for the current one, 0 for the others).
    struct Now
    {
        bool paired = false;
        QStringList engineStates;
        QString engineState;
        QStringList tunnelStates;
        QString tunnelState; // empty: no tunnel (not paired, or disconnected by the member)
        QStringList runtimeStates;
        QString runtimeState;
        QStringList sessionStates;
        QMap<QString, int> sessions; // by state
        quint64 viewsForwarded = 0; // the current doorman's outcomes (carryViews: the earlier ones')
        quint64 viewsAnswered = 0;
        quint64 viewsRefused = 0;
    };

    explicit EngineMetrics(EventHub &events, QObject *parent = nullptr);

    void countTunnelConnected() { ++m_tunnelConnects; }
    void countTunnelDropped() { ++m_tunnelDrops; }
    void countHeartbeat(bool ok) { ++(ok ? m_heartbeatsOk : m_heartbeatsFailed); }
    // A doorman closes with its tunnel: its counts are kept, so the counters never go back.
    void carryViews(quint64 forwarded, quint64 answered, quint64 refused)
    {
        m_viewsForwarded += forwarded;
        m_viewsAnswered += answered;
        m_viewsRefused += refused;
    }

    QByteArray render(const Now &now) const;

private:
    void onEvent(const EngineEvent &event);

    quint64 m_tunnelConnects = 0;
    quint64 m_tunnelDrops = 0;
    quint64 m_heartbeatsOk = 0;
    quint64 m_heartbeatsFailed = 0;
    QMap<QString, quint64> m_saves; // by outcome
    QMap<QString, quint64> m_syncs;
    quint64 m_viewsForwarded = 0;
    quint64 m_viewsAnswered = 0;
    quint64 m_viewsRefused = 0;
    quint64 m_bytesUploaded = 0;
    quint64 m_bytesDownloaded = 0;
    Histogram m_saveSeconds;
    Histogram m_restoreSeconds;
    struct Running
    {
        QString operation;
        QDateTime startedAt;
    };
    QHash<QString, Running> m_running; // by session: the operation its progress shows
};

} // namespace isolation
