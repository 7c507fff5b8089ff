// Export of main's file tree as a .tar.gz (libarchive, opened on first use), credentials left
// out: the workspace's definition as `definition.json`, then every file of main under `tree/`,
// streamed to a device.
#pragma once

#include "core/result.h"
#include "workspaceerror.h"
#include "workspacetypes.h"

#include <QByteArray>

#include <git2/types.h>

class QIODevice;

namespace isolation {

class TreeExport
{
public:
    explicit TreeExport(git_repository *repo)
        : m_repo(repo)
    { }

    // Deterministic: entries in tree order, owner 0, every time the commit's.
    Result<TreeExportResult, WorkspaceError> write(
        const git_oid &commit, const QByteArray &definition, QIODevice &out) const;

private:
    git_repository *m_repo;
};

} // namespace isolation
