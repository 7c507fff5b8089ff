// Keeps a long git operation's resident memory near what it really holds (docs/architecture.md,
// "Memory"). Two things grew it beyond that on large workspaces, measured on the whole kernel
// source (78,311 files; bench/README.md):
//  - tcmalloc keeps freed pages for reuse: a save's pack builder and a restore's checkout free
//    large buffers (files of several MB, their deltas), which left 35-70 MB of free pages
//    resident beyond the live heap;
//  - libgit2 1.5's indexer keeps windows on the pack it is writing in use, so they escape the
//    mapped limit (GIT_OPT_SET_MWINDOW_MAPPED_LIMIT) until the pack is committed: up to 135 MB of
//    a segment's pages were resident in those windows at a restore's peak.
// Both are cheap enough for a per-object progress callback: each does its work at most once per
// interval and returns at once otherwise.
#pragma once

#include <QByteArray>
#include <QElapsedTimer>

namespace isolation::memorytrim {

// Hands back to the system the pages tcmalloc keeps free beyond a few MB. Does nothing in a
// program without tcmalloc (the sanitizer builds, the tests). Any thread.
void heap();

// Drops this process's resident pages of the read-only file mappings under one directory: their
// contents stay in the page cache and come back on the next read. For a BundleReader's scratch
// directory, where libgit2 maps the incoming pack. Used by one thread at a time.
class MappedFiles
{
public:
    explicit MappedFiles(const QByteArray &directory);
    void trim(); // at most every 100 ms
    void trimNow();

private:
    QByteArray m_prefix; // the directory with a trailing '/'
    QElapsedTimer m_since;
};

// What they did since the process started.
struct Stats
{
    quint64 heapReleasedBytes = 0;
    quint64 mappedDroppedBytes = 0;
};
Stats stats();

} // namespace isolation::memorytrim
