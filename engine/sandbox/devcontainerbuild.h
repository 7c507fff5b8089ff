// The image of a devcontainer.json that asks for one to be built: its `build` (a Dockerfile, its
// context, args and target) and its local `features`, built by Docker's Engine API (`/build`, a tar
// of the context, no network) and tagged by a hash of every input, so that the next launch with the
// same inputs reuses the image without building (docs/user-guide.md, "devcontainer.json").
#pragma once

#include "devcontainerconfig.h"
#include "sandboxerror.h"

#include <QList>
#include <QMap>
#include <QString>
#include <QStringList>

#include <functional>
#include <optional>

namespace isolation {

class DockerClient;

struct DevcontainerBuild
{
    static constexpr qint64 kMaxContextBytes = 512LL * 1024 * 1024; // the tar is made in memory
    static constexpr const char *kRepository = "isolation-devcontainer"; // tags: kRepository:<sha256 hex>
    static constexpr const char *kLabel = "io.isolation.devcontainer"; // on every image built: its hash
    // In the context tar, where the Dockerfile goes (a name the workspace's own files do not take).
    static constexpr const char *kDockerfileInTar = ".isolation-devcontainer.Dockerfile";

    struct Feature
    {
        QString id; // as devcontainer.json names it ("./name")
        QString directory; // absolute, inside the worktree: holds install.sh
        QMap<QString, QString> options; // as install.sh's environment: option ids upper-cased
        QMap<QString, QString> containerEnv; // ENV of the image
    };

    QString worktree; // canonical
    QString dockerfile; // absolute, inside the worktree; empty: the features go onto baseImage
    QString context; // absolute folder inside the worktree (with a Dockerfile)
    QMap<QString, QString> args;
    QString target;
    QString baseImage; // without a Dockerfile: `image`, else the default image
    QList<Feature> features;
    QString remoteUser; // features see it as _REMOTE_USER

    // What `config` (loaded from `worktree`) asks to build; nothing when it names an image (or the
    // default) and no feature. Refused: a path that leaves the worktree (by ".." or a link), a
    // missing Dockerfile, context or feature folder, a feature asking for what a sandbox may not
    // have (privileged, capAdd, securityOpt, mounts, init, entrypoint).
    static Result<std::optional<DevcontainerBuild>, SandboxError> plan(
        const DevcontainerConfig &config, const QString &worktree, const QString &defaultImage);

    using Output = std::function<void(const QString &line)>;
    // Blocking: run it on a worker thread, `docker` negotiated and carrying the launch's cancel
    // flag. The image's tag: an image Docker already has under it is reused, else it is built, its
    // output given line by line to `output`. A Dockerfile then the features are two builds (each
    // with its tag): the features go onto the image as built, whatever user it ends with.
    Result<QString, SandboxError> run(const DockerClient &docker, const Output &output) const;

    // The parts, for tests. A tar (uncompressed, entries sorted, mtimes 0, owners 0) of `folder`
    // with `extra` files added; symlinks stored as links, never followed; `.dockerignore`'s
    // patterns honoured when `ignore` is set.
    static Result<QByteArray, SandboxError> tarOf(
        const QString &folder, const QList<std::pair<QString, QByteArray>> &extra, bool ignore);
    // `.dockerignore`'s rules: the last pattern matching the path or one of its parent folders
    // decides; "!" re-includes; "*" and "?" stay within one path element, "**" crosses them.
    static bool isIgnored(const QStringList &patterns, const QString &relativePath);
    // The Dockerfile that installs `features` onto `baseImageId` (running as `baseUser`, "" for root).
    QByteArray featuresDockerfile(const QString &baseImageId, const QString &baseUser) const;
};

} // namespace isolation
