// SessionSandboxes: suspend (the agent stopped, the work saved, a snapshot of the sandbox taken,
// the sandbox deleted) and resume (a sandbox from the snapshot, or afresh from the image).
#include "sessionsandboxes.h"
#include "sessionsandboxes_internal.h"

#include "sandbox/agentsupervisor.h"
#include "sandbox/sandboxcontrol.h"
#include "sandbox/sandboxlauncher.h"

#include "core/timer.h"
#include "runtime/lifecycleclient.h"
#include "runtime/runtimemanager.h"
#include "secrets/secretvault.h"
#include "sessions/sessionjson.h"
#include "sessions/sessionmanager.h"

#include <QPointer>

namespace isolation {

using namespace sessionsandboxes;

void SessionSandboxes::suspend(const QString &sessionId, Done done)
{
    auto found = driven(sessionId);
    if (!found) {
        done(found.error());
        return;
    }
    auto [s, entry] = found.value();
    if (entry->launcher->state() != SandboxState::Running) {
        done(Error::invalidInput(tr("Session %1 is not running (its sandbox is %2)")
                .arg(sessionId, sandboxStateName(entry->launcher->state()))));
        return;
    }
    // The agent is interrupted first, so that it does not write while the work is saved.
    if (entry->agent)
        entry->agent->stop();
    QPointer<SessionSandboxes> self(this);
    QPointer<Session> session(s);
    // What changed is saved first; a save the hub refused (moved on) keeps the work on the session
    // branch, and the sandbox is suspended all the same. Then a snapshot keeps what the sandbox has
    // outside the worktree (installed tools, caches), and the sandbox goes: a suspended session
    // holds no memory or processes, only the snapshot on disk, and survives a reboot.
    const auto failed = [self, session](const QString &why, const Done &done) {
        if (self && session) {
            const auto it = self->m_entries.find(session->id());
            if (it != self->m_entries.end() && it->second.agent
                && it->second.launcher->state() == SandboxState::Running)
                it->second.agent->start(); // it was stopped for a suspend that did not happen
        }
        done(Error::failed(why));
    };
    s->save({}, tr("Suspend"), [self, session, sessionId, done, failed](Result<SaveReport, SessionError> saved) {
        if (!self || !session)
            return;
        if (!saved && saved.error().code != SessionError::Code::MovedOn) {
            failed(tr("Not suspended: the save failed: %1").arg(saved.error().message), done);
            return;
        }
        auto entry = self->entryFor(session);
        if (!entry) {
            done(entry.error());
            return;
        }
        SandboxLauncher *launcher = entry.value()->launcher.get();
        launcher->snapshot(QStringLiteral("session-") + sessionId,
            [self, session, saved, done, failed, launcher](Result<QString, SandboxError> snapshot) {
                if (!self || !session)
                    return;
                if (!snapshot) {
                    failed(tr("Not suspended: %1").arg(snapshot.error().message), done);
                    return;
                }
                // Written down before the sandbox goes: a kill from here on still resumes from it.
                const QString id = snapshot.value();
                self->updateRecord(session, [id](SandboxRecord &r) { r.snapshot = id; });
                launcher->remove([self, session, saved, done](Result<void, SandboxError> removed) {
                    if (!self || !session)
                        return;
                    if (!removed) {
                        done(Error::failed(tr("Not suspended: the sandbox could not be deleted: %1")
                                .arg(removed.error().message)));
                        return;
                    }
                    self->updateRecord(session, [](SandboxRecord &r) {
                        r.state = SandboxState::Suspended;
                        r.id.clear();
                        r.reason.clear();
                    });
                    qCInfo(lcSessionSandboxes) << "session" << session->id() << "suspended to snapshot"
                                               << session->record().sandbox->snapshot;
                    QJsonObject o = self->describe(session);
                    o.insert(QStringLiteral("suspendSave"), saved ? toJson(saved.value()) : toJson(saved.error()));
                    done(o);
                });
            });
    });
}

void SessionSandboxes::resume(const QString &sessionId, Done done)
{
    Session *suspended = m_sessions->session(sessionId);
    if (suspended && suspended->record().sandbox && suspended->record().sandbox->state == SandboxState::Suspended) {
        relaunch(suspended, std::move(done));
        return;
    }
    auto found = driven(sessionId);
    if (!found) {
        done(found.error());
        return;
    }
    auto [s, entry] = found.value();
    if (entry->launcher->state() != SandboxState::Paused) {
        done(Error::invalidInput(tr("Session %1 is not suspended (its sandbox is %2)")
                .arg(sessionId, sandboxStateName(entry->launcher->state()))));
        return;
    }
    QPointer<SessionSandboxes> self(this);
    QPointer<Session> session(s);
    entry->launcher->resume([self, session, done](Result<void, SandboxError> r) {
        if (!self || !session)
            return;
        if (!r) {
            done(fromSandbox(r.error()));
            return;
        }
        const auto it = self->m_entries.find(session->id());
        if (it != self->m_entries.end() && it->second.agent)
            it->second.agent->start(); // a fresh start: the suspend stopped it
        done(self->describe(session));
    });
}

Result<LaunchRequest> SessionSandboxes::resumeRequest(Session *session, RuntimeManager *rt)
{
    const SandboxRecord recorded = session->record().sandbox.value_or(SandboxRecord {});
    auto request = LaunchRequest::fromWorkspace(session->id(), session->workTree(), m_defaultImage);
    if (!request)
        return fromSandbox(request.error());
    if (!recorded.image.isEmpty())
        request.value().image = recorded.image;
    request.value().snapshotId = recorded.snapshot;
    if (m_entries.find(session->id()) == m_entries.end())
        makeEntry(session, rt); // suspended by an earlier run of the engine
    Entry &entry = m_entries[session->id()];
    if (!entry.control)
        startControl(session, entry);
    if (entry.control)
        request.value().controlDirectory = entry.control->directory();
    const QString command = recorded.agent ? recorded.agent->command : QString();
    if (!entry.agent && !command.isEmpty())
        makeAgent(session, command);
    return request.value();
}

void SessionSandboxes::resumed(Session *session, const QString &from, const Done &done)
{
    // Consumed: the sandbox runs from it now (the runtime keeps what the sandbox needs).
    deleteSnapshot(session);
    updateRecord(session, [](SandboxRecord &r) { r.snapshot.clear(); });
    record(session, SandboxState::Running);
    qCInfo(lcSessionSandboxes) << "session" << session->id() << "resumed" << from;
    auto entry = m_entries.find(session->id());
    if (entry != m_entries.end() && entry->second.agent) {
        entry->second.agent->setExecd(entry->second.launcher->execd()); // the new sandbox's
        entry->second.agent->start();
    }
    done(describe(session));
}

void SessionSandboxes::keepSuspended(Session *session, const Error &why, const Done &done)
{
    // A resume that fails leaves the session suspended, to be resumed (or finished) again.
    updateRecord(session, [why](SandboxRecord &r) {
        r.state = SandboxState::Suspended;
        r.reason = why.message;
        r.id.clear();
    });
    done(why);
}

void SessionSandboxes::relaunch(Session *session, Done done)
{
    RuntimeManager *rt = m_runtime();
    if (!rt || rt->state() != RuntimeState::Healthy) {
        done(Error::unavailable(tr("The sandbox runtime is not ready")));
        return;
    }
    auto request = resumeRequest(session, rt);
    if (!request) {
        done(request.error());
        return;
    }
    const QString snapshot = request.value().snapshotId;
    LaunchRequest fresh = request.value();
    fresh.snapshotId.clear();
    QPointer<SessionSandboxes> self(this);
    QPointer<Session> s(session);
    const QString id = session->id();
    Entry &entry = m_entries[id];
    entry.launcher->launch(request.value(), entry.secrets.get(),
        [self, s, id, snapshot, fresh, done](Result<void, SandboxError> r) {
            if (!self || !s)
                return;
            if (r) {
                self->resumed(s, snapshot.isEmpty() ? QStringLiteral("in a fresh sandbox") : QStringLiteral("from its snapshot"), done);
                return;
            }
            auto entry = self->m_entries.find(id);
            if (snapshot.isEmpty() || entry == self->m_entries.end()) {
                self->keepSuspended(s, fromSandbox(r.error()), done);
                return;
            }
            // The worktree holds the work: a fresh sandbox from the image loses only what the
            // snapshot had outside it.
            qCWarning(lcSessionSandboxes) << "session" << id << "cannot resume from snapshot" << snapshot << ":"
                                          << r.error().message << "- starting a fresh sandbox";
            entry->second.launcher->launch(fresh, entry->second.secrets.get(), [self, s, done](Result<void, SandboxError> again) {
                if (!self || !s)
                    return;
                if (!again)
                    self->keepSuspended(s, fromSandbox(again.error()), done);
                else
                    self->resumed(s, QStringLiteral("in a fresh sandbox (its snapshot could not be restored)"), done);
            });
        });
}

void SessionSandboxes::deleteSnapshot(Session *session)
{
    const QString snapshot = session->record().sandbox ? session->record().sandbox->snapshot : QString();
    RuntimeManager *rt = m_runtime();
    if (snapshot.isEmpty() || !rt || rt->state() != RuntimeState::Healthy)
        return;
    auto *lifecycle = new LifecycleClient(m_network, rt->lifecycleUrl(), rt->apiKey(), &rt->mountPolicy(), this);
    lifecycle->deleteSnapshot(snapshot, [lifecycle, snapshot](Result<QJsonObject, LifecycleError> r) {
        lifecycle->deleteLater();
        if (!r)
            qCInfo(lcSessionSandboxes) << "snapshot" << snapshot << "not deleted:" << r.error().message;
    });
}

} // namespace isolation
