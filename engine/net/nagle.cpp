#include "net/nagle.h"

#include <dirent.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <sys/stat.h>

#include <cstdlib>

namespace isolation {

namespace {

bool isConnectedTcp(int fd)
{
    struct stat st = {};
    if (::fstat(fd, &st) != 0 || !S_ISSOCK(st.st_mode))
        return false;
    sockaddr_storage address = {};
    socklen_t length = sizeof address;
    if (::getsockname(fd, reinterpret_cast<sockaddr *>(&address), &length) != 0
        || (address.ss_family != AF_INET && address.ss_family != AF_INET6))
        return false;
    int value = 0;
    socklen_t size = sizeof value;
    if (::getsockopt(fd, SOL_SOCKET, SO_TYPE, &value, &size) != 0 || value != SOCK_STREAM)
        return false;
    size = sizeof value;
    return ::getsockopt(fd, SOL_SOCKET, SO_ACCEPTCONN, &value, &size) == 0 && value == 0;
}

} // namespace

int disableNagleOnTcpConnections()
{
    DIR *dir = ::opendir("/proc/self/fd");
    if (!dir)
        return 0;
    const int own = ::dirfd(dir);
    int changed = 0;
    while (const dirent *entry = ::readdir(dir)) {
        char *end = nullptr;
        const long fd = std::strtol(entry->d_name, &end, 10);
        if (end == entry->d_name || *end != '\0' || fd == own || !isConnectedTcp(int(fd)))
            continue;
        int noDelay = 0;
        socklen_t size = sizeof noDelay;
        if (::getsockopt(int(fd), IPPROTO_TCP, TCP_NODELAY, &noDelay, &size) != 0 || noDelay)
            continue;
        // A descriptor closed and reused by another thread meanwhile gets the option too, or
        // refuses it: either is harmless.
        const int one = 1;
        if (::setsockopt(int(fd), IPPROTO_TCP, TCP_NODELAY, &one, sizeof one) == 0)
            ++changed;
    }
    ::closedir(dir);
    return changed;
}

} // namespace isolation
