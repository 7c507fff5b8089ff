#include "sharedlibrary.h"

#include <dlfcn.h>

namespace isolation {

SharedLibrary::SharedLibrary(const char *soname, const QString &name)
    : m_handle(dlopen(soname, RTLD_NOW | RTLD_LOCAL))
    , m_name(name)
{
    if (!m_handle) {
        const char *why = dlerror();
        m_error = QStringLiteral("cannot load %1: %2").arg(name, QString::fromLocal8Bit(why ? why : "unknown error"));
    }
}

void *SharedLibrary::find(const char *symbol)
{
    if (!m_handle)
        return nullptr;
    void *found = dlsym(m_handle, symbol);
    if (!found)
        m_error = QStringLiteral("%1 lacks %2").arg(m_name, QLatin1String(symbol));
    return found;
}

} // namespace isolation
