#include "repocloner.h"

#include "core/logging.h"
#include "knownhosts.h"
#include "workspace/gitsupport.h"

#include <QDir>
#include <QElapsedTimer>
#include <QFileInfo>
#include <QHostAddress>
#include <QRegularExpression>
#include <QtConcurrent>
#include <QUrl>

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
    bool ssh = false;
    SecureBytes sshKey; // NUL-terminated
    SecureBytes sshPassphrase; // NUL-terminated; empty: none
    QString host; // where the clone goes, as check() read the URL
    int port = 22;
    KnownHosts knownHosts;
    bool anyHostKey = false;
    QString hostKeyRefused; // why the server's host key was refused
    int credentialCalls = 0;
    bool authFailed = false;
    QElapsedTimer sinceProgress;
};

// Where a repository URL leads, as check() reads it.
struct Location
{
    enum class Kind { Https, Http, Ssh };
    Kind kind = Kind::Https;
    QString host; // without brackets
    int port = -1; // ssh: 22 unless given
    QString user; // ssh: the login the URL names (empty: none)
    QByteArray forLibgit2; // the URL handed to libgit2 (and kept as the clone's origin)
};

// libgit2's rule (git_net_str_is_url): a scheme and "://", else an ssh address such as git@host:path.
bool hasScheme(const QString &url)
{
    static const QRegularExpression scheme(QStringLiteral("^[A-Za-z0-9+.-]*://"));
    return scheme.match(url).hasMatch();
}

bool isScpLike(const QString &url)
{
    if (hasScheme(url))
        return false;
    const qsizetype colon = url.indexOf(QLatin1Char(':'));
    const qsizetype slash = url.indexOf(QLatin1Char('/'));
    return colon > 0 && (slash < 0 || colon < slash);
}

QString withoutBrackets(QString host)
{
    if (host.startsWith(QLatin1Char('[')) && host.endsWith(QLatin1Char(']')))
        host = host.mid(1, host.size() - 2);
    return host;
}

bool isLoopback(const QString &host);

// A path the remote shell gets in single quotes (libgit2 sends "git-upload-pack '<path>'" unescaped).
bool isSafeRemotePath(const QString &path)
{
    for (const QChar c : path) {
        if (c == QLatin1Char('\'') || c.unicode() < 0x20 || c.unicode() == 0x7f)
            return false;
    }
    return !path.isEmpty() && !path.startsWith(QLatin1Char('-'));
}

Result<Location, SandboxError> locate(const QString &text)
{
    const QString shown = RepoCloner::shownUrl(text);
    if (isScpLike(text)) {
        // git's [user@host:port]:path, the one scp-like form with a port.
        static const QRegularExpression bracketed(
            QStringLiteral("^\\[(?:([^@/:\\[\\]\\s]+)@)?([A-Za-z0-9_.-]+):([0-9]{1,5})\\]:(.+)$"));
        if (const QRegularExpressionMatch m = bracketed.match(text); m.hasMatch()) {
            const int port = m.captured(3).toInt();
            if (port < 1 || port > 65535 || m.captured(2).startsWith(QLatin1Char('-')))
                return SandboxError::refused(QStringLiteral("%1 is not [user@host:port]:path").arg(shown));
            if (!isSafeRemotePath(m.captured(4)))
                return SandboxError::refused(
                    QStringLiteral("the path of %1 has a quote, a control character or a leading dash").arg(shown));
            Location out;
            out.kind = Location::Kind::Ssh;
            out.user = m.captured(1);
            out.host = m.captured(2);
            out.port = port;
            out.forLibgit2 = text.toUtf8();
            return out;
        }
        static const QRegularExpression scp(
            QStringLiteral("^(?:([^@/:\\[\\]\\s]+)@)?([A-Za-z0-9_.-]+|\\[[0-9A-Fa-f:.]+\\]):(.+)$"));
        const QRegularExpressionMatch m = scp.match(text);
        if (!m.hasMatch() || m.captured(2).startsWith(QLatin1Char('-')))
            return SandboxError::refused(
                QStringLiteral("%1 is neither a URL nor an ssh address [user@]host:path").arg(shown));
        if (!isSafeRemotePath(m.captured(3)))
            return SandboxError::refused(
                QStringLiteral("the path of %1 has a quote, a control character or a leading dash").arg(shown));
        Location out;
        out.kind = Location::Kind::Ssh;
        out.user = m.captured(1);
        out.host = withoutBrackets(m.captured(2));
        out.port = 22;
        out.forLibgit2 = text.toUtf8();
        return out;
    }
    const QUrl url(text, QUrl::StrictMode);
    const QString scheme = url.scheme().toLower();
    if (scheme == QLatin1String("ssh")) {
        if (!url.isValid() || url.host().isEmpty() || url.port(22) <= 0)
            return SandboxError::refused(QStringLiteral("%1 is not an ssh://[user@]host[:port]/path URL").arg(shown));
        if (!url.password().isEmpty())
            return SandboxError::refused(
                QStringLiteral("the URL carries a password; give the key in the request instead"));
        if (url.hasQuery() || url.hasFragment())
            return SandboxError::refused(QStringLiteral("the URL has a query or fragment"));
        if (!isSafeRemotePath(url.path()) || url.path() == QLatin1String("/"))
            return SandboxError::refused(
                QStringLiteral("the path of %1 is empty, or has a quote or a control character").arg(shown));
        Location out;
        out.kind = Location::Kind::Ssh;
        out.user = url.userName();
        out.host = url.host();
        out.port = url.port(22);
        out.forLibgit2 = url.toString(QUrl::FullyEncoded).toUtf8();
        return out;
    }
    if (!url.isValid() || url.host().isEmpty() || (scheme != QLatin1String("https") && scheme != QLatin1String("http")))
        return SandboxError::refused(QStringLiteral(
            "only https:// (or http:// to this machine) and ssh (ssh:// or host:path) repositories can be cloned"));
    if (scheme == QLatin1String("http") && !isLoopback(url.host()))
        return SandboxError::refused(
            QStringLiteral("refusing plain http:// to %1: only https:// leaves this machine").arg(url.host()));
    if (!url.userInfo().isEmpty())
        return SandboxError::refused(
            QStringLiteral("the URL carries a user or password; give the credential in the request instead"));
    if (url.hasQuery() || url.hasFragment())
        return SandboxError::refused(QStringLiteral("the URL has a query or fragment"));
    Location out;
    out.kind = scheme == QLatin1String("http") ? Location::Kind::Http : Location::Kind::Https;
    out.host = url.host();
    out.port = url.port();
    out.forLibgit2 = url.toString(QUrl::FullyEncoded).toUtf8();
    return out;
}

