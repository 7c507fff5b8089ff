// The header of a git bundle (v2, and v3 with only `@object-format=sha1`): what it requires and
// which refs it carries. Parsed strictly against the grammar in docs/formats.md, with bounded lines.
#pragma once

#include "core/result.h"
#include "workspaceerror.h"

#include <QByteArray>
#include <QList>
#include <QMap>
#include <QString>

class QIODevice;

namespace isolation {

struct BundleRef
{
    QByteArray id; // 40 lowercase hex digits
    QByteArray name; // "HEAD" or a ref under refs/
    friend bool operator==(const BundleRef &, const BundleRef &) = default;
};

struct BundlePrerequisite
{
    QByteArray id;
    QByteArray comment; // the commit's subject, informative only
};

struct BundleHeader
{
    static constexpr qsizetype kMaxLine = 65536; // bytes, line feed included
    static constexpr qsizetype kMaxEntries = 100000; // prerequisites and refs together
    static constexpr int kReadTimeoutMs = 30000; // for devices that deliver data as it comes

    int version = 2;
    QList<BundlePrerequisite> prerequisites;
    QList<BundleRef> refs;

    // The header's bytes, blank line included (always v2).
    QByteArray serialize() const;

    // Reads the header from `in`, leaving it positioned at the first byte of the pack.
    // Corrupt for anything outside the grammar or over a limit, with the line number.
    static Result<BundleHeader, WorkspaceError> read(QIODevice &in);
};

// A manifest's refs (ref name -> object id) as a bundle lists them.
QList<BundleRef> bundleRefs(const QMap<QString, QString> &refs);

} // namespace isolation
