// Which host paths may be bind-mounted into a sandbox: only what lies inside the engine's session
// directory, judged after resolving symlinks (realpath semantics), before any request is sent.
#pragma once

#include "core/result.h"

#include <QString>

namespace isolation {

class MountPolicy
{
public:
    // `sessionDirectory` must exist; it is canonicalised once here.
    explicit MountPolicy(QString sessionDirectory);

    QString sessionDirectory() const { return m_root; }
    bool valid() const { return !m_root.isEmpty(); }

    // The canonical path to mount, or InvalidInput saying why the path is refused: it is not
    // absolute, does not exist, resolves outside the session directory (directly or through a
    // symlink), is the session directory's parent or `/`, or is the Docker socket.
    Result<QString> check(const QString &hostPath) const;

private:
    QString m_configured;
    QString m_root;
};

} // namespace isolation
