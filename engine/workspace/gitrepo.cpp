#include "gitrepo.h"

#include "core/sessionlimits.h"

#include <QDir>
#include <QDirIterator>
#include <QFile>
#include <QFileInfo>

namespace isolation {

namespace {

// 2024-01-01T00:00:00Z: the root commit's author and committer time.
constexpr git_time_t kRootTime = 1704067200;

// What a segment's pack builder may hold (libgit2 reads them from the repository's config, with
// git's defaults): computed deltas kept for the write phase (pack.deltaCacheSize, 256 MiB by
// default) and objects in one thread's delta window (pack.windowMemory, unlimited). With the
// defaults a first save of a 1.2 GB real tree (the whole kernel source, 78,000 files) peaked at
// 317 MB; with 16 MiB each, 181-191 MB; with 8 MiB each, 131-145 MB, no slower, and a pack 0.03 %
// larger (bench/README.md). libgit2 1.5 also takes pack.deltaCacheSize as its big-file threshold:
// a blob larger than 8 MiB is stored whole, not as a delta. That is most of the gain: the kernel's
// 11-24 MB register headers no longer sit in a delta window with their delta indexes, two threads
// at once.
constexpr qint64 kPackDeltaCacheBytes = qint64(8) << 20;
constexpr qint64 kPackWindowBytes = qint64(8) << 20;

// Local values win over a user's global git config, which must not change what is saved.
Result<void, WorkspaceError> configure(const QString &gitDir, const QByteArray &workPath)
{
    git_config *raw = nullptr;
    const QByteArray file = git::nativePath(gitDir + QStringLiteral("/config"));
    if (int rc = git_config_open_ondisk(&raw, file.constData()); rc < 0)
        return git::error(rc, QStringLiteral("cannot read %1").arg(gitDir + QStringLiteral("/config")));
    git::ConfigPtr config(raw);
    git::Buf current;
    int64_t deltaCache = 0;
    if (git_config_get_string_buf(current.get(), config.get(), "core.worktree") == 0 && current.bytes() == workPath
        && git_config_get_int64(&deltaCache, config.get(), "pack.deltaCacheSize") == 0
        && deltaCache == kPackDeltaCacheBytes)
        return {};
    git_error_clear();
    int rc = git_config_set_bool(config.get(), "core.bare", 0);
    if (rc >= 0)
        rc = git_config_set_string(config.get(), "core.worktree", workPath.constData());
    if (rc >= 0)
        rc = git_config_set_bool(config.get(), "core.autocrlf", 0);
    if (rc >= 0)
        rc = git_config_set_string(config.get(), "core.excludesFile", "/dev/null");
    if (rc >= 0)
        rc = git_config_set_bool(config.get(), "core.logAllRefUpdates", 1);
    if (rc >= 0)
        rc = git_config_set_int64(config.get(), "pack.deltaCacheSize", kPackDeltaCacheBytes);
    if (rc >= 0)
        rc = git_config_set_int64(config.get(), "pack.windowMemory", kPackWindowBytes);
    if (rc < 0)
        return git::error(rc, QStringLiteral("cannot configure the repository"));
    return {};
}

Result<void, WorkspaceError> check(int rc, const QString &what)
{
    if (rc < 0)
        return git::error(rc, what);
    return {};
}

} // namespace

bool GitRepo::isValidSessionId(const QString &id)
{
    if (!hasSessionIdShape(id))
        return false;
    git::ensureLibrary();
    int valid = 0;
    const QByteArray ref = kSessionPrefix + id.toUtf8();
    return git_reference_name_is_valid(&valid, ref.constData()) == 0 && valid;
}

Result<std::unique_ptr<GitRepo>, WorkspaceError> GitRepo::open(
    const QString &gitDir, const QString &workTree, const QString &sessionId, const Clock &clock)
{
    git::ensureLibrary();
    if (!isValidSessionId(sessionId))
        return WorkspaceError::failed(QStringLiteral("invalid session id '%1'").arg(sessionId));
    const QString git = QDir::cleanPath(QFileInfo(gitDir).absoluteFilePath());
    const QString work = QDir::cleanPath(QFileInfo(workTree).absoluteFilePath());
    if (git == work || git.startsWith(work + QLatin1Char('/')) || work.startsWith(git + QLatin1Char('/')))
        return WorkspaceError::failed(QStringLiteral("the git dir and the worktree must not contain each other"));
    if (!QDir().mkpath(work))
        return WorkspaceError::failed(QStringLiteral("cannot create the worktree %1").arg(work));

    std::unique_ptr<GitRepo> self(new GitRepo);
    self->m_gitDir = git;
    self->m_workTree = work;
    self->m_sessionId = sessionId;
    self->m_clock = &clock;
    const QByteArray gitPath = git::nativePath(git);
    const QByteArray workPath = git::nativePath(work);

    const bool fresh = !QFileInfo::exists(git + QStringLiteral("/HEAD"));
    if (fresh) {
        // Initialised bare, then given its worktree by config: libgit2 would otherwise write a
        // `.git` link file into the worktree, which the sandbox must never see.
        git_repository_init_options opts;
        git_repository_init_options_init(&opts, GIT_REPOSITORY_INIT_OPTIONS_VERSION);
        opts.flags = GIT_REPOSITORY_INIT_MKPATH | GIT_REPOSITORY_INIT_BARE;
        const QByteArray head = QByteArray("session/") + sessionId.toUtf8();
        opts.initial_head = head.constData();
        git_repository *raw = nullptr;
        if (int rc = git_repository_init_ext(&raw, gitPath.constData(), &opts); rc < 0)
            return git::error(rc, QStringLiteral("cannot create the repository %1").arg(git));
        git_repository_free(raw);
    }
    // Also after a kill between the init and this, or when the data directory moved.
    if (auto r = configure(git, workPath); !r)
        return r.error();

    git_repository *raw = nullptr;
    if (int rc = git_repository_open_ext(&raw, gitPath.constData(), GIT_REPOSITORY_OPEN_NO_SEARCH, nullptr); rc < 0)
        return git::error(rc, QStringLiteral("cannot open the repository %1").arg(git));
    self->m_repo.reset(raw);
    // core.worktree normally names it already; libgit2 1.5 leaks when told the same path again.
    const char *configured = git_repository_workdir(raw);
    if (!configured || QDir::cleanPath(QFile::decodeName(configured)) != work) {
        if (int rc = git_repository_set_workdir(raw, workPath.constData(), 0); rc < 0)
            return git::error(rc, QStringLiteral("cannot set the worktree %1").arg(work));
    }

    git_reference *rawHead = nullptr;
    if (int rc = git_reference_lookup(&rawHead, raw, "HEAD"); rc < 0)
        return git::error(rc, QStringLiteral("cannot read HEAD"));
    git::ReferencePtr head(rawHead);
    const char *headTarget = git_reference_symbolic_target(head.get());
    if (!headTarget || QByteArray(headTarget) != self->sessionRef())
        return WorkspaceError::failed(
            QStringLiteral("%1 belongs to another session (HEAD is %2)").arg(git, git::pathString(headTarget)));

    if (auto r = self->recover(); !r)
        return r.error();
    if (auto r = self->ensureBranches(); !r)
        return r.error();
    return self;
}

Result<void, WorkspaceError> GitRepo::renameSession(
    const QString &gitDir, const QString &workTree, const QString &from, const QString &to)
{
    git::ensureLibrary();
    if (!isValidSessionId(from) || !isValidSessionId(to))
        return WorkspaceError::failed(QStringLiteral("invalid session id '%1' or '%2'").arg(from, to));
    // core.worktree still names where the repository was built: libgit2 resolves it for a rename.
    if (auto r = configure(gitDir, git::nativePath(QDir::cleanPath(QFileInfo(workTree).absoluteFilePath()))); !r)
        return r.error();
    git_repository *raw = nullptr;
    const QByteArray path = git::nativePath(gitDir);
    if (int rc = git_repository_open_ext(&raw, path.constData(), GIT_REPOSITORY_OPEN_NO_SEARCH, nullptr); rc < 0)
        return git::error(rc, QStringLiteral("cannot open the repository %1").arg(gitDir));
    git::RepositoryPtr repo(raw);
    const QByteArray oldName = QByteArray("session/") + from.toUtf8();
    const QByteArray newName = QByteArray("session/") + to.toUtf8();
    git_reference *rawBranch = nullptr;
    int rc = git_branch_lookup(&rawBranch, repo.get(), oldName.constData(), GIT_BRANCH_LOCAL);
    git::ReferencePtr branch(rawBranch);
    if (rc == 0) {
        // A reference rename, not git_branch_move: that also renames the branch's config section,
        // where libgit2 1.5 leaks pcre2 match data (and no such section exists here).
        const QByteArray newRefName = QByteArray("refs/heads/") + newName;
        git_reference *rawMoved = nullptr;
        if (rc = git_reference_rename(&rawMoved, branch.get(), newRefName.constData(), 0, "workspace: session taken");
            rc < 0)
            return git::error(rc,
                QStringLiteral("cannot rename %1 to %2").arg(QString::fromUtf8(oldName), QString::fromUtf8(newName)));
        git_reference_free(rawMoved);
    } else if (rc != GIT_ENOTFOUND) {
        return git::error(rc, QStringLiteral("cannot read %1").arg(QString::fromUtf8(oldName)));
    }
    git_error_clear();
    // HEAD names the new branch (git_branch_move updates it; set it anyway after a kill half-way).
    git_reference *rawTarget = nullptr;
    const QByteArray newRef = QByteArray("refs/heads/") + newName;
    if (rc = git_reference_lookup(&rawTarget, repo.get(), newRef.constData()); rc < 0)
        return git::error(rc,
            QStringLiteral("%1 has neither %2 nor %3")
                .arg(gitDir, QString::fromUtf8(oldName), QString::fromUtf8(newName)));
    git_reference_free(rawTarget);
    git_reference *rawHead = nullptr;
    if (rc = git_reference_symbolic_create(
            &rawHead, repo.get(), "HEAD", newRef.constData(), 1, "workspace: session taken");
        rc < 0)
        return git::error(rc, QStringLiteral("cannot point HEAD at %1").arg(QString::fromUtf8(newName)));
    git_reference_free(rawHead);
    return {};
}

Result<git::TreePtr, WorkspaceError> GitRepo::emptyTree(git_repository *repo)
{
    git_treebuilder *rawBuilder = nullptr;
    if (int rc = git_treebuilder_new(&rawBuilder, repo, nullptr); rc < 0)
        return git::error(rc, QStringLiteral("cannot build the empty tree"));
    git::TreeBuilderPtr builder(rawBuilder);
    git_oid treeId;
    if (int rc = git_treebuilder_write(&treeId, builder.get()); rc < 0)
        return git::error(rc, QStringLiteral("cannot write the empty tree"));
    git_tree *rawTree = nullptr;
    if (int rc = git_tree_lookup(&rawTree, repo, &treeId); rc < 0)
        return git::error(rc, QStringLiteral("cannot read the empty tree"));
    return git::TreePtr(rawTree);
}

Result<git_oid, WorkspaceError> GitRepo::writeRootCommit(git_repository *repo)
{
    auto tree = emptyTree(repo);
    if (!tree)
        return tree.error();
    git_signature *rawSig = nullptr;
    if (int rc = git_signature_new(&rawSig, "Isolation", "workspace@isolation.invalid", kRootTime, 0); rc < 0)
        return git::error(rc, QStringLiteral("cannot make the root signature"));
    git::SignaturePtr sig(rawSig);
    git_oid id;
    if (int rc = git_commit_create(&id, repo, nullptr, sig.get(), sig.get(), nullptr, "Isolation workspace root\n",
            tree.value().get(), 0, nullptr);
        rc < 0)
        return git::error(rc, QStringLiteral("cannot write the root commit"));
    return id;
}

QString GitRepo::tempRoot() const
{
    return m_gitDir + QStringLiteral("/isolation/tmp");
}

Result<void, WorkspaceError> GitRepo::recover()
{
    // A process killed inside libgit2 leaves its lock files; one workspace owns this git dir.
    for (const char *name : {"index.lock", "HEAD.lock", "config.lock", "packed-refs.lock"}) {
        const QString path = m_gitDir + QLatin1Char('/') + QLatin1String(name);
        if (QFile::exists(path)) {
            qCWarning(lcWorkspace) << "removing stale lock" << path;
            QFile::remove(path);
        }
    }
    QDirIterator locks(
        m_gitDir + QStringLiteral("/refs"), {QStringLiteral("*.lock")}, QDir::Files, QDirIterator::Subdirectories);
    while (locks.hasNext()) {
        const QString path = locks.next();
        qCWarning(lcWorkspace) << "removing stale lock" << path;
        QFile::remove(path);
    }
    // Scratch space for incoming packs: emptied here, so a refused bundle leaves no trace.
    QDir(tempRoot()).removeRecursively();
    if (!QDir().mkpath(tempRoot()))
        return WorkspaceError::failed(QStringLiteral("cannot create %1").arg(tempRoot()));

    // Killed after a merge commit moved the branch but before MERGE_HEAD was removed.
    if (git_repository_state(m_repo.get()) == GIT_REPOSITORY_STATE_MERGE) {
        auto head = target(sessionRef());
        if (!head)
            return head.error();
        struct Payload
        {
            GitRepo *self;
            git_oid head;
            bool allMerged = true;
        } payload {this, head.value().value_or(git_oid {}), true};
        git_repository_mergehead_foreach(
            m_repo.get(),
            [](const git_oid *id, void *p) -> int {
                auto *pl = static_cast<Payload *>(p);
                auto merged = pl->self->isAncestor(*id, pl->head);
                if (!merged || !merged.value())
                    pl->allMerged = false;
                return 0;
            },
            &payload);
        if (head.value() && payload.allMerged) {
            qCInfo(lcWorkspace) << "clearing the state of a merge already committed";
            if (auto r = check(git_repository_state_cleanup(m_repo.get()), QStringLiteral("cannot clear merge state"));
                !r)
                return r;
        }
    }
    return {};
}

Result<void, WorkspaceError> GitRepo::ensureBranches()
{
    auto main = target(kMainRef);
    if (!main)
        return main.error();
    if (!main.value()) {
        auto root = writeRootCommit(m_repo.get());
        if (!root)
            return root.error();
        if (auto r = moveRef(kMainRef, root.value(), std::nullopt, QStringLiteral("workspace: root")); !r)
            return r;
        main.value() = root.value();
    }
    auto session = target(sessionRef());
    if (!session)
        return session.error();
    if (!session.value()) {
        // A new session starts from main as it is here; a sync brings the hub's main in.
        if (auto r = moveRef(sessionRef(), *main.value(), std::nullopt, QStringLiteral("workspace: session start")); !r)
            return r;
        // The worktree starts as main's tree, without touching files already there.
        git_object *rawTree = nullptr;
        const QByteArray spec = git::toHex(*main.value()) + "^{tree}";
        if (int rc = git_revparse_single(&rawTree, m_repo.get(), spec.constData()); rc < 0)
            return git::error(rc, QStringLiteral("cannot read main's tree"));
        std::unique_ptr<git_object, git::Deleter<&git_object_free>> tree(rawTree);
        // Against an empty baseline: main's files are written, files already there are kept
        // unless main has the same path (then the checkout refuses and nothing is written).
        auto empty = emptyTree(m_repo.get());
        if (!empty)
            return empty.error();
        git_checkout_options opts;
        git_checkout_options_init(&opts, GIT_CHECKOUT_OPTIONS_VERSION);
        opts.checkout_strategy = GIT_CHECKOUT_SAFE;
        opts.baseline = empty.value().get();
        if (int rc = git_checkout_tree(m_repo.get(), tree.get(), &opts); rc < 0) {
            const WorkspaceError e = git::error(rc, QStringLiteral("cannot check out the session branch"));
            reloadIndex();
            return e;
        }
    }
    return {};
}

void GitRepo::setAuthor(const QString &name, const QString &email)
{
    m_authorName = name;
    m_authorEmail = email;
}

Result<git::SignaturePtr, WorkspaceError> GitRepo::signature() const
{
    git_signature *raw = nullptr;
    const QByteArray name = m_authorName.toUtf8();
    const QByteArray email = m_authorEmail.toUtf8();
    if (int rc = git_signature_new(&raw, name.constData(), email.constData(), m_clock->unixSeconds(), 0); rc < 0)
        return git::error(rc, QStringLiteral("invalid author"));
    return git::SignaturePtr(raw);
}

Result<std::optional<git_oid>, WorkspaceError> GitRepo::target(const QByteArray &ref) const
{
    git_oid id;
    const int rc = git_reference_name_to_id(&id, m_repo.get(), ref.constData());
    if (rc == GIT_ENOTFOUND) {
        git_error_clear();
        return std::optional<git_oid>();
    }
    if (rc < 0)
        return git::error(rc, QStringLiteral("cannot read %1").arg(QString::fromUtf8(ref)));
    return std::optional<git_oid>(id);
}

Result<void, WorkspaceError> GitRepo::moveRef(
    const QByteArray &ref, const git_oid &to, const std::optional<git_oid> &expected, const QString &why)
{
    git_reference *raw = nullptr;
    const QByteArray log = why.toUtf8();
    const int rc = expected
        ? git_reference_create_matching(&raw, m_repo.get(), ref.constData(), &to, 1, &*expected, log.constData())
        : git_reference_create(&raw, m_repo.get(), ref.constData(), &to, 0, log.constData());
    git_reference_free(raw);
    if (rc < 0)
        return git::error(rc, QStringLiteral("cannot move %1").arg(QString::fromUtf8(ref)));
    qCDebug(lcWorkspace) << "moved" << ref << "to" << git::toHex(to) << why;
    return {};
}

Result<void, WorkspaceError> GitRepo::deleteRef(const QByteArray &ref, const git_oid &expected)
{
    git_reference *raw = nullptr;
    int rc = git_reference_lookup(&raw, m_repo.get(), ref.constData());
    if (rc == GIT_ENOTFOUND) {
        git_error_clear();
        return {};
    }
    if (rc < 0)
        return git::error(rc, QStringLiteral("cannot read %1").arg(QString::fromUtf8(ref)));
    git::ReferencePtr current(raw);
    const git_oid *now = git_reference_target(current.get());
    if (!now || !git_oid_equal(now, &expected))
        return WorkspaceError::conflict(QStringLiteral("%1 moved concurrently").arg(QString::fromUtf8(ref)));
    // Deletes only if the ref still holds what was looked up (checked under the ref's lock).
    rc = git_reference_delete(current.get());
    if (rc < 0)
        return git::error(rc, QStringLiteral("cannot delete %1").arg(QString::fromUtf8(ref)));
    return {};
}

Result<QList<std::pair<QByteArray, git_oid>>, WorkspaceError> GitRepo::refsUnder(const QByteArray &prefix) const
{
    git_reference_iterator *rawIt = nullptr;
    const QByteArray glob = prefix + "*";
    if (int rc = git_reference_iterator_glob_new(&rawIt, m_repo.get(), glob.constData()); rc < 0)
        return git::error(rc, QStringLiteral("cannot list refs"));
    git::ReferenceIteratorPtr it(rawIt);
    QList<std::pair<QByteArray, git_oid>> refs;
    git_reference *raw = nullptr;
    int rc = 0;
    while ((rc = git_reference_next(&raw, it.get())) == 0) {
        git::ReferencePtr ref(raw);
        const git_oid *id = git_reference_target(ref.get());
        if (id)
            refs.append({QByteArray(git_reference_name(ref.get())), *id});
    }
    if (rc != GIT_ITEROVER)
        return git::error(rc, QStringLiteral("cannot list refs"));
    git_error_clear();
    std::sort(refs.begin(), refs.end(), [](const auto &a, const auto &b) { return a.first < b.first; });
    return refs;
}

Result<bool, WorkspaceError> GitRepo::isAncestor(const git_oid &ancestor, const git_oid &descendant) const
{
    if (git_oid_equal(&ancestor, &descendant))
        return true;
    const int rc = git_graph_descendant_of(m_repo.get(), &descendant, &ancestor);
    if (rc < 0)
        return git::error(rc, QStringLiteral("cannot walk the history"));
    return rc == 1;
}

Result<git::CommitPtr, WorkspaceError> GitRepo::commit(const git_oid &id) const
{
    git_commit *raw = nullptr;
    if (int rc = git_commit_lookup(&raw, m_repo.get(), &id); rc < 0)
        return git::error(rc, QStringLiteral("cannot read commit %1").arg(QString::fromLatin1(git::toHex(id))));
    return git::CommitPtr(raw);
}

Result<git::IndexPtr, WorkspaceError> GitRepo::index() const
{
    git_index *raw = nullptr;
    if (int rc = git_repository_index(&raw, m_repo.get()); rc < 0)
        return git::error(rc, QStringLiteral("cannot open the index"));
    git::IndexPtr index(raw);
    // Not forced: libgit2 compares the checksum at the file's end with the one it read or wrote.
    if (int rc = git_index_read(index.get(), 0); rc < 0)
        return git::error(rc, QStringLiteral("cannot read the index"));
    return index;
}

void GitRepo::reloadIndex() const
{
    git_index *raw = nullptr;
    if (git_repository_index(&raw, m_repo.get()) == 0) {
        git::IndexPtr index(raw);
        if (git_index_read(index.get(), 1) == 0)
            return;
    }
    git_error_clear(); // the next index() reads it, or says why it cannot
}

Result<NestedRepos, WorkspaceError> GitRepo::refreshExclusions()
{
    NestedRepos nested = NestedRepos::scan(m_workTree);
    m_nested.reset();
    if (int rc = git_ignore_clear_internal_rules(m_repo.get()); rc < 0)
        return git::error(rc, QStringLiteral("cannot reset ignore rules"));
    QByteArray rules;
    for (const QString &dir : nested.dirs()) {
        const QByteArray rule = NestedRepos::ignoreRule(dir);
        if (!rule.isEmpty())
            rules += rule + '\n';
    }
    if (!rules.isEmpty()) {
        if (int rc = git_ignore_add_rule(m_repo.get(), rules.constData()); rc < 0)
            return git::error(rc, QStringLiteral("cannot install ignore rules"));
    }
    m_nested = nested;
    return nested;
}

WorktreeWatch &GitRepo::watch()
{
    if (!m_watch)
        m_watch = std::make_unique<WorktreeWatch>(m_workTree, *m_clock);
    return *m_watch;
}

} // namespace isolation
