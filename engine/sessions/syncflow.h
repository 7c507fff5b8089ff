// One sync of a session: settle a save left open, fetch the manifest (304: nothing moved), bring
// the warm cache's mirror up to it (only missing segments travel), link its objects into the
// session, take the hub's branches (main among them), then merge main into the session branch.
// Cancellable until the merge starts: up to there the session's branch and files are untouched
// (the mirror may have taken segments, and the session the hub's branches: as a fetch leaves them).
#pragma once

#include "session.h"
#include "sessionflow.h"
#include "sessionreports.h"

#include <QPointer>

namespace isolation {

class Manifest;
class MirrorSync;

class SyncFlow final : public SessionFlow
{
    Q_OBJECT
public:
    SyncFlow(Session &session, ConflictMode mode, QObject *parent = nullptr);

    void run(Session::Done<SyncReport> done);
    void abort(const SessionError &why) override;
    bool cancel() override;
    bool cancellable() const override;
    // A member's own sync may be cancelled, and so may the one that fills a new session (a start
    // ends whole or not at all: a cancelled one removes the session, `outcome` says so). The sync
    // that finishes a start the engine was stopped in may not (the session was there before).
    void allowCancel(QString outcome = {})
    {
        m_cancelAllowed = true;
        m_cancelOutcome = std::move(outcome);
    }

private:
    void fetch();
    void take(const Manifest &manifest, const QByteArray &etag);
    void mergeMain();
    void finish(Result<SyncReport, SessionError> result);
    // Ends the flow Cancelled when the member asked for it; true then.
    bool stoppedByCancel();

    Session &m_session;
    ConflictMode m_mode;
    Session::Done<SyncReport> m_done;
    SyncReport m_report;
    int m_refetches = 0; // a compacting save deleted a segment while we read the manifest naming it
    QPointer<MirrorSync> m_mirror; // while the mirror is brought up to the manifest
    bool m_merging = false; // past the point of no return: the merge into the session runs
    bool m_cancelled = false;
    bool m_cancelAllowed = false;
    QString m_cancelOutcome; // the error's message when cancelled; empty: a sync's own
};

} // namespace isolation
