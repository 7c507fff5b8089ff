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
    if (contained.value()) {
        // Killed between moving main and taking the merge: take it now.
        if (auto taken = takeMerge(m, s); !taken)
            return taken.error();
        return MergeResult {git::toHex(m), git::toHex(m), false};
    }

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
    if (auto taken = takeMerge(mergeId, s); !taken)
        return taken.error();
    return MergeResult {git::toHex(mergeId), git::toHex(m), true};
}

Result<bool, WorkspaceError> MainMerger::takeMerge(const git_oid &main, const git_oid &session)
{
    if (git_oid_equal(&main, &session))
        return false;
    auto mainCommit = m_repo.commit(main);
    if (!mainCommit)
        return mainCommit.error();
    const git_commit *merge = mainCommit.value().get();
    // Only this session's own merge (its tip as the second parent), and only when it changed no
    // file of the session: the session's files and index stay exactly as they are.
    if (git_commit_parentcount(merge) != 2 || !git_oid_equal(git_commit_parent_id(merge, 1), &session))
        return false;
    auto sessionCommit = m_repo.commit(session);
    if (!sessionCommit)
        return sessionCommit.error();
    if (!git_oid_equal(git_commit_tree_id(merge), git_commit_tree_id(sessionCommit.value().get())))
        return false;
    if (auto r = m_repo.moveRef(m_repo.sessionRef(), main, session, QStringLiteral("workspace: take the save's merge"));
        !r)
        return r.error();
    return true;
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
    if (main.value() && !git_oid_equal(&*main.value(), &*base.value())) {
        // The session branch took the merge being undone: back to its own tip (the same files).
        auto session = m_repo.target(m_repo.sessionRef());
        if (!session)
            return session.error();
        if (session.value() && git_oid_equal(&*session.value(), &*main.value())) {
            auto merge = m_repo.commit(*main.value());
            if (!merge)
                return merge.error();
            if (git_commit_parentcount(merge.value().get()) == 2) {
                const git_oid own = *git_commit_parent_id(merge.value().get(), 1);
                if (auto r = m_repo.moveRef(
                        m_repo.sessionRef(), own, *session.value(), QStringLiteral("workspace: undo merge"));
                    !r)
                    return r;
            }
        }
    }
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
