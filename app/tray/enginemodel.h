// The tray's copy of its engine's state: read whole from GET /v1/snapshot when the event stream
// attaches (and again on a "reset"), then kept current by the events (docs/architecture.md,
// "LocalAPI"). Every page reads from here and asks through client(); nothing in the tray holds
// engine code. When the engine goes, the copy says so (attached() false) and keeps what it last
// knew, marked as such, until the engine comes back.
#pragma once

#include "engineclient.h"
#include "engineconnection.h"

#include "core/activitylog.h"
#include "core/paths.h"
#include "core/settings.h"
#include "localapi/apirecords.h"

#include <QList>
#include <QObject>

namespace isolation {

class EngineModel final : public QObject
{
    Q_OBJECT
public:
    // The engine of `paths` (its LocalAPI socket); the tray's own preferences live in the same
    // settings file, under keys the engine does not read (TrayPreferences).
    explicit EngineModel(Paths paths, QObject *parent = nullptr);
    ~EngineModel() override;

    const Paths &paths() const { return m_paths; }
    Settings &settings() { return m_settings; }
    EngineConnection &connection() { return m_connection; }
    EngineClient &client() { return m_client; }

    // The event stream is open and the snapshot read: everything below is current.
    bool attached() const { return m_attached; }

    const api::Status &status() const { return m_status; }
    // Stopped while no engine is attached.
    EngineState state() const { return m_attached ? m_status.state : EngineState::Stopped; }
    QString stateReason() const;
    // When the engine could not read this computer's credentials: what the member can do about
    // it, by the engine's credentialStoreProblem (locked, no keychain, unusable); empty otherwise.
    QString credentialAdvice() const;
    const api::Pairing &pairing() const { return m_pairing; }
    const api::Runtime &runtime() const { return m_runtime; }
    const api::Cache &cache() const { return m_cache; }
    const QList<api::Session> &sessions() const { return m_sessions; }
    const api::Session *session(const QString &id) const;
    // The engine's recent activity, newest last (the snapshot's, then each event).
    ActivityLog &activity() { return m_activity; }

    // Reads the status, the warm cache again (they have no events of their own for every change).
    void refreshStatus();
    void refreshCache();

Q_SIGNALS:
    void attachedChanged(bool attached);
    void stateChanged(); // status(): state, reason, paired, connected, hub...
    void pairingChanged();
    void runtimeChanged();
    void cacheChanged();
    void sessionsReset(); // the whole list was read again
    void sessionAdded(const QString &id);
    void sessionChanged(const QString &id); // its record (state, outcomes, sandbox...)
    void sessionProgress(const QString &id); // how far its operation got
    void sessionRemoved(const QString &id);
    // A save or sync ended (from anywhere: the tray, the command line, the cloud).
    void saveEnded(const QString &id, const isolation::api::SaveOutcome &outcome);
    void syncEnded(const QString &id, const isolation::api::SyncOutcome &outcome);

private:
    void onConnection(EngineConnection::State state);
    void readSnapshot();
    void apply(const api::Snapshot &snapshot);
    void onEvent(const LocalApiEvent &event);
    void take(const LocalApiEvent &event);
    void setStatus(const api::Status &status);
    void upsert(const api::Session &session);
    api::Session *find(const QString &id);

    Paths m_paths;
    Settings m_settings;
    EngineConnection m_connection;
    EngineClient m_client;
    bool m_attached = false;
    bool m_reading = false; // a snapshot is on its way: events wait for it
    QList<LocalApiEvent> m_held;
    api::Status m_status;
    api::Pairing m_pairing;
    api::Runtime m_runtime;
    api::Cache m_cache;
    QList<api::Session> m_sessions;
    ActivityLog m_activity;
    quint64 m_generation = 0; // bumps per attach: answers of an older attachment are dropped
};

} // namespace isolation
