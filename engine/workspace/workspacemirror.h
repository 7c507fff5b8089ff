// A bare repository holding what the hub has of one workspace (the warm cache keeps one per
// workspace): segments read into it, its branches set to a manifest's refs, objects linked to and
// from sessions' repositories, and the exports. Synchronous; one thread at a time, like Workspace.
#pragma once

#include "bundleheader.h"
#include "core/result.h"
#include "workspaceerror.h"
#include "workspacetypes.h"

#include <QList>
#include <QString>

#include <memory>

class QIODevice;

namespace isolation {

class WorkspaceMirror
{
public:
    // Opens the bare repository at `gitDir`, creating it when absent (no refs yet).
    static Result<std::unique_ptr<WorkspaceMirror>, WorkspaceError> open(const QString &gitDir);
    ~WorkspaceMirror();
    WorkspaceMirror(const WorkspaceMirror &) = delete;
    WorkspaceMirror &operator=(const WorkspaceMirror &) = delete;

    QString gitDir() const { return m_gitDir; }

    // True when every commit named (40 hex digits each) is here, with its history.
    Result<bool, WorkspaceError> hasCommits(const QStringList &ids) const;
    // Reads one segment into the object database, checked as Workspace::applyBundle checks it
    // (NotFound: an earlier segment is missing; Corrupt: not a valid bundle). Moves no ref.
    Result<quint64, WorkspaceError> addBundle(QIODevice &in);
    // The workspace branches (main, session/*), sorted by name.
    Result<QList<BundleRef>, WorkspaceError> refs() const;
    // Makes the workspace branches exactly `refs` (others are deleted); each must name a commit here.
    Result<void, WorkspaceError> setRefs(const QList<BundleRef> &refs);

    // The mirrored workspace as one full bundle (HEAD at main, main, every session branch).
    Result<SegmentResult, WorkspaceError> exportBundle(QIODevice &out) const;
    // main's files as a .tar.gz, credentials left out (as Workspace::exportTree).
    Result<TreeExportResult, WorkspaceError> exportTree(QIODevice &out, const QByteArray &definition) const;

private:
    WorkspaceMirror() = default;

    struct Repo;
    std::unique_ptr<Repo> m_repo;
    QString m_gitDir;
};

} // namespace isolation
