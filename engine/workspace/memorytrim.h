// Keeps a restore's resident memory near what it really holds (docs/workspace.md, "Memory and
// libgit2 notes"). Two things grew it beyond that, measured on the whole kernel source (78,311
// files; bench/README.md):
//  - libgit2 1.5's indexer keeps windows on the pack it is writing in use, so they escape the
//    mapped limit (GIT_OPT_SET_MWINDOW_MAPPED_LIMIT) until the pack is committed: up to 135 MB of
//    a segment's pages were resident in those windows at a restore's peak;
//  - tcmalloc keeps freed pages for reuse: the checkout frees large buffers (files of several MB,
//    the bases of their deltas), which left tens of MB of free pages resident beyond the live heap.
// Both are cheap enough for a per-object callback: each does its work at most once per interval
// and returns at once otherwise.
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

} // namespace isolation::memorytrim
