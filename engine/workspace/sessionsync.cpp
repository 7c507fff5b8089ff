#include "sessionsync.h"

#include "gitrepo.h"
#include "worktreewriter.h"

#include <QFile>

namespace isolation {

namespace {

bool opensRegion(const char *line, qsizetype length)
{
    return length >= 7 && qstrncmp(line, "<<<<<<<", 7) == 0 && (length == 7 || line[7] == ' ' || line[7] == '\n');
}

struct Blocked
{
    QStringList paths;
};

} // namespace

int SessionSync::countRegions(const QByteArray &text)
{
    int regions = 0;
    qsizetype start = 0;
    while (start < text.size()) {
        qsizetype end = text.indexOf('\n', start);
        if (end < 0)
            end = text.size();
        if (opensRegion(text.constData() + start, end - start))
            ++regions;
        start = end + 1;
    }
    return regions;
}

int SessionSync::countRegionsInFile(const QString &path)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return 0;
    int regions = 0;
    while (!file.atEnd()) {
        const QByteArray line = file.readLine(qint64(64) * 1024);
        if (opensRegion(line.constData(), line.size()))
            ++regions;
    }
    return regions;
}

Result<SyncResult, WorkspaceError> SessionSync::mergeMain(ConflictMode mode, const CheckoutProgress &progress)
{
    git_repository *repo = m_repo.get();
    if (git_repository_state(repo) == GIT_REPOSITORY_STATE_MERGE)
        return WorkspaceError::conflict(QStringLiteral("a merge is already in progress: save to complete it"));
    auto session = m_repo.target(m_repo.sessionRef());
    if (!session)
        return session.error();
    auto main = m_repo.target(GitRepo::kMainRef);
    if (!main)
        return main.error();
    if (!session.value() || !main.value())
        return WorkspaceError::notFound(QStringLiteral("main or the session branch is missing"));
    const git_oid s = *session.value();
    const git_oid m = *main.value();
    if (auto r = m_repo.refreshExclusions(); !r)
        return r.error();

    auto upToDate = m_repo.isAncestor(m, s);
    if (!upToDate)
        return upToDate.error();
    if (upToDate.value())
        return SyncResult {SyncOutcome::UpToDate, {}, git::toHex(s)};

    auto mainCommit = m_repo.commit(m);
    if (!mainCommit)
        return mainCommit.error();
    auto fastForward = m_repo.isAncestor(s, m);
    if (!fastForward)
        return fastForward.error();
    if (fastForward.value()) {
        // Files first, then the branch: a kill in between leaves main's changes as uncommitted
        // edits (saved again later), never the reverse. A session filled from nothing (every file
        // new) is written from several threads; anything else by libgit2's checkout.
        auto fresh = WorktreeWriter(m_repo).writeFresh(m, progress);
        if (!fresh)
            return fresh.error();
        if (!fresh.value()) {
            if (auto r = checkout(*git_commit_tree_id(mainCommit.value().get())); !r)
                return r.error();
        }
        if (auto r = m_repo.moveRef(m_repo.sessionRef(), m, s, QStringLiteral("workspace: sync fast-forward")); !r)
            return r.error();
        return SyncResult {SyncOutcome::FastForwarded, {}, git::toHex(m)};
    }

    auto sessionCommit = m_repo.commit(s);
    if (!sessionCommit)
        return sessionCommit.error();
    git_index *rawIndex = nullptr;
    if (int rc = git_merge_commits(&rawIndex, repo, sessionCommit.value().get(), mainCommit.value().get(), nullptr);
        rc < 0)
        return git::error(rc, QStringLiteral("cannot merge main"));
    git::IndexPtr merged(rawIndex);
    if (git_index_has_conflicts(merged.get())) {
        auto conflicts = conflictsOf(merged.get());
        if (!conflicts)
            return conflicts.error();
        if (mode == ConflictMode::Stop)
            return SyncResult {SyncOutcome::Conflicted, std::move(conflicts.value()), git::toHex(s)};
        return writeConflicts(std::move(conflicts.value()));
    }

    git_oid treeId;
    if (int rc = git_index_write_tree_to(&treeId, merged.get(), repo); rc < 0)
        return git::error(rc, QStringLiteral("cannot write the merged tree"));
    git_tree *rawTree = nullptr;
    if (int rc = git_tree_lookup(&rawTree, repo, &treeId); rc < 0)
        return git::error(rc, QStringLiteral("cannot read the merged tree"));
    git::TreePtr tree(rawTree);
    auto sig = m_repo.signature();
    if (!sig)
        return sig.error();
    const QByteArray message = QStringLiteral("Merge main into session/%1\n").arg(m_repo.sessionId()).toUtf8();
    const git_commit *parents[] = {sessionCommit.value().get(), mainCommit.value().get()};
    git_oid mergeId;
    if (int rc = git_commit_create(&mergeId, repo, nullptr, sig.value().get(), sig.value().get(), nullptr,
            message.constData(), tree.get(), 2, parents);
        rc < 0)
        return git::error(rc, QStringLiteral("cannot write the merge commit"));
    if (auto r = checkout(treeId); !r)
        return r.error();
    if (auto r = m_repo.moveRef(m_repo.sessionRef(), mergeId, s, QStringLiteral("workspace: sync merge")); !r)
        return r.error();
    return SyncResult {SyncOutcome::Merged, {}, git::toHex(mergeId)};
}

