// sessions: this engine's sessions (DATA/sessions/<id>/), loaded at start and kept across restarts;
// the warm cache; the hub's workspace store while paired (the member key and the server credential
// come from the paired identity); the workspace list and exports. The Engine owns one.
#pragma once

#include "session.h"
#include "sessionerror.h"
#include "sparepool.h"
#include "workspaceexport.h"

#include "cache/warmcache.h"
#include "core/result.h"
#include "crypto/securebytes.h"
#include "store/storeclient.h"

#include <QList>
#include <QObject>
#include <QPointer>
#include <QSet>
#include <QTimer>

#include <functional>
#include <memory>

class QNetworkAccessManager;

namespace isolation {

class ActivityLog;
struct ServerIdentity;

class SessionManager final : public QObject
{
    Q_OBJECT
public:
    template<typename T>
    using Done = std::function<void(Result<T, SessionError>)>;

    // How long after the last save or sync the spare session is rebuilt (they come in bursts).
    static constexpr int kSpareDelayMs = 2000;

    struct Options
    {
        QString dataDir; // sessions in dataDir/sessions, the generation ledger in dataDir/store
        QString cacheDir; // the warm cache in cacheDir/workspaces, files on their way in cacheDir/tmp
        qint64 cacheMaxBytes = WarmCache::kDefaultMaxBytes;
        // A spare session per cached workspace (dataDir/spares, see SparePool): warm starts by rename.
        bool spares = true;
        // Where sessions' events are recorded (the Engine's log; null: nowhere).
        ActivityLog *activity = nullptr;
    };

    SessionManager(Options options, QNetworkAccessManager *network, QObject *parent = nullptr);
    ~SessionManager() override;

    // Opens every session recorded under dataDir/sessions (local work only; no hub needed).
    void load();
    // Paired: the hub's store is reachable with this identity; interrupted saves run again.
    void setIdentity(const ServerIdentity &identity);
    // Unpaired: operations that need the hub fail with NotPaired; the ones running are stopped.
    void clearIdentity();
    bool paired() const { return bool(m_client); }

    QList<Session *> sessions() const { return m_sessions; }
    Session *session(const QString &id) const;

    // The member's workspaces, from the hub.
    void listWorkspaces(Done<QList<StoreClient::Workspace>> done);
    // A new session on `workspace` (its name or id): created, filled from the warm cache and the
    // hub, its files checked out. Answers once it is ready (or could not be made: nothing is left).
    // `id`, when given, names the session (the cloud's choice: launch secrets are sealed for it);
    // it must be a valid, unused session id.
    void create(const QString &workspace, Done<Session *> done, const QString &id = {});
    // Deletes a session: what it runs stopped, its repository closed, its directory removed. The
    // caller decided its work may go (saved, or discarded on purpose).
    void remove(const QString &id, Done<void> done);
    // `workspace` (name or id) written to `path`: one full git bundle, or main's tree as .tar.gz.
    void exportWorkspace(
        WorkspaceExport::Kind kind, const QString &workspace, const QString &path, Done<ExportReport> done);
    // Cancels the exports of `workspace` (name or id) under way (WorkspaceExport::cancel); how many
    // were (one putting its file in place is not).
    int cancelExports(const QString &workspace);

    WarmCache &cache() { return *m_cache; }
    ActivityLog *activity() const { return m_options.activity; }
    // Spare sessions (null when switched off). Evicting a workspace from the cache removes its spare.
    SparePool *spares() { return m_spares.get(); }
    // Resolves a cached workspace by id or name (as the cache recorded it); empty when unknown.
    QString cachedWorkspaceId(const QString &workspace) const;

Q_SIGNALS:
    void sessionAdded(isolation::Session *session);
    void sessionChanged(isolation::Session *session);
    void sessionRemoved(const QString &id);
    // An export of a workspace moved on (`operation` "bundle" or "export"), or ended (`operation`
    // empty).
    void exportProgress(const QString &workspaceId, const QString &name, const QString &operation, const QString &phase,
        qint64 bytes, qint64 total);

private:
    void resolve(const QString &workspace, Done<StoreClient::Workspace> done);
    // The store of `workspaceId` for session `sessionId` (its bearers are asked in that session's name).
    std::unique_ptr<WorkspaceStore> makeStore(const QString &workspaceId, const QString &sessionId);
    Session *adopt(SessionRecord record, const QString &dir);
    QString sessionsDir() const;
    // Builds the spare of `workspaceId` in the background a moment from now (saves and syncs come in bursts).
    void scheduleSpare(const QString &workspaceId);
    void prepareSpares();

    Options m_options;
    QNetworkAccessManager *m_network;
    std::unique_ptr<WarmCache> m_cache;
    std::unique_ptr<SparePool> m_spares;
    std::unique_ptr<Worker> m_spareWorker; // after m_cache and m_spares: joined before they go
    QSet<QString> m_sparesWanted; // workspaces whose spare is to be (re)built
    QHash<QString, qint64> m_spareGeneration; // per workspace: the generation its spare was last built at
    QTimer *m_spareTimer = nullptr;
    bool m_spareRunning = false;
    std::unique_ptr<Worker> m_exportWorker;
    std::unique_ptr<StoreClient> m_client;
    SecureBytes m_memberKey;
    QList<Session *> m_sessions; // children
    QList<QPointer<WorkspaceExport>> m_exports;
};

} // namespace isolation
