// The hub's bundle store on disk: workspaces (DIR/workspaces/<id>/workspace.json), each with one
// manifest replaced by compare-and-swap on its strong ETag, and immutable segments named by the
// SHA-256 of their bytes. The hub stores bytes it cannot read; every write is atomic (AtomicFile).
#pragma once

#include "core/result.h"

#include <QByteArray>
#include <QDateTime>
#include <QList>
#include <QString>

#include <optional>

namespace isolation::hub {

struct WorkspaceRecord
{
    QString id; // "ws_" + 20 hex digits
    QString name;
    QString memberId; // the owner
    QDateTime createdAt;
};

class ObjectStore
{
public:
    explicit ObjectStore(QString root);

    // Reads the workspaces under the root (creating it) and removes temporary files a crash left.
    Status load();

    Result<WorkspaceRecord> createWorkspace(const QString &name, const QString &memberId);
    const WorkspaceRecord *workspace(const QString &id) const;
    QList<WorkspaceRecord> workspaces() const { return m_workspaces; }

    struct StoredManifest
    {
        QByteArray bytes;
        QByteArray etag; // strong: "\"<hex SHA-256 of the bytes>\""
    };
    // The workspace's manifest, or nullopt when none was ever stored.
    Result<std::optional<StoredManifest>> manifest(const QString &workspaceId) const;

    // Compare-and-swap: `ifMatch` (an If-Match value: "*" or ETags) and `ifNoneMatchAny`
    // (If-None-Match: *) are checked against the stored manifest and the new bytes replace it
    // atomically, with no wait between the check and the rename.
    struct CasResult
    {
        bool stored = false; // false: the precondition failed, nothing was written
        bool created = false;
        QByteArray etag; // of the manifest stored now (the new one when stored)
    };
    Result<CasResult> putManifest(
        const QString &workspaceId, QByteArrayView bytes, const QByteArray &ifMatch, bool ifNoneMatchAny);

    QString segmentDir(const QString &workspaceId) const;
    QString segmentPath(const QString &workspaceId, const QString &name) const;
    bool hasSegment(const QString &workspaceId, const QString &name) const;
    // Deleting a segment that is not there is NotFound.
    Status deleteSegment(const QString &workspaceId, const QString &name);

    struct Usage
    {
        int segments = 0;
        qint64 bytes = 0; // segments and manifest
        QByteArray manifestEtag; // empty when there is no manifest
    };
    Usage usage(const QString &workspaceId) const;

    static QByteArray etagOf(QByteArrayView bytes);
    // True when one of the ETags of an If-Match / If-None-Match value is `etag` (strong comparison).
    static bool etagListMatches(const QByteArray &headerValue, const QByteArray &etag);
    // 64 lowercase hex digits.
    static bool isSegmentName(const QString &name);

private:
    QString workspaceDir(const QString &id) const;

    QString m_root;
    QList<WorkspaceRecord> m_workspaces;
};

} // namespace isolation::hub