// The type of a private key, read from its public part only: "ssh-rsa", "ssh-ed25519", ...
// (empty when unknown). Only the first bytes of an OpenSSH key are decoded: the cipher, the KDF and
// the public key, never the private part.
QString privateKeyType(const SecureBytes &key)
{
    const QByteArrayView text = key.view();
    if (text.contains("-----BEGIN RSA PRIVATE KEY-----"))
        return QStringLiteral("ssh-rsa");
    if (text.contains("-----BEGIN EC PRIVATE KEY-----"))
        return QStringLiteral("ecdsa");
    const QByteArrayView begin("-----BEGIN OPENSSH PRIVATE KEY-----");
    const qsizetype at = text.indexOf(begin);
    if (at < 0)
        return {};
    char head[120];
    qsizetype n = 0;
    for (qsizetype i = at + begin.size(); i < text.size() && n < qsizetype(sizeof head) && text[i] != '-'; ++i) {
        if (!QChar::isSpace(uchar(text[i])))
            head[n++] = text[i];
    }
    SecureBytes decoded(QByteArray::fromBase64(QByteArray::fromRawData(head, n)));
    std::fill(std::begin(head), std::end(head), '\0');
    QByteArrayView in = decoded.view();
    const QByteArrayView magic("openssh-key-v1\0", 15);
    if (!in.startsWith(magic))
        return {};
    in = in.sliced(magic.size());
    // cipher, KDF, KDF options (strings), the number of keys, then the first public key.
    for (int i = 0; i < 3; ++i) {
        if (in.size() < 4)
            return {};
        const quint32 length = (quint32(quint8(in[0])) << 24) | (quint32(quint8(in[1])) << 16)
            | (quint32(quint8(in[2])) << 8) | quint32(quint8(in[3]));
        if (length > quint32(in.size() - 4))
            return {};
        in = in.sliced(4 + length);
    }
    if (in.size() < 8)
        return {};
    return KnownHosts::keyTypeOf(in.sliced(8));
}

SecureBytes cString(const SecureBytes &bytes)
{
    SecureBytes out(bytes.size() + 1); // zero-filled: the last byte is the terminator
    std::copy_n(bytes.constData(), bytes.size(), out.data());
    return out;
}

