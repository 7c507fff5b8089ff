#include "workspace.h"

#include "bundlereader.h"
#include "bundlewriter.h"
#include "changereport.h"
#include "gitrepo.h"
#include "hubstate.h"
#include "mainmerger.h"
#include "sessioncommitter.h"
#include "sessionsync.h"
#include "treeexport.h"

#include <QDir>

namespace isolation {

Workspace::Workspace(std::unique_ptr<GitRepo> repo)
    : m_repo(std::move(repo))
{ }

Workspace::~Workspace() = default;

Result<std::unique_ptr<Workspace>, WorkspaceError> Workspace::open(
    const QString &gitDir, const QString &workTree, const QString &sessionId, const Clock &clock)
{
    auto repo = GitRepo::open(gitDir, workTree, sessionId, clock);
    if (!repo)
        return repo.error();
    qCInfo(lcWorkspace) << "opened session" << sessionId;
    return std::unique_ptr<Workspace>(new Workspace(std::move(repo.value())));
}

Result<void, WorkspaceError> Workspace::renameSession(
    const QString &gitDir, const QString &workTree, const QString &from, const QString &to)
{
    return GitRepo::renameSession(gitDir, workTree, from, to);
}

QString Workspace::sessionId() const
{
    return m_repo->sessionId();
}

QString Workspace::gitDir() const
{
    return m_repo->gitDir();
}

QString Workspace::workTree() const
{
    return m_repo->workTree();
}

void Workspace::setAuthor(const QString &name, const QString &email)
{
    m_repo->setAuthor(name, email);
}

Result<CommitResult, WorkspaceError> Workspace::commit(const QStringList &selection, const QString &message)
{
    return SessionCommitter(*m_repo).commit(selection, message);
}

Result<MergeResult, WorkspaceError> Workspace::mergeIntoMain()
{
    return MainMerger(*m_repo).merge();
}

Result<SegmentResult, WorkspaceError> Workspace::writeSegment(
    QIODevice &out, SegmentKind kind, const QList<QByteArray> &over)
{
    return writeBundle(out, kind == SegmentKind::Full, true, kind == SegmentKind::Full ? QList<QByteArray>() : over);
}

Result<SegmentResult, WorkspaceError> Workspace::exportBundle(QIODevice &out)
{
    return writeBundle(out, true, false);
}

Result<SegmentResult, WorkspaceError> Workspace::writeBundle(
    QIODevice &out, bool full, bool skipWhenCurrent, const QList<QByteArray> &over)
{
    // The plan against the hub tells whether anything is new, also for a full segment.
    auto plan = HubState(*m_repo).plan(!skipWhenCurrent);
    if (!plan)
        return plan.error();
    SegmentResult result;
    result.refs = plan.value().refs;
    if (!full)
        result.prerequisites = over.isEmpty() ? plan.value().prerequisites : over;
    for (const QByteArray &hex : std::as_const(over)) {
        auto commit = git::fromHex(hex);
        if (!commit || !m_repo->commit(*commit))
            return WorkspaceError::notFound(
                QStringLiteral("the roll-up's base %1 is not here").arg(QString::fromLatin1(hex)));
    }
    if (skipWhenCurrent && plan.value().upToDate)
        return result;
    auto stats = BundleWriter(m_repo->get(), m_cancel).write(result.refs, result.prerequisites, out);
    if (!stats)
        return stats.error();
    result.written = true;
    result.bytes = stats.value().bytes;
    result.objects = stats.value().objects;
    qCInfo(lcWorkspace) << (full ? "exported" : "wrote segment") << result.objects << "objects," << result.bytes
                        << "bytes," << result.prerequisites.size() << "prerequisites";
    return result;
}

Result<TreeExportResult, WorkspaceError> Workspace::exportTree(QIODevice &out, const QByteArray &definition)
{
    auto main = m_repo->target(GitRepo::kMainRef);
    if (!main)
        return main.error();
    if (!main.value())
        return WorkspaceError::notFound(QStringLiteral("main is missing"));
    auto result = TreeExport(m_repo->get()).write(*main.value(), definition, out);
    if (result)
        qCInfo(lcWorkspace) << "exported" << result.value().files << "files," << result.value().stripped.size()
                            << "credentials left out";
    return result;
}

Result<void, WorkspaceError> Workspace::markPublished(const SegmentResult &segment)
{
    return HubState(*m_repo).markPublished(segment.refs);
}

Result<void, WorkspaceError> Workspace::undoMerge()
{
    return MainMerger(*m_repo).undo();
}

Result<void, WorkspaceError> Workspace::restoreWorkTree()
{
    if (!QDir().mkpath(workTree()))
        return WorkspaceError::failed(QStringLiteral("cannot create %1").arg(workTree()));
    // Every file of the session branch written again, and the index made to match it.
    git_checkout_options opts;
    git_checkout_options_init(&opts, GIT_CHECKOUT_OPTIONS_VERSION);
    opts.checkout_strategy = GIT_CHECKOUT_FORCE;
    if (int rc = git_checkout_head(m_repo->get(), &opts); rc < 0) {
        const WorkspaceError e
            = git::error(rc, QStringLiteral("cannot check the session branch out into %1").arg(workTree()));
        m_repo->reloadIndex();
        return e;
    }
    return {};
}

Result<bool, WorkspaceError> Workspace::savePending() const
{
    return MainMerger(*m_repo).pending();
}

Result<ApplyResult, WorkspaceError> Workspace::applyBundle(QIODevice &in)
{
    auto contents = BundleReader(m_repo->get(), m_repo->tempRoot()).read(in);
    if (!contents)
        return contents.error();
    auto branches = HubState(*m_repo).adopt(contents.value().header);
    if (!branches)
        return branches.error();
    auto main = refId(GitRepo::kMainRef);
    if (!main)
        return main.error();
    qCInfo(lcWorkspace) << "applied a bundle of" << contents.value().objects << "objects";
    return ApplyResult {std::move(branches.value()), main.value(), contents.value().objects};
}

Result<ApplyResult, WorkspaceError> Workspace::adoptHubRefs(const QList<BundleRef> &refs)
{
    // Objects may have been added to objects/ from outside since libgit2 last looked.
    git_odb *rawOdb = nullptr;
    if (int rc = git_repository_odb(&rawOdb, m_repo->get()); rc < 0)
        return git::error(rc, QStringLiteral("cannot open the object database"));
    git::OdbPtr odb(rawOdb);
    if (int rc = git_odb_refresh(odb.get()); rc < 0)
        return git::error(rc, QStringLiteral("cannot reload the object database"));
    BundleHeader header;
    header.refs = refs;
    auto branches = HubState(*m_repo).adopt(header);
    if (!branches)
        return branches.error();
    auto main = refId(GitRepo::kMainRef);
    if (!main)
        return main.error();
    return ApplyResult {std::move(branches.value()), main.value(), 0};
}

Result<QList<BundleRef>, WorkspaceError> Workspace::hubRefs() const
{
    auto hub = m_repo->refsUnder(GitRepo::kHubPrefix);
    if (!hub)
        return hub.error();
    QList<BundleRef> refs;
    for (const auto &[name, id] : hub.value())
        refs.append({git::toHex(id), "refs/heads/" + name.mid(qstrlen(GitRepo::kHubPrefix))});
    return refs;
}

Result<SyncResult, WorkspaceError> Workspace::mergeMainIntoSession(ConflictMode mode, const CheckoutProgress &progress)
{
    return SessionSync(*m_repo).mergeMain(mode, progress);
}

Result<WorkspaceChanges, WorkspaceError> Workspace::changes()
{
    return ChangeReport(*m_repo).collect();
}

Result<FileDiff, WorkspaceError> Workspace::diff(const QString &path, qsizetype maxBytes)
{
    return fileDiff(*m_repo, path, maxBytes);
}

Result<QByteArray, WorkspaceError> Workspace::refId(const QByteArray &ref) const
{
    QByteArray name = ref;
    if (ref == "main")
        name = GitRepo::kMainRef;
    else if (ref == "session")
        name = m_repo->sessionRef();
    auto id = m_repo->target(name);
    if (!id)
        return id.error();
    return id.value() ? git::toHex(*id.value()) : QByteArray();
}

} // namespace isolation
