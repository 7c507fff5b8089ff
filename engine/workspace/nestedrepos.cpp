#include "nestedrepos.h"

#include <QFile>

#include <algorithm>
#include <filesystem>
#include <system_error>

namespace isolation {

namespace fs = std::filesystem;

NestedRepos NestedRepos::scan(const QString &workTree)
{
    NestedRepos result;
    const fs::path root(QFile::encodeName(workTree).toStdString());
    std::error_code ec;
    fs::recursive_directory_iterator it(root, fs::directory_options::skip_permission_denied, ec);
    const fs::recursive_directory_iterator end;
    for (; !ec && it != end; it.increment(ec)) {
        const fs::directory_entry &entry = *it;
        if (it.depth() == 0 && entry.path().filename() == ".git") {
            it.disable_recursion_pending();
            continue;
        }
        std::error_code statEc;
        if (!entry.is_directory(statEc) || entry.is_symlink(statEc))
            continue;
        if (fs::exists(fs::symlink_status(entry.path() / ".git", statEc))) {
            const QString relative
                = QFile::decodeName(QByteArray::fromStdString(entry.path().lexically_relative(root).generic_string()));
            result.m_dirs.append(relative);
            it.disable_recursion_pending();
        }
    }
    std::sort(result.m_dirs.begin(), result.m_dirs.end());
    return result;
}

bool NestedRepos::covers(const QString &path) const
{
    // The sorted list makes the candidate the last entry not greater than `path`.
    auto it = std::upper_bound(m_dirs.cbegin(), m_dirs.cend(), path);
    while (it != m_dirs.cbegin()) {
        --it;
        if (path == *it || (path.startsWith(*it) && path.at(it->size()) == QLatin1Char('/')))
            return true;
        // Only a prefix of `path` can cover it; stop once entries no longer share its first char.
        if (!it->isEmpty() && !path.startsWith(it->at(0)))
            break;
    }
    return false;
}

QByteArray NestedRepos::ignoreRule(const QString &dir)
{
    const QByteArray bytes = QFile::encodeName(dir);
    if (bytes.contains('\n') || bytes.contains('\r'))
        return {};
    QByteArray rule = "/";
    for (const char c : bytes) {
        if (c == '\\' || c == '*' || c == '?' || c == '[' || c == ']' || c == ' ' || c == '\t' || c == '!' || c == '#')
            rule += '\\';
        rule += c;
    }
    rule += '/';
    return rule;
}

} // namespace isolation
