#include "libarchive.h"

#include <dlfcn.h>

#include <type_traits>

namespace isolation::libarchive {

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
    void *handle = dlopen("libarchive.so.13", RTLD_NOW | RTLD_LOCAL);
    if (!handle) {
        const char *why = dlerror();
        l.error = QStringLiteral("cannot load libarchive: %1").arg(QString::fromLocal8Bit(why ? why : "unknown error"));
        return l;
    }
    bool all = true;
    auto resolve = [&](auto &fn, const char *name) {
        fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(dlsym(handle, name));
        if (!fn) {
            all = false;
            l.error = QStringLiteral("libarchive lacks %1").arg(QLatin1String(name));
        }
    };
    resolve(l.api.write_new, "archive_write_new");
    resolve(l.api.write_free, "archive_write_free");
    resolve(l.api.write_add_filter_gzip, "archive_write_add_filter_gzip");
    resolve(l.api.write_set_format_pax_restricted, "archive_write_set_format_pax_restricted");
    resolve(l.api.write_set_bytes_in_last_block, "archive_write_set_bytes_in_last_block");
    resolve(l.api.write_open, "archive_write_open");
    resolve(l.api.write_header, "archive_write_header");
    resolve(l.api.write_data, "archive_write_data");
    resolve(l.api.write_close, "archive_write_close");
    resolve(l.api.error_string, "archive_error_string");
    resolve(l.api.entry_new, "archive_entry_new");
    resolve(l.api.entry_free, "archive_entry_free");
    resolve(l.api.entry_set_pathname, "archive_entry_set_pathname");
    resolve(l.api.entry_set_filetype, "archive_entry_set_filetype");
    resolve(l.api.entry_set_perm, "archive_entry_set_perm");
    resolve(l.api.entry_set_mtime, "archive_entry_set_mtime");
    resolve(l.api.entry_set_uid, "archive_entry_set_uid");
    resolve(l.api.entry_set_gid, "archive_entry_set_gid");
    resolve(l.api.entry_set_symlink, "archive_entry_set_symlink");
    resolve(l.api.entry_set_size, "archive_entry_set_size");
    l.ok = all;
    // Never dlclose: the process may export again.
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

} // namespace isolation::libarchive