int credentials(git_credential **out, const char *, const char *usernameFromUrl, unsigned int allowed, void *payload)
{
    auto *state = static_cast<CloneState *>(payload);
    if (state->cancel->load())
        return GIT_EUSER;
    if (state->ssh) {
        if (allowed & GIT_CREDENTIAL_USERNAME) // the URL names no login
            return git_credential_username_new(out, state->username.constData());
        if (!(allowed & GIT_CREDENTIAL_SSH_MEMORY) || state->credentialCalls++ > 0) {
            // No public keys taken, or the key was refused: asking again would loop.
            state->authFailed = true;
            return GIT_EUSER;
        }
        // libgit2 copies the key and zeroes its copy when it frees the credential.
        return git_credential_ssh_key_memory_new(out, usernameFromUrl ? usernameFromUrl : state->username.constData(),
            nullptr, state->sshKey.constData(),
            state->sshPassphrase.isEmpty() ? nullptr : state->sshPassphrase.constData());
    }
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

// The ssh server's host key against the request's known hosts, before any credential is sent.
// libgit2 1.5.1's own verdict (`valid`, from the engine user's ~/.ssh/known_hosts) is not used.
int hostKeyCheck(git_cert *cert, int, const char *host, void *payload)
{
    auto *state = static_cast<CloneState *>(payload);
    if (state->cancel->load())
        return GIT_EUSER;
    if (cert->cert_type != GIT_CERT_HOSTKEY_LIBSSH2)
        return GIT_PASSTHROUGH; // TLS: libgit2's own check of the certificate chain
    const auto *key = reinterpret_cast<const git_cert_hostkey *>(cert);
    const QString name = KnownHosts::lookupName(state->host, state->port);
    if (!(key->type & GIT_CERT_SSH_RAW) || !key->hostkey || key->hostkey_len == 0) {
        state->hostKeyRefused = QStringLiteral("the host key of %1 could not be read").arg(name);
        return GIT_ECERTIFICATE;
    }
    if (withoutBrackets(QString::fromUtf8(host)).compare(state->host, Qt::CaseInsensitive) != 0) {
        state->hostKeyRefused = QStringLiteral("libgit2 connected to %1, not %2").arg(QString::fromUtf8(host), name);
        return GIT_ECERTIFICATE;
    }
    const QByteArrayView blob(key->hostkey, qsizetype(key->hostkey_len));
    const QString shown = KnownHosts::keyTypeOf(blob) + QLatin1Char(' ') + KnownHosts::fingerprint(blob);
    if (state->anyHostKey) {
        qCWarning(lcSandbox).noquote() << QStringLiteral(
            "taking the host key of %1 unchecked (%2): the launch accepts any host key")
                                              .arg(name, shown);
        return 0;
    }
    const KnownHosts::Check checked = state->knownHosts.check(state->host, state->port, blob);
    switch (checked.verdict) {
    case KnownHosts::Verdict::Match:
        return 0;
    case KnownHosts::Verdict::Revoked:
        state->hostKeyRefused
            = QStringLiteral("the host key of %1 (%2) is revoked in the known hosts").arg(name, shown);
        break;
    case KnownHosts::Verdict::Mismatch:
        state->hostKeyRefused = QStringLiteral("the host key of %1 (%2) is not the one the known hosts give (%3): "
                                               "someone may be in between, or the server's key changed")
                                    .arg(name, shown, checked.known.join(QLatin1String(", ")));
        break;
    case KnownHosts::Verdict::Unknown:
        state->hostKeyRefused = QStringLiteral("the known hosts have no key for %1 (it showed %2)").arg(name, shown);
        break;
    }
    return GIT_ECERTIFICATE;
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
    if (state.ssh) // libgit2 1.5.1 would otherwise ask the engine user's ~/.ssh/known_hosts alone
        options.fetch_opts.callbacks.certificate_check = hostKeyCheck;
    options.remote_cb = createRemote;
    const QByteArray branch = request.branch.toUtf8();
    if (!branch.isEmpty())
        options.checkout_branch = branch.constData();
    const QByteArray url = locate(request.url).value().forLibgit2;
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
        const QString shown = RepoCloner::shownUrl(request.url);
        if (state.cancel->load())
            return SandboxError::cancelled(QStringLiteral("the clone of %1 was cancelled").arg(shown));
        if (!state.hostKeyRefused.isEmpty()) {
            return SandboxError::failed(QStringLiteral("the clone of %1 was stopped before authenticating: %2")
                                            .arg(shown, state.hostKeyRefused));
        }
        if (state.authFailed && state.ssh) {
            const QString type = privateKeyType(state.sshKey);
            return SandboxError::failed(
                QStringLiteral("the clone of %1 failed: the server refused the key%2")
                    .arg(shown,
                        type == QLatin1String("ssh-rsa")
                            ? QStringLiteral(" (an RSA key: libssh2 signs with it as ssh-rsa, SHA-1, which OpenSSH 8.8 "
                                             "and later refuse; use an ed25519 or ECDSA key)")
                            : QString()));
        }
        if (state.authFailed) {
            return SandboxError::failed(
                QStringLiteral("the clone of %1 failed: the server refused the credential").arg(shown));
        }
        return SandboxError::failed(logging::redact(QStringLiteral("the clone of %1 failed: %2").arg(shown, detail)));
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

QString RepoCloner::shownUrl(const QString &url)
{
    if (isScpLike(url)) {
        // user:password@host:path: the user part goes with what it hides.
        const qsizetype at = url.indexOf(QLatin1Char('@'));
        const qsizetype colon = url.indexOf(QLatin1Char(':'));
        return at > colon && colon >= 0 ? url.mid(at + 1) : url;
    }
    const QUrl parsed(url);
    const bool ssh = parsed.scheme().compare(QLatin1String("ssh"), Qt::CaseInsensitive) == 0;
    return parsed.toString(ssh ? QUrl::RemovePassword : QUrl::RemoveUserInfo);
}

bool RepoCloner::isSsh(const QString &url)
{
    return isScpLike(url) || QUrl(url).scheme().compare(QLatin1String("ssh"), Qt::CaseInsensitive) == 0;
}

Result<void, SandboxError> RepoCloner::check(const CloneRequest &request)
{
    if (auto source = checkSource(request); !source)
        return source;
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

Result<void, SandboxError> RepoCloner::checkSource(const CloneRequest &request)
{
    auto location = locate(request.url);
    if (!location)
        return location.error();
    if (location.value().kind == Location::Kind::Ssh) {
        const Location &where = location.value();
        if (request.sshKey.isEmpty())
            return SandboxError::refused(QStringLiteral("an ssh repository needs a private key (sshKeySecret)"));
        if (!request.token.isEmpty())
            return SandboxError::refused(
                QStringLiteral("a token is for https:// repositories; an ssh one takes a private key"));
        const QByteArray user = where.user.toUtf8();
        if (!user.isEmpty() && !request.username.isEmpty() && request.username.view() != QByteArrayView(user))
            return SandboxError::refused(
                QStringLiteral("the URL logs in as %1, the request as another user").arg(where.user));
        QString error;
        const KnownHosts known = KnownHosts::parse(request.knownHosts, &error);
        if (!error.isEmpty())
            return SandboxError::refused(error);
        if (!request.insecureAcceptAnyHostKey && !known.knows(where.host, where.port)) {
            return SandboxError::refused(
                QStringLiteral("the known hosts have no key for %1: send the server's host key with the launch "
                               "(knownHosts: known_hosts lines, as ssh-keyscan%2 %3 prints them), or accept any "
                               "host key explicitly (insecureAcceptAnyHostKey)")
                    .arg(KnownHosts::lookupName(where.host, where.port),
                        where.port == 22 ? QString() : QStringLiteral(" -p %1").arg(where.port), where.host));
        }
    } else if (!request.sshKey.isEmpty() || !request.sshPassphrase.isEmpty()) {
        return SandboxError::refused(QStringLiteral("a private key is for ssh repositories only"));
    }
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
    const Location where = locate(request.url).value();
    if (where.kind == Location::Kind::Ssh) {
        state->ssh = true;
        state->host = where.host;
        state->port = where.port;
        const SecureBytes user = !where.user.isEmpty() ? SecureBytes(where.user.toUtf8())
            : !request.username.isEmpty()              ? request.username
                                                       : SecureBytes(QByteArrayView("git"));
        state->username = cString(user);
        state->sshKey = cString(request.sshKey);
        if (!request.sshPassphrase.isEmpty())
            state->sshPassphrase = cString(request.sshPassphrase);
        state->knownHosts = KnownHosts::parse(request.knownHosts, nullptr);
        state->anyHostKey = request.insecureAcceptAnyHostKey;
    } else if (!request.token.isEmpty()) {
        state->username = cString(request.username.isEmpty() ? SecureBytes(QByteArrayView("git")) : request.username);
        state->token = cString(request.token);
    }
    request.username.clear();
    request.token.clear();
    request.sshKey.clear();
    request.sshPassphrase.clear();
    qCInfo(lcSandbox).noquote() << QStringLiteral("cloning %1 into %2").arg(shownUrl(request.url), request.directory);
    QPointer<RepoCloner> self(this);
    (void)QtConcurrent::run(&m_pool, [self, state, request = std::move(request), done = std::move(done)] {
        auto result = clone(request, *state);
        state->username.clear();
        state->token.clear();
        state->sshKey.clear();
        state->sshPassphrase.clear();
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
