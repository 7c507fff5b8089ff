#include "libarchive.h"

#include "sharedlibrary.h"

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
    SharedLibrary library("libarchive.so.13", QStringLiteral("libarchive"));
    library.resolve(l.api.write_new, "archive_write_new");
    library.resolve(l.api.write_free, "archive_write_free");
    library.resolve(l.api.write_add_filter_gzip, "archive_write_add_filter_gzip");
    library.resolve(l.api.write_set_format_pax_restricted, "archive_write_set_format_pax_restricted");
    library.resolve(l.api.write_set_bytes_in_last_block, "archive_write_set_bytes_in_last_block");
    library.resolve(l.api.write_open, "archive_write_open");
    library.resolve(l.api.write_header, "archive_write_header");
    library.resolve(l.api.write_data, "archive_write_data");
    library.resolve(l.api.write_close, "archive_write_close");
    library.resolve(l.api.error_string, "archive_error_string");
    library.resolve(l.api.entry_new, "archive_entry_new");
    library.resolve(l.api.entry_free, "archive_entry_free");
    library.resolve(l.api.entry_set_pathname, "archive_entry_set_pathname");
    library.resolve(l.api.entry_set_filetype, "archive_entry_set_filetype");
    library.resolve(l.api.entry_set_perm, "archive_entry_set_perm");
    library.resolve(l.api.entry_set_mtime, "archive_entry_set_mtime");
    library.resolve(l.api.entry_set_uid, "archive_entry_set_uid");
    library.resolve(l.api.entry_set_gid, "archive_entry_set_gid");
    library.resolve(l.api.entry_set_symlink, "archive_entry_set_symlink");
    library.resolve(l.api.entry_set_size, "archive_entry_set_size");
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

} // namespace isolation::libarchive
