#include "gitsupport.h"

#include <QFile>

Q_LOGGING_CATEGORY(lcWorkspace, "isolation.workspace")

namespace isolation::git {

namespace {

struct Library
{
    Library()
    {
        git_libgit2_init();
        // Bounded memory for packs of any size: libgit2 maps packs in windows of up to 1 GiB by
        // default, and those pages count as the process's memory. Process-wide settings.
        git_libgit2_opts(GIT_OPT_SET_MWINDOW_SIZE, size_t(16) << 20);
        git_libgit2_opts(GIT_OPT_SET_MWINDOW_MAPPED_LIMIT, size_t(32) << 20);
        git_libgit2_opts(GIT_OPT_SET_CACHE_MAX_SIZE, ssize_t(32) << 20);
        // No SHA-1 of every object read again (a third of a checkout's time): as in git, an
        // object is hashed when it arrives (the indexer hashes every object of a segment, libgit2
        // every object it writes), and zlib's checksum still catches damage on the disk.
        git_libgit2_opts(GIT_OPT_ENABLE_STRICT_HASH_VERIFICATION, 0);
    }
    // No git_libgit2_shutdown() at exit: it runs from a static destructor while worker-pool
    // threads may still be alive, and it deletes the per-thread key, so the state libgit2 keeps
    // for each of those threads (error buffer, 336 bytes) is never freed when they end (LSan
    // reported it at engine exit in 1 of 5 runs). Left initialised, everything stays reachable.
};

// The first '...'-quoted path in a libgit2 message ("failed to write '/x/y': ..."), or empty.
QString quotedPath(const QString &message)
{
    const qsizetype open = message.indexOf(u'\'');
    const qsizetype close = open < 0 ? -1 : message.indexOf(u'\'', open + 1);
    const QString path = close < 0 ? QString() : message.mid(open + 1, close - open - 1);
    return path.startsWith(u'/') ? path : QString();
}

} // namespace

void ensureLibrary()
{
    static Library library;
}

WorkspaceError error(int rc, const QString &what)
{
    const git_error *last = git_error_last();
    const QString detail
        = last && last->message ? QString::fromUtf8(last->message) : QStringLiteral("error %1").arg(rc);
    const int klass = last ? last->klass : GIT_ERROR_NONE;
    git_error_clear();
    const QString message = what + QStringLiteral(": ") + detail;
    // A full or read-only disk first: libgit2 reports it as an OS error under the class of
    // whatever wrote (an object database that cannot write is not a corrupt one).
    if (const StorageFault fault = storageFaultIn(detail); fault != StorageFault::None) {
        const QString path = quotedPath(detail).isEmpty() ? quotedPath(what) : quotedPath(detail);
        return WorkspaceError::storage(fault, storageFaultText(fault, path) + QStringLiteral(" (") + message + u')');
    }
    switch (rc) {
    case GIT_ENOTFOUND:
        return WorkspaceError::notFound(message);
    case GIT_EMODIFIED:
    case GIT_ELOCKED:
    case GIT_EEXISTS:
    case GIT_ECONFLICT:
    case GIT_EMERGECONFLICT:
    case GIT_EUNMERGED:
        return WorkspaceError::conflict(message);
    default:
        break;
    }
    if (klass == GIT_ERROR_ZLIB || klass == GIT_ERROR_INDEXER || klass == GIT_ERROR_ODB)
        return WorkspaceError::corrupt(message);
    return WorkspaceError::failed(message);
}

QByteArray toHex(const git_oid &id)
{
    char hex[GIT_OID_HEXSZ + 1] = {};
    git_oid_tostr(hex, sizeof hex, &id);
    return QByteArray(hex, GIT_OID_HEXSZ);
}

std::optional<git_oid> fromHex(const QByteArray &hex)
{
    if (hex.size() != GIT_OID_HEXSZ)
        return std::nullopt;
    for (const char c : hex) {
        if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f')))
            return std::nullopt;
    }
    git_oid id;
    if (git_oid_fromstrn(&id, hex.constData(), size_t(hex.size())) != 0)
        return std::nullopt;
    return id;
}

QString pathString(const char *utf8)
{
    return utf8 ? QString::fromUtf8(utf8) : QString();
}

QByteArray nativePath(const QString &path)
{
    return QFile::encodeName(path);
}

} // namespace isolation::git
