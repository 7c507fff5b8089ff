#include "treeexport.h"

#include "credentialfilter.h"
#include "gitsupport.h"

#include "core/libarchive.h"

#include <QIODevice>

namespace isolation {

namespace {

using libarchive::EntryPtr;

struct Sink
{
    QIODevice *out;
    qint64 bytes = 0;
};

la_ssize_t writeToDevice(archive *, void *payload, const void *buffer, size_t length)
{
    auto *sink = static_cast<Sink *>(payload);
    const qint64 n = sink->out->write(static_cast<const char *>(buffer), qint64(length));
    if (n > 0)
        sink->bytes += n;
    return n;
}

struct Walk
{
    const libarchive::Api *lib;
    git_repository *repo;
    archive *ar;
    time_t mtime;
    TreeExportResult result;
    WorkspaceError error;
    bool failed = false;
};

bool addEntry(Walk &w, const QByteArray &name, mode_t type, int perm, const QByteArray &data)
{
    const libarchive::Api &lib = *w.lib;
    EntryPtr entry(lib.entry_new());
    lib.entry_set_pathname(entry.get(), name.constData());
    lib.entry_set_filetype(entry.get(), type);
    lib.entry_set_perm(entry.get(), perm);
    lib.entry_set_mtime(entry.get(), w.mtime, 0);
    lib.entry_set_uid(entry.get(), 0);
    lib.entry_set_gid(entry.get(), 0);
    if (type == AE_IFLNK) {
        lib.entry_set_symlink(entry.get(), data.constData());
        lib.entry_set_size(entry.get(), 0);
    } else {
        lib.entry_set_size(entry.get(), data.size());
    }
    if (lib.write_header(w.ar, entry.get()) != ARCHIVE_OK
        || (type == AE_IFREG && !data.isEmpty() && lib.write_data(w.ar, data.constData(), size_t(data.size())) < 0)) {
        w.error = WorkspaceError::failed(QStringLiteral("cannot write %1: %2")
                                             .arg(QString::fromUtf8(name), QString::fromUtf8(lib.error_string(w.ar))));
        w.failed = true;
        return false;
    }
    return true;
}

int visit(const char *root, const git_tree_entry *entry, void *payload)
{
    auto &w = *static_cast<Walk *>(payload);
    const git_filemode_t mode = git_tree_entry_filemode(entry);
    if (mode == GIT_FILEMODE_TREE || mode == GIT_FILEMODE_COMMIT)
        return 0;
    const QString path = QString::fromUtf8(root) + QString::fromUtf8(git_tree_entry_name(entry));
    if (CredentialFilter::isCredential(path)) {
        w.result.stripped.append(path);
        return 0;
    }
    git_blob *raw = nullptr;
    if (int rc = git_blob_lookup(&raw, w.repo, git_tree_entry_id(entry)); rc < 0) {
        w.error = git::error(rc, QStringLiteral("cannot read %1").arg(path));
        w.failed = true;
        return -1;
    }
    git::BlobPtr blob(raw);
    const QByteArray data = QByteArray::fromRawData(
        static_cast<const char *>(git_blob_rawcontent(blob.get())), qsizetype(git_blob_rawsize(blob.get())));
    const QByteArray name = "tree/" + path.toUtf8();
    const bool ok = mode == GIT_FILEMODE_LINK
        ? addEntry(w, name, AE_IFLNK, 0777, QByteArray(data.constData(), data.size()))
        : addEntry(w, name, AE_IFREG, mode == GIT_FILEMODE_BLOB_EXECUTABLE ? 0755 : 0644, data);
    if (!ok)
        return -1;
    ++w.result.files;
    return 0;
}

} // namespace

Result<TreeExportResult, WorkspaceError> TreeExport::write(
    const git_oid &commitId, const QByteArray &definition, QIODevice &out) const
{
    git_commit *rawCommit = nullptr;
    if (int rc = git_commit_lookup(&rawCommit, m_repo, &commitId); rc < 0)
        return git::error(rc, QStringLiteral("cannot read the commit to export"));
    git::CommitPtr commit(rawCommit);
    git_tree *rawTree = nullptr;
    if (int rc = git_commit_tree(&rawTree, commit.get()); rc < 0)
        return git::error(rc, QStringLiteral("cannot read the tree to export"));
    git::TreePtr tree(rawTree);

    QString unloadable;
    const libarchive::Api *lib = libarchive::load(&unloadable);
    if (!lib)
        return WorkspaceError::failed(unloadable);
    libarchive::WriterPtr ar(lib->write_new());
    Sink sink {&out, 0};
    if (lib->write_add_filter_gzip(ar.get()) != ARCHIVE_OK
        || lib->write_set_format_pax_restricted(ar.get()) != ARCHIVE_OK
        || lib->write_set_bytes_in_last_block(ar.get(), 1) != ARCHIVE_OK
        || lib->write_open(ar.get(), &sink, nullptr, writeToDevice, nullptr) != ARCHIVE_OK)
        return WorkspaceError::failed(
            QStringLiteral("cannot start the archive: %1").arg(QString::fromUtf8(lib->error_string(ar.get()))));

    Walk walk {lib, m_repo, ar.get(), time_t(git_commit_time(commit.get())), {}, {}, false};
    if (!definition.isEmpty() && !addEntry(walk, "definition.json", AE_IFREG, 0644, definition))
        return walk.error;
    const int rc = git_tree_walk(tree.get(), GIT_TREEWALK_PRE, visit, &walk);
    if (walk.failed)
        return walk.error;
    if (rc < 0)
        return git::error(rc, QStringLiteral("cannot walk the tree to export"));
    if (lib->write_close(ar.get()) != ARCHIVE_OK)
        return WorkspaceError::failed(
            QStringLiteral("cannot finish the archive: %1").arg(QString::fromUtf8(lib->error_string(ar.get()))));
    walk.result.bytes = sink.bytes;
    return walk.result;
}

} // namespace isolation
