// Clones a repository into a session's worktree as a nested repository (its own .git, kept out of
// the workspace's commits and bundles), with libgit2 on a worker thread: the credential goes from
// memory to libgit2's credential callback and never touches a command line, a URL or a file.
#pragma once

#include "crypto/securebytes.h"
#include "sandboxerror.h"

#include <QObject>
#include <QThreadPool>
#include <QUrl>

#include <atomic>
#include <functional>
#include <memory>

namespace isolation {

struct CloneRequest
{
    // https://host/path, or http:// to a loopback host only (a credential never crosses a network
    // in the clear). No user or password in the URL: it would be written to .git/config.
    QUrl url;
    QString worktree; // the session's worktree on the host
    QString directory; // where the clone goes, relative to the worktree ("repos/tool"); must not exist or be empty
    QString branch; // empty: the remote's default branch
    SecureBytes username; // empty with a token: "git"
    SecureBytes token; // empty: no credential is offered
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

    // Clones on a worker thread; `done` runs once, on this object's thread, unless this object is
    // destroyed first. Refused: check() said no, or a clone is already running. Failed: the clone
    // failed (authentication, network, not a repository); Cancelled: cancel(). A failed or
    // cancelled clone leaves no directory behind.
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
