// Reads git bundles into a repository: header checked, prerequisites present, pack fed to libgit2's
// indexer in bounded chunks, every ref's object present; only then is the pack installed. Refs are
// the caller's business: nothing here moves one, and a refused bundle leaves the repository as it was.
#pragma once

#include "bundleheader.h"
#include "core/result.h"
#include "workspaceerror.h"

#include <QString>

#include <git2/types.h>

class QIODevice;

namespace isolation {

struct BundleContents
{
    BundleHeader header;
    quint64 objects = 0; // objects in the pack, bases added to complete a thin pack included
};

class BundleReader
{
public:
    static constexpr qint64 kChunk = qint64(64) * 1024;

    // `scratchDir` must be on the same file system as the repository's objects directory.
    BundleReader(git_repository *repo, QString scratchDir)
        : m_repo(repo)
        , m_scratch(std::move(scratchDir))
    { }

    // NotFound: a prerequisite is missing (apply the earlier segments first).
    // Corrupt: the header, the pack or the refs are not what a bundle must be.
    Result<BundleContents, WorkspaceError> read(QIODevice &in) const;

private:
    // The refs' objects exist, and so does every object the pack's objects name.
    Result<void, WorkspaceError> checkPack(const QString &idxPath, const BundleHeader &header) const;

    git_repository *m_repo;
    QString m_scratch;
};

} // namespace isolation
