#include "localapiserver.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QLocalSocket>
#include <QLoggingCategory>

Q_LOGGING_CATEGORY(lcLocalApi, "isolation.localapi")

namespace isolation {

LocalApiServer::LocalApiServer(QObject *parent)
    : QObject(parent)
    , m_http(this)
{
    m_http.setLimits(limits());
}

HttpLimits LocalApiServer::limits()
{
    // HttpLimits' defaults, deadlines and caps included. Every peer of this socket is the same
    // user (the socket is 0600 in a 0700 directory), and unix-socket peers have no address, so
    // the cap per peer is one cap for all: 64 connections at once. Telling processes apart by
    // SO_PEERCRED would not bound anything: one process forks as many as it likes.
    // An event stream (GET /v1/events) is inside its request: no idle timeout cuts it, and
    // EventStream caps streams at 16 so they never take all 64.
    // Bodies are small JSON objects (a save's message is capped at 64 KiB, a launch's sealed
    // secrets are a few KiB): 1 MiB is ample, and a larger body is refused (413) before it is
    // buffered, so no request can raise the engine's memory for good (a 10 MB message did).
    HttpLimits limits;
    limits.maxBodyBytes = kMaxBodyBytes;
    // A test sees an event stream outlive the idle timeout without waiting a minute for it.
    if (const int ms = qEnvironmentVariableIntValue("ISOLATION_TEST_LOCALAPI_IDLE_MS"); ms > 0)
        limits.idleTimeoutMs = ms;
    return limits;
}

Status LocalApiServer::listen(const QString &socketPath)
{
    const QFileInfo dir(QFileInfo(socketPath).absolutePath());
    if (!dir.isDir())
        return Error::failed(QStringLiteral("runtime directory %1 does not exist").arg(dir.filePath()));
    if (dir.permissions()
        & (QFileDevice::ReadGroup | QFileDevice::WriteGroup | QFileDevice::ExeGroup | QFileDevice::ReadOther
            | QFileDevice::WriteOther | QFileDevice::ExeOther))
        return Error::failed(QStringLiteral("runtime directory %1 is not private (must be 0700)").arg(dir.filePath()));

    if (QFileInfo::exists(socketPath) || QFileInfo(socketPath).isSymLink()) {
        QLocalSocket probe;
        probe.connectToServer(socketPath);
        if (probe.waitForConnected(200)) {
            probe.abort();
            return Error::unavailable(QStringLiteral("another process is serving %1").arg(socketPath));
        }
        qCInfo(lcLocalApi) << "removing stale socket" << socketPath;
        if (!QFile::remove(socketPath))
            return Error::failed(QStringLiteral("cannot remove stale socket %1").arg(socketPath));
    }
    if (auto s = m_http.listenLocal(socketPath); !s)
        return s;
    m_path = socketPath;
    qCInfo(lcLocalApi) << "LocalAPI listening on" << socketPath;
    return {};
}

void LocalApiServer::close()
{
    m_http.close();
    if (!m_path.isEmpty()) {
        QFile::remove(m_path);
        m_path.clear();
    }
}

} // namespace isolation
