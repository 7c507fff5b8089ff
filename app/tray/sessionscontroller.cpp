#include "sessionscontroller.h"

#include "sandbox/sessionsandboxes.h"

#include "engine.h"
#include "sessions/session.h"
#include "sessions/sessionmanager.h"

#include <QFile>
#include <QFutureWatcher>
#include <QJsonArray>
#include <QJsonObject>
#include <QtConcurrent>

namespace isolation {

namespace {
// Conflict regions left in a file: lines opening a marker block.
int markerRegions(const QString &file)
{
    QFile f(file);
    if (!f.open(QIODevice::ReadOnly))
        return 0;
    int regions = 0;
    while (!f.atEnd()) {
        if (f.readLine().startsWith("<<<<<<< "))
            ++regions;
    }
    return regions;
}
} // namespace

SessionsController::SessionsController(Engine &engine, QObject *parent)
    : QObject(parent)
    , m_engine(engine)
{
    m_watcher = new QFileSystemWatcher(this);
    connect(m_watcher, &QFileSystemWatcher::fileChanged, this, [this](const QString &file) {
        for (const SessionSnapshot &s : std::as_const(m_snapshots)) {
            if (s.resolveMode && file.startsWith(s.workTree + QLatin1Char('/'))) {
                scanMarkers(s.id);
                return;
            }
        }
    });
    connect(&m_engine, &Engine::stateChanged, this, &SessionsController::bind);
    bind();
}

SessionsController::~SessionsController() = default;

void SessionsController::bind()
{
    SessionManager *manager = m_engine.sessions();
    if (manager == m_manager)
        return;
    if (m_manager)
        disconnect(m_manager, nullptr, this, nullptr);
    m_manager = manager;
    m_order.clear();
    m_snapshots.clear();
    if (m_manager) {
        connect(m_manager, &SessionManager::sessionAdded, this, [this](Session *s) {
            track(s);
            Q_EMIT sessionsChanged();
        });
        connect(m_manager, &SessionManager::sessionChanged, this, &SessionsController::update);
        connect(m_manager, &SessionManager::sessionRemoved, this, [this](const QString &id) {
            m_order.removeAll(id);
            if (const SessionSnapshot *snap = snapshotOf(id)) {
                const QString root = snap->workTree + QLatin1Char('/');
                for (const QString &file : m_watcher->files()) {
                    if (file.startsWith(root))
                        m_watcher->removePath(file);
                }
            }
            m_snapshots.remove(id);
            Q_EMIT sessionsChanged();
            Q_EMIT badgeChanged();
        });
        for (Session *s : m_manager->sessions())
            track(s);
    }
    Q_EMIT sessionsChanged();
    Q_EMIT badgeChanged();
}

bool SessionsController::paired() const
{
    return m_manager && m_manager->paired();
}

void SessionsController::track(Session *session)
{
    if (!m_order.contains(session->id()))
        m_order << session->id();
    const bool known = m_snapshots.contains(session->id());
    SessionSnapshot &snap = m_snapshots[session->id()];
    if (!known) {
        // What happened before the tray looked is no news.
        snap.seenSave = session->record().lastSave;
        snap.seenSync = session->record().lastSync;
    }
    snap.id = session->id();
    snap.workspaceName = session->workspaceName();
    snap.workTree = session->workTree();
    const QJsonObject last = session->record().lastSave;
    if (last.value(QStringLiteral("published")).toBool())
        snap.lastSave = QDateTime::fromString(last.value(QStringLiteral("at")).toString(), Qt::ISODate).toLocalTime();
    update(session);
    refresh(session->id());
}

void SessionsController::update(Session *session)
{
    SessionSnapshot *snap = snapshotOf(session->id());
    if (!snap)
        return;
    const bool wasReady = snap->state == SessionState::Ready;
    snap->state = session->state();
    snap->reason = session->reason();
    snap->sandboxState = session->record().sandbox.value(QStringLiteral("state")).toString();
    snap->progress = session->progress();
    // Operations the command line (or anything else) started end up here too.
    takeOutcomes(session);
    Q_EMIT sessionUpdated(snap->id);
    // A session that just opened has its changes to show.
    if (!wasReady && snap->state == SessionState::Ready && !snap->changesKnown)
        refresh(snap->id);
    Q_EMIT badgeChanged();
}

SessionSnapshot *SessionsController::snapshotOf(const QString &id)
{
    auto it = m_snapshots.find(id);
    return it == m_snapshots.end() ? nullptr : &*it;
}

const SessionSnapshot *SessionsController::snapshot(const QString &id) const
{
    auto it = m_snapshots.constFind(id);
    return it == m_snapshots.constEnd() ? nullptr : &*it;
}

Session *SessionsController::sessionOf(const QString &id) const
{
    return m_manager ? m_manager->session(id) : nullptr;
}

bool SessionsController::anyConflict() const
{
    for (const SessionSnapshot &s : m_snapshots) {
        if (!s.conflicts.isEmpty())
            return true;
    }
    return false;
}

bool SessionsController::anyMovedOn() const
{
    for (const SessionSnapshot &s : m_snapshots) {
        if (s.movedOn)
            return true;
    }
    return false;
}

bool SessionsController::anyWorking() const
{
    for (const SessionSnapshot &s : m_snapshots) {
        if (s.state == SessionState::Saving || s.state == SessionState::Syncing)
            return true;
    }
    return false;
}

int SessionsController::resolvedCount(const QString &id) const
{
    const SessionSnapshot *s = snapshot(id);
    if (!s || !s->resolveMode)
        return 0;
    int resolved = 0;
    for (const ConflictedFile &f : s->conflicts)
        resolved += s->regionsLeft.value(f.path, f.regions) == 0;
    return resolved;
}

void SessionsController::setError(const QString &id, const QString &operation, const SessionError &error)
{
    if (SessionSnapshot *snap = snapshotOf(id))
        snap->lastError = error.message;
    Q_EMIT failed(id, operation, error.message);
    Q_EMIT sessionUpdated(id);
}

void SessionsController::clearConflicts(SessionSnapshot &snap)
{
    snap.conflicts.clear();
    snap.resolveMode = false;
    snap.regionsLeft.clear();
}

void SessionsController::createSession(const QString &workspace)
{
    if (!m_manager) {
        Q_EMIT createFailed(tr("The engine is not running"));
        return;
    }
    QPointer<SessionsController> self(this);
    m_manager->create(workspace, [self](Result<Session *, SessionError> r) {
        if (!self)
            return;
        if (!r) {
            Q_EMIT self->createFailed(r.error().message);
            return;
        }
        self->track(r.value());
        Q_EMIT self->sessionsChanged();
        Q_EMIT self->created(r.value()->id());
    });
}

void SessionsController::refresh(const QString &id, bool askHub)
{
    Session *session = sessionOf(id);
    if (!session || session->state() == SessionState::Opening || session->state() == SessionState::Failed)
        return;
    QPointer<SessionsController> self(this);
    session->changes(askHub && paired(), [self, id](Result<ChangesReport, SessionError> r) {
        if (!self)
            return;
        SessionSnapshot *snap = self->snapshotOf(id);
        if (!snap)
            return;
        if (!r) {
            self->setError(id, QStringLiteral("changes"), r.error());
            return;
        }
        snap->changes = r.value().changes;
        snap->changesKnown = true;
        // A merge no longer in progress means the markers were saved away.
        if (snap->resolveMode && !snap->changes.mergeInProgress) {
            clearConflicts(*snap);
        }
        Q_EMIT self->sessionUpdated(id);
        Q_EMIT self->badgeChanged();
        if (snap->resolveMode)
            self->scanMarkers(id);
    });
}

void SessionsController::scanMarkers(const QString &id)
{
    const SessionSnapshot *snap = snapshot(id);
    if (!snap)
        return;
    QStringList files;
    for (const ConflictedFile &f : snap->conflicts)
        files << snap->workTree + QLatin1Char('/') + f.path;
    QStringList paths;
    for (const ConflictedFile &f : snap->conflicts)
        paths << f.path;
    // Reading files is disk work: not on the GUI thread.
    auto *watcher = new QFutureWatcher<QList<int>>(this);
    connect(watcher, &QFutureWatcher<QList<int>>::finished, this, [this, watcher, id, paths] {
        watcher->deleteLater();
        SessionSnapshot *s = snapshotOf(id);
        if (!s)
            return;
        const QList<int> regions = watcher->result();
        for (int i = 0; i < paths.size() && i < regions.size(); ++i) {
            s->regionsLeft.insert(paths.at(i), regions.at(i));
            // Editors often write a new file and rename it over the old: watch the path again.
            const QString file = s->workTree + QLatin1Char('/') + paths.at(i);
            if (!m_watcher->files().contains(file))
                m_watcher->addPath(file);
        }
        Q_EMIT sessionUpdated(id);
        Q_EMIT badgeChanged();
    });
    watcher->setFuture(QtConcurrent::run([files] {
        QList<int> regions;
        for (const QString &f : files)
            regions << markerRegions(f);
        return regions;
    }));
}

void SessionsController::save(const QString &id, const QStringList &files, const QString &message)
{
    Session *session = sessionOf(id);
    if (!session)
        return;
    QPointer<SessionsController> self(this);
    session->save(files, message, [self, id](Result<SaveReport, SessionError> r) {
        if (!self)
            return;
        // The badge and notifications follow the session's record (takeOutcomes); this callback
        // adds what only the GUI that asked wants: the report, or the error of this click.
        if (Session *s = self->sessionOf(id))
            self->takeOutcomes(s);
        if (!self->snapshotOf(id))
            return;
        if (!r) {
            if (r.error().code != SessionError::Code::MovedOn)
                self->setError(id, QStringLiteral("save"), r.error());
            return;
        }
        Q_EMIT self->saved(id, r.value());
    });
}

void SessionsController::sync(const QString &id, bool resolve)
{
    Session *session = sessionOf(id);
    if (!session)
        return;
    QPointer<SessionsController> self(this);
    session->sync(resolve ? ConflictMode::Resolve : ConflictMode::Stop, [self, id](Result<SyncReport, SessionError> r) {
        if (!self)
            return;
        if (Session *s = self->sessionOf(id))
            self->takeOutcomes(s);
        if (!self->snapshotOf(id))
            return;
        if (!r) {
            if (r.error().code != SessionError::Code::Conflict || r.error().conflicts.isEmpty())
                self->setError(id, QStringLiteral("sync"), r.error());
            return;
        }
        Q_EMIT self->synced(id, r.value());
    });
}

void SessionsController::suspend(const QString &id)
{
    SessionSandboxes *sandboxes = m_engine.sandboxes();
    if (!sandboxes)
        return;
    QPointer<SessionsController> self(this);
    sandboxes->suspend(id, [self, id](Result<QJsonObject> r) {
        if (self && !r)
            Q_EMIT self->failed(id, QStringLiteral("suspend"), r.error().message);
    });
}

void SessionsController::resume(const QString &id)
{
    SessionSandboxes *sandboxes = m_engine.sandboxes();
    if (!sandboxes)
        return;
    QPointer<SessionsController> self(this);
    sandboxes->resume(id, [self, id](Result<QJsonObject> r) {
        if (self && !r)
            Q_EMIT self->failed(id, QStringLiteral("resume"), r.error().message);
    });
}

void SessionsController::finish(const QString &id, bool discard, std::function<void(Result<void>)> done)
{
    SessionSandboxes *sandboxes = m_engine.sandboxes();
    if (!sandboxes) {
        done(Error::unavailable(tr("The engine is not running")));
        return;
    }
    sandboxes->finish(id, discard, [done](Result<QJsonObject> r) {
        done(r ? Result<void>() : Result<void>(r.error()));
    });
}

void SessionsController::takeOutcomes(Session *session)
{
    SessionSnapshot *snap = snapshotOf(session->id());
    if (!snap)
        return;
    const SessionRecord &record = session->record();
    const bool newSave = record.lastSave != snap->seenSave;
    const bool newSync = record.lastSync != snap->seenSync;
    if (!newSave && !newSync)
        return;
    snap->seenSave = record.lastSave;
    snap->seenSync = record.lastSync;
    const QString saveAt = record.lastSave.value(QStringLiteral("at")).toString();
    const QString syncAt = record.lastSync.value(QStringLiteral("at")).toString();
    // Both new only when several operations ended between two looks: the older one first.
    if (newSave && newSync && syncAt < saveAt) {
        takeSync(*snap, record.lastSync);
        takeSave(*snap, record.lastSave);
    } else {
        if (newSave)
            takeSave(*snap, record.lastSave);
        if (newSync)
            takeSync(*snap, record.lastSync);
    }
    Q_EMIT sessionUpdated(snap->id);
    Q_EMIT badgeChanged();
    refresh(snap->id);
}

void SessionsController::takeSave(SessionSnapshot &snap, const QJsonObject &save)
{
    const QString outcome = save.value(QStringLiteral("outcome")).toString();
    const QString error = save.value(QStringLiteral("error")).toObject().value(QStringLiteral("message")).toString();
    if (outcome == QLatin1String("moved_on")) {
        const bool first = !snap.movedOn;
        snap.movedOn = true;
        snap.lastError = error;
        if (first) // the same event never notifies twice
            Q_EMIT movedOn(snap.id, snap.workspaceName);
    } else if (outcome == QLatin1String("published") || outcome == QLatin1String("nothing_to_save")) {
        snap.lastError.clear();
        snap.movedOn = false;
        if (save.value(QStringLiteral("published")).toBool())
            snap.lastSave
                = QDateTime::fromString(save.value(QStringLiteral("at")).toString(), Qt::ISODate).toLocalTime();
        if (save.value(QStringLiteral("completedMerge")).toBool())
            clearConflicts(snap);
    } else {
        snap.lastError = error;
    }
}

void SessionsController::takeSync(SessionSnapshot &snap, const QJsonObject &sync)
{
    const QString outcome = sync.value(QStringLiteral("outcome")).toString();
    const QJsonObject error = sync.value(QStringLiteral("error")).toObject();
    const bool hadConflicts = !snap.conflicts.isEmpty();
    QList<ConflictedFile> conflicts;
    const QJsonArray list
        = (outcome == QLatin1String("conflict") ? error : sync).value(QStringLiteral("conflicts")).toArray();
    for (const QJsonValue &v : list)
        conflicts.append(ConflictedFile {v.toObject().value(QStringLiteral("path")).toString(),
            v.toObject().value(QStringLiteral("regions")).toInt()});
    if (outcome == QLatin1String("conflict") && !conflicts.isEmpty()) {
        // The default mode stopped: nothing changed in the worktree.
        snap.conflicts = conflicts;
        snap.resolveMode = false;
        snap.lastError = error.value(QStringLiteral("message")).toString();
    } else if (!error.isEmpty()) {
        snap.lastError = error.value(QStringLiteral("message")).toString();
        return;
    } else {
        snap.lastError.clear();
        snap.movedOn = false;
        if (outcome == QLatin1String("conflicts_left")) {
            snap.conflicts = conflicts;
            snap.resolveMode = true;
            snap.regionsLeft.clear();
        } else {
            clearConflicts(snap);
        }
    }
    if (!hadConflicts && !snap.conflicts.isEmpty())
        Q_EMIT conflicted(snap.id, snap.workspaceName, snap.conflicts);
}

void SessionsController::diff(
    const QString &id, const QString &path, std::function<void(Result<FileDiff, SessionError>)> done)
{
    Session *session = sessionOf(id);
    if (!session) {
        done(SessionError::notFound(tr("No such session")));
        return;
    }
    session->diff(path, std::move(done));
}

} // namespace isolation
