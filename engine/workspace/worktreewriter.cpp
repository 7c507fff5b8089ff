#include "worktreewriter.h"

#include "gitrepo.h"
#include "memorytrim.h"

#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QThread>

#include <atomic>
#include <cerrno>
#include <condition_variable>
#include <cstdio>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace isolation {

namespace {

constexpr const char *kEmptyTree = "4b825dc642cb6eb9a060e54bf8d69288fbee4904";

struct File
{
    QByteArray path; // worktree-relative, '/'-separated
    git_oid id;
    git_filemode_t mode;
    qint64 size; // of the blob
    struct stat st; // of the written file, for its index entry
};

struct Plan
{
    QList<QByteArray> dirs; // parents before children
    std::vector<File> files; // in index order (a tree walk's order)
    QList<QByteArray> top; // the worktree's top-level entries to be
    qint64 total = 0; // bytes of the blobs
    bool fits = true;
    bool symlinks = true; // core.symlinks
    git_odb *odb = nullptr;
    std::optional<WorkspaceError> error;
};

// A name libgit2's checkout writes as it is. What its path checks refuse or treat specially ("."
// and "..", ".git" and its NTFS and HFS spellings, 8.3 short names such as GIT~1, a symbolic link
// named like .gitmodules) is left to libgit2, which knows the rules: a tree with one goes there.
bool ordinaryName(QByteArrayView name, bool link)
{
    if (name.isEmpty() || name == "." || name == ".." || name.contains('/'))
        return false;
    for (qsizetype i = 0; i + 1 < name.size(); ++i) {
        if (name[i] == '~' && name[i + 1] >= '1' && name[i + 1] <= '9')
            return false;
    }
    if (name.startsWith('.')) {
        for (const char c : name) {
            if (static_cast<unsigned char>(c) >= 0x80)
                return false;
        }
    }
    if (name.size() >= 4 && qstrnicmp(name.data(), ".git", 4) == 0) {
        if (link || name.size() == 4)
            return false;
        const char next = name[4];
        const bool plain = (next >= 'a' && next <= 'z') || (next >= 'A' && next <= 'Z') || (next >= '0' && next <= '9')
            || next == '-' || next == '_';
        if (!plain)
            return false;
    }
    return true;
}

int collect(const char *root, const git_tree_entry *entry, void *payload)
{
    auto &plan = *static_cast<Plan *>(payload);
    const git_filemode_t mode = git_tree_entry_filemode(entry);
    const QByteArrayView name(git_tree_entry_name(entry));
    const QByteArray path = QByteArray(root) + name;
    if (!ordinaryName(name, mode == GIT_FILEMODE_LINK)) {
        plan.fits = false;
        return 1;
    }
    if (*root == '\0')
        plan.top.append(path);
    if (mode == GIT_FILEMODE_TREE) {
        plan.dirs.append(path);
        return 0;
    }
    if ((mode != GIT_FILEMODE_BLOB && mode != GIT_FILEMODE_BLOB_EXECUTABLE && mode != GIT_FILEMODE_LINK)
        || (mode == GIT_FILEMODE_LINK && !plan.symlinks)) {
        plan.fits = false; // a submodule, or links written as files: libgit2 does those
        return 1;
    }
    size_t size = 0;
    git_object_t type = GIT_OBJECT_INVALID;
    if (int rc = git_odb_read_header(&size, &type, plan.odb, git_tree_entry_id(entry));
        rc < 0 || type != GIT_OBJECT_BLOB) {
        plan.error = rc < 0 ? git::error(rc, QStringLiteral("cannot read %1").arg(QString::fromUtf8(path)))
                            : WorkspaceError::corrupt(QStringLiteral("%1 is not a file").arg(QString::fromUtf8(path)));
        return -1;
    }
    plan.total += qint64(size);
    plan.files.push_back(File {path, *git_tree_entry_id(entry), mode, qint64(size), {}});
    return 0;
}

WorkspaceError osError(const QString &what, const QByteArray &path, int errnum)
{
    const QString file = QFile::decodeName(path);
    if (const StorageFault fault = storageFaultOf(errnum); fault != StorageFault::None)
        return WorkspaceError::storage(fault, storageFaultText(fault, file));
    if (errnum == EEXIST)
        return WorkspaceError::corrupt(QStringLiteral("the tree to check out names %1 twice").arg(file));
    return WorkspaceError::failed(QStringLiteral("%1 %2: %3").arg(what, file, qt_error_string(errnum)));
}

bool writeAll(int fd, const char *data, size_t size)
{
    while (size > 0) {
        const ssize_t n = ::write(fd, data, size);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return false;
        data += n;
        size -= size_t(n);
    }
    return true;
}

// The worktree's copy of one blob: filtered as checkout filters it, with its mode; its stat data
// recorded. Runs on any thread with that thread's own repository.
// `base` is where it goes now; errors name the file where it is meant to be, in `shown`.
std::optional<WorkspaceError> writeFile(
    git_repository *repo, const git_oid &commit, const QByteArray &base, const QByteArray &shown, File &f)
{
    git_blob *rawBlob = nullptr;
    if (int rc = git_blob_lookup(&rawBlob, repo, &f.id); rc < 0)
        return git::error(rc, QStringLiteral("cannot read %1").arg(QString::fromUtf8(f.path)));
    git::BlobPtr blob(rawBlob);
    const QByteArray full = base + '/' + f.path;
    const QByteArray named = shown + '/' + f.path;
    if (f.mode == GIT_FILEMODE_LINK) {
        const std::string target(
            static_cast<const char *>(git_blob_rawcontent(blob.get())), size_t(git_blob_rawsize(blob.get())));
        if (::symlink(target.c_str(), full.constData()) != 0 || ::lstat(full.constData(), &f.st) != 0)
            return osError(QStringLiteral("cannot create the link"), named, errno);
        return std::nullopt;
    }
    // Attributes from the commit being written (its .gitattributes at every level, then the
    // repository's and the user's files), never from half-written files in the worktree.
    git_filter_options options = GIT_FILTER_OPTIONS_INIT;
    options.flags = GIT_FILTER_ATTRIBUTES_FROM_COMMIT;
    git_oid_cpy(&options.attr_commit_id, &commit);
    git_filter_list *rawFilters = nullptr;
    if (int rc
        = git_filter_list_load_ext(&rawFilters, repo, blob.get(), f.path.constData(), GIT_FILTER_TO_WORKTREE, &options);
        rc < 0)
        return git::error(rc, QStringLiteral("cannot read the attributes of %1").arg(QString::fromUtf8(f.path)));
    std::unique_ptr<git_filter_list, git::Deleter<&git_filter_list_free>> filters(rawFilters);
    git::Buf filtered;
    const char *data = static_cast<const char *>(git_blob_rawcontent(blob.get()));
    size_t size = size_t(git_blob_rawsize(blob.get()));
    if (filters) {
        if (int rc = git_filter_list_apply_to_blob(filtered.get(), filters.get(), blob.get()); rc < 0)
            return git::error(rc, QStringLiteral("cannot filter %1").arg(QString::fromUtf8(f.path)));
        data = filtered.get()->ptr;
        size = filtered.get()->size;
    }
    const int fd = ::open(full.constData(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
        f.mode == GIT_FILEMODE_BLOB_EXECUTABLE ? 0755 : 0644);
    if (fd < 0)
        return osError(QStringLiteral("cannot create"), named, errno);
    const bool written = writeAll(fd, data, size) && ::fstat(fd, &f.st) == 0;
    const int errnum = errno;
    if (::close(fd) != 0 || !written)
        return osError(QStringLiteral("cannot write"), named, written ? errno : errnum);
    return std::nullopt;
}

// Moves `name` from `from` into `to`, never over something there.
bool moveInto(const QByteArray &from, const QByteArray &to, const QByteArray &name)
{
    const QByteArray source = from + '/' + name;
    const QByteArray target = to + '/' + name;
    if (::renameat2(AT_FDCWD, source.constData(), AT_FDCWD, target.constData(), RENAME_NOREPLACE) == 0)
        return true;
    if (errno != EINVAL && errno != ENOSYS)
        return false;
    struct stat st;
    if (::lstat(target.constData(), &st) == 0) {
        errno = EEXIST;
        return false;
    }
    return ::rename(source.constData(), target.constData()) == 0;
}

void fillEntry(git_index_entry &e, const File &f)
{
    e.ctime.seconds = int32_t(f.st.st_ctim.tv_sec);
    e.ctime.nanoseconds = uint32_t(f.st.st_ctim.tv_nsec);
    e.mtime.seconds = int32_t(f.st.st_mtim.tv_sec);
    e.mtime.nanoseconds = uint32_t(f.st.st_mtim.tv_nsec);
    e.dev = uint32_t(f.st.st_dev);
    e.ino = uint32_t(f.st.st_ino);
    e.mode = f.mode;
    e.uid = uint32_t(f.st.st_uid);
    e.gid = uint32_t(f.st.st_gid);
    e.file_size = uint32_t(f.st.st_size);
    e.id = f.id;
    e.path = f.path.constData();
}

// Where the files go first: a scratch directory beside the objects when it is on the worktree's
// file system (moved in at the end), else the worktree itself.
struct Stage
{
    QByteArray dir;
    QByteArray workTree;
    bool inPlace = false;
    QList<QByteArray> top; // the entries it makes at its top

    static Result<Stage, WorkspaceError> make(const GitRepo &repo, QList<QByteArray> top)
    {
        Stage stage;
        stage.workTree = QFile::encodeName(repo.workTree());
        stage.top = std::move(top);
        stage.dir = QFile::encodeName(repo.tempRoot()) + "/checkout-XXXXXX";
        if (!QDir().mkpath(repo.tempRoot()) || !::mkdtemp(stage.dir.data()))
            return osError(QStringLiteral("cannot create"), stage.dir, errno);
        struct stat scratch, tree;
        if (::stat(stage.dir.constData(), &scratch) != 0 || ::stat(stage.workTree.constData(), &tree) != 0
            || scratch.st_dev != tree.st_dev) {
            ::rmdir(stage.dir.constData());
            stage.dir = stage.workTree;
            stage.inPlace = true;
        }
        return stage;
    }

    // Removes what it made (after a failure).
    void discard() const
    {
        if (!inPlace) {
            QDir(QFile::decodeName(dir)).removeRecursively();
            return;
        }
        for (const QByteArray &name : top) {
            const QString path = QFile::decodeName(dir + '/' + name);
            if (QFileInfo(path).isDir() && !QFileInfo(path).isSymLink())
                QDir(path).removeRecursively();
            else
                QFile::remove(path);
        }
    }

    // Into the worktree, one rename per top-level entry, never over anything there. A rename
    // changes the moved entry's ctime: a top-level file's stat data is read again.
    std::optional<WorkspaceError> moveIn(std::vector<File> &files) const
    {
        if (inPlace)
            return std::nullopt;
        QList<QByteArray> moved;
        for (const QByteArray &name : top) {
            if (!moveInto(dir, workTree, name)) {
                const int errnum = errno;
                for (const QByteArray &back : std::as_const(moved))
                    moveInto(workTree, dir, back);
                discard();
                if (errnum == EEXIST || errnum == ENOTEMPTY)
                    return WorkspaceError::conflict(QStringLiteral(
                        "%1 appeared in the worktree while it was being written: nothing was checked out")
                                                        .arg(QFile::decodeName(name)));
                return osError(QStringLiteral("cannot move into the worktree"), workTree + '/' + name, errnum);
            }
            moved.append(name);
        }
        ::rmdir(dir.constData());
        for (File &f : files) {
            const QByteArray path = workTree + '/' + f.path;
            if (!f.path.contains('/') && ::lstat(path.constData(), &f.st) != 0)
                return osError(QStringLiteral("cannot read"), path, errno);
        }
        return std::nullopt;
    }
};

// Where each thread's turn starts (WorktreeWriter::kFilesPerTurn): `files` is in tree order, so a
// directory's files are together, but for its subdirectories' between them; the last is the end.
std::vector<size_t> turns(const std::vector<File> &files)
{
    std::vector<size_t> starts;
    QByteArrayView dir;
    for (size_t i = 0; i < files.size(); ++i) {
        const QByteArray &path = files[i].path;
        const QByteArrayView parent = QByteArrayView(path).first(std::max<qsizetype>(path.lastIndexOf('/'), 0));
        if (starts.empty() || parent != dir || i - starts.back() >= WorktreeWriter::kFilesPerTurn)
            starts.push_back(i);
        dir = parent;
    }
    starts.push_back(files.size());
    return starts;
}

// The bytes of large files being written at once, across the threads (kLargeFilesBudget).
class LargeFiles
{
public:
    // Waits until `size` bytes (at most the whole budget) are free and takes them; 0 for a small
    // file, which never waits.
    qint64 take(qint64 size)
    {
        if (size < WorktreeWriter::kLargeFileBytes)
            return 0;
        size = std::min(size, WorktreeWriter::kLargeFilesBudget);
        std::unique_lock<std::mutex> lock(m_mutex);
        m_returned.wait(lock, [&] { return m_free >= size; });
        m_free -= size;
        return size;
    }
    void give(qint64 taken)
    {
        if (taken == 0)
            return;
        {
            std::lock_guard<std::mutex> lock(m_mutex);
            m_free += taken;
        }
        m_returned.notify_all();
    }

private:
    std::mutex m_mutex;
    std::condition_variable m_returned;
    qint64 m_free = WorktreeWriter::kLargeFilesBudget;
};

// Writes every file of `plan` under `stage` from a few threads (the calling one too), each with
// its own repository: libgit2's objects are not shared between threads.
std::optional<WorkspaceError> writeFiles(const QByteArray &gitDir, const git_oid &commit, const Stage &stage,
    Plan &plan, const CheckoutProgress &progress, int threads)
{
    const std::vector<size_t> starts = turns(plan.files);
    std::atomic<size_t> next {0}; // the next turn
    std::atomic<qint64> done {0};
    std::atomic<bool> stop {false};
    std::mutex failure;
    std::optional<WorkspaceError> firstError;
    LargeFiles large;
    auto work = [&](bool reporting) {
        auto fail = [&](WorkspaceError e) {
            std::lock_guard<std::mutex> lock(failure);
            if (!firstError)
                firstError = std::move(e);
            stop = true;
        };
        git_repository *rawOwn = nullptr;
        if (int rc = git_repository_open_bare(&rawOwn, gitDir.constData()); rc < 0) {
            fail(git::error(rc, QStringLiteral("cannot open the repository")));
            return;
        }
        git::RepositoryPtr own(rawOwn);
        // The pages of the packs the threads read stay resident after use, up to the mapped limit
        // (32 MiB): one thread drops them now and then for all (memorytrim.h).
        std::optional<memorytrim::MappedFiles> packs;
        if (reporting)
            packs.emplace(gitDir + "/objects/pack");
        QElapsedTimer since;
        since.start();
        bool reported = false;
        while (!stop) {
            const size_t turn = next++;
            if (turn + 1 >= starts.size())
                break;
            for (size_t i = starts[turn]; i < starts[turn + 1] && !stop; ++i) {
                const qint64 taken = large.take(plan.files[i].size);
                auto e = writeFile(own.get(), commit, stage.dir, stage.workTree, plan.files[i]);
                large.give(taken);
                if (e) {
                    fail(std::move(*e));
                    break;
                }
                done += plan.files[i].size;
                // A large file's buffers, freed just now, go back to the system (memorytrim.h).
                memorytrim::heap();
                if (packs)
                    packs->trim();
                // The first file at once (a bar moves early), then at most every kProgressMs.
                if (reporting && progress && (!reported || since.elapsed() >= WorktreeWriter::kProgressMs)) {
                    progress(done, plan.total);
                    reported = true;
                    since.restart();
                }
            }
        }
    };
    std::vector<std::thread> helpers;
    for (int i = 1; i < threads && size_t(i) * WorktreeWriter::kFilesPerThread < plan.files.size(); ++i)
        helpers.emplace_back(work, false);
    work(true);
    for (std::thread &t : helpers)
        t.join();
    return firstError;
}

} // namespace

Result<bool, WorkspaceError> WorktreeWriter::writeFresh(const git_oid &commit, const CheckoutProgress &progress)
{
    QElapsedTimer took;
    took.start();
    git_repository *repo = m_repo.get();
    // Every file new: nothing in the worktree, nothing in the index, nothing on the branch.
    if (!QDir(m_repo.workTree()).isEmpty(QDir::AllEntries | QDir::NoDotAndDotDot | QDir::Hidden | QDir::System))
        return false;
    auto index = m_repo.index();
    if (!index)
        return index.error();
    if (git_index_entrycount(index.value().get()) != 0)
        return false;
    auto head = m_repo.target(m_repo.sessionRef());
    if (!head)
        return head.error();
    if (head.value()) {
        auto current = m_repo.commit(*head.value());
        if (!current)
            return current.error();
        if (git::toHex(*git_commit_tree_id(current.value().get())) != kEmptyTree)
            return false;
    }

    auto target = m_repo.commit(commit);
    if (!target)
        return target.error();
    git_tree *rawTree = nullptr;
    if (int rc = git_commit_tree(&rawTree, target.value().get()); rc < 0)
        return git::error(rc, QStringLiteral("cannot read the tree to check out"));
    git::TreePtr tree(rawTree);
    git_odb *rawOdb = nullptr;
    if (int rc = git_repository_odb(&rawOdb, repo); rc < 0)
        return git::error(rc, QStringLiteral("cannot open the object database"));
    git::OdbPtr odb(rawOdb);
    Plan plan;
    plan.odb = odb.get();
    git_config *rawConfig = nullptr;
    if (git_repository_config_snapshot(&rawConfig, repo) == 0) {
        git::ConfigPtr config(rawConfig);
        int symlinks = 1;
        if (git_config_get_bool(&symlinks, config.get(), "core.symlinks") == 0)
            plan.symlinks = symlinks != 0;
    }
    git_error_clear();
    const int walked = git_tree_walk(tree.get(), GIT_TREEWALK_PRE, collect, &plan);
    if (plan.error)
        return *plan.error;
    if (!plan.fits)
        return false;
    if (walked < 0)
        return git::error(walked, QStringLiteral("cannot read the tree to check out"));

    auto stage = Stage::make(m_repo, plan.top);
    if (!stage)
        return stage.error();
    for (const QByteArray &dir : std::as_const(plan.dirs)) {
        const QByteArray full = stage.value().dir + '/' + dir;
        if (::mkdir(full.constData(), 0755) != 0) {
            const int errnum = errno;
            stage.value().discard();
            return osError(QStringLiteral("cannot create"), stage.value().workTree + '/' + dir, errnum);
        }
    }
    const int threads = std::clamp(QThread::idealThreadCount(), 1, kMaxThreads);
    if (auto e = writeFiles(QFile::encodeName(m_repo.gitDir()), commit, stage.value(), plan, progress, threads)) {
        stage.value().discard();
        return *e;
    }
    if (auto e = stage.value().moveIn(plan.files))
        return *e;

    // The index: every file with its stat data (libgit2 marks added entries up to date, so
    // writing it reads no file again). Should this fail, the files are in the worktree as
    // main has them: the next sync's checkout finds them so and writes the index.
    git_index *idx = index.value().get();
    for (const File &f : plan.files) {
        git_index_entry entry {};
        fillEntry(entry, f);
        if (int rc = git_index_add(idx, &entry); rc < 0) {
            const WorkspaceError e
                = git::error(rc, QStringLiteral("cannot add %1 to the index").arg(QString::fromUtf8(f.path)));
            m_repo.reloadIndex();
            return e;
        }
    }
    if (int rc = git_index_write(idx); rc < 0) {
        const WorkspaceError e = git::error(rc, QStringLiteral("cannot write the index"));
        m_repo.reloadIndex();
        return e;
    }
    if (progress)
        progress(plan.total, plan.total);
    qCInfo(lcWorkspace) << "checked out" << plan.files.size() << "files," << plan.total << "bytes, from" << threads
                        << "threads in" << took.elapsed() << "ms";
    return true;
}

} // namespace isolation
