#include "repocloner.h"

#include "core/logging.h"
#include "workspace/gitsupport.h"

#include <QDir>
#include <QElapsedTimer>
#include <QFileInfo>
#include <QHostAddress>
#include <QtConcurrent>

#include <git2.h>

namespace isolation {

namespace {

// What libgit2's callbacks see, on the worker thread.
struct CloneState
{
    RepoCloner *cloner = nullptr;
    std::shared_ptr<std::atomic_bool> cancel;
    SecureBytes username; // NUL-terminated copies for libgit2
    SecureBytes token;
    int credentialCalls = 0;
    bool authFailed = false;
    QElapsedTimer sinceProgress;
};

SecureBytes cString(const SecureBytes &bytes)
{
    SecureBytes out(bytes.size() + 1); // zero-filled: the last byte is the terminator
    std::copy_n(bytes.constData(), bytes.size(), out.data());
    return out;
}

int credentials(git_credential **out, const char *, const char *, unsigned int allowed, void *payload)
{
    auto *state = static_cast<CloneState *>(payload);
    if (state->cancel->load())
        return GIT_EUSER;
    if (state->token.isEmpty() || !(allowed & GIT_CREDENTIAL_USERPASS_PLAINTEXT))
        return GIT_PASSTHROUGH; // nothing to offer: the server's refusal ends the clone
    if (state->credentialCalls++ > 0) {
        // libgit2 asks again after a 401: the credential was refused. Asking forever would loop.
        state->authFailed = true;
        return GIT_EUSER;
    }
    return git_credential_userpass_plaintext_new(out, state->username.constData(), state->token.constData());
}

int transferProgress(const git_indexer_progress *stats, void *payload)
{
    auto *state = static_cast<CloneState *>(payload);
    if (state->cancel->load())
        return GIT_EUSER;
    const bool last = stats->received_objects == stats->total_objects && stats->indexed_deltas == stats->total_deltas;
    if (state->sinceProgress.elapsed() >= 200 || last) {
        state->sinceProgress.restart();
        const qint64 received = qint64(stats->received_objects);
        const qint64 total = qint64(stats->total_objects);
        const qint64 bytes = qint64(stats->received_bytes);
        QPointer<RepoCloner> cloner(state->cloner);
        QMetaObject::invokeMethod(
            state->cloner,
            [cloner, received, total, bytes] {
                if (cloner)
                    Q_EMIT cloner->progress(received, total, bytes);
            },
            Qt::QueuedConnection);
    }
    return 0;
}

int sideband(const char *, int, void *payload)
{
    return static_cast<CloneState *>(payload)->cancel->load() ? GIT_EUSER : 0;
}

// The remote, made without `url.*.insteadOf` from the user's git configuration: a rewrite must not
// send the credential to another host. (It also keeps libgit2 1.5's regex matching of every config
// entry, which leaks its match data, out of the clone.)
int createRemote(git_remote **out, git_repository *repo, const char *name, const char *url, void *)
{
    git_remote_create_options options = GIT_REMOTE_CREATE_OPTIONS_INIT;
    options.repository = repo;
    options.name = name;
    options.flags = GIT_REMOTE_CREATE_SKIP_INSTEADOF;
    return git_remote_create_with_opts(out, url, &options);
}

bool isLoopback(const QString &host)
{
    if (host.compare(QLatin1String("localhost"), Qt::CaseInsensitive) == 0)
        return true;
    const QHostAddress address(host);
    return !address.isNull() && address.isLoopback();
}

// The target directory, made below the worktree without leaving it through a symbolic link.
Result<QString, SandboxError> prepareTarget(const CloneRequest &request)
{
    const QString root = QFileInfo(request.worktree).canonicalFilePath();
    const QString target = root + QLatin1Char('/') + request.directory;
    const QString parent = QFileInfo(target).path();
    if (!QDir().mkpath(parent))
        return SandboxError::failed(QStringLiteral("cannot make %1").arg(parent));
    const QString canonicalParent = QFileInfo(parent).canonicalFilePath();
    if (canonicalParent != root && !canonicalParent.startsWith(root + QLatin1Char('/')))
        return SandboxError::refused(QStringLiteral("%1 leads out of the worktree").arg(request.directory));
    const QFileInfo info(target);
    if (info.isSymLink()
        || (info.exists()
            && (!info.isDir()
                || !QDir(target).isEmpty(QDir::AllEntries | QDir::NoDotAndDotDot | QDir::Hidden | QDir::System))))
        return SandboxError::refused(
            QStringLiteral("%1 already exists and is not an empty directory").arg(request.directory));
    return target;
}

Result<CloneResult, SandboxError> clone(const CloneRequest &request, CloneState &state)
{
    auto target = prepareTarget(request);
    if (!target)
        return target.error();
    const bool existed = QFileInfo::exists(target.value());
    git::ensureLibrary();
    git_clone_options options = GIT_CLONE_OPTIONS_INIT;
    options.fetch_opts.callbacks.credentials = credentials;
    options.fetch_opts.callbacks.transfer_progress = transferProgress;
    options.fetch_opts.callbacks.sideband_progress = sideband;
    options.fetch_opts.callbacks.payload = &state;
    options.remote_cb = createRemote;
    const QByteArray branch = request.branch.toUtf8();
    if (!branch.isEmpty())
        options.checkout_branch = branch.constData();
    const QByteArray url = request.url.toString(QUrl::FullyEncoded).toUtf8();
    const QByteArray path = QFile::encodeName(target.value());
    git_repository *raw = nullptr;
    state.sinceProgress.start();
    const int rc = git_clone(&raw, url.constData(), path.constData(), &options);
    git::RepositoryPtr repo(raw);
    if (rc != 0) {
        const git_error *last = git_error_last();
        const QString detail = last && last->message ? QString::fromUtf8(last->message) : QString::number(rc);
        git_error_clear();
        repo.reset();
        // libgit2 removes what it made; a directory that was there before is emptied, not removed.
        QDir dir(target.value());
        if (existed) {
            for (const QString &entry :
                dir.entryList(QDir::AllEntries | QDir::NoDotAndDotDot | QDir::Hidden | QDir::System))
                QFileInfo(dir.filePath(entry)).isDir() ? (void)QDir(dir.filePath(entry)).removeRecursively()
                                                       : (void)QFile::remove(dir.filePath(entry));
        } else {
            dir.removeRecursively();
        }
        if (state.cancel->load())
            return SandboxError::cancelled(QStringLiteral("the clone of %1 was cancelled").arg(request.url.toString()));
        if (state.authFailed) {
            return SandboxError::failed(QStringLiteral("the clone of %1 failed: the server refused the credential")
                                            .arg(request.url.toString()));
        }
        return SandboxError::failed(
            logging::redact(QStringLiteral("the clone of %1 failed: %2").arg(request.url.toString(), detail)));
    }
    CloneResult out;
    out.path = QFileInfo(target.value()).canonicalFilePath();
    git_oid head;
    if (git_reference_name_to_id(&head, repo.get(), "HEAD") == 0)
        out.head = QString::fromLatin1(git::toHex(head));
    git_error_clear();
    return out;
}

} // namespace

RepoCloner::RepoCloner(QObject *parent)
    : QObject(parent)
    , m_cancel(std::make_shared<std::atomic_bool>(false))
{
    m_pool.setMaxThreadCount(1);
}

RepoCloner::~RepoCloner()
{
    cancel();
    m_pool.waitForDone();
}

Result<void, SandboxError> RepoCloner::check(const CloneRequest &request)
{
    const QUrl &url = request.url;
    const QString scheme = url.scheme().toLower();
    if (!url.isValid() || url.host().isEmpty() || (scheme != QLatin1String("https") && scheme != QLatin1String("http")))
        return SandboxError::refused(
            QStringLiteral("only https:// (or http:// to this machine) repositories can be cloned"));
    if (scheme == QLatin1String("http") && !isLoopback(url.host()))
        return SandboxError::refused(
            QStringLiteral("refusing plain http:// to %1: only https:// leaves this machine").arg(url.host()));
    if (!url.userInfo().isEmpty())
        return SandboxError::refused(
            QStringLiteral("the URL carries a user or password; give the credential in the request instead"));
    if (url.hasQuery() || url.hasFragment())
        return SandboxError::refused(QStringLiteral("the URL has a query or fragment"));
    if (!QFileInfo(request.worktree).isDir())
        return SandboxError::refused(QStringLiteral("the worktree %1 does not exist").arg(request.worktree));
    const QString dir = request.directory;
    const QStringList parts = dir.split(QLatin1Char('/'));
    if (dir.isEmpty() || QDir::isAbsolutePath(dir) || dir.contains(QLatin1Char('\\')) || QDir::cleanPath(dir) != dir
        || parts.contains(QLatin1String(".git")) || parts.contains(QLatin1String(".."))
        || parts.contains(QLatin1String(".")))
        return SandboxError::refused(QStringLiteral("%1 is not a directory inside the worktree").arg(dir));
    if (request.branch.startsWith(QLatin1Char('-')) || request.branch.contains(QLatin1String("..")))
        return SandboxError::refused(QStringLiteral("%1 is not a branch name").arg(request.branch));
    return {};
}

void RepoCloner::start(CloneRequest request, Callback done)
{
    if (auto ok = check(request); !ok || m_running) {
        const SandboxError error
            = ok ? SandboxError::refused(QStringLiteral("a clone is already running")) : ok.error();
        QMetaObject::invokeMethod(
            this, [done, error] { done(error); }, Qt::QueuedConnection);
        return;
    }
    m_running = true;
    m_cancel->store(false);
    auto state = std::make_shared<CloneState>();
    state->cloner = this;
    state->cancel = m_cancel;
    if (!request.token.isEmpty()) {
        state->username = cString(request.username.isEmpty() ? SecureBytes(QByteArrayView("git")) : request.username);
        state->token = cString(request.token);
    }
    request.username.clear();
    request.token.clear();
    qCInfo(lcSandbox).noquote() << QStringLiteral("cloning %1 into %2").arg(request.url.toString(), request.directory);
    QPointer<RepoCloner> self(this);
    (void)QtConcurrent::run(&m_pool, [self, state, request = std::move(request), done = std::move(done)] {
        auto result = clone(request, *state);
        state->username.clear();
        state->token.clear();
        // Posted to this object's thread; the destructor waits for this thread, so `state->cloner` is alive.
        QMetaObject::invokeMethod(
            state->cloner,
            [self, done, result = std::move(result)] {
                if (!self)
                    return;
                self->m_running = false;
                if (result.ok())
                    qCInfo(lcSandbox).noquote() << QStringLiteral("cloned into %1").arg(result.value().path);
                else
                    qCWarning(lcSandbox).noquote() << result.error().message;
                done(result);
            },
            Qt::QueuedConnection);
    });
}

void RepoCloner::cancel()
{
    m_cancel->store(true);
}

} // namespace isolation
