// Directory entries as the worktree walks read them (NestedRepos, WorktreeWatch): through the
// directory's descriptor, the type from the listing (d_type), looked up only where the file system
// leaves it unknown, so a file costs nothing. A symbolic link is never a directory.
#pragma once

#include <cstring>

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>

namespace isolation::direntries {

inline bool isDotOrDotDot(const char *name)
{
    return name[0] == '.' && (name[1] == 0 || (name[1] == '.' && name[2] == 0));
}

// True when `e`, read from `dir`, is a directory (not a link to one). An entry gone meanwhile is not.
inline bool isDirectory(DIR *dir, const dirent *e)
{
    if (e->d_type != DT_UNKNOWN)
        return e->d_type == DT_DIR;
    struct stat st
    {
    };
    return ::fstatat(::dirfd(dir), e->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISDIR(st.st_mode);
}

} // namespace isolation::direntries
