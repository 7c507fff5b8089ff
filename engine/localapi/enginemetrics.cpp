#include "enginemetrics.h"

#include "eventhub.h"

#include <QJsonDocument>
#include <QJsonObject>

namespace isolation {

namespace {

// Seconds, from a quick save of a small change to a large first upload on a slow link.
std::vector<double> durationBuckets()
{
    return {0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600};
}

void stateFamily(MetricsText &out, const QByteArray &name, const QString &help, const QStringList &states,
    const QString &current)
{
    out.family(name, MetricsText::Type::Gauge, help);
    for (const QString &s : states)
        out.sample(name, s == current ? 1 : 0, {{"state", s}});
}

void byOutcome(MetricsText &out, const QByteArray &name, const QString &help, const QMap<QString, quint64> &counts)
{
    out.family(name, MetricsText::Type::Counter, help);
    for (auto it = counts.cbegin(); it != counts.cend(); ++it)
        out.sample(name, double(it.value()), {{"outcome", it.key()}});
}

} // namespace

EngineMetrics::EngineMetrics(EventHub &events, QObject *parent)
    : QObject(parent)
    , m_saveSeconds(durationBuckets())
    , m_restoreSeconds(durationBuckets())
{
    // Every outcome a scraper may see is there from the start, at 0.
    for (const char *o : {"published", "nothing_to_save", "moved_on", "conflict", "failed"})
        m_saves.insert(QString::fromLatin1(o), 0);
    for (const char *o : {"up_to_date", "fast_forwarded", "merged", "conflicted", "conflicts_left", "failed"})
        m_syncs.insert(QString::fromLatin1(o), 0);
    connect(&events, &EventHub::published, this, &EngineMetrics::onEvent);
}

void EngineMetrics::onEvent(const EngineEvent &event)
{
    if (event.kind != "session.progress" && event.kind != "save" && event.kind != "sync"
        && event.kind != "session.removed")
        return;
    const QJsonObject o = QJsonDocument::fromJson(event.data).object();
    const QString session = o.value(QStringLiteral("session")).toString();
    if (event.kind == "session.removed") {
        m_running.remove(session);
    } else if (event.kind == "session.progress") {
        // An operation ends when the progress names another one, or none.
        const QString operation = o.value(QStringLiteral("operation")).toString();
        const auto it = m_running.constFind(session);
        if (it != m_running.constEnd() && it->operation != operation && it->startedAt.isValid()) {
            const double seconds = double(it->startedAt.msecsTo(QDateTime::currentDateTimeUtc())) / 1000.0;
            if (it->operation == QLatin1String("save"))
                m_saveSeconds.observe(seconds);
            else if (it->operation == QLatin1String("open"))
                m_restoreSeconds.observe(seconds);
        }
        if (operation.isEmpty())
            m_running.remove(session);
        else if (it == m_running.constEnd() || it->operation != operation)
            m_running.insert(session,
                Running {operation,
                    QDateTime::fromString(o.value(QStringLiteral("startedAt")).toString(), Qt::ISODateWithMs)});
    } else {
        // A save's or sync's outcome: a report, or an error whose code is the outcome.
        QString outcome = o.value(QStringLiteral("outcome")).toString();
        QMap<QString, quint64> &counts = event.kind == "save" ? m_saves : m_syncs;
        if (!counts.contains(outcome))
            outcome = QStringLiteral("failed"); // not_paired, unavailable, internal: the save did not happen
        ++counts[outcome];
        if (event.kind == "save")
            m_bytesUploaded += quint64(qMax<qint64>(0, o.value(QStringLiteral("segmentBytes")).toInteger()));
        else
            m_bytesDownloaded += quint64(qMax<qint64>(0, o.value(QStringLiteral("bytesDownloaded")).toInteger()));
    }
}

QByteArray EngineMetrics::render(const Now &now) const
{
    MetricsText out;
    out.family("isolation_paired", MetricsText::Type::Gauge, QStringLiteral("1 when this computer is paired with a hub."));
    out.sample("isolation_paired", now.paired ? 1 : 0);
    stateFamily(out, "isolation_engine_state", QStringLiteral("The engine's state (1 for the current one)."),
        now.engineStates, now.engineState);
    out.family("isolation_tunnel_up", MetricsText::Type::Gauge, QStringLiteral("1 while the tunnel to the hub is connected."));
    out.sample("isolation_tunnel_up", now.tunnelState == QLatin1String("connected") ? 1 : 0);
    stateFamily(out, "isolation_tunnel_state", QStringLiteral("The tunnel's state (1 for the current one; all 0 without a tunnel)."),
        now.tunnelStates, now.tunnelState);
    out.family("isolation_tunnel_connects_total", MetricsText::Type::Counter,
        QStringLiteral("Tunnels opened to the hub (the first one and every reconnect)."));
    out.sample("isolation_tunnel_connects_total", double(m_tunnelConnects));
    out.family("isolation_tunnel_reconnects_total", MetricsText::Type::Counter,
        QStringLiteral("Tunnels opened again after the first one of this engine run."));
    out.sample("isolation_tunnel_reconnects_total", double(m_tunnelConnects > 0 ? m_tunnelConnects - 1 : 0));
    out.family("isolation_tunnel_drops_total", MetricsText::Type::Counter,
        QStringLiteral("Tunnels lost or refused (not counting a disconnect the member asked for)."));
    out.sample("isolation_tunnel_drops_total", double(m_tunnelDrops));
    out.family("isolation_heartbeats_sent_total", MetricsText::Type::Counter, QStringLiteral("Heartbeats sent to the hub."));
    out.sample("isolation_heartbeats_sent_total", double(m_heartbeatsOk + m_heartbeatsFailed));
    out.family("isolation_heartbeats_failed_total", MetricsText::Type::Counter,
        QStringLiteral("Heartbeats that did not reach the hub or that it refused."));
    out.sample("isolation_heartbeats_failed_total", double(m_heartbeatsFailed));

    out.family("isolation_sessions", MetricsText::Type::Gauge, QStringLiteral("Sessions on this computer, by state."));
    for (const QString &s : now.sessionStates)
        out.sample("isolation_sessions", now.sessions.value(s), {{"state", s}});
    byOutcome(out, "isolation_saves_total", QStringLiteral("Saves by outcome (moved_on: the hub had a newer save, 412)."), m_saves);
    byOutcome(out, "isolation_syncs_total", QStringLiteral("Syncs by outcome."), m_syncs);
    out.family("isolation_save_duration_seconds", MetricsText::Type::Histogram,
        QStringLiteral("How long a save took, from queued to its outcome."));
    out.histogram("isolation_save_duration_seconds", m_saveSeconds);
    out.family("isolation_restore_duration_seconds", MetricsText::Type::Histogram,
        QStringLiteral("How long a new session took to get its worktree (warm cache, then the hub)."));
    out.histogram("isolation_restore_duration_seconds", m_restoreSeconds);
    out.family("isolation_uploaded_bytes_total", MetricsText::Type::Counter,
        QStringLiteral("Encrypted bytes of workspace segments uploaded by saves."));
    out.sample("isolation_uploaded_bytes_total", double(m_bytesUploaded));
    out.family("isolation_downloaded_bytes_total", MetricsText::Type::Counter,
        QStringLiteral("Encrypted bytes of workspace segments downloaded by syncs."));
    out.sample("isolation_downloaded_bytes_total", double(m_bytesDownloaded));

    out.family("isolation_view_requests_total", MetricsText::Type::Counter,
        QStringLiteral("View requests the doorman took: forwarded to a sandbox, answered itself (a token exchanged "
                       "for a cookie), or refused."));
    out.sample("isolation_view_requests_total", double(m_viewsForwarded + now.viewsForwarded),
        {{"outcome", QStringLiteral("forwarded")}});
    out.sample("isolation_view_requests_total", double(m_viewsAnswered + now.viewsAnswered),
        {{"outcome", QStringLiteral("answered")}});
    out.sample("isolation_view_requests_total", double(m_viewsRefused + now.viewsRefused),
        {{"outcome", QStringLiteral("refused")}});

    out.family("isolation_runtime_healthy", MetricsText::Type::Gauge,
        QStringLiteral("1 while the sandbox runtime answers its health check."));
    out.sample("isolation_runtime_healthy", now.runtimeState == QLatin1String("healthy") ? 1 : 0);
    stateFamily(out, "isolation_runtime_state", QStringLiteral("The sandbox runtime's state (1 for the current one)."),
        now.runtimeStates, now.runtimeState);
    return out.text();
}

} // namespace isolation
