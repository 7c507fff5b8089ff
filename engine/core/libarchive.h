// libarchive, opened on first use (dlopen) rather than linked. Only the tree export and the
// devcontainer build write archives, so a process that never does either (the tray at rest) never
// loads it, nor what Debian's libarchive pulls in at load time (libxml2, nettle, bzip2, acl): about
// 0.8 MiB resident (bench/README.md, "tray").
#pragma once

#include <archive.h>
#include <archive_entry.h>

#include <QString>

#include <memory>

namespace isolation::libarchive {

// The functions the engine uses, resolved from libarchive.so.13; the types are the header's.
struct Api
{
    decltype(&::archive_write_new) write_new;
    decltype(&::archive_write_free) write_free;
    decltype(&::archive_write_add_filter_gzip) write_add_filter_gzip;
    decltype(&::archive_write_set_format_pax_restricted) write_set_format_pax_restricted;
    decltype(&::archive_write_set_bytes_in_last_block) write_set_bytes_in_last_block;
    decltype(&::archive_write_open) write_open;
    decltype(&::archive_write_header) write_header;
    decltype(&::archive_write_data) write_data;
    decltype(&::archive_write_close) write_close;
    decltype(&::archive_error_string) error_string;
    decltype(&::archive_entry_new) entry_new;
    decltype(&::archive_entry_free) entry_free;
    decltype(&::archive_entry_set_pathname) entry_set_pathname;
    decltype(&::archive_entry_set_filetype) entry_set_filetype;
    decltype(&::archive_entry_set_perm) entry_set_perm;
    decltype(&::archive_entry_set_mtime) entry_set_mtime;
    decltype(&::archive_entry_set_uid) entry_set_uid;
    decltype(&::archive_entry_set_gid) entry_set_gid;
    decltype(&::archive_entry_set_symlink) entry_set_symlink;
    decltype(&::archive_entry_set_size) entry_set_size;
};

// Opens libarchive the first time (thread-safe) and returns its functions; null when it cannot be
// opened or lacks one of them (`*error` then says why, the same on every call).
const Api *load(QString *error = nullptr);

// Owners of a writer and an entry, freed through the loaded functions (only made after load()
// succeeded).
struct WriterDeleter
{
    void operator()(archive *a) const { load()->write_free(a); }
};
struct EntryDeleter
{
    void operator()(archive_entry *e) const { load()->entry_free(e); }
};
using WriterPtr = std::unique_ptr<archive, WriterDeleter>;
using EntryPtr = std::unique_ptr<archive_entry, EntryDeleter>;

} // namespace isolation::libarchive
