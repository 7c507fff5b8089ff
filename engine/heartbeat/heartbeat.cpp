#include "heartbeat.h"

#include <QLoggingCategory>
#include <QRandomGenerator>

Q_LOGGING_CATEGORY(lcHeartbeat, "isolation.heartbeat")

namespace isolation {

Heartbeat::Heartbeat(HubClient *hub, ReportProvider report, QObject *parent)
    : QObject(parent)
    , m_hub(hub)
    , m_report(std::move(report))
{
    m_timer.setSingleShot(true);
    // Coarse timers let the system batch wake-ups; a heartbeat need not be punctual.
    m_timer.setTimerType(Qt::CoarseTimer);
    connect(&m_timer, &QTimer::timeout, this, &Heartbeat::send);
}

void Heartbeat::start()
{
    m_running = true;
    send();
}

void Heartbeat::stop()
{
    m_running = false;
    m_timer.stop();
}

void Heartbeat::scheduleNext()
{
    if (!m_running)
        return;
    // ±10 % jitter so a fleet restarted together does not beat in lockstep.
    const double factor = 0.9 + 0.2 * QRandomGenerator::global()->generateDouble();
    m_timer.start(int(m_interval * 1000 * factor));
}

void Heartbeat::send()
{
    if (!m_running || m_inFlight)
        return;
    m_inFlight = true;
    m_hub->call("POST", QStringLiteral("/v1/heartbeat"), m_report(), [this](Result<QJsonObject, HubError> r) {
        m_inFlight = false;
        if (!m_running)
            return;
        if (r) {
            const int interval = r.value().value(QStringLiteral("interval")).toInt(m_interval);
            if (interval >= 1 && interval <= 3600 && interval != m_interval) {
                qCInfo(lcHeartbeat) << "hub set the heartbeat interval to" << interval << "s";
                m_interval = interval;
            }
            m_lastSuccess = QDateTime::currentDateTimeUtc();
            m_reachable = true;
            m_lastError.clear();
            scheduleNext();
            Q_EMIT beat();
            return;
        }
        const HubError &e = r.error();
        if (e.status == 401 || e.status == 403) {
            qCWarning(lcHeartbeat) << "hub refused this server's credential:" << e.errorCode;
            m_running = false;
            m_reachable = true;
            Q_EMIT credentialRefused(e.errorCode, e.message);
            return;
        }
        m_reachable = false;
        m_lastError = e.message;
        qCInfo(lcHeartbeat) << "heartbeat failed:" << e.message;
        scheduleNext();
        Q_EMIT unreachable(e.message);
    });
}

} // namespace isolation
