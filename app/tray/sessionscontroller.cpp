#include "sessionscontroller.h"

#include "enginemodel.h"

#include <QFile>
#include <QFutureWatcher>
#include <QJsonArray>
#include <QJsonObject>
#include <QUrl>
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

bool idle(const SessionSnapshot &s)
{
    return s.state == api::SessionState::Ready;
}
} // namespace

SessionsController::SessionsController(EngineModel &engine, QObject *parent)
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
    connect(&m_engine, &EngineModel::sessionsReset, this, &SessionsController::reset);
    connect(&m_engine, &EngineModel::attachedChanged, this, [this](bool attached) {
        if (!attached)
            Q_EMIT badgeChanged();
    });
    connect(&m_engine, &EngineModel::sessionAdded, this, [this](const QString &id) {
        if (const api::Session *s = m_engine.session(id)) {
            track(*s);
            Q_EMIT sessionsChanged();
        }
    });
    connect(&m_engine, &EngineModel::sessionChanged, this, &SessionsController::update);
    connect(&m_engine, &EngineModel::sessionProgress, this, [this](const QString &id) {
        SessionSnapshot *snap = snapshotOf(id);
        const api::Session *s = m_engine.session(id);
        if (!snap || !s)
            return;
        snap->progress = s->progress;
        Q_EMIT sessionUpdated(id);
    });
    connect(&m_engine, &EngineModel::sessionRemoved, this, &SessionsController::forget);
    reset();
}

SessionsController::~SessionsController() = default;

QString SessionsController::sessionPath(const QString &id, const QString &rest)
{
    QString path = QStringLiteral("/v1/sessions/") + QString::fromLatin1(QUrl::toPercentEncoding(id));
    if (!rest.isEmpty())
        path += QLatin1Char('/') + rest;
    return path;
}

void SessionsController::reset()
{
    // The engine's list, read whole (an attachment or a reset): sessions it no longer has go,
    // the others keep what the tray already knew of them (changes, markers, notified outcomes).
    QStringList now;
    for (const api::Session &s : m_engine.sessions())
        now << s.id;
    for (const QString &id : QStringList(m_order)) {
        if (!now.contains(id))
            forget(id);
    }
    for (const api::Session &s : m_engine.sessions())
        track(s);
    Q_EMIT sessionsChanged();
    Q_EMIT badgeChanged();
}

void SessionsController::forget(const QString &id)
{
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
}

bool SessionsController::paired() const
{
    return m_engine.attached() && m_engine.status().paired;
}

void SessionsController::track(const api::Session &session)
{
    if (!m_order.contains(session.id))
        m_order << session.id;
    const bool known = m_snapshots.contains(session.id);
    SessionSnapshot &snap = m_snapshots[session.id];
    if (!known) {
        // What happened before the tray looked is no news, but its state is: conflicts and a
        // save the hub refused show as badges (they come from the record, never from an event).
        snap.id = session.id;
        snap.workspaceName = session.workspaceName;
        if (session.lastSync.at > session.lastSave.at) {
            takeSave(snap, session.lastSave, false);
            takeSync(snap, session.lastSync, false);
        } else {
            takeSync(snap, session.lastSync, false);
            takeSave(snap, session.lastSave, false);
        }
        snap.seenSave = session.lastSave;
        snap.seenSync = session.lastSync;
        if (session.pending) {
            // The snapshot counted the changes; the list itself comes with refresh().
            snap.changes.ahead = session.pending->ahead;
            snap.changes.behind = session.pending->behind;
            snap.changes.mergeInProgress = session.pending->mergeInProgress;
        }
    }
    snap.id = session.id;
    snap.workspaceName = session.workspaceName;
    snap.workTree = session.workTree;
    if (session.lastSave.published)
        snap.lastSave = session.lastSave.at.toLocalTime();
    update(session.id);
    refresh(session.id);
}

