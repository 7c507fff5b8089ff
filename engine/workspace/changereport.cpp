#include "changereport.h"

#include "gitrepo.h"

namespace isolation {

namespace {

std::optional<FileStatus> classify(unsigned int s)
{
    if (s & GIT_STATUS_CONFLICTED)
        return FileStatus::Conflicted;
    if (s & (GIT_STATUS_INDEX_RENAMED | GIT_STATUS_WT_RENAMED))
        return FileStatus::Renamed;
    if (s & (GIT_STATUS_INDEX_TYPECHANGE | GIT_STATUS_WT_TYPECHANGE))
        return FileStatus::TypeChange;
    if (s & GIT_STATUS_INDEX_NEW)
        return (s & GIT_STATUS_WT_DELETED) ? std::nullopt : std::optional(FileStatus::Added);
    if (s & GIT_STATUS_WT_NEW)
        return FileStatus::Untracked;
    if (s & (GIT_STATUS_INDEX_DELETED | GIT_STATUS_WT_DELETED))
        return FileStatus::Deleted;
    if (s & (GIT_STATUS_INDEX_MODIFIED | GIT_STATUS_WT_MODIFIED))
        return FileStatus::Modified;
    return std::nullopt;
}

struct TreeWalk
{
    QString prefix;
    QList<FileChange> *out;
};

// The worktree's status against the session's commit (index and worktree, renames found), less
// what lies inside a nested repository.
Result<void, WorkspaceError> statusOf(git_repository *repo, const NestedRepos &nested, QList<FileChange> *out)
{
    git_status_options opts;
    git_status_options_init(&opts, GIT_STATUS_OPTIONS_VERSION);
    opts.show = GIT_STATUS_SHOW_INDEX_AND_WORKDIR;
    opts.flags = GIT_STATUS_OPT_INCLUDE_UNTRACKED | GIT_STATUS_OPT_RECURSE_UNTRACKED_DIRS
        | GIT_STATUS_OPT_RENAMES_HEAD_TO_INDEX | GIT_STATUS_OPT_RENAMES_INDEX_TO_WORKDIR
        | GIT_STATUS_OPT_EXCLUDE_SUBMODULES | GIT_STATUS_OPT_SORT_CASE_SENSITIVELY;
    git_status_list *rawList = nullptr;
    if (int rc = git_status_list_new(&rawList, repo, &opts); rc < 0)
        return git::error(rc, QStringLiteral("cannot read the worktree's status"));
    git::StatusListPtr list(rawList);
    for (size_t i = 0, n = git_status_list_entrycount(list.get()); i < n; ++i) {
        const git_status_entry *e = git_status_byindex(list.get(), i);
        const auto status = classify(e->status);
        if (!status)
            continue;
        const git_diff_delta *last = e->index_to_workdir ? e->index_to_workdir : e->head_to_index;
        const git_diff_delta *first = e->head_to_index ? e->head_to_index : e->index_to_workdir;
        if (!last)
            continue;
        FileChange change;
        change.status = *status;
        change.path = QString::fromUtf8(last->new_file.path ? last->new_file.path : last->old_file.path);
        if (change.path.endsWith(QLatin1Char('/')))
            change.path.chop(1);
        if (*status == FileStatus::Renamed)
            change.oldPath = QString::fromUtf8(first->old_file.path);
        if (nested.covers(change.path))
            continue;
        out->append(change);
    }
    return {};
}

// The files `head` holds inside the directories that are now nested repositories: deleted.
Result<void, WorkspaceError> leavingForNested(
    git_repository *repo, git_commit *head, const NestedRepos &nested, QList<FileChange> *out)
{
    git_tree *rawTree = nullptr;
    if (int rc = git_commit_tree(&rawTree, head); rc < 0)
        return git::error(rc, QStringLiteral("cannot read the session's tree"));
    git::TreePtr tree(rawTree);
    for (const QString &dir : nested.dirs()) {
        git_tree_entry *rawEntry = nullptr;
        const QByteArray path = dir.toUtf8();
        if (git_tree_entry_bypath(&rawEntry, tree.get(), path.constData()) < 0) {
            git_error_clear();
            continue;
        }
        git::TreeEntryPtr entry(rawEntry);
        if (git_tree_entry_type(entry.get()) != GIT_OBJECT_TREE) {
            out->append({dir, {}, FileStatus::Deleted});
            continue;
        }
        git_tree *rawSub = nullptr;
        if (int rc = git_tree_lookup(&rawSub, repo, git_tree_entry_id(entry.get())); rc < 0)
            return git::error(rc, QStringLiteral("cannot read %1").arg(dir));
        git::TreePtr sub(rawSub);
        TreeWalk walk {dir + QLatin1Char('/'), out};
        git_tree_walk(
            sub.get(), GIT_TREEWALK_PRE,
            [](const char *root, const git_tree_entry *entry, void *payload) -> int {
                if (git_tree_entry_type(entry) == GIT_OBJECT_TREE)
                    return 0;
                auto *w = static_cast<TreeWalk *>(payload);
                w->out->append({w->prefix + QString::fromUtf8(root) + QString::fromUtf8(git_tree_entry_name(entry)),
                    {}, FileStatus::Deleted});
                return 0;
            },
            &walk);
    }
    return {};
}

} // namespace

Result<WorkspaceChanges, WorkspaceError> ChangeReport::collect()
{
    git_repository *repo = m_repo.get();
    auto nested = m_repo.refreshExclusions();
    if (!nested)
        return nested.error();
    WorkspaceChanges changes;
    changes.mergeInProgress = git_repository_state(repo) == GIT_REPOSITORY_STATE_MERGE;
    if (auto listed = statusOf(repo, nested.value(), &changes.files); !listed)
        return listed.error();

    auto session = m_repo.target(m_repo.sessionRef());
    if (!session)
        return session.error();
    auto main = m_repo.target(GitRepo::kMainRef);
    if (!main)
        return main.error();

    // Files the session's commit holds inside what is now a nested repository leave the workspace.
    if (session.value() && !nested.value().isEmpty()) {
        auto head = m_repo.commit(*session.value());
        if (!head)
            return head.error();
        if (auto left = leavingForNested(repo, head.value().get(), nested.value(), &changes.files); !left)
            return left.error();
    }
    std::sort(changes.files.begin(), changes.files.end(),
        [](const FileChange &a, const FileChange &b) { return a.path < b.path; });

    if (session.value() && main.value()) {
        size_t ahead = 0, behind = 0;
        if (int rc = git_graph_ahead_behind(&ahead, &behind, repo, &*session.value(), &*main.value()); rc < 0)
            return git::error(rc, QStringLiteral("cannot compare the session with main"));
        changes.ahead = int(ahead);
        changes.behind = int(behind);
    }
    return changes;
}

} // namespace isolation
