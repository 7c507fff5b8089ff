#include "filediff.h"

#include "gitrepo.h"
#include "gitsupport.h"

#include <git2.h>

namespace isolation {

namespace {
using PatchPtr = std::unique_ptr<git_patch, git::Deleter<&git_patch_free>>;
} // namespace

Result<FileDiff, WorkspaceError> fileDiff(GitRepo &repo, const QString &path, qsizetype maxBytes)
{
    auto tip = repo.target(repo.sessionRef());
    if (!tip)
        return tip.error();
    git::TreePtr tree;
    if (tip.value()) {
        auto commit = repo.commit(*tip.value());
        if (!commit)
            return commit.error();
        git_tree *raw = nullptr;
        if (int rc = git_commit_tree(&raw, commit.value().get()); rc < 0)
            return git::error(rc, QStringLiteral("read the session branch's tree"));
        tree.reset(raw);
    }

    const QByteArray spec = path.toUtf8();
    char *specs[] = {const_cast<char *>(spec.constData())};
    git_diff_options options = GIT_DIFF_OPTIONS_INIT;
    options.flags = GIT_DIFF_INCLUDE_UNTRACKED | GIT_DIFF_SHOW_UNTRACKED_CONTENT | GIT_DIFF_RECURSE_UNTRACKED_DIRS
        | GIT_DIFF_DISABLE_PATHSPEC_MATCH;
    options.pathspec = {specs, 1};
    git_diff *rawDiff = nullptr;
    if (int rc = git_diff_tree_to_workdir_with_index(&rawDiff, repo.get(), tree.get(), &options); rc < 0)
        return git::error(rc, QStringLiteral("diff %1").arg(path));
    git::DiffPtr diff(rawDiff);

    FileDiff out;
    QByteArray text;
    for (size_t i = 0; i < git_diff_num_deltas(diff.get()); ++i) {
        const git_diff_delta *delta = git_diff_get_delta(diff.get(), i);
        if (delta->flags & GIT_DIFF_FLAG_BINARY)
            out.binary = true;
        git_patch *rawPatch = nullptr;
        if (int rc = git_patch_from_diff(&rawPatch, diff.get(), i); rc < 0)
            return git::error(rc, QStringLiteral("diff %1").arg(path));
        PatchPtr patch(rawPatch);
        if (!patch)
            continue;
        git::Buf buf;
        if (int rc = git_patch_to_buf(buf.get(), patch.get()); rc < 0)
            return git::error(rc, QStringLiteral("diff %1").arg(path));
        text += buf.bytes();
        if (text.size() > maxBytes) {
            text.truncate(maxBytes);
            out.truncated = true;
            break;
        }
    }
    out.text = QString::fromUtf8(text);
    return out;
}

} // namespace isolation
