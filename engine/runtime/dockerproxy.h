// DockerProxy: the lifecycle server's only way to Docker. The engine serves a unix socket in a
// directory of its own (bind-mounted into the runtime's container; DOCKER_HOST names the socket
// there) and forwards each request to the real Docker socket, parsed by llhttp, with one rewrite:
// a container create's port bindings are published on 127.0.0.1. The pinned OpenSandbox runtime
// publishes execd with an explicit host IP 0.0.0.0, which Docker lets win over any default; the
// proxy is where that is turned back (docs/runtime.md, "execd's access token"). Answers pass
// through untouched; a request that switches protocols (attach, exec) turns its connection into
// a plain two-way pipe. Flow control both ways: neither side's backlog grows past a few MiB.
#pragma once

#include "core/result.h"

#include <QLocalServer>
#include <QObject>
#include <QString>

namespace isolation {

class DockerProxy final : public QObject
{
    Q_OBJECT
public:
    static constexpr const char *kSocketName = "docker.sock";
    // Where the directory is mounted in the runtime's container, and the DOCKER_HOST to give it.
    static constexpr const char *kContainerDirectory = "/run/isolation-docker";
    static QString containerDockerHost();

    explicit DockerProxy(QString upstreamSocket, QObject *parent = nullptr);
    ~DockerProxy() override;

    // Serves `directory`/docker.sock: the directory 0700, the socket the user's alone. The
    // runtime's container runs as this user (and without capabilities), so it reaches the socket
    // and no other user does. A socket left by a dead engine is replaced.
    Status listen(const QString &directory);
    void close();
    bool isListening() const { return m_server.isListening(); }
    QString directory() const { return m_directory; }
    QString socketPath() const;
    QString upstreamSocket() const { return m_upstream; }

    // Creates whose port bindings were moved to 127.0.0.1 since this proxy started.
    int rewrittenCreates() const { return m_rewritten; }

private:
    friend class DockerProxyConnection;
    void onNewConnection();

    QString m_upstream;
    QString m_directory;
    QLocalServer m_server;
    int m_rewritten = 0;
};

// The rewrite itself, on a create request's JSON body: every HostConfig.PortBindings entry whose
// host IP is not a loopback address (empty, 0.0.0.0, ::, or an interface's) gets 127.0.0.1.
// Returns whether anything changed; a body that is not a JSON object is left alone (Docker answers it).
bool publishOnLoopback(QByteArray *createBody);

} // namespace isolation
