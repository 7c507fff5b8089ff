// A workspace's `.devcontainer/devcontainer.json` (or `.devcontainer.json`), the part the engine
// honours: `image` or `build` (a Dockerfile, DevcontainerBuild makes the image), local `features`,
// `containerEnv`, `postCreateCommand`, `remoteUser`. The file is JSON with comments (Jsonc). A key
// that would change the sandbox in a way the engine does not do is refused by name
// (docs/user-guide.md, "devcontainer.json").
#pragma once

#include "sandboxerror.h"

#include <QByteArrayView>
#include <QHash>
#include <QJsonObject>
#include <QList>
#include <QMap>
#include <QString>
#include <QStringList>

#include <optional>

namespace isolation {

struct DevcontainerConfig
{
    static constexpr qsizetype kMaxBytes = 1024 * 1024;

    QString path; // the file it was read from (empty when parsed from bytes)
    QString image; // empty: the default image from the settings
    QHash<QString, QString> containerEnv;
    // postCreateCommand as shell commands, run in this order: a string as it is, an array as one
    // command with every element quoted (no shell interpretation), an object's values one after
    // the other in key order (the spec runs them in parallel; the engine does not).
    QStringList postCreateCommands;
    QString remoteUser; // given to features as _REMOTE_USER; commands still run as root (docs)

    struct Build
    {
        QString dockerfile; // relative to the file's folder, as written
        QString context; // relative to the file's folder; "." when not given
        QMap<QString, QString> args;
        QString target; // empty: the last stage
    };
    std::optional<Build> build; // `build` (or the legacy top-level `dockerFile` and `context`)
    struct Feature
    {
        QString id; // "./name": the folder .devcontainer/name (the only kind applied offline)
        QJsonObject options;
    };
    QList<Feature> features; // in key order (installsAfter and dependsOn are not read)

    // The keys read and the harmless ones accepted without effect; any other key is refused.
    static const QStringList &honouredKeys();
    static const QStringList &ignoredKeys();

    // The config of the worktree: `.devcontainer/devcontainer.json`, else `.devcontainer.json`;
    // nothing when neither exists. Refused when the file is unreadable, too large or invalid.
    static Result<std::optional<DevcontainerConfig>, SandboxError> load(const QString &worktree);
    static Result<DevcontainerConfig, SandboxError> parse(QByteArrayView jsonc);

    // `argv` as one `sh -c` command that runs it without any shell interpretation.
    static QString quoteArgv(const QStringList &argv);
    // A Docker image reference: [A-Za-z0-9] then [A-Za-z0-9._/:@-], at most 255 characters.
    static bool isValidImage(const QString &image);
};

} // namespace isolation
