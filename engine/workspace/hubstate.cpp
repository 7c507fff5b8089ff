#include "hubstate.h"

#include "gitrepo.h"

#include <QHash>
#include <QSet>

namespace isolation {

bool HubState::isWorkspaceBranch(const QByteArray &ref)
{
    if (ref == GitRepo::kMainRef)
        return true;
    if (!ref.startsWith(GitRepo::kSessionPrefix))
        return false;
    return GitRepo::isValidSessionId(QString::fromUtf8(ref.mid(qstrlen(GitRepo::kSessionPrefix))));
}

QByteArray HubState::hubRef(const QByteArray &branch)
{
    return GitRepo::kHubPrefix + branch.mid(qstrlen("refs/heads/"));
}

Result<HubState::Plan, WorkspaceError> HubState::plan(bool full) const
{
    Plan plan;
    auto main = m_repo.target(GitRepo::kMainRef);
    if (!main)
        return main.error();
    if (!main.value())
        return WorkspaceError::notFound(QStringLiteral("main is missing"));
    const QByteArray mainHex = git::toHex(*main.value());
    plan.refs.append({mainHex, "HEAD"});
    plan.refs.append({mainHex, GitRepo::kMainRef});
    auto sessions = m_repo.refsUnder(GitRepo::kSessionPrefix);
    if (!sessions)
        return sessions.error();
    for (const auto &[name, id] : sessions.value()) {
        if (isWorkspaceBranch(name))
            plan.refs.append({git::toHex(id), name});
    }
    if (full)
        return plan;

    auto hub = m_repo.refsUnder(GitRepo::kHubPrefix);
    if (!hub)
        return hub.error();
    QHash<QByteArray, QByteArray> recorded;
    QSet<QByteArray> seen;
    for (const auto &[name, id] : hub.value()) {
        const QByteArray hex = git::toHex(id);
        recorded.insert(name, hex);
        if (!seen.contains(hex)) {
            seen.insert(hex);
            plan.prerequisites.append(hex);
        }
    }
    plan.upToDate = true;
    for (const BundleRef &ref : plan.refs) {
        if (ref.name != "HEAD" && recorded.value(hubRef(ref.name)) != ref.id)
            plan.upToDate = false;
    }
    return plan;
}

Result<void, WorkspaceError> HubState::set(const QByteArray &ref, const QByteArray &hex, const QString &why)
{
    const auto id = git::fromHex(hex);
    if (!id)
        return WorkspaceError::corrupt(QStringLiteral("bad object id %1").arg(QString::fromLatin1(hex)));
    auto current = m_repo.target(ref);
    if (!current)
        return current.error();
    if (current.value() && git_oid_equal(&*current.value(), &*id))
        return {};
    return m_repo.moveRef(ref, *id, current.value(), why);
}

Result<void, WorkspaceError> HubState::markPublished(const QList<BundleRef> &refs)
{
    for (const BundleRef &ref : refs) {
        if (!isWorkspaceBranch(ref.name))
            continue;
        if (auto r = set(hubRef(ref.name), ref.id, QStringLiteral("workspace: published")); !r)
            return r;
    }
    auto base = m_repo.target(GitRepo::kSaveBaseRef);
    if (!base)
        return base.error();
    if (base.value())
        return m_repo.deleteRef(GitRepo::kSaveBaseRef, *base.value());
    return {};
}

Result<QList<BundleRef>, WorkspaceError> HubState::adopt(const BundleHeader &header)
{
    QList<BundleRef> branches;
    git_odb *rawOdb = nullptr;
    if (int rc = git_repository_odb(&rawOdb, m_repo.get()); rc < 0)
        return git::error(rc, QStringLiteral("cannot open the object database"));
    git::OdbPtr odb(rawOdb);
    for (const BundleRef &ref : header.refs) {
        if (!isWorkspaceBranch(ref.name))
            continue;
        const auto id = git::fromHex(ref.id);
        size_t size = 0;
        git_object_t type = GIT_OBJECT_INVALID;
        if (!id || git_odb_read_header(&size, &type, odb.get(), &*id) < 0 || type != GIT_OBJECT_COMMIT) {
            git_error_clear();
            return WorkspaceError::corrupt(
                QStringLiteral("the bundle's %1 is not a commit").arg(QString::fromUtf8(ref.name)));
        }
        branches.append(ref);
    }

    // The hub's record first: a kill after it leaves a state the same bundle re-applies over.
    for (const BundleRef &ref : branches) {
        if (auto r = set(hubRef(ref.name), ref.id, QStringLiteral("workspace: from hub")); !r)
            return r.error();
    }
    for (const BundleRef &ref : branches) {
        if (ref.name == m_repo.sessionRef())
            continue;
        if (auto r = set(ref.name, ref.id, QStringLiteral("workspace: from hub")); !r)
            return r.error();
        if (ref.name == GitRepo::kMainRef) {
            auto base = m_repo.target(GitRepo::kSaveBaseRef);
            if (!base)
                return base.error();
            if (base.value()) {
                if (auto r = m_repo.deleteRef(GitRepo::kSaveBaseRef, *base.value()); !r)
                    return r.error();
            }
        }
    }
    return branches;
}

} // namespace isolation