void SessionsController::update(const QString &id)
{
    SessionSnapshot *snap = snapshotOf(id);
    const api::Session *session = m_engine.session(id);
    if (!snap || !session)
        return;
    const bool wasReady = snap->state == api::SessionState::Ready;
    snap->state = session->state;
    snap->reason = session->reason;
    snap->sandbox = session->sandbox;
    snap->progress = session->progress;
    // Operations the command line (or anything else) started end up here too.
    takeOutcomes(*session);
    Q_EMIT sessionUpdated(snap->id);
    // A session that just opened (or finished an operation) has its changes to show.
    if (!wasReady && snap->state == api::SessionState::Ready)
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
        if (s.state == api::SessionState::Saving || s.state == api::SessionState::Syncing)
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
    for (const api::ConflictedFile &f : s->conflicts)
        resolved += s->regionsLeft.value(f.path, f.regions) == 0;
    return resolved;
}

void SessionsController::setError(const QString &id, const QString &operation, const QString &message)
{
    if (SessionSnapshot *snap = snapshotOf(id))
        snap->lastError = message;
    Q_EMIT failed(id, operation, message);
    Q_EMIT sessionUpdated(id);
}

void SessionsController::clearConflicts(SessionSnapshot &snap)
{
    snap.conflicts.clear();
    snap.resolveMode = false;
    snap.regionsLeft.clear();
}

QString SessionsController::createSession(const QString &workspace)
{
    if (!m_engine.attached()) {
        Q_EMIT createFailed(tr("The engine is not running"));
        return {};
    }
    const QString id = api::newSessionId(); // the engine refuses one in use
    QPointer<SessionsController> self(this);
    m_engine.client().post(
        QStringLiteral("/v1/sessions"),
        QJsonObject {{QStringLiteral("workspace"), workspace}, {QStringLiteral("session"), id}},
        [self](EngineClient::Answer r) {
            if (!self)
                return;
            if (!r) {
                Q_EMIT self->createFailed(describe(r.error()));
                return;
            }
            const api::Session session = api::sessionFromJson(r.value());
            // The event may come first or after: tracking twice changes nothing.
            self->track(session);
            Q_EMIT self->sessionsChanged();
            Q_EMIT self->created(session.id);
        },
        EngineClient::LongTimeoutMs);
    return id;
}

void SessionsController::refresh(const QString &id, bool askHub)
{
    const SessionSnapshot *s = snapshot(id);
    if (!s || !idle(*s) || !m_engine.attached())
        return;
    QPointer<SessionsController> self(this);
    const QString path = sessionPath(id, QStringLiteral("changes")) + (askHub && paired() ? QStringLiteral("?refresh=1") : QString());
    m_engine.client().get(path, [self, id](EngineClient::Answer r) {
        if (!self)
            return;
        SessionSnapshot *snap = self->snapshotOf(id);
        if (!snap)
            return;
        if (!r) {
            self->setError(id, QStringLiteral("changes"), describe(r.error()));
            return;
        }
        snap->changes = api::changesFromJson(r.value());
        snap->changesKnown = true;
        // A merge no longer in progress means the markers were saved away.
        if (snap->resolveMode && !snap->changes.mergeInProgress)
            clearConflicts(*snap);
        Q_EMIT self->sessionUpdated(id);
        Q_EMIT self->badgeChanged();
        if (snap->resolveMode)
            self->scanMarkers(id);
    }, EngineClient::LongTimeoutMs);
}

