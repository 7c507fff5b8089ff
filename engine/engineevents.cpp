#include "engineevents.h"

#include "core/activitylog.h"
#include "engine.h"
#include "http/httpserver.h"
#include "sessions/session.h"
#include "sessions/sessionjson.h"
#include "sessions/sessionmanager.h"
#include "sessions/sessionroutes.h"

#include <QJsonArray>
#include <QPointer>
#include <QTimer>

namespace isolation {

namespace {

constexpr qint64 kProgressIntervalMs = 250; // bytes of one phase: at most four events a second
constexpr int kSnapshotChangesMs = 2000; // a session busier than this shows no changes count
constexpr int kActivityInSnapshot = 100;

// The session's JSON as GET /v1/sessions/{id} answers it, with the conflicts its record keeps.
QJsonObject sessionJson(const Session &s)
{
    QJsonObject o = toJson(s);
    o.insert(QStringLiteral("conflicts"), EngineEvents::conflictsOf(o));
    return o;
}

QJsonObject progressJson(const Session &s, const QJsonObject &progress)
{
    QJsonObject o = progress;
    o.insert(QStringLiteral("session"), s.id());
    o.insert(QStringLiteral("workspace"), s.workspaceId());
    return o;
}

// A save's or sync's outcome, as its record keeps it, with the session it belongs to.
QJsonObject outcomeJson(const Session &s, const QJsonObject &report)
{
    QJsonObject o = report;
    o.insert(QStringLiteral("session"), s.id());
    o.insert(QStringLiteral("workspace"), s.workspaceId());
    return o;
}

} // namespace

EngineEvents::EngineEvents(Engine *engine, HttpServer &http, QObject *parent)
    : QObject(parent)
    , m_engine(engine)
    , m_stream(&m_hub, EventStream::Options {})
{
    m_clock.start();
    m_stream.addRoute(http);
    http.route("GET", QStringLiteral("/v1/snapshot"), [this](const HttpRequest &, HttpReply reply) {
        snapshot([reply](QJsonObject o) { reply.send(HttpResponse::json(200, o)); });
    });
    http.route("GET", QStringLiteral("/v1/activity"), [this](const HttpRequest &, HttpReply reply) {
        reply.send(HttpResponse::json(
            200, QJsonObject {{QStringLiteral("activity"), activityJson(ActivityLog::Capacity)}}));
    });

    const auto state = [this] {
        publishOnce("state",
            QJsonObject {{QStringLiteral("state"), engineStateName(m_engine->state())},
                {QStringLiteral("reason"), m_engine->stateReason()}, {QStringLiteral("warnings"), m_engine->warnings()}});
        // Paired or not changes with the state (approval, unpairing, a revoked credential).
        publishOnce("pairing", m_engine->pairingStatus());
    };
    connect(engine, &Engine::stateChanged, this, state);
    connect(engine, &Engine::healthChanged, this, state);
    connect(engine, &Engine::pairingChanged, this, [this] { publishOnce("pairing", m_engine->pairingStatus()); });
    connect(engine, &Engine::runtimeChanged, this, [this] { publishOnce("runtime", m_engine->runtimeStatus()); });
    connect(&engine->activity(), &ActivityLog::recorded, this, &EngineEvents::activityRecorded);
    // What clients compare against: a first event of a kind that repeats what a snapshot shows is
    // still sent (a client may have subscribed before reading it).
}

EngineEvents::~EngineEvents() = default;

void EngineEvents::publishOnce(const QByteArray &kind, const QJsonObject &data)
{
    QJsonObject compared = data;
    compared.remove(QStringLiteral("uptimeSeconds")); // ticks on its own; not a change
    auto it = m_last.find(kind);
    if (it != m_last.end() && it.value() == compared)
        return;
    m_last.insert(kind, compared);
    m_hub.publish(kind, data);
}

void EngineEvents::watch(SessionManager *sessions)
{
    for (Session *s : sessions->sessions()) {
        const QJsonObject o = sessionJson(*s);
        Seen seen;
        seen.body = o;
        seen.progress = seen.body.take(QStringLiteral("progress")).toObject();
        seen.saveAt = o.value(QStringLiteral("lastSave")).toObject().value(QStringLiteral("at")).toString();
        seen.syncAt = o.value(QStringLiteral("lastSync")).toObject().value(QStringLiteral("at")).toString();
        m_seen.insert(s->id(), seen);
    }
    connect(sessions, &SessionManager::sessionAdded, this, &EngineEvents::sessionAdded);
    connect(sessions, &SessionManager::sessionChanged, this, [this, sessions](Session *s) {
        // A removed session lives on until its deferred delete, and a query that ends meanwhile
        // (a client's GET changes) still says changed: it is gone, not added again.
        if (sessions->session(s->id()) == s)
            sessionChanged(s);
    });
    connect(sessions, &SessionManager::exportProgress, this,
        [this](const QString &workspace, const QString &name, const QString &operation, const QString &phase,
            qint64 bytes, qint64 total) {
            QJsonObject data {{QStringLiteral("workspace"), workspace}, {QStringLiteral("name"), name}};
            if (operation.isEmpty()) {
                data.insert(QStringLiteral("operation"), QJsonValue()); // ended
            } else {
                data.insert(QStringLiteral("operation"), operation);
                data.insert(QStringLiteral("phase"), phase);
                data.insert(QStringLiteral("cancellable"), true); // to its end: the file appears whole or not at all
                data.insert(QStringLiteral("bytes"), bytes);
                if (total >= 0)
                    data.insert(QStringLiteral("totalBytes"), total);
            }
            m_hub.publish("workspace.progress", data);
        });
    connect(sessions, &SessionManager::sessionRemoved, this, [this](const QString &id) {
        m_seen.remove(id);
        m_hub.publish("session.removed", QJsonObject {{QStringLiteral("session"), id}});
    });
}

void EngineEvents::sessionAdded(Session *session)
{
    QJsonObject o = sessionJson(*session);
    m_hub.publish("session.added", o);
    Seen seen;
    seen.progress = o.take(QStringLiteral("progress")).toObject();
    seen.body = o;
    seen.saveAt = o.value(QStringLiteral("lastSave")).toObject().value(QStringLiteral("at")).toString();
    seen.syncAt = o.value(QStringLiteral("lastSync")).toObject().value(QStringLiteral("at")).toString();
    m_seen.insert(session->id(), seen);
}

void EngineEvents::sessionChanged(Session *session)
{
    auto it = m_seen.find(session->id());
    if (it == m_seen.end()) {
        sessionAdded(session);
        return;
    }
    Seen &seen = it.value();
    const QJsonObject full = sessionJson(*session);
    QJsonObject body = full;
    QJsonObject progress = body.take(QStringLiteral("progress")).toObject();
    // Listing changes (a snapshot counts them) is no progress anyone waits for.
    if (progress.value(QStringLiteral("operation")).toString() == QLatin1String("changes"))
        progress = {};

    // In the order a client wants them: how far it got, how it ended, what the session is now.
    if (progress != seen.progress) {
        const bool samePhase = !progress.isEmpty()
            && progress.value(QStringLiteral("operation")) == seen.progress.value(QStringLiteral("operation"))
            && progress.value(QStringLiteral("phase")) == seen.progress.value(QStringLiteral("phase"));
        const bool whole = progress.contains(QStringLiteral("totalBytes"))
            && progress.value(QStringLiteral("bytes")).toInteger() == progress.value(QStringLiteral("totalBytes")).toInteger();
        if (!samePhase || whole || m_clock.elapsed() - seen.progressAt >= kProgressIntervalMs) {
            QJsonObject data = progressJson(*session, progress);
            if (progress.isEmpty())
                data.insert(QStringLiteral("operation"), QJsonValue()); // idle again
            m_hub.publish("session.progress", data);
            seen.progress = progress;
            seen.progressAt = m_clock.elapsed();
        }
    }
    const QJsonObject lastSave = body.value(QStringLiteral("lastSave")).toObject();
    if (const QString at = lastSave.value(QStringLiteral("at")).toString(); !at.isEmpty() && at != seen.saveAt) {
        seen.saveAt = at;
        m_hub.publish("save", outcomeJson(*session, lastSave));
    }
    const QJsonObject lastSync = body.value(QStringLiteral("lastSync")).toObject();
    if (const QString at = lastSync.value(QStringLiteral("at")).toString(); !at.isEmpty() && at != seen.syncAt) {
        seen.syncAt = at;
        m_hub.publish("sync", outcomeJson(*session, lastSync));
    }
    if (body != seen.body) {
        seen.body = body;
        m_hub.publish("session.changed", full);
    }
}

void EngineEvents::activityRecorded(const ActivityEntry &entry)
{
    m_hub.publish("activity", ActivityLog::toJson(entry));
}

QJsonArray EngineEvents::activityJson(int last) const
{
    QJsonArray a;
    const auto &entries = m_engine->activity().entries();
    const size_t from = entries.size() > size_t(last) ? entries.size() - size_t(last) : 0;
    for (size_t i = from; i < entries.size(); ++i)
        a.append(ActivityLog::toJson(entries[i]));
    return a;
}

QJsonArray EngineEvents::conflictsOf(const QJsonObject &session)
{
    // The newer of the last save and the last sync decides: a save after `sync --resolve`
    // completes the merge, a sync after a refused save may have resolved nothing yet.
    const QJsonObject save = session.value(QStringLiteral("lastSave")).toObject();
    const QJsonObject sync = session.value(QStringLiteral("lastSync")).toObject();
    const QString saveAt = save.value(QStringLiteral("at")).toString();
    const QString syncAt = sync.value(QStringLiteral("at")).toString();
    const QJsonObject &latest = syncAt > saveAt ? sync : save; // ISO 8601 UTC strings sort by time
    const QString outcome = latest.value(QStringLiteral("outcome")).toString();
    QJsonArray files;
    if (outcome == QLatin1String("conflicted") || outcome == QLatin1String("conflicts_left"))
        files = latest.value(QStringLiteral("conflicts")).toArray();
    else if (outcome == QLatin1String("conflict"))
        files = latest.value(QStringLiteral("error")).toObject().value(QStringLiteral("conflicts")).toArray();
    QJsonArray paths;
    for (const QJsonValue v : files)
        paths.append(v.toObject().value(QStringLiteral("path")));
    return paths;
}

void EngineEvents::snapshot(std::function<void(QJsonObject)> done)
{
    struct Pending
    {
        int left = 0;
        bool sent = false;
        QHash<QString, QJsonObject> changes;
    };
    auto pending = std::make_shared<Pending>();
    QPointer<EngineEvents> self(this);
    auto finish = [self, pending, done] {
        if (pending->sent)
            return;
        pending->sent = true;
        if (!self) {
            done(QJsonObject {});
            return;
        }
        // From here on nothing waits: the state below and lastEventId are read at one instant.
        QJsonArray sessions;
        SessionManager *m = self->m_engine->sessions();
        for (Session *s : m ? m->sessions() : QList<Session *>()) {
            QJsonObject o = sessionJson(*s);
            o.insert(QStringLiteral("pendingChanges"), pending->changes.value(s->id()).isEmpty()
                    ? QJsonValue() : QJsonValue(pending->changes.value(s->id())));
            sessions.append(o);
        }
        done(QJsonObject {{QStringLiteral("lastEventId"), self->m_hub.lastId()},
            {QStringLiteral("status"), self->m_engine->status()},
            {QStringLiteral("pairing"), self->m_engine->pairingStatus()},
            {QStringLiteral("runtime"), self->m_engine->runtimeStatus()}, {QStringLiteral("sessions"), sessions},
            {QStringLiteral("cache"), m ? QJsonValue(SessionRoutes::cacheStatus(*m)) : QJsonValue()},
            {QStringLiteral("activity"), self->activityJson(kActivityInSnapshot)}});
    };
    SessionManager *m = m_engine->sessions();
    QList<Session *> idle;
    for (Session *s : m ? m->sessions() : QList<Session *>()) {
        if (s->state() == SessionState::Ready && s->queued() == 0 && s->progress().operation.isEmpty())
            idle.append(s);
    }
    if (idle.isEmpty()) {
        finish();
        return;
    }
    pending->left = int(idle.size());
    for (Session *s : std::as_const(idle)) {
        s->changes(false, [pending, finish, id = s->id()](Result<ChangesReport, SessionError> r) {
            if (r) {
                const WorkspaceChanges &c = r.value().changes;
                int conflicted = 0;
                for (const FileChange &f : c.files)
                    conflicted += f.status == FileStatus::Conflicted ? 1 : 0;
                pending->changes.insert(id,
                    QJsonObject {{QStringLiteral("files"), int(c.files.size())},
                        {QStringLiteral("conflicted"), conflicted}, {QStringLiteral("ahead"), c.ahead},
                        {QStringLiteral("behind"), c.behind},
                        {QStringLiteral("mergeInProgress"), c.mergeInProgress}});
            }
            if (--pending->left == 0)
                finish();
        });
    }
    QTimer::singleShot(kSnapshotChangesMs, this, finish);
}

} // namespace isolation
