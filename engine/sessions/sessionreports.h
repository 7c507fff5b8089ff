// What a session's operations report: values the Engine, the LocalAPI and a GUI show (per-file
// status, conflicts with their regions, progress by phase and bytes).
#pragma once

#include "core/result.h"
#include "sessionerror.h"
#include "workspace/workspacetypes.h"

#include <QByteArray>
#include <QDateTime>
#include <QString>
#include <QStringList>

#include <optional>

namespace isolation {

// The operation running on a session, for progress displays (polled or signalled).
struct SessionProgress
{
    QString operation; // "open", "save", "sync", "changes"; empty when idle
    QString phase; // e.g. "commit", "merge", "segment", "upload", "publish", "download", "apply"
    qint64 bytes = 0; // of the phase, when it moves bytes
    qint64 totalBytes = -1; // -1: not known
    QDateTime startedAt;
    bool cancellable = false; // Session::cancel() would be taken now
};

struct SaveReport
{
    bool published = false; // false: nothing to save (no change, and main already had the work)
    bool committed = false; // a new commit was made on the session branch
    bool completedMerge = false; // the commit finished a `sync --resolve`
    QByteArray commit; // the session branch afterwards
    QByteArray main; // main afterwards
    QString saveId;
    qint64 generation = 0; // of the manifest published
    bool compacted = false; // the segment was a full bundle replacing the chain
    qint64 segmentBytes = 0; // encrypted bytes uploaded
    QStringList files; // the selection (empty: every change)
    bool settled = false; // the upload's outcome was lost and read back from the hub
    bool resumed = false; // the engine ran it again after being stopped in the middle of it
};

struct SyncReport
{
    SyncOutcome outcome = SyncOutcome::UpToDate;
    QList<ConflictedFile> conflicts; // ConflictsLeft (resolve mode)
    bool hubMoved = false; // the hub had a newer manifest than the session knew
    int segmentsDownloaded = 0;
    qint64 bytesDownloaded = 0;
    qint64 generation = 0; // the manifest the session now knows
    QByteArray main;
    QByteArray session; // the session branch afterwards
};

struct ChangesReport
{
    WorkspaceChanges changes;
    bool refreshed = false; // the hub was asked
    bool movedOn = false; // refreshed: the hub has a manifest newer than the session's
    qint64 generation = 0; // the manifest the session knows
};

// How an operation ended, as the session's record keeps it (session.json) and the LocalAPI shows
// it: when, and its report or its error.
template<typename Report>
struct Outcome
{
    QDateTime at; // UTC
    Result<Report, SessionError> result = SessionError::failed(QString());
};
using LastSave = Outcome<SaveReport>;
using LastSync = Outcome<SyncReport>;

} // namespace isolation
