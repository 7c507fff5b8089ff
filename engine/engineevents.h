// What the engine tells LocalAPI clients without being asked: its signals (state, pairing,
// runtime, sessions, activity) turned into numbered events (GET /v1/events), and the one answer
// that goes with them, GET /v1/snapshot: everything the tray shows plus the id of the last event
// it already reflects, so snapshot + stream from that id lose nothing.
#pragma once

#include "localapi/eventhub.h"
#include "localapi/eventstream.h"

#include <QElapsedTimer>
#include <QHash>
#include <QJsonObject>
#include <QObject>

#include <functional>

namespace isolation {

class Engine;
class HttpServer;
class Session;
class SessionManager;
struct ActivityEntry;

class EngineEvents final : public QObject
{
    Q_OBJECT
public:
    // Adds GET /v1/events, /v1/snapshot and /v1/activity to `http`, and publishes what `engine`
    // signals from now on. One EngineEvents per engine run: a new one is a new run id.
    EngineEvents(Engine *engine, HttpServer &http, QObject *parent = nullptr);
    ~EngineEvents() override;

    // Publishes session events of `sessions` (created after the routes, before the loop runs).
    void watch(SessionManager *sessions);
    EventHub &hub() { return m_hub; }

    // The snapshot: the pending changes are counted for sessions that are idle (on their workers,
    // up to about two seconds), then the rest is read at one instant with the last event id.
    void snapshot(std::function<void(QJsonObject)> done);
    QJsonArray activityJson(int last) const;

    // Conflicted paths as a session's record keeps them (the last sync or save): the badge comes
    // from state that survives restarts, not from an event a client may have missed.
    static QJsonArray conflictsOf(const QJsonObject &session);

private:
    struct Seen
    {
        QJsonObject body; // the session's JSON without its progress, as last published
        QJsonObject progress;
        qint64 progressAt = -1; // m_clock ms of the last progress event
        QString saveAt, syncAt; // lastSave.at and lastSync.at as last published
    };
    void publishOnce(const QByteArray &kind, const QJsonObject &data);
    void sessionAdded(Session *session);
    void sessionChanged(Session *session);
    void activityRecorded(const ActivityEntry &entry);

    Engine *m_engine;
    EventHub m_hub;
    EventStream m_stream;
    QHash<QByteArray, QJsonObject> m_last; // per kind (state, pairing, runtime): no repeats
    QHash<QString, Seen> m_seen;
    QElapsedTimer m_clock;
};

} // namespace isolation
