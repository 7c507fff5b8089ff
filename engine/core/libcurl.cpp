#include "libcurl.h"

#include "sharedlibrary.h"

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
    SharedLibrary library("libcurl.so.4", QStringLiteral("libcurl"));
    library.resolve(l.api.easy_init, "curl_easy_init");
    library.resolve(l.api.easy_cleanup, "curl_easy_cleanup");
    library.resolve(l.api.easy_setopt, "curl_easy_setopt");
    library.resolve(l.api.easy_perform, "curl_easy_perform");
    library.resolve(l.api.easy_getinfo, "curl_easy_getinfo");
    library.resolve(l.api.easy_strerror, "curl_easy_strerror");
    library.resolve(l.api.slist_append, "curl_slist_append");
    library.resolve(l.api.slist_free_all, "curl_slist_free_all");
    l.ok = library.ok();
    l.error = library.error();
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
