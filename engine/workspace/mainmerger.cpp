#include "mainmerger.h"

#include "gitrepo.h"

namespace isolation {

Result<MergeResult, WorkspaceError> MainMerger::merge()
{
    git_repository *repo = m_repo.get();
    if (git_repository_state(repo) == GIT_REPOSITORY_STATE_MERGE)
        return WorkspaceError::conflict(QStringLiteral("a sync's merge is in progress: save it first"));
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
    auto contained = m_repo.isAncestor(s, m);
    if (!contained)
        return contained.error();
    if (contained.value())
        return MergeResult {git::toHex(m), git::toHex(m), false};

    auto sessionCommit = m_repo.commit(s);
    if (!sessionCommit)
        return sessionCommit.error();
    auto mainCommit = m_repo.commit(m);
    if (!mainCommit)
        return mainCommit.error();
    auto behind = m_repo.isAncestor(m, s);
    if (!behind)
        return behind.error();
    git_oid treeId = *git_commit_tree_id(sessionCommit.value().get());
    if (!behind.value()) {
        // main moved since the session last synced: merge in memory, refuse on any conflict.
        git_index *rawIndex = nullptr;
        if (int rc = git_merge_commits(&rawIndex, repo, mainCommit.value().get(), sessionCommit.value().get(), nullptr);
            rc < 0)
            return git::error(rc, QStringLiteral("cannot merge the session into main"));
        git::IndexPtr merged(rawIndex);
        if (git_index_has_conflicts(merged.get()))
            return WorkspaceError::conflict(
                QStringLiteral("main and session/%1 conflict: sync first").arg(m_repo.sessionId()));
        if (int rc = git_index_write_tree_to(&treeId, merged.get(), repo); rc < 0)
            return git::error(rc, QStringLiteral("cannot write the merged tree"));
    }
    git_tree *rawTree = nullptr;
    if (int rc = git_tree_lookup(&rawTree, repo, &treeId); rc < 0)
        return git::error(rc, QStringLiteral("cannot read the merged tree"));
    git::TreePtr tree(rawTree);
    auto sig = m_repo.signature();
    if (!sig)
        return sig.error();
    const QByteArray message = QStringLiteral("Merge session/%1 into main\n").arg(m_repo.sessionId()).toUtf8();
    const git_commit *parents[] = {mainCommit.value().get(), sessionCommit.value().get()};
    git_oid mergeId;
    if (int rc = git_commit_create(&mergeId, repo, nullptr, sig.value().get(), sig.value().get(), nullptr,
            message.constData(), tree.get(), 2, parents);
        rc < 0)
        return git::error(rc, QStringLiteral("cannot write the merge commit"));

    auto base = m_repo.target(GitRepo::kSaveBaseRef);
    if (!base)
        return base.error();
    if (!base.value()) {
        if (auto r = m_repo.moveRef(GitRepo::kSaveBaseRef, m, std::nullopt, QStringLiteral("workspace: save base")); !r)
            return r.error();
    }
    if (auto r = m_repo.moveRef(GitRepo::kMainRef, mergeId, m, QStringLiteral("workspace: merge session")); !r)
        return r.error();
    return MergeResult {git::toHex(mergeId), git::toHex(m), true};
}

Result<void, WorkspaceError> MainMerger::undo()
{
    auto base = m_repo.target(GitRepo::kSaveBaseRef);
    if (!base)
        return base.error();
    if (!base.value())
        return {};
    auto main = m_repo.target(GitRepo::kMainRef);
    if (!main)
        return main.error();
    if (!main.value() || !git_oid_equal(&*main.value(), &*base.value())) {
        if (auto r
            = m_repo.moveRef(GitRepo::kMainRef, *base.value(), main.value(), QStringLiteral("workspace: undo merge"));
            !r)
            return r;
    }
    return m_repo.deleteRef(GitRepo::kSaveBaseRef, *base.value());
}

Result<bool, WorkspaceError> MainMerger::pending() const
{
    auto base = m_repo.target(GitRepo::kSaveBaseRef);
    if (!base)
        return base.error();
    return bool(base.value());
}

} // namespace isolation
