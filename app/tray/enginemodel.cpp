#include "enginemodel.h"

#include <QLoggingCategory>
#include <QTimer>

Q_LOGGING_CATEGORY(lcTrayModel, "isolation.tray.model")

namespace isolation {

namespace {

// "<run>-<n>" → (run, n); n -1 when it does not read.
std::pair<QString, qint64> splitId(const QString &id)
{
    const qsizetype dash = id.lastIndexOf(QLatin1Char('-'));
    bool ok = false;
    const qint64 n = dash > 0 ? id.mid(dash + 1).toLongLong(&ok) : -1;
    return {dash > 0 ? id.left(dash) : QString(), ok ? n : -1};
}

} // namespace

EngineModel::EngineModel(Paths paths, QObject *parent)
    : QObject(parent)
    , m_paths(std::move(paths))
    , m_settings(m_paths.settingsFile())
    , m_connection(m_paths.socketPath())
    , m_client(m_paths.socketPath())
{
    connect(&m_connection, &EngineConnection::stateChanged, this,
        [this](EngineConnection::State state, const QString &) { onConnection(state); });
    connect(&m_connection, &EngineConnection::event, this, &EngineModel::onEvent);
}

EngineModel::~EngineModel() = default;

QString EngineModel::credentialAdvice() const
{
    if (!m_attached || m_status.credentialStoreError.isEmpty())
        return {};
    const QString &problem = m_status.credentialStoreProblem;
    if (problem == QLatin1String("locked"))
        return tr("Your keychain is locked. Unlock it (GNOME Keyring, KWallet), then stop and start the engine so it "
                  "reads this computer's credentials again.");
    if (problem == QLatin1String("unavailable"))
        return tr("No desktop keychain answers. Start one (GNOME Keyring, KWallet) and start the engine again, or run "
                  "the engine without one: isolation-server up --credential-store file");
    if (problem == QLatin1String("unusable"))
        return tr("The credentials stored for this computer are unusable: unpair it and pair it again.");
    return tr("Unlock your keychain (GNOME Keyring, KWallet) and start the engine again, or run it without one: "
              "isolation-server up --credential-store file");
}

QString EngineModel::stateReason() const
{
    if (m_attached)
        return m_status.reason;
    switch (m_connection.state()) {
    case EngineConnection::State::Connecting:
        return tr("Looking for the engine…");
    case EngineConnection::State::Starting:
        return tr("Starting the engine…");
    case EngineConnection::State::Attached: // the snapshot is on its way
        return tr("Reading the engine's state…");
    case EngineConnection::State::Down:
        break;
    }
    return m_connection.reason().isEmpty() ? tr("Engine not running")
                                           : tr("Engine not running: %1").arg(m_connection.reason());
}

const api::Session *EngineModel::session(const QString &id) const
{
    for (const api::Session &s : m_sessions) {
        if (s.id == id)
            return &s;
    }
    return nullptr;
}

api::Session *EngineModel::find(const QString &id)
{
    for (api::Session &s : m_sessions) {
        if (s.id == id)
            return &s;
    }
    return nullptr;
}

void EngineModel::onConnection(EngineConnection::State state)
{
    if (state == EngineConnection::State::Attached) {
        readSnapshot();
        return;
    }
    ++m_generation;
    m_reading = false;
    m_held.clear();
    const bool was = m_attached;
    m_attached = false;
    if (was) {
        qCInfo(lcTrayModel).noquote() << "detached from the engine:" << m_connection.reason();
        Q_EMIT attachedChanged(false);
    }
    Q_EMIT stateChanged(); // the state line says why the engine is away
}

void EngineModel::readSnapshot()
{
    m_reading = true;
    const quint64 generation = ++m_generation;
    m_client.get(QStringLiteral("/v1/snapshot"), [this, generation](EngineClient::Answer answer) {
        if (generation != m_generation)
            return;
        if (!answer) {
            // The stream is open but the engine would not say its state: try again shortly,
            // unless the stream goes first (then the next attachment reads it).
            qCWarning(lcTrayModel).noquote() << "snapshot failed:" << describe(answer.error());
            QTimer::singleShot(1000, this, [this, generation] {
                if (generation == m_generation && m_connection.state() == EngineConnection::State::Attached)
                    readSnapshot();
            });
            return;
        }
        apply(api::snapshotFromJson(answer.value()));
    });
}

void EngineModel::apply(const api::Snapshot &snapshot)
{
    m_reading = false;
    const auto [run, last] = splitId(snapshot.lastEventId);
    m_pairing = snapshot.pairing;
    m_runtime = snapshot.runtime;
    m_cache = snapshot.cache;
    m_sessions = snapshot.sessions;
    // The activity the engine remembers replaces ours: the same entries, or a new engine's.
    m_activity.clear();
    for (const ActivityEntry &e : snapshot.activity)
        m_activity.append(e);
    const bool was = m_attached;
    m_attached = true;
    m_status = snapshot.status;
    if (!was) {
        // tray.log says which engine this tray shows (tests wait for the line).
        qCInfo(lcTrayModel).noquote() << "attached to the engine, pid" << m_status.pid;
        Q_EMIT attachedChanged(true);
    }
    Q_EMIT stateChanged();
    Q_EMIT pairingChanged();
    Q_EMIT runtimeChanged();
    Q_EMIT cacheChanged();
    Q_EMIT sessionsReset();
    // What came while the snapshot was read: only what it does not reflect yet.
    const QList<LocalApiEvent> held = std::exchange(m_held, {});
    for (const LocalApiEvent &e : held) {
        const auto [eventRun, n] = splitId(e.id);
        if (eventRun == run && n >= 0 && n <= last)
            continue;
        take(e);
    }
}

void EngineModel::onEvent(const LocalApiEvent &event)
{
    if (event.kind == QLatin1String("reset")) {
        // The engine could not replay what we missed (it restarted, or we were away long):
        // read everything again.
        m_held.clear();
        readSnapshot();
        return;
    }
    if (m_reading || !m_attached) {
        m_held.append(event);
        return;
    }
    take(event);
}

void EngineModel::take(const LocalApiEvent &event)
{
    const QString &kind = event.kind;
    const QJsonObject &data = event.data;
    const QString id = data.value(QLatin1String("session")).toString();
    if (kind == QLatin1String("state")) {
        api::Status status = m_status;
        status.state = engineStateFromName(data.value(QLatin1String("state")).toString());
        status.reason = data.value(QLatin1String("reason")).toString();
        status.warnings = api::warningsFromJson(data.value(QLatin1String("warnings")).toArray());
        setStatus(status);
        refreshStatus(); // paired, connected, the hub and the server's name go with the state
    } else if (kind == QLatin1String("pairing")) {
        m_pairing = api::pairingFromJson(data);
        Q_EMIT pairingChanged();
    } else if (kind == QLatin1String("runtime")) {
        const api::Runtime runtime = api::runtimeFromJson(data);
        if (!(runtime == m_runtime)) {
            m_runtime = runtime;
            Q_EMIT runtimeChanged();
        }
    } else if (kind == QLatin1String("session.added") || kind == QLatin1String("session.changed")) {
        upsert(api::sessionFromJson(data));
    } else if (kind == QLatin1String("session.removed")) {
        for (qsizetype i = 0; i < m_sessions.size(); ++i) {
            if (m_sessions.at(i).id == id) {
                m_sessions.removeAt(i);
                Q_EMIT sessionRemoved(id);
                refreshCache();
                break;
            }
        }
    } else if (kind == QLatin1String("session.progress")) {
        if (api::Session *s = find(id)) {
            s->progress = api::progressFromJson(data);
            Q_EMIT sessionProgress(id);
        }
    } else if (kind == QLatin1String("save")) {
        const api::Session *s = session(id);
        QJsonObject record = data;
        record.remove(QStringLiteral("session"));
        record.remove(QStringLiteral("workspace"));
        api::Session parsed = api::sessionFromJson(QJsonObject {{QStringLiteral("lastSave"), record}});
        if (s)
            Q_EMIT saveEnded(id, parsed.lastSave);
        refreshCache(); // a save updates the warm copy
    } else if (kind == QLatin1String("sync")) {
        QJsonObject record = data;
        record.remove(QStringLiteral("session"));
        record.remove(QStringLiteral("workspace"));
        api::Session parsed = api::sessionFromJson(QJsonObject {{QStringLiteral("lastSync"), record}});
        if (session(id))
            Q_EMIT syncEnded(id, parsed.lastSync);
    } else if (kind == QLatin1String("activity")) {
        m_activity.append(api::activityFromJson(data));
    }
}

void EngineModel::setStatus(const api::Status &status)
{
    m_status = status;
    Q_EMIT stateChanged();
}

void EngineModel::upsert(const api::Session &session)
{
    if (api::Session *s = find(session.id)) {
        // The record's event carries no count of pending changes: keep the snapshot's until a
        // page asks for the changes themselves.
        const std::optional<api::PendingChanges> pending = s->pending;
        *s = session;
        if (!s->pending)
            s->pending = pending;
        Q_EMIT sessionChanged(session.id);
        return;
    }
    m_sessions.append(session);
    Q_EMIT sessionAdded(session.id);
    refreshCache();
}

void EngineModel::refreshStatus()
{
    const quint64 generation = m_generation;
    m_client.get(QStringLiteral("/v1/status"), [this, generation](EngineClient::Answer answer) {
        if (generation != m_generation || !answer)
            return;
        setStatus(api::statusFromJson(answer.value()));
    });
}

void EngineModel::refreshCache()
{
    const quint64 generation = m_generation;
    m_client.get(QStringLiteral("/v1/cache"), [this, generation](EngineClient::Answer answer) {
        if (generation != m_generation)
            return;
        m_cache = answer ? api::cacheFromJson(answer.value()) : api::Cache {};
        Q_EMIT cacheChanged();
    });
}

} // namespace isolation
