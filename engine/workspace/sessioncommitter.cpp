#include "sessioncommitter.h"

#include "gitrepo.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QLoggingCategory>
#include <QThread>

#include <algorithm>
#include <iterator>

namespace isolation {

namespace {

constexpr int kAddAttempts = 4;

struct Filter
{
    const NestedRepos *nested;
    const QStringList *selection;
};

bool selected(const QStringList &selection, const QString &path)
{
    if (selection.isEmpty())
        return true;
    for (const QString &s : selection) {
        if (path == s || (path.startsWith(s) && path.at(s.size()) == QLatin1Char('/')))
            return true;
    }
    return false;
}

// git_index_matched_path_cb: 0 adds the path, a positive value skips it.
int filterPath(const char *path, const char *, void *payload)
{
    const auto *f = static_cast<const Filter *>(payload);
    QString p = QString::fromUtf8(path);
    if (p.endsWith(QLatin1Char('/')))
        p.chop(1);
    if (f->nested->covers(p))
        return 1;
    return selected(*f->selection, p) ? 0 : 1;
}

// Every selected path exists in the worktree or is tracked (a deletion), and none is inside a
// nested repository.
Result<void, WorkspaceError> checkSelection(
    GitRepo &repo, const QStringList &selection, const NestedRepos &nested, git_index *idx)
{
    for (const QString &path : selection) {
        if (nested.covers(path))
            return WorkspaceError::failed(QStringLiteral("%1 is inside a nested repository").arg(path));
        const QFileInfo onDisk(repo.workTree() + QLatin1Char('/') + path);
        size_t at = 0;
        const QByteArray native = path.toUtf8();
        const bool tracked = git_index_find_prefix(&at, idx, native.constData()) == 0;
        git_error_clear();
        if (!onDisk.exists() && !onDisk.isSymLink() && !tracked)
            return WorkspaceError::notFound(QStringLiteral("%1 does not exist in the workspace").arg(path));
    }
    return {};
}

// A merge in progress (left by `sync --resolve`): its other heads, and its conflicted paths
// staged as the worktree has them now (markers and all).
Result<QList<git_oid>, WorkspaceError> takeConflicts(GitRepo &repo, git_index *idx)
{
    QList<git_oid> mergeHeads;
    git_repository_mergehead_foreach(
        repo.get(),
        [](const git_oid *id, void *p) -> int {
            static_cast<QList<git_oid> *>(p)->append(*id);
            return 0;
        },
        &mergeHeads);
    QList<QByteArray> conflicted;
    git_index_conflict_iterator *rawIt = nullptr;
    if (int rc = git_index_conflict_iterator_new(&rawIt, idx); rc < 0)
        return git::error(rc, QStringLiteral("cannot list conflicts"));
    git::IndexConflictIteratorPtr it(rawIt);
    const git_index_entry *ancestor = nullptr, *ours = nullptr, *theirs = nullptr;
    while (git_index_conflict_next(&ancestor, &ours, &theirs, it.get()) == 0) {
        const git_index_entry *any = ours ? ours : (theirs ? theirs : ancestor);
        conflicted.append(QByteArray(any->path));
    }
    git_error_clear();
    it.reset();
    for (const QByteArray &path : conflicted) {
        const QFileInfo onDisk(repo.workTree() + QLatin1Char('/') + QString::fromUtf8(path));
        const int rc = (onDisk.exists() || onDisk.isSymLink()) ? git_index_add_bypath(idx, path.constData())
                                                               : git_index_remove_bypath(idx, path.constData());
        if (rc < 0)
            return git::error(rc, QStringLiteral("cannot resolve %1").arg(QString::fromUtf8(path)));
    }
    return mergeHeads;
}

// What git_index_add_all() does, for `paths` only (files, or directories with all below them): the
// index compared with the worktree at those paths, each difference added or removed. The compare
// skips every other directory of the worktree, so it costs what changed.
int addPaths(git_index *idx, const QList<QByteArray> &paths, Filter &filter)
{
    if (paths.isEmpty())
        return 0; // (an empty path list would mean the whole worktree to libgit2)
    std::vector<char *> list;
    list.reserve(paths.size());
    for (const QByteArray &p : paths)
        list.push_back(const_cast<char *>(p.constData()));
    git_diff_options opts = GIT_DIFF_OPTIONS_INIT;
    opts.flags = GIT_DIFF_INCLUDE_TYPECHANGE | GIT_DIFF_INCLUDE_UNTRACKED | GIT_DIFF_RECURSE_UNTRACKED_DIRS
        | GIT_DIFF_DISABLE_PATHSPEC_MATCH;
    opts.pathspec = {list.data(), list.size()};
    git_diff *raw = nullptr;
    if (int rc = git_diff_index_to_workdir(&raw, git_index_owner(idx), idx, &opts); rc < 0)
        return rc;
    git::DiffPtr diff(raw);
    for (size_t i = 0, n = git_diff_num_deltas(diff.get()); i < n; ++i) {
        const git_diff_delta *d = git_diff_get_delta(diff.get(), i);
        if (filterPath(d->old_file.path, nullptr, &filter) > 0)
            continue;
        const int rc = (d->new_file.flags & GIT_DIFF_FLAG_EXISTS) ? git_index_add_bypath(idx, d->new_file.path)
                                                                  : git_index_remove_bypath(idx, d->old_file.path);
        if (rc < 0)
            return rc;
    }
    return 0;
}

// The selected changes into the index: new and modified files added, deleted ones removed, in one
// pass over the worktree (or over `changed` only, when the watch knows them); then no gitlink and
// nothing inside a nested repository.
Result<void, WorkspaceError> stageChanges(
    git_index *idx, const NestedRepos &nested, const QStringList &selection, const QList<QByteArray> *changed)
{
    Filter filter {&nested, &selection};
    // A file being written meanwhile (an agent at work) can change size under libgit2's read,
    // which then fails: the pass is run again, reading the file as it is by then.
    int rc = 0;
    for (int attempt = 0; attempt < kAddAttempts; ++attempt) {
        if (attempt > 0)
            QThread::msleep(20 * attempt);
        rc = changed ? addPaths(idx, *changed, filter)
                     : git_index_add_all(idx, nullptr, GIT_INDEX_ADD_DEFAULT, filterPath, &filter);
        if (rc >= 0)
            break;
        const git_error *why = git_error_last();
        const QString detail = why && why->message ? QString::fromUtf8(why->message) : QString();
        if (storageFaultIn(detail) != StorageFault::None) { // a full disk does not change by reading again
            const git_repository *repo = git_index_owner(idx);
            const QString gitDir = repo ? QDir::cleanPath(QString::fromUtf8(git_repository_path(repo))) : QString();
            return git::error(rc, QStringLiteral("cannot add changes to '%1'").arg(gitDir));
        }
        qCInfo(lcWorkspace) << "a file changed while it was read; adding again:" << detail;
    }
    if (rc < 0)
        return git::error(rc, QStringLiteral("cannot add changes (files kept changing while they were read)"));
    // Belt and braces: no gitlink and nothing inside a nested repository may reach a tree.
    for (size_t i = git_index_entrycount(idx); i-- > 0;) {
        const git_index_entry *e = git_index_get_byindex(idx, i);
        if (!e || (e->mode != GIT_FILEMODE_COMMIT && nested.isEmpty()))
            continue;
        const QString path = QString::fromUtf8(e->path);
        if (e->mode == GIT_FILEMODE_COMMIT || (nested.covers(path) && selected(selection, path))) {
            const QByteArray native(e->path);
            if (int rc = git_index_remove(idx, native.constData(), git_index_entry_stage(e)); rc < 0)
                return git::error(rc, QStringLiteral("cannot drop %1").arg(path));
        }
    }
    return {};
}

// The commit of `treeId` on `head` (and the merge's other heads), by the workspace's signature.
Result<git_oid, WorkspaceError> writeCommit(
    GitRepo &repo, const git_oid &treeId, const git_commit *head, const QList<git_oid> &mergeHeads, const QString &text)
{
    git_tree *rawTree = nullptr;
    if (int rc = git_tree_lookup(&rawTree, repo.get(), &treeId); rc < 0)
        return git::error(rc, QStringLiteral("cannot read the tree"));
    git::TreePtr tree(rawTree);
    auto sig = repo.signature();
    if (!sig)
        return sig.error();
    std::vector<git::CommitPtr> parentCommits;
    std::vector<const git_commit *> parents {head};
    for (const git_oid &id : mergeHeads) {
        auto c = repo.commit(id);
        if (!c)
            return c.error();
        parents.push_back(c.value().get());
        parentCommits.push_back(std::move(c.value()));
    }
    const QByteArray msg = text.toUtf8() + '\n';
    git_oid commitId;
    if (int rc = git_commit_create(&commitId, repo.get(), nullptr, sig.value().get(), sig.value().get(), nullptr,
            msg.constData(), tree.get(), parents.size(), parents.data());
        rc < 0)
        return git::error(rc, QStringLiteral("cannot write the commit"));
    return commitId;
}

// Why a selected path cannot be saved as named: it leads through a symbolic link (git saves the
// link itself, never what is behind it, so the file asked for would be left out without a word).
// Empty when every path is fine.
QString throughSymlink(const QString &workTree, const QStringList &selection)
{
    for (const QString &path : selection) {
        const QStringList parts = path.split(u'/');
        QString prefix;
        for (qsizetype i = 0; i + 1 < parts.size(); ++i) {
            prefix += (i ? QStringLiteral("/") : QString()) + parts.at(i);
            if (QFileInfo(workTree + u'/' + prefix).isSymLink())
                return QStringLiteral("%1 leads through %2, a symbolic link: a save keeps the link, not what it "
                                      "points to; select %2 itself")
                    .arg(path, prefix);
        }
    }
    return {};
}

} // namespace

std::optional<QStringList> SessionCommitter::normalize(const QStringList &selection)
{
    QStringList out;
    for (const QString &raw : selection) {
        if (raw.isEmpty() || QDir::isAbsolutePath(raw))
            return std::nullopt;
        const QString clean = QDir::cleanPath(raw);
        if (clean == QLatin1String(".."))
            return std::nullopt;
        if (clean.startsWith(QLatin1String("../")))
            return std::nullopt;
        if (clean == QLatin1String("."))
            return QStringList(); // the whole worktree
        out.append(clean);
    }
    out.removeDuplicates();
    return out;
}

Result<CommitResult, WorkspaceError> SessionCommitter::commit(const QStringList &rawSelection, const QString &message)
{
    git_repository *repo = m_repo.get();
    const auto selection = normalize(rawSelection);
    if (!selection)
        return WorkspaceError::invalid(QStringLiteral("the selection names a path outside the worktree"));
    if (auto through = throughSymlink(m_repo.workTree(), *selection); !through.isEmpty())
        return WorkspaceError::invalid(through);
    auto index = m_repo.index();
    if (!index)
        return index.error();
    git_index *idx = index.value().get();
    // A whole save looks only at what the kernel heard change since the last one, when it can.
    const bool whole = selection->isEmpty();
    const QString indexPath = QString::fromUtf8(git_index_path(idx));
    WorktreeWatch::Changes changed;
    if (whole)
        changed = m_repo.watch().take(indexPath);
    const std::optional<NestedRepos> before = m_repo.exclusions();
    if (!before)
        changed.everything = true; // (the first save: the watch answers "everything" then too)
    if (whole && changed.everything)
        qCDebug(lcWorkspace).noquote() << "save: scanning the whole worktree:" << changed.why;
    auto nested = (changed.everything || changed.directories) ? m_repo.refreshExclusions()
                                                              : Result<NestedRepos, WorkspaceError>(*before);
    if (!nested)
        return nested.error();
    if (!changed.everything && nested.value().dirs() != before->dirs()) {
        // A nested repository came or went: all below it changes sides, written or not. (Both
        // lists are sorted.)
        QStringList cameOrWent;
        std::set_symmetric_difference(nested.value().dirs().cbegin(), nested.value().dirs().cend(),
            before->dirs().cbegin(), before->dirs().cend(), std::back_inserter(cameOrWent));
        for (const QString &dir : std::as_const(cameOrWent))
            changed.paths.append(QFile::encodeName(dir));
        std::sort(changed.paths.begin(), changed.paths.end());
        changed.paths.erase(std::unique(changed.paths.begin(), changed.paths.end()), changed.paths.end());
    }
    // The repository shares this index object with checkouts and merges: a commit that fails
    // after changing it in memory puts it back as the disk has it.
    struct Reload
    {
        const GitRepo &repo;
        bool done = false;
        ~Reload()
        {
            if (!done)
                repo.reloadIndex();
        }
    } reload {m_repo};
    if (auto checked = checkSelection(m_repo, *selection, nested.value(), idx); !checked)
        return checked.error();

    auto head = m_repo.target(m_repo.sessionRef());
    if (!head)
        return head.error();
    if (!head.value())
        return WorkspaceError::notFound(QStringLiteral("the session branch is missing"));
    const git_oid headId = *head.value();
    auto headCommit = m_repo.commit(headId);
    if (!headCommit)
        return headCommit.error();

    const bool merging = git_repository_state(repo) == GIT_REPOSITORY_STATE_MERGE;
    QList<git_oid> mergeHeads;
    if (merging) {
        auto taken = takeConflicts(m_repo, idx);
        if (!taken)
            return taken.error();
        mergeHeads = taken.value();
    }
    if (auto staged = stageChanges(idx, nested.value(), *selection, changed.everything ? nullptr : &changed.paths);
        !staged)
        return staged.error();

    git_oid treeId;
    if (int rc = git_index_write_tree(&treeId, idx); rc < 0)
        return git::error(rc, QStringLiteral("cannot write the tree"));
    if (int rc = git_index_write(idx); rc < 0)
        return git::error(rc, QStringLiteral("cannot write the index"));
    reload.done = true;
    if (whole)
        m_repo.watch().settle(indexPath, changed.everything);
    if (!merging && git_oid_equal(&treeId, git_commit_tree_id(headCommit.value().get())))
        return CommitResult {git::toHex(headId), false, false, changed.everything};

    QString text = message.trimmed();
    if (text.isEmpty())
        text = merging ? QStringLiteral("Merge main into session/%1").arg(m_repo.sessionId()) : QStringLiteral("Save");
    auto commitId = writeCommit(m_repo, treeId, headCommit.value().get(), mergeHeads, text);
    if (!commitId)
        return commitId.error();
    if (auto r = m_repo.moveRef(m_repo.sessionRef(), commitId.value(), headId, QStringLiteral("workspace: save")); !r)
        return r.error();
    if (merging) {
        if (int rc = git_repository_state_cleanup(repo); rc < 0)
            return git::error(rc, QStringLiteral("cannot clear the merge state"));
    }
    return CommitResult {git::toHex(commitId.value()), true, merging, changed.everything};
}

} // namespace isolation
