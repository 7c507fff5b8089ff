// Changes: the files a session touched since its last commit (status against HEAD, renames found,
// nested repositories left out), commits ahead of and behind main, and whether a merge is pending.
#pragma once

#include "core/result.h"
#include "workspacetypes.h"

namespace isolation {

class GitRepo;

class ChangeReport
{
public:
    explicit ChangeReport(GitRepo &repo)
        : m_repo(repo)
    { }

    Result<WorkspaceChanges, WorkspaceError> collect();

private:
    GitRepo &m_repo;
};

} // namespace isolation
