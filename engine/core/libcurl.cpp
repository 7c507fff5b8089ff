#include "libcurl.h"

#include <dlfcn.h>

namespace isolation::libcurl {

namespace {
struct Loaded
{
    Api api {};
    bool ok = false;
    QString error;
};

Loaded open()
{
    Loaded l;
    // RTLD_LOCAL: nothing else in the process resolves against it by accident.
    void *handle = dlopen("libcurl.so.4", RTLD_NOW | RTLD_LOCAL);
    if (!handle) {
        const char *why = dlerror();
        l.error = QStringLiteral("cannot load libcurl: %1").arg(QString::fromLocal8Bit(why ? why : "unknown error"));
        return l;
    }
    bool all = true;
    auto resolve = [&](auto &fn, const char *name) {
        fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(dlsym(handle, name));
        if (!fn) {
            all = false;
            l.error = QStringLiteral("libcurl lacks %1").arg(QLatin1String(name));
        }
    };
    resolve(l.api.easy_init, "curl_easy_init");
    resolve(l.api.easy_cleanup, "curl_easy_cleanup");
    resolve(l.api.easy_setopt, "curl_easy_setopt");
    resolve(l.api.easy_perform, "curl_easy_perform");
    resolve(l.api.easy_getinfo, "curl_easy_getinfo");
    resolve(l.api.easy_strerror, "curl_easy_strerror");
    resolve(l.api.slist_append, "curl_slist_append");
    resolve(l.api.slist_free_all, "curl_slist_free_all");
    l.ok = all;
    // Never dlclose: handles and callbacks may outlive any one user.
    return l;
}
} // namespace

const Api *load(QString *error)
{
    static const Loaded loaded = open();
    if (!loaded.ok && error)
        *error = loaded.error;
    return loaded.ok ? &loaded.api : nullptr;
}

} // namespace isolation::libcurl
