// Clones a repository into a session's worktree as a nested repository (its own .git, kept out of
// the workspace's commits and bundles), with libgit2 on a worker thread: the credential (a token for
// https://, a private key for ssh) goes from memory to libgit2's credential callback and never
// touches a command line, a URL or a file. An ssh server's host key is checked against the
// known-hosts lines of the request before anything is sent to it.
#pragma once

#include "crypto/securebytes.h"
#include "sandboxerror.h"

#include <QObject>
#include <QThreadPool>

#include <atomic>
#include <functional>
#include <memory>

namespace isolation {

struct CloneRequest
{
    // https://host/path, http:// to a loopback host only (a credential never crosses a network in
    // the clear), ssh://[user@]host[:port]/path, or scp-like [user@]host:path (port 22). No password
    // in the URL, and no user in an http(s) one: it would be written to .git/config.
    QString url;
    QString worktree; // the session's worktree on the host
    QString directory; // where the clone goes, relative to the worktree ("repos/tool"); must not exist or be empty
    QString branch; // empty: the remote's default branch
    SecureBytes username; // https: with a token, empty: "git"; ssh: the login when the URL names none (empty: "git")
    SecureBytes token; // https only; empty: no credential is offered
    // ssh only. The private key (OpenSSH or PEM text; ed25519 or ECDSA: libssh2 1.10 signs with an
    // RSA key as ssh-rsa, SHA-1, which OpenSSH 8.8 and later refuse), handed to libssh2 from memory.
    SecureBytes sshKey;
    SecureBytes sshPassphrase; // empty: the key is not encrypted
    // ssh only: OpenSSH known_hosts lines (KnownHosts); the server's host key must be one of those
    // given for its name ("[host]:port" off port 22). Refused without one for the host, unless
    // insecureAcceptAnyHostKey: then any host key is taken (logged with its fingerprint), and
    // whoever sits between this machine and the server sees and can change what is cloned.
    QByteArray knownHosts;
    bool insecureAcceptAnyHostKey = false;
};

struct CloneResult
{
    QString path; // the clone's directory on the host (canonical)
    QString head; // the commit checked out, 40 hex digits (empty for an empty repository)
};

class RepoCloner final : public QObject
{
    Q_OBJECT
public:
    using Callback = std::function<void(Result<CloneResult, SandboxError>)>;

    explicit RepoCloner(QObject *parent = nullptr);
    ~RepoCloner() override; // cancels a clone in flight and waits for its thread

    // Refused (with the reason) for a request start() would refuse.
    static Result<void, SandboxError> check(const CloneRequest &request);
    // check() without the worktree, directory and branch: the URL, the credential and the host keys.
    static Result<void, SandboxError> checkSource(const CloneRequest &request);
    // The URL as messages and records show it: without a password (nor an http(s) user).
    static QString shownUrl(const QString &url);
    // Whether the URL is an ssh one (ssh:// or scp-like), whatever else is wrong with it.
    static bool isSsh(const QString &url);

    // Clones on a worker thread; `done` runs once, on this object's thread, unless this object is
    // destroyed first. Refused: check() said no, or a clone is already running. Failed: the clone
    // failed (authentication, a host key that is not the known one, network, not a repository);
    // Cancelled: cancel(). A failed or cancelled clone leaves no directory behind.
    void start(CloneRequest request, Callback done);
    void cancel();
    bool isRunning() const { return m_running; }

Q_SIGNALS:
    // Objects received of total, bytes received; at most a few times a second.
    void progress(qint64 receivedObjects, qint64 totalObjects, qint64 receivedBytes);

private:
    QThreadPool m_pool;
    std::shared_ptr<std::atomic_bool> m_cancel;
    bool m_running = false;
};

} // namespace isolation
