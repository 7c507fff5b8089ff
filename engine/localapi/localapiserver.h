// The LocalAPI: HTTP/1.1 + JSON on a unix socket private to the user (directory 0700, socket
// 0600), as Tailscale's LocalAPI. `isolation-server` verbs and scripts (curl --unix-socket) use it.
#pragma once

#include "core/result.h"
#include "http/httpserver.h"

#include <QObject>

namespace isolation {

class LocalApiServer final : public QObject
{
    Q_OBJECT
public:
    explicit LocalApiServer(QObject *parent = nullptr);

    // Header and body sizes, deadlines, connection cap (docs/architecture.md, "Limits on every door").
    static HttpLimits limits();
    static constexpr qint64 kMaxBodyBytes = 1024 * 1024;

    // Routes are added by the engine before listen().
    HttpServer &http() { return m_http; }

    // Listens at `socketPath`. A socket file left by a dead engine is removed; a live one is an error.
    // The caller must hold the engine's instance lock.
    Status listen(const QString &socketPath);
    void close();
    QString socketPath() const { return m_path; }

private:
    HttpServer m_http;
    QString m_path;
};

} // namespace isolation
