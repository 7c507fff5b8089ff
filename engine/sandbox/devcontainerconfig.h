// A workspace's `.devcontainer/devcontainer.json` (or `.devcontainer.json`), the part the engine
// honours: `image`, `containerEnv`, `postCreateCommand`, `remoteUser`. The file is JSON with
// comments (Jsonc). Building images (`build`, `dockerFile`, `dockerComposeFile`) is refused.
#pragma once

#include "sandboxerror.h"

#include <QByteArrayView>
#include <QHash>
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
    QString remoteUser; // read, not applied: sandboxes run as root without capabilities

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
