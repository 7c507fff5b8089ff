// libgit2 at the boundary (internal to the workspace module): RAII owners for its objects, the
// library's init/shutdown, object ids as hex and libgit2 errors read into WorkspaceError.
#pragma once

#include "workspaceerror.h"

#include <QByteArray>
#include <QLoggingCategory>
#include <QString>

#include <git2.h>

#include <memory>
#include <optional>

Q_DECLARE_LOGGING_CATEGORY(lcWorkspace)

namespace isolation::git {

template<auto Free>
struct Deleter
{
    template<typename T>
    void operator()(T *p) const
    {
        Free(p);
    }
};

using RepositoryPtr = std::unique_ptr<git_repository, Deleter<&git_repository_free>>;
using ReferencePtr = std::unique_ptr<git_reference, Deleter<&git_reference_free>>;
using CommitPtr = std::unique_ptr<git_commit, Deleter<&git_commit_free>>;
using TreePtr = std::unique_ptr<git_tree, Deleter<&git_tree_free>>;
using TreeEntryPtr = std::unique_ptr<git_tree_entry, Deleter<&git_tree_entry_free>>;
using TreeBuilderPtr = std::unique_ptr<git_treebuilder, Deleter<&git_treebuilder_free>>;
using IndexPtr = std::unique_ptr<git_index, Deleter<&git_index_free>>;
using IndexConflictIteratorPtr
    = std::unique_ptr<git_index_conflict_iterator, Deleter<&git_index_conflict_iterator_free>>;
using RevwalkPtr = std::unique_ptr<git_revwalk, Deleter<&git_revwalk_free>>;
using PackbuilderPtr = std::unique_ptr<git_packbuilder, Deleter<&git_packbuilder_free>>;
using IndexerPtr = std::unique_ptr<git_indexer, Deleter<&git_indexer_free>>;
using OdbPtr = std::unique_ptr<git_odb, Deleter<&git_odb_free>>;
using OdbObjectPtr = std::unique_ptr<git_odb_object, Deleter<&git_odb_object_free>>;
using SignaturePtr = std::unique_ptr<git_signature, Deleter<&git_signature_free>>;
using StatusListPtr = std::unique_ptr<git_status_list, Deleter<&git_status_list_free>>;
using AnnotatedCommitPtr = std::unique_ptr<git_annotated_commit, Deleter<&git_annotated_commit_free>>;
using ConfigPtr = std::unique_ptr<git_config, Deleter<&git_config_free>>;
using ReferenceIteratorPtr = std::unique_ptr<git_reference_iterator, Deleter<&git_reference_iterator_free>>;
using BlobPtr = std::unique_ptr<git_blob, Deleter<&git_blob_free>>;
using DiffPtr = std::unique_ptr<git_diff, Deleter<&git_diff_free>>;

// git_buf owned for its scope.
class Buf
{
public:
    Buf() = default;
    ~Buf() { git_buf_dispose(&m_buf); }
    Buf(const Buf &) = delete;
    Buf &operator=(const Buf &) = delete;
    git_buf *get() { return &m_buf; }
    QByteArray bytes() const { return QByteArray(m_buf.ptr ? m_buf.ptr : "", qsizetype(m_buf.size)); }

private:
    git_buf m_buf = GIT_BUF_INIT;
};

// libgit2 initialised once for the rest of the process (shut down at exit): initialising and
// shutting it down around every short-lived user costs tens of milliseconds each time.
void ensureLibrary();

// The failure of a libgit2 call returning `rc`, with git_error_last() read at once.
WorkspaceError error(int rc, const QString &what);

QByteArray toHex(const git_oid &id);
std::optional<git_oid> fromHex(const QByteArray &hex); // exactly 40 lowercase hex digits
QString pathString(const char *utf8);
QByteArray nativePath(const QString &path);

} // namespace isolation::git
