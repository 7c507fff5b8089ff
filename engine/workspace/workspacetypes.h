// Values the workspace module returns: save steps, sync outcomes, changes. Object ids are 40
// lowercase hex digits; paths are relative to the worktree and '/'-separated.
#pragma once

#include "bundleheader.h"

#include <QByteArray>
#include <QList>
#include <QString>
#include <QStringList>

#include <functional>

namespace isolation {

enum class FileStatus {
    Added, // new in the index (a merge in progress brought it, or a save was interrupted)
    Modified,
    Deleted,
    Renamed, // `oldPath` says from where
    TypeChange, // file ↔ symbolic link
    Conflicted, // unmerged after `sync --resolve`
    Untracked, // new in the worktree
};

struct FileChange
{
    QString path;
    QString oldPath; // for Renamed
    FileStatus status = FileStatus::Modified;
};

struct WorkspaceChanges
{
    QList<FileChange> files; // sorted by path
    int ahead = 0; // commits on the session branch that main lacks
    int behind = 0; // commits on main that the session branch lacks
    bool mergeInProgress = false; // `sync --resolve` left conflicts; the next save completes it
};

// Save step 1.
struct CommitResult
{
    QByteArray commit; // the session branch's tip afterwards
    bool created = false; // false: nothing to commit, the branch did not move
    bool completedMerge = false; // the commit has two parents: a sync --resolve finished
    bool wholeScan = true; // every file's stat data was looked at (false: only the paths the watch heard change)
};

// Save step 2.
struct MergeResult
{
    QByteArray main; // main afterwards
    QByteArray previousMain; // main before (what undoMerge() restores)
    bool merged = false; // false: main already contained the session branch
};

// Save step 3: a thin segment (what the hub lacks, against what it has) or, when the chain is
// compacted, a full one (every object, no prerequisites).
enum class SegmentKind { Thin, Full };

// Save step 3 (and export).
struct SegmentResult
{
    bool written = false; // false: the hub already has every ref, nothing was written
    QList<BundleRef> refs; // HEAD, main and every session branch, as bundled
    QList<QByteArray> prerequisites; // the commits the hub already has (empty: a full bundle)
    qint64 bytes = 0;
    quint64 objects = 0;
};

enum class ConflictMode {
    Stop, // conflicts: report them and change nothing
    Resolve, // conflicts: leave git's markers in the worktree and the merge in progress
};

enum class SyncOutcome {
    UpToDate, // the session branch already contains main
    FastForwarded, // the session branch had nothing of its own: it now is main
    Merged, // a merge commit joined main into the session branch
    Conflicted, // Stop: conflicts reported, nothing changed
    ConflictsLeft, // Resolve: markers written, merge in progress
};

struct ConflictedFile
{
    QString path;
    int regions = 0; // conflict regions (marker blocks); 0 for a binary file or when one side deleted it
};

// Bytes of files written into the worktree so far, and in all; called on the thread that works.
using CheckoutProgress = std::function<void(qint64 bytes, qint64 total)>;

struct SyncResult
{
    SyncOutcome outcome = SyncOutcome::UpToDate;
    QList<ConflictedFile> conflicts; // sorted by path
    QByteArray session; // the session branch's tip afterwards
};

struct ApplyResult
{
    QList<BundleRef> refs; // the bundle's workspace refs (main, session/*) as now recorded for the hub
    QByteArray main; // main afterwards
    quint64 objects = 0;
};

// Export of main's tree as .tar.gz.
struct TreeExportResult
{
    int files = 0; // entries under tree/
    QStringList stripped; // credentials left out (worktree-relative paths)
    qint64 bytes = 0; // compressed bytes written
};

} // namespace isolation
