#include "sessionmanager.h"

#include "core/threadpriority.h"
#include "crypto/random.h"
#include "pairing/serveridentity.h"
#include "store/workspacestore.h"

#include <QDir>
#include <QFileInfo>
#include <QRegularExpression>

namespace isolation {

SessionManager::SessionManager(Options options, QNetworkAccessManager *network, QObject *parent)
    : QObject(parent)
    , m_options(std::move(options))
    , m_network(network)
    , m_cache(std::make_unique<WarmCache>(m_options.cacheDir, m_options.cacheMaxBytes))
    , m_exportWorker(std::make_unique<Worker>())
{
    if (m_options.spares) {
        m_spares = std::make_unique<SparePool>(m_options.dataDir + QStringLiteral("/spares"));
        m_spareWorker = std::make_unique<Worker>();
        m_spareTimer = new QTimer(this);
        m_spareTimer->setSingleShot(true);
        m_spareTimer->setInterval(kSpareDelayMs);
        connect(m_spareTimer, &QTimer::timeout, this, &SessionManager::prepareSpares);
        SparePool *spares = m_spares.get();
        m_cache->setOnRemoved([spares](const QString &workspaceId) { spares->remove(workspaceId); });
    }
}

SessionManager::~SessionManager()
{
    clearIdentity();
    // Sessions use the cache and their stores the client: they go first, each joining its worker.
    const QList<Session *> sessions = std::exchange(m_sessions, {});
    qDeleteAll(sessions);
    m_spareWorker.reset();
    m_exportWorker.reset();
}

void SessionManager::scheduleSpare(const QString &workspaceId)
{
    if (!m_spares)
        return;
    m_sparesWanted.insert(workspaceId);
    if (!m_spareRunning)
        m_spareTimer->start();
}

void SessionManager::prepareSpares()
{
    if (m_sparesWanted.isEmpty() || m_spareRunning)
        return;
    const QString workspaceId = *m_sparesWanted.cbegin();
    m_sparesWanted.remove(workspaceId);
    m_spareRunning = true;
    WarmCache *cache = m_cache.get();
    SparePool *spares = m_spares.get();
    // Built as background work (CPU and disk): a member's own save, sync or start goes first.
    m_spareWorker->run<Result<bool, WorkspaceError>>(
        [cache, spares, workspaceId]() -> Result<bool, WorkspaceError> {
            static thread_local const bool background = [] {
                if (!makeThisThreadBackground())
                    qCInfo(lcSessions) << "spare sessions are built at normal priority (lowering it was refused)";
                return true;
            }();
            Q_UNUSED(background);
            static const SystemClock clock;
            return spares->prepare(*cache, workspaceId, clock);
        },
        this,
        [this, workspaceId](Result<bool, WorkspaceError> r) {
            m_spareRunning = false;
            if (!r)
                qCWarning(lcSessions) << "no spare session for" << workspaceId << ":" << r.error().message;
            if (auto spare = m_spares->spare(workspaceId))
                m_spareGeneration.insert(workspaceId, spare->generation);
            if (!m_sparesWanted.isEmpty())
                m_spareTimer->start();
        });
}

QString SessionManager::sessionsDir() const
{
    return m_options.dataDir + QStringLiteral("/sessions");
}

Session *SessionManager::session(const QString &id) const
{
    for (Session *s : m_sessions) {
        if (s->id() == id)
            return s;
    }
    return nullptr;
}

std::unique_ptr<WorkspaceStore> SessionManager::makeStore(const QString &workspaceId, const QString &sessionId)
{
    return std::make_unique<WorkspaceStore>(m_client.get(), workspaceId, sessionId, m_memberKey.view(),
        m_options.dataDir + QStringLiteral("/store"), m_cache->tempDir());
}

Session *SessionManager::adopt(SessionRecord record, const QString &dir)
{
    auto *s = new Session(std::move(record), dir, m_cache.get(), this);
    connect(s, &Session::changed, this, [this, s] {
        // A save or sync took the cache to a newer generation: the spare follows, once things settle.
        if (s->state() == SessionState::Ready && s->record().generation > m_spareGeneration.value(s->workspaceId(), -1))
            scheduleSpare(s->workspaceId());
        Q_EMIT sessionChanged(s);
    });
    m_sessions.append(s);
    if (m_client)
        s->setStore(makeStore(s->workspaceId(), s->id()));
    Q_EMIT sessionAdded(s);
    return s;
}

void SessionManager::load()
{
    const QDir dir(sessionsDir());
    for (const QString &id : dir.entryList(QDir::Dirs | QDir::NoDotAndDotDot, QDir::Name)) {
        if (session(id))
            continue;
        const QString path = dir.filePath(id);
        if (!QFileInfo::exists(path + QStringLiteral("/session.json"))
            && QFileInfo::exists(path + QLatin1Char('/') + QLatin1String(SparePool::kMarker))) {
            // A spare taken for a session whose record was never written (a kill in between).
            qCInfo(lcSessions) << "removing" << path << ": a spare session no session took";
            QDir(path).removeRecursively();
            continue;
        }
        auto record = SessionRecord::load(path + QStringLiteral("/session.json"));
        if (!record) {
            // A sandbox's directory without a session, or a session whose creation never finished.
            qCInfo(lcSessions) << "not a session:" << path << "(" << record.error().message << ")";
            continue;
        }
        if (record.value().id != id) {
            qCWarning(lcSessions) << path << "records session" << record.value().id << "; skipped";
            continue;
        }
        Session *s = adopt(std::move(record).value(), path);
        s->open(false, [s](Result<void, SessionError> r) {
            if (!r)
                qCWarning(lcSessions) << "session" << s->id() << "cannot be opened:" << r.error().message;
        });
        s->resumeInterrupted();
    }
    qCInfo(lcSessions) << m_sessions.size() << "session(s) loaded";
}

void SessionManager::setIdentity(const ServerIdentity &identity)
{
    clearIdentity();
    m_client = std::make_unique<StoreClient>(m_network, identity.hubUrl, identity);
    m_memberKey = identity.memberKey;
    for (Session *s : std::as_const(m_sessions)) {
        s->setStore(makeStore(s->workspaceId(), s->id()));
        s->resumeInterrupted();
    }
}

void SessionManager::clearIdentity()
{
    for (const QPointer<WorkspaceExport> &e : std::exchange(m_exports, {})) {
        if (e) {
            e->abort(SessionError::notPaired(tr("This computer is no longer paired")));
            delete e.data(); // its store refers to the client, which goes now
        }
    }
    for (Session *s : std::as_const(m_sessions))
        s->setStore(nullptr);
    m_client.reset();
    m_memberKey = SecureBytes();
}

void SessionManager::listWorkspaces(Done<QList<StoreClient::Workspace>> done)
{
    if (!m_client) {
        done(SessionError::notPaired(tr("This computer is not paired: pair it to see its member's workspaces")));
        return;
    }
    m_client->listWorkspaces([done](StoreResult<QList<StoreClient::Workspace>> r) {
        if (!r)
            done(SessionError::from(r.error()));
        else
            done(r.value());
    });
}

void SessionManager::resolve(const QString &workspace, Done<StoreClient::Workspace> done)
{
    listWorkspaces([workspace, done](Result<QList<StoreClient::Workspace>, SessionError> r) {
        if (!r) {
            done(r.error());
            return;
        }
        QList<StoreClient::Workspace> named;
        for (const StoreClient::Workspace &w : r.value()) {
            if (w.id == workspace) {
                done(w);
                return;
            }
            if (w.name == workspace)
                named.append(w);
        }
        if (named.size() == 1)
            done(named.first());
        else if (named.isEmpty())
            done(SessionError::notFound(tr("No workspace named %1").arg(workspace)));
        else
            done(SessionError::failed(
                tr("%n workspaces are named %1: give the id", nullptr, int(named.size())).arg(workspace)));
    });
}

void SessionManager::create(const QString &workspace, Done<Session *> done, const QString &id)
{
    static const QRegularExpression idFormat(QStringLiteral("^s[0-9a-f]{12}$"));
    if (!id.isEmpty() && (!idFormat.match(id).hasMatch() || session(id) || QFileInfo::exists(sessionsDir() + QLatin1Char('/') + id))) {
        done(SessionError::invalid(tr("%1 cannot name a new session (s and 12 hex digits, not used yet)").arg(id)));
        return;
    }
    QPointer<SessionManager> self(this);
    resolve(workspace, [self, done, id](Result<StoreClient::Workspace, SessionError> w) {
        if (!self)
            return;
        if (!w) {
            done(w.error());
            return;
        }
        SessionRecord record;
        record.id = id.isEmpty() ? QStringLiteral("s") + QString::fromLatin1(randomBytes(6).toHex()) : id;
        record.workspaceId = w.value().id;
        record.workspaceName = w.value().name;
        record.created = QDateTime::currentDateTimeUtc();
        record.state = sessionStateName(SessionState::Opening);
        const QString dir = self->sessionsDir() + QLatin1Char('/') + record.id;
        // The spare session, when one is ready, becomes this session's directory by one rename.
        const bool spare = self->m_spares && self->m_spares->take(record.workspaceId, dir);
        if (spare)
            self->m_spareGeneration.remove(record.workspaceId);
        if (!QDir().mkpath(dir)
            || !QFile::setPermissions(dir, QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner)) {
            done(SessionError::failed(tr("cannot create %1").arg(dir)));
            return;
        }
        if (auto saved = record.save(dir + QStringLiteral("/session.json")); !saved) {
            QDir(dir).removeRecursively();
            done(SessionError::failed(saved.error().message));
            return;
        }
        Session *s = self->adopt(record, dir);
        qCInfo(lcSessions) << "session" << s->id() << "created on workspace" << s->workspaceId();
        s->open(true, [self, s, dir, done](Result<void, SessionError> opened) {
            if (opened) {
                if (self)
                    self->scheduleSpare(s->workspaceId()); // the next session's
                done(s);
                return;
            }
            // Nothing of a session that could not start (or whose start was cancelled) stays
            // behind, at the hub neither, nor in a client's list.
            if (self) {
                self->m_sessions.removeOne(s);
                if (self->m_client)
                    self->m_client->endSession(s->id());
                Q_EMIT self->sessionRemoved(s->id());
            }
            QObject::connect(s, &QObject::destroyed, [dir] { QDir(dir).removeRecursively(); });
            s->deleteLater();
            done(opened.error());
        });
    });
}

void SessionManager::remove(const QString &id, Done<void> done)
{
    Session *s = session(id);
    if (!s) {
        done(SessionError::notFound(tr("No session %1").arg(id)));
        return;
    }
    if (s->state() != SessionState::Ready && s->state() != SessionState::Failed) {
        done(SessionError::unavailable(tr("Session %1 is busy (%2): try again when it is done")
                .arg(id, sessionStateName(s->state()))));
        return;
    }
    m_sessions.removeOne(s);
    const QString dir = s->directory();
    QPointer<SessionManager> self(this);
    s->close([self, s, id, dir, done] {
        if (self && self->m_client)
            self->m_client->endSession(id); // its workspace bearers stop working
        // The directory goes once the session (and its worker) is gone.
        QObject::connect(s, &QObject::destroyed, [dir] { QDir(dir).removeRecursively(); });
        s->deleteLater();
        qCInfo(lcSessions) << "session" << id << "removed";
        if (self)
            Q_EMIT self->sessionRemoved(id);
        done({});
    });
}

void SessionManager::exportWorkspace(
    WorkspaceExport::Kind kind, const QString &workspace, const QString &path, Done<ExportReport> done)
{
    QPointer<SessionManager> self(this);
    resolve(workspace, [self, kind, path, done](Result<StoreClient::Workspace, SessionError> w) {
        if (!self)
            return;
        if (!w) {
            done(w.error());
            return;
        }
        if (!self->m_client) {
            done(SessionError::notPaired(tr("This computer is not paired")));
            return;
        }
        // The export reads for a session of this computer on the workspace; without one, for a
        // one-off session that ends with the export (docs/protocol.md, "Workspace bearers").
        QString session;
        for (Session *s : std::as_const(self->m_sessions)) {
            if (s->workspaceId() == w.value().id)
                session = s->id();
        }
        const bool oneOff = session.isEmpty();
        if (oneOff)
            session = QStringLiteral("s") + QString::fromLatin1(randomBytes(6).toHex());
        auto *job = new WorkspaceExport(kind, {w.value().id, w.value().name, w.value().createdAt},
            self->makeStore(w.value().id, session), *self->m_exportWorker, *self->m_cache, self);
        self->m_exports.removeAll(nullptr);
        self->m_exports.append(job);
        const QString operation
            = kind == WorkspaceExport::Kind::Bundle ? QStringLiteral("bundle") : QStringLiteral("export");
        const StoreClient::Workspace target = w.value();
        connect(job, &WorkspaceExport::progress, self,
            [self, target, operation](const QString &phase, qint64 bytes, qint64 total) {
                Q_EMIT self->exportProgress(target.id, target.name, operation, phase, bytes, total);
            });
        job->run(path, [self, oneOff, session, done, target](Result<ExportReport, SessionError> r) {
            if (oneOff && self && self->m_client)
                self->m_client->endSession(session);
            if (self)
                Q_EMIT self->exportProgress(target.id, target.name, {}, {}, 0, -1);
            done(r);
        });
    });
}

int SessionManager::cancelExports(const QString &workspace)
{
    int cancelled = 0;
    for (const QPointer<WorkspaceExport> &e : std::as_const(m_exports)) {
        if (e && (e->target().workspaceId == workspace || e->target().name == workspace) && e->cancel())
            ++cancelled;
    }
    return cancelled;
}

QString SessionManager::cachedWorkspaceId(const QString &workspace) const
{
    const QList<CacheEntry> entries = m_cache->list();
    for (const CacheEntry &e : entries) {
        if (e.workspaceId == workspace)
            return e.workspaceId;
    }
    for (const CacheEntry &e : entries) {
        if (e.name == workspace)
            return e.workspaceId;
    }
    return {};
}

} // namespace isolation