Result<QList<ConflictedFile>, WorkspaceError> SessionSync::conflictsOf(git_index *merged) const
{
    QList<ConflictedFile> conflicts;
    git_index_conflict_iterator *rawIt = nullptr;
    if (int rc = git_index_conflict_iterator_new(&rawIt, merged); rc < 0)
        return git::error(rc, QStringLiteral("cannot list conflicts"));
    git::IndexConflictIteratorPtr it(rawIt);
    const git_index_entry *ancestor = nullptr, *ours = nullptr, *theirs = nullptr;
    int rc = 0;
    while ((rc = git_index_conflict_next(&ancestor, &ours, &theirs, it.get())) == 0) {
        const git_index_entry *any = ours ? ours : (theirs ? theirs : ancestor);
        ConflictedFile file {QString::fromUtf8(any->path), 0};
        if (ours && theirs) {
            // The same three-way file merge the checkout does, in memory, to count its regions.
            git_merge_file_result result {};
            if (int mrc = git_merge_file_from_index(&result, m_repo.get(), ancestor, ours, theirs, nullptr); mrc < 0)
                return git::error(mrc, QStringLiteral("cannot merge %1").arg(file.path));
            file.regions = countRegions(QByteArray::fromRawData(result.ptr, qsizetype(result.len)));
            git_merge_file_result_free(&result);
        }
        conflicts.append(file);
    }
    if (rc != GIT_ITEROVER)
        return git::error(rc, QStringLiteral("cannot list conflicts"));
    git_error_clear();
    std::sort(conflicts.begin(), conflicts.end(),
        [](const ConflictedFile &a, const ConflictedFile &b) { return a.path < b.path; });
    return conflicts;
}

Result<void, WorkspaceError> SessionSync::checkout(const git_oid &treeId)
{
    git_object *rawTree = nullptr;
    if (int rc = git_object_lookup(&rawTree, m_repo.get(), &treeId, GIT_OBJECT_TREE); rc < 0)
        return git::error(rc, QStringLiteral("cannot read the tree to check out"));
    std::unique_ptr<git_object, git::Deleter<&git_object_free>> tree(rawTree);
    Blocked blocked;
    git_checkout_options opts;
    git_checkout_options_init(&opts, GIT_CHECKOUT_OPTIONS_VERSION);
    // Safe: a file changed in the worktree (or untracked in the way) stops the checkout before
    // anything is written.
    opts.checkout_strategy = GIT_CHECKOUT_SAFE;
    opts.notify_flags = GIT_CHECKOUT_NOTIFY_CONFLICT;
    opts.notify_cb = [](git_checkout_notify_t, const char *path, const git_diff_file *, const git_diff_file *,
                         const git_diff_file *, void *payload) -> int {
        static_cast<Blocked *>(payload)->paths.append(QString::fromUtf8(path));
        return 0;
    };
    opts.notify_payload = &blocked;
    const int rc = git_checkout_tree(m_repo.get(), tree.get(), &opts);
    if (rc < 0 && rc != GIT_ECONFLICT) {
        const WorkspaceError e = git::error(rc, QStringLiteral("cannot check out the merge"));
        m_repo.reloadIndex();
        return e;
    }
    if (rc == GIT_ECONFLICT) {
        m_repo.reloadIndex();
        git_error_clear();
        blocked.paths.sort();
        return WorkspaceError::conflict(
            QStringLiteral("uncommitted changes would be overwritten by the sync (%1): save them first")
                .arg(blocked.paths.join(QStringLiteral(", "))));
    }
    return {};
}

Result<SyncResult, WorkspaceError> SessionSync::writeConflicts(QList<ConflictedFile> conflicts)
{
    git_repository *repo = m_repo.get();
    git_reference *rawMain = nullptr;
    if (int rc = git_reference_lookup(&rawMain, repo, GitRepo::kMainRef); rc < 0)
        return git::error(rc, QStringLiteral("cannot read main"));
    git::ReferencePtr mainRef(rawMain);
    git_annotated_commit *rawTheirs = nullptr;
    if (int rc = git_annotated_commit_from_ref(&rawTheirs, repo, mainRef.get()); rc < 0)
        return git::error(rc, QStringLiteral("cannot read main"));
    git::AnnotatedCommitPtr theirs(rawTheirs);
    const git_annotated_commit *heads[] = {theirs.get()};
    git_checkout_options checkoutOpts;
    git_checkout_options_init(&checkoutOpts, GIT_CHECKOUT_OPTIONS_VERSION);
    checkoutOpts.checkout_strategy = GIT_CHECKOUT_SAFE;
    // libgit2's merge: index with conflicts, markers in the worktree, MERGE_HEAD; it refuses
    // (cleaning up after itself) when uncommitted changes are in the way.
    const int rc = git_merge(repo, heads, 1, nullptr, &checkoutOpts);
    if (rc == GIT_ECONFLICT) {
        const WorkspaceError e = git::error(rc, QStringLiteral("uncommitted changes are in the way of the sync"));
        m_repo.reloadIndex();
        return WorkspaceError::conflict(e.message + QStringLiteral(": save them first"));
    }
    if (rc < 0) {
        const WorkspaceError e = git::error(rc, QStringLiteral("cannot merge main"));
        m_repo.reloadIndex();
        return e;
    }
    for (ConflictedFile &file : conflicts)
        file.regions = countRegionsInFile(m_repo.workTree() + QLatin1Char('/') + file.path);
    auto session = m_repo.target(m_repo.sessionRef());
    if (!session)
        return session.error();
    return SyncResult {SyncOutcome::ConflictsLeft, std::move(conflicts),
        session.value() ? git::toHex(*session.value()) : QByteArray()};
}

} // namespace isolation
