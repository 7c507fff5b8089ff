// One engine session for the workspace tests: the Workspace with its git dir and worktree under a
// test directory, and the few steps the tests repeat (write files, a whole save, apply a segment).
#pragma once

#include "gitcli.h"
#include "workspace/workspace.h"

#include <QString>

#include <memory>

namespace isolation::test {

class TestSession
{
public:
    // `root`/sessions/<id>/{git,workspace}, as the engine lays them out.
    static TestSession open(const QString &root, const QString &id, const Clock &clock);

    bool valid() const { return bool(ws); }
    bool write(const QString &relative, const QByteArray &bytes) const;
    QByteArray read(const QString &relative) const;
    // Commit everything, merge into main, write the segment, mark it published: the segment's
    // bytes (empty, with a warning, when a step fails or nothing was written).
    QByteArray save(const QString &message = {});
    Result<ApplyResult, WorkspaceError> apply(const QByteArray &bundle);
    // `git rev-parse`, `git ls-tree -r --name-only` (newline-separated) in the session's repository.
    QByteArray rev(const QString &rev) const;
    QString files(const QString &rev) const;
    GitRun git(const QStringList &args, bool withWorkTree = false) const;

    QString gitDir;
    QString work;
    std::unique_ptr<Workspace> ws;
};

} // namespace isolation::test
