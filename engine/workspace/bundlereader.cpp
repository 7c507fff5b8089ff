#include "bundlereader.h"

#include "gitsupport.h"
#include "memorytrim.h"

#include <git2/sys/odb_backend.h>

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QIODevice>
#include <QTemporaryDir>

#include <cerrno>
#include <cstdio>

namespace isolation {

namespace {

WorkspaceError packError(int rc, const QString &what)
{
    WorkspaceError e = git::error(rc, what);
    // Whatever the indexer refuses is the bundle's fault, not the repository's.
    if (e.code == WorkspaceError::Code::Failed || e.code == WorkspaceError::Code::NotFound)
        e.code = WorkspaceError::Code::Corrupt;
    return e;
}

git::OdbPtr onePackOdb(const QByteArray &idxPath, int &rc)
{
    git_odb *raw = nullptr;
    git_odb_backend *backend = nullptr;
    if ((rc = git_odb_new(&raw)) < 0)
        return {};
    git::OdbPtr odb(raw);
    if ((rc = git_odb_backend_one_pack(&backend, idxPath.constData())) < 0)
        return {};
    if ((rc = git_odb_add_backend(odb.get(), backend, 2)) < 0) {
        backend->free(backend);
        return {};
    }
    return odb;
}

struct Walk
{
    git_repository *parse; // reads objects from the pack and the repository
    git_odb *all;
    QString missing;
    int rc = 0;
};

bool have(Walk &w, const git_oid *id, const char *what, const git_oid &from)
{
    if (git_odb_exists(w.all, id))
        return true;
    w.missing
        = QStringLiteral("%1 %2 of object %3 is in neither the bundle nor the repository")
              .arg(QLatin1String(what), QString::fromLatin1(git::toHex(*id)), QString::fromLatin1(git::toHex(from)));
    return false;
}

// Every object the pack's commits, trees and tags name is in the pack or the repository.
int checkObject(const git_oid *id, void *payload)
{
    auto &w = *static_cast<Walk *>(payload);
    size_t size = 0;
    git_object_t type = GIT_OBJECT_INVALID;
    if ((w.rc = git_odb_read_header(&size, &type, w.all, id)) < 0)
        return w.rc;
    if (type == GIT_OBJECT_BLOB)
        return 0; // names nothing; not worth inflating
    git_object *raw = nullptr;
    if ((w.rc = git_object_lookup(&raw, w.parse, id, GIT_OBJECT_ANY)) < 0)
        return w.rc;
    std::unique_ptr<git_object, git::Deleter<&git_object_free>> object(raw);
    switch (git_object_type(raw)) {
    case GIT_OBJECT_COMMIT: {
        auto *commit = reinterpret_cast<git_commit *>(raw);
        if (!have(w, git_commit_tree_id(commit), "tree", *id))
            return -1;
        for (unsigned i = 0; i < git_commit_parentcount(commit); ++i) {
            if (!have(w, git_commit_parent_id(commit, i), "parent", *id))
                return -1;
        }
        break;
    }
    case GIT_OBJECT_TREE: {
        auto *tree = reinterpret_cast<git_tree *>(raw);
        for (size_t i = 0, n = git_tree_entrycount(tree); i < n; ++i) {
            const git_tree_entry *e = git_tree_entry_byindex(tree, i);
            if (git_tree_entry_filemode(e) != GIT_FILEMODE_COMMIT && !have(w, git_tree_entry_id(e), "entry", *id))
                return -1;
        }
        break;
    }
    case GIT_OBJECT_TAG:
        if (!have(w, git_tag_target_id(reinterpret_cast<git_tag *>(raw)), "target", *id))
            return -1;
        break;
    default:
        break;
    }
    return 0;
}

} // namespace

Result<void, WorkspaceError> BundleReader::checkPack(const QString &idxPath, const BundleHeader &header) const
{
    const QByteArray idx = git::nativePath(idxPath);
    int rc = 0;
    git::OdbPtr pack = onePackOdb(idx, rc);
    if (!pack)
        return packError(rc, QStringLiteral("cannot read the indexed pack"));
    // The pack and the repository's objects together, read-only.
    git::OdbPtr all = onePackOdb(idx, rc);
    if (!all)
        return packError(rc, QStringLiteral("cannot read the indexed pack"));
    const QByteArray objects = QByteArray(git_repository_path(m_repo)) + "objects";
    if ((rc = git_odb_add_disk_alternate(all.get(), objects.constData())) < 0)
        return git::error(rc, QStringLiteral("cannot read the repository's objects"));

    for (const BundleRef &ref : header.refs) {
        const auto id = git::fromHex(ref.id);
        size_t size = 0;
        git_object_t type = GIT_OBJECT_INVALID;
        if (!id || git_odb_read_header(&size, &type, all.get(), &*id) < 0) {
            git_error_clear();
            return WorkspaceError::corrupt(QStringLiteral("ref %1 names object %2, which the bundle does not carry")
                                               .arg(QString::fromUtf8(ref.name), QString::fromLatin1(ref.id)));
        }
        // As git has it: a branch (and HEAD) names a commit.
        if ((ref.name == "HEAD" || ref.name.startsWith("refs/heads/")) && type != GIT_OBJECT_COMMIT)
            return WorkspaceError::corrupt(
                QStringLiteral("branch %1 names a %2, not a commit")
                    .arg(QString::fromUtf8(ref.name), QString::fromLatin1(git_object_type2string(type))));
    }

    git_repository *rawParse = nullptr;
    if ((rc = git_repository_wrap_odb(&rawParse, all.get())) < 0)
        return git::error(rc, QStringLiteral("cannot check the pack"));
    git::RepositoryPtr parse(rawParse);
    Walk walk {parse.get(), all.get(), {}, 0};
    rc = git_odb_foreach(pack.get(), checkObject, &walk);
    if (!walk.missing.isEmpty())
        return WorkspaceError::corrupt(walk.missing);
    if (rc < 0)
        return packError(walk.rc < 0 ? walk.rc : rc, QStringLiteral("cannot check the pack"));
    return {};
}

Result<BundleContents, WorkspaceError> BundleReader::read(QIODevice &in) const
{
    auto header = BundleHeader::read(in);
    if (!header)
        return header.error();

    git_odb *rawOdb = nullptr;
    if (int rc = git_repository_odb(&rawOdb, m_repo); rc < 0)
        return git::error(rc, QStringLiteral("cannot open the object database"));
    git::OdbPtr odb(rawOdb);
    for (const BundlePrerequisite &p : header.value().prerequisites) {
        const auto id = git::fromHex(p.id);
        size_t size = 0;
        git_object_t type = GIT_OBJECT_INVALID;
        if (!id || git_odb_read_header(&size, &type, odb.get(), &*id) < 0 || type != GIT_OBJECT_COMMIT) {
            git_error_clear();
            return WorkspaceError::notFound(
                QStringLiteral("the bundle needs commit %1 (%2), which this repository lacks: apply the "
                               "earlier segments first")
                    .arg(QString::fromLatin1(p.id), QString::fromUtf8(p.comment.left(80))));
        }
    }

    if (!QDir().mkpath(m_scratch))
        return WorkspaceError::failed(QStringLiteral("cannot create %1").arg(m_scratch));
    QTemporaryDir scratch(m_scratch + QStringLiteral("/incoming-XXXXXX"));
    if (!scratch.isValid())
        return WorkspaceError::failed(QStringLiteral("cannot create a scratch directory in %1").arg(m_scratch));

    git_indexer_options opts;
    git_indexer_options_init(&opts, GIT_INDEXER_OPTIONS_VERSION);
    // Not opts.verify: libgit2 1.5 leaks an object per pack entry the repository already has.
    // checkPack() does the same check.
    const QByteArray scratchPath = git::nativePath(scratch.path());
    // The indexer's windows on the pack it writes stay resident until it is committed (memorytrim.h).
    memorytrim::MappedFiles incoming(scratchPath);
    opts.progress_cb = [](const git_indexer_progress *, void *payload) -> int {
        static_cast<memorytrim::MappedFiles *>(payload)->trim();
        memorytrim::heap();
        return 0;
    };
    opts.progress_cb_payload = &incoming;
    git_indexer *rawIndexer = nullptr;
    if (int rc = git_indexer_new(&rawIndexer, scratchPath.constData(), 0, odb.get(), &opts); rc < 0)
        return git::error(rc, QStringLiteral("cannot start indexing"));
    git::IndexerPtr indexer(rawIndexer);
    git_indexer_progress stats {};
    QByteArray chunk(kChunk, Qt::Uninitialized);
    while (true) {
        qint64 n = in.read(chunk.data(), kChunk);
        if (n == 0 && !in.atEnd() && in.waitForReadyRead(BundleHeader::kReadTimeoutMs))
            continue;
        if (n < 0)
            return WorkspaceError::failed(QStringLiteral("cannot read the bundle: %1").arg(in.errorString()));
        if (n == 0)
            break;
        if (int rc = git_indexer_append(indexer.get(), chunk.constData(), size_t(n), &stats); rc < 0)
            return packError(rc, QStringLiteral("bad pack in bundle"));
    }
    if (int rc = git_indexer_commit(indexer.get(), &stats); rc < 0)
        return packError(rc, QStringLiteral("bad pack in bundle"));

    const QString base
        = scratch.path() + QStringLiteral("/pack-") + QString::fromLatin1(git_indexer_name(indexer.get()));
    const QString idxPath = base + QStringLiteral(".idx");
    const QString packPath = base + QStringLiteral(".pack");
    if (auto r = checkPack(idxPath, header.value()); !r)
        return r.error();

    const QString packDir = QString::fromUtf8(git_repository_path(m_repo)) + QStringLiteral("objects/pack");
    const QString name = QFileInfo(base).fileName();
    if (!QDir().mkpath(packDir))
        return WorkspaceError::failed(QStringLiteral("cannot create %1").arg(packDir));
    // The pack first, then its index: git reads a pack only through an index.
    for (const QString &from : {packPath, idxPath}) {
        const QString to = packDir + QLatin1Char('/') + QFileInfo(from).fileName();
        if (QFile::exists(to))
            continue; // the same pack (named by its checksum) is already there
        if (::rename(QFile::encodeName(from).constData(), QFile::encodeName(to).constData()) != 0)
            return WorkspaceError::failed(QStringLiteral("cannot install %1: %2").arg(name, qt_error_string(errno)));
    }
    if (int rc = git_odb_refresh(odb.get()); rc < 0)
        return git::error(rc, QStringLiteral("cannot reload the object database"));
    return BundleContents {std::move(header.value()), quint64(stats.indexed_objects)};
}

} // namespace isolation
