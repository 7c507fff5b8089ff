// One sync of a session: settle a save left open, fetch the manifest (304: nothing moved), bring
// the warm cache's mirror up to it (only missing segments travel), link its objects into the
// session, take the hub's branches (main among them), then merge main into the session branch.
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

private:
    void fetch();
    void take(const Manifest &manifest, const QByteArray &etag);
    void mergeMain();
    void finish(Result<SyncReport, SessionError> result);

    Session &m_session;
    ConflictMode m_mode;
    Session::Done<SyncReport> m_done;
    SyncReport m_report;
    int m_refetches = 0; // a compacting save deleted a segment while we read the manifest naming it
    QPointer<MirrorSync> m_mirror; // while the mirror is brought up to the manifest
};

} // namespace isolation