void SessionsController::scanMarkers(const QString &id)
{
    SessionSnapshot *snap = snapshotOf(id);
    if (!snap)
        return;
    // Scans overlap (an edit's event while a refresh's scan runs) and end in any order: one that
    // read the file before the edit must not overwrite the figures of one that read it after.
    const quint64 scan = ++snap->markerScans;
    QStringList files;
    for (const api::ConflictedFile &f : snap->conflicts)
        files << snap->workTree + QLatin1Char('/') + f.path;
    QStringList paths;
    for (const api::ConflictedFile &f : snap->conflicts)
        paths << f.path;
    // Reading files is disk work: not on the GUI thread.
    auto *watcher = new QFutureWatcher<QList<int>>(this);
    connect(watcher, &QFutureWatcher<QList<int>>::finished, this, [this, watcher, id, paths, scan] {
        watcher->deleteLater();
        SessionSnapshot *s = snapshotOf(id);
        if (!s || s->markerScans != scan)
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
    if (!snapshot(id))
        return;
    QJsonObject body;
    if (!files.isEmpty())
        body.insert(QStringLiteral("files"), QJsonArray::fromStringList(files));
    if (!message.isEmpty())
        body.insert(QStringLiteral("message"), message);
    QPointer<SessionsController> self(this);
    m_engine.client().post(sessionPath(id, QStringLiteral("save")), body, [self, id](EngineClient::Answer r) {
        // The badge and notifications follow the session's record (its events); this answer adds
        // what only the GUI that asked wants: the report, or the error of this click.
        if (!self || !self->snapshotOf(id))
            return;
        if (!r) {
            if (r.error().errorCode != QLatin1String("moved_on"))
                self->setError(id, QStringLiteral("save"), describe(r.error()));
            return;
        }
        const api::Session parsed = api::sessionFromJson(QJsonObject {{QStringLiteral("lastSave"), r.value()}});
        Q_EMIT self->saved(id, parsed.lastSave);
    }, EngineClient::LongTimeoutMs);
}

void SessionsController::cancel(const QString &id)
{
    if (!snapshot(id))
        return;
    QPointer<SessionsController> self(this);
    m_engine.client().post(sessionPath(id, QStringLiteral("cancel")), {}, [self, id](EngineClient::Answer r) {
        // Taken: the operation's own answer says how it ended (code "cancelled"). Refused as
        // not_cancellable: it reached its last step or ended meanwhile, and its answer says that.
        if (self && self->snapshotOf(id) && !r && r.error().errorCode != QLatin1String("not_cancellable"))
            self->setError(id, QStringLiteral("cancel"), describe(r.error()));
    });
}

void SessionsController::sync(const QString &id, bool resolve)
{
    if (!snapshot(id))
        return;
    QPointer<SessionsController> self(this);
    m_engine.client().post(sessionPath(id, QStringLiteral("sync")), QJsonObject {{QStringLiteral("resolve"), resolve}},
        [self, id](EngineClient::Answer r) {
            if (!self || !self->snapshotOf(id))
                return;
            if (!r) {
                const bool conflicts = r.error().errorCode == QLatin1String("conflict")
                    && !r.error().body.value(QStringLiteral("error")).toObject().value(QStringLiteral("conflicts")).toArray().isEmpty();
                if (!conflicts)
                    self->setError(id, QStringLiteral("sync"), describe(r.error()));
                return;
            }
            const api::Session parsed = api::sessionFromJson(QJsonObject {{QStringLiteral("lastSync"), r.value()}});
            Q_EMIT self->synced(id, parsed.lastSync);
        },
        EngineClient::LongTimeoutMs);
}

void SessionsController::suspend(const QString &id)
{
    QPointer<SessionsController> self(this);
    m_engine.client().post(sessionPath(id, QStringLiteral("suspend")), {}, [self, id](EngineClient::Answer r) {
        if (self && !r)
            self->setError(id, QStringLiteral("suspend"), describe(r.error()));
    }, EngineClient::LongTimeoutMs);
}

void SessionsController::resume(const QString &id)
{
    QPointer<SessionsController> self(this);
    m_engine.client().post(sessionPath(id, QStringLiteral("resume")), {}, [self, id](EngineClient::Answer r) {
        if (self && !r)
            self->setError(id, QStringLiteral("resume"), describe(r.error()));
    }, EngineClient::LongTimeoutMs);
}

void SessionsController::finish(const QString &id, bool discard, std::function<void(Result<void>)> done)
{
    if (!m_engine.attached()) {
        done(Error::unavailable(tr("The engine is not running")));
        return;
    }
    QPointer<SessionsController> self(this);
    m_engine.client().post(sessionPath(id, QStringLiteral("finish")), QJsonObject {{QStringLiteral("discard"), discard}},
        [self, done](EngineClient::Answer r) {
            if (!self)
                return;
            if (r) {
                done({});
                return;
            }
            // 409: refused (unsaved work) — the member decides; anything else failed.
            done(r.error().status == 409 ? Error::invalidInput(describe(r.error())) : Error::failed(describe(r.error())));
        },
        EngineClient::LongTimeoutMs);
}

void SessionsController::takeOutcomes(const api::Session &session)
{
    SessionSnapshot *snap = snapshotOf(session.id);
    if (!snap)
        return;
    const bool newSave = !(session.lastSave == snap->seenSave);
    const bool newSync = !(session.lastSync == snap->seenSync);
    if (!newSave && !newSync)
        return;
    snap->seenSave = session.lastSave;
    snap->seenSync = session.lastSync;
    // Both new only when several operations ended between two looks: the older one first.
    if (newSave && newSync && session.lastSync.at < session.lastSave.at) {
        takeSync(*snap, session.lastSync, true);
        takeSave(*snap, session.lastSave, true);
    } else {
        if (newSave)
            takeSave(*snap, session.lastSave, true);
        if (newSync)
            takeSync(*snap, session.lastSync, true);
    }
    Q_EMIT sessionUpdated(snap->id);
    Q_EMIT badgeChanged();
    refresh(snap->id);
}

void SessionsController::takeSave(SessionSnapshot &snap, const api::SaveOutcome &save, bool notify)
{
    if (save.outcome.isEmpty())
        return; // no save yet
    if (save.outcome == QLatin1String("moved_on")) {
        const bool first = !snap.movedOn;
        snap.movedOn = true;
        snap.lastError = save.errorMessage;
        if (first && notify) // the same event never notifies twice
            Q_EMIT movedOn(snap.id, snap.workspaceName);
    } else if (save.outcome == QLatin1String("published") || save.outcome == QLatin1String("nothing_to_save")) {
        snap.lastError.clear();
        snap.movedOn = false;
        if (save.published)
            snap.lastSave = save.at.toLocalTime();
        if (save.completedMerge)
            clearConflicts(snap);
    } else {
        snap.lastError = save.errorMessage;
    }
}

void SessionsController::takeSync(SessionSnapshot &snap, const api::SyncOutcome &sync, bool notify)
{
    if (sync.outcome.isEmpty())
        return; // no sync yet
    const bool hadConflicts = !snap.conflicts.isEmpty();
    if (sync.outcome == QLatin1String("conflict") && !sync.conflicts.isEmpty()) {
        // The default mode stopped: nothing changed in the worktree.
        snap.conflicts = sync.conflicts;
        snap.resolveMode = false;
        snap.lastError = sync.errorMessage;
    } else if (!sync.errorMessage.isEmpty()) {
        snap.lastError = sync.errorMessage;
        return;
    } else {
        snap.lastError.clear();
        snap.movedOn = false;
        if (sync.outcome == QLatin1String("conflicts_left")) {
            snap.conflicts = sync.conflicts;
            snap.resolveMode = true;
            snap.regionsLeft.clear();
        } else {
            clearConflicts(snap);
        }
    }
    if (!hadConflicts && !snap.conflicts.isEmpty() && notify)
        Q_EMIT conflicted(snap.id, snap.workspaceName, snap.conflicts);
}

void SessionsController::diff(const QString &id, const QString &path, std::function<void(Result<api::FileDiff>)> done)
{
    QPointer<SessionsController> self(this);
    m_engine.client().get(sessionPath(id, QStringLiteral("diff")) + QStringLiteral("?path=")
            + QString::fromLatin1(QUrl::toPercentEncoding(path)),
        [self, done](EngineClient::Answer r) {
            if (!self)
                return;
            if (!r) {
                done(Error::failed(describe(r.error())));
                return;
            }
            done(api::diffFromJson(r.value()));
        });
}

} // namespace isolation
