// The heartbeat: every interval (15 s by default, the hub may change it) with ±10 % jitter, a
// status report to the hub; judges whether the hub can be reached and notices a revoked or
// unknown credential.
#pragma once

#include "hubapi/hubclient.h"

#include <QDateTime>
#include <QJsonObject>
#include <QObject>
#include <QTimer>

#include <functional>

namespace isolation {

class Heartbeat final : public QObject
{
    Q_OBJECT
public:
    using ReportProvider = std::function<QJsonObject()>;

    Heartbeat(HubClient *hub, ReportProvider report, QObject *parent = nullptr);

    void start(); // sends one beat now, then keeps going
    void stop();
    bool running() const { return m_running; }

    int intervalSeconds() const { return m_interval; }
    QDateTime lastSuccess() const { return m_lastSuccess; }
    bool reachable() const { return m_reachable; }
    QString lastError() const { return m_lastError; }

Q_SIGNALS:
    void beat(); // the hub took a heartbeat
    void unreachable(const QString &why); // a heartbeat failed; retried at the next interval
    void credentialRefused(const QString &code, const QString &why); // revoked or unknown server

private:
    void send();
    void scheduleNext();

    HubClient *m_hub;
    ReportProvider m_report;
    QTimer m_timer;
    bool m_running = false;
    bool m_inFlight = false;
    bool m_reachable = false;
    int m_interval = 15;
    QDateTime m_lastSuccess;
    QString m_lastError;
};

} // namespace isolation
