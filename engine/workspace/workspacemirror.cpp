#include "workspacemirror.h"

#include "bundlereader.h"
#include "bundlewriter.h"
#include "gitsupport.h"
#include "hubstate.h"
#include "treeexport.h"

#include <QDir>
#include <QFileInfo>
#include <QSet>

#include <algorithm>

namespace isolation {

namespace {

constexpr const char *kMain = "refs/heads/main";

QString scratchOf(const QString &gitDir)
{
    return gitDir + QStringLiteral("/isolation-tmp");
}

} // namespace

struct WorkspaceMirror::Repo
{
    git::RepositoryPtr repo;
};

WorkspaceMirror::~WorkspaceMirror() = default;

Result<std::unique_ptr<WorkspaceMirror>, WorkspaceError> WorkspaceMirror::open(const QString &gitDir)
{
    git::ensureLibrary();
    const QString dir = QDir::cleanPath(QFileInfo(gitDir).absoluteFilePath());
    const QByteArray path = git::nativePath(dir);
    if (!QFileInfo::exists(dir + QStringLiteral("/HEAD"))) {
        git_repository_init_options opts;
        git_repository_init_options_init(&opts, GIT_REPOSITORY_INIT_OPTIONS_VERSION);
        opts.flags = GIT_REPOSITORY_INIT_MKPATH | GIT_REPOSITORY_INIT_BARE;
        opts.initial_head = "main";
        git_repository *raw = nullptr;
        if (int rc = git_repository_init_ext(&raw, path.constData(), &opts); rc < 0)
            return git::error(rc, QStringLiteral("cannot create the mirror %1").arg(dir));
        git_repository_free(raw);
    }
    git_repository *raw = nullptr;
    if (int rc = git_repository_open_ext(&raw, path.constData(), GIT_REPOSITORY_OPEN_NO_SEARCH, nullptr); rc < 0)
        return git::error(rc, QStringLiteral("cannot open the mirror %1").arg(dir));
    std::unique_ptr<WorkspaceMirror> self(new WorkspaceMirror);
    self->m_repo = std::make_unique<Repo>();
    self->m_repo->repo.reset(raw);
    self->m_gitDir = dir;
    // What a killed reader left half-indexed.
    QDir(scratchOf(dir)).removeRecursively();
    return self;
}

Result<bool, WorkspaceError> WorkspaceMirror::hasCommits(const QStringList &ids) const
{
    git_odb *rawOdb = nullptr;
    if (int rc = git_repository_odb(&rawOdb, m_repo->repo.get()); rc < 0)
        return git::error(rc, QStringLiteral("cannot open the object database"));
    git::OdbPtr odb(rawOdb);
    if (int rc = git_odb_refresh(odb.get()); rc < 0)
        return git::error(rc, QStringLiteral("cannot reload the object database"));
    for (const QString &hex : ids) {
        const auto id = git::fromHex(hex.toLatin1());
        size_t size = 0;
        git_object_t type = GIT_OBJECT_INVALID;
        if (!id || git_odb_read_header(&size, &type, odb.get(), &*id) < 0 || type != GIT_OBJECT_COMMIT) {
            git_error_clear();
            return false;
        }
    }
    return true;
}

Result<quint64, WorkspaceError> WorkspaceMirror::addBundle(QIODevice &in)
{
    auto contents = BundleReader(m_repo->repo.get(), scratchOf(m_gitDir)).read(in);
    if (!contents)
        return contents.error();
    return contents.value().objects;
}

Result<QList<BundleRef>, WorkspaceError> WorkspaceMirror::refs() const
{
    git_reference_iterator *rawIt = nullptr;
    if (int rc = git_reference_iterator_glob_new(&rawIt, m_repo->repo.get(), "refs/heads/*"); rc < 0)
        return git::error(rc, QStringLiteral("cannot list the mirror's branches"));
    git::ReferenceIteratorPtr it(rawIt);
    QList<BundleRef> refs;
    git_reference *rawRef = nullptr;
    int rc = 0;
    while ((rc = git_reference_next(&rawRef, it.get())) == 0) {
        git::ReferencePtr ref(rawRef);
        const QByteArray name = git_reference_name(ref.get());
        const git_oid *target = git_reference_target(ref.get());
        if (target && HubState::isWorkspaceBranch(name))
            refs.append({git::toHex(*target), name});
    }
    if (rc != GIT_ITEROVER)
        return git::error(rc, QStringLiteral("cannot list the mirror's branches"));
    std::sort(refs.begin(), refs.end(), [](const BundleRef &a, const BundleRef &b) { return a.name < b.name; });
    return refs;
}

Result<void, WorkspaceError> WorkspaceMirror::setRefs(const QList<BundleRef> &wanted)
{
    QStringList ids;
    QSet<QByteArray> names;
    for (const BundleRef &ref : wanted) {
        if (!HubState::isWorkspaceBranch(ref.name))
            return WorkspaceError::failed(
                QStringLiteral("%1 is not a workspace branch").arg(QString::fromUtf8(ref.name)));
        ids.append(QString::fromLatin1(ref.id));
        names.insert(ref.name);
    }
    auto present = hasCommits(ids);
    if (!present)
        return present.error();
    if (!present.value())
        return WorkspaceError::corrupt(QStringLiteral("the mirror lacks a commit the refs name"));
    git_repository *repo = m_repo->repo.get();
    for (const BundleRef &ref : wanted) {
        const git_oid id = *git::fromHex(ref.id);
        git_reference *raw = nullptr;
        if (int rc = git_reference_create(&raw, repo, ref.name.constData(), &id, 1, "mirror: from hub"); rc < 0)
            return git::error(rc, QStringLiteral("cannot set %1").arg(QString::fromUtf8(ref.name)));
        git_reference_free(raw);
    }
    auto current = refs();
    if (!current)
        return current.error();
    for (const BundleRef &ref : current.value()) {
        if (names.contains(ref.name))
            continue;
        if (int rc = git_reference_remove(repo, ref.name.constData()); rc < 0 && rc != GIT_ENOTFOUND)
            return git::error(rc, QStringLiteral("cannot delete %1").arg(QString::fromUtf8(ref.name)));
    }
    return {};
}

Result<SegmentResult, WorkspaceError> WorkspaceMirror::exportBundle(QIODevice &out) const
{
    auto branches = refs();
    if (!branches)
        return branches.error();
    const auto main = std::find_if(
        branches.value().cbegin(), branches.value().cend(), [](const BundleRef &r) { return r.name == kMain; });
    if (main == branches.value().cend())
        return WorkspaceError::notFound(QStringLiteral("the workspace has nothing saved yet"));
    SegmentResult result;
    result.refs.append({main->id, "HEAD"});
    result.refs.append(*main);
    for (const BundleRef &ref : branches.value()) {
        if (ref.name != kMain)
            result.refs.append(ref);
    }
    auto stats = BundleWriter(m_repo->repo.get()).write(result.refs, {}, out);
    if (!stats)
        return stats.error();
    result.written = true;
    result.bytes = stats.value().bytes;
    result.objects = stats.value().objects;
    return result;
}

Result<TreeExportResult, WorkspaceError> WorkspaceMirror::exportTree(QIODevice &out, const QByteArray &definition) const
{
    auto branches = refs();
    if (!branches)
        return branches.error();
    for (const BundleRef &ref : branches.value()) {
        if (ref.name == kMain)
            return TreeExport(m_repo->repo.get()).write(*git::fromHex(ref.id), definition, out);
    }
    return WorkspaceError::notFound(QStringLiteral("the workspace has nothing saved yet"));
}

} // namespace isolation
