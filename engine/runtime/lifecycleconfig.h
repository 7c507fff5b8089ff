// The lifecycle server's configuration file (TOML, read by the server from SANDBOX_CONFIG_PATH):
// listening address, API key, execd image, the host paths sandboxes may mount, and the
// hardening applied to every sandbox. Written 0600; it holds the API key.
#pragma once

#include "core/result.h"

#include <QByteArray>
#include <QString>
#include <QStringList>

namespace isolation {

struct LifecycleConfig
{
    static constexpr quint16 ContainerPort = 8080; // the server's port inside its container
    static constexpr const char *ContainerPath = "/etc/opensandbox/config.toml";

    QByteArray apiKey;
    QString execdImage;
    QStringList allowedHostPaths; // the engine's session directory, nothing else
    // The Docker network sandboxes join ([docker] network_mode): the engine's own bridge, made with
    // inter-container traffic off (LifecycleContainer::ensureNetwork). Empty: Docker's default bridge.
    QString network;
    QStringList dropCapabilities {QStringLiteral("ALL")};
    bool noNewPrivileges = true;
    int pidsLimit = 512;

    QByteArray toToml() const;
    // Replaces `path` atomically; the file is 0600 before a byte of the key is in it.
    Status write(const QString &path) const;
};

} // namespace isolation
