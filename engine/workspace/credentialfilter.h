// Which files are credentials and stay out of a tree export (docs/workspace.md lists the patterns).
#pragma once

#include <QString>
#include <QStringList>

namespace isolation {

class CredentialFilter
{
public:
    // `path` is worktree-relative and '/'-separated. Matches file names (any directory) against
    // the name patterns, and the whole path's tail against the path patterns.
    static bool isCredential(const QString &path);
    static QStringList namePatterns();
    static QStringList pathPatterns();
};

} // namespace isolation
