// store: one workspace's encrypted objects on the hub (docs/protocol.md, "Workspace store"):
// fetch and verify the manifest (304 when nothing moved, rollbacks refused), seal and upload
// segments, publish a manifest by compare-and-swap, settle publishes whose outcome was lost, and
// download and open segments for the workspace module. Crypto of segments runs off this thread.
#pragma once

#include "generationledger.h"
#include "manifest.h"
#include "segmentstream.h"
#include "storeclient.h"
#include "storeerror.h"

#include "crypto/securebytes.h"

#include <QObject>
#include <QPointer>

#include <functional>
#include <optional>

namespace isolation {

enum class PublishOutcome {
    Published, // the hub stored our manifest
    MovedOn, // 412: another save got there first; nothing was written. Sync, then save again
    Unknown, // the connection failed after the manifest was sent: settle() before anything else
};

class WorkspaceStore final : public QObject
{
    Q_OBJECT
public:
    // `sessionId` is the session of this engine the store works for: the hub's bearers for the
    // workspace are asked in its name while the store lives (StoreClient::addSession).
    // `memberKey` derives the workspace key (kept, never logged); `stateDir` keeps the generation
    // ledger (the engine's data directory); `tempDir` takes sealed segments on their way (cache).
    WorkspaceStore(StoreClient *client, QString workspaceId, QString sessionId, QByteArrayView memberKey,
        QString stateDir, QString tempDir, QObject *parent = nullptr);
    ~WorkspaceStore() override;

    QString workspaceId() const { return m_workspaceId; }
    // The manifest last fetched or published here, and its ETag (empty before any).
    const std::optional<Manifest> &current() const { return m_current; }
    QByteArray currentEtag() const { return m_currentEtag; }
    qint64 lastSeenGeneration() const;

    struct Fetched
    {
        bool moved = true; // false: 304, still `knownEtag`
        QByteArray etag; // empty when the workspace has no manifest yet
        std::optional<Manifest> manifest; // set when moved and there is one
    };
    // Asks the hub for the manifest; with `knownEtag` a 304 means nothing moved. A manifest that does
    // not verify, names another workspace, or is older than one seen is Refused, and nothing is recorded.
    void fetchManifest(const QByteArray &knownEtag, std::function<void(StoreResult<Fetched>)> done);

    // Seals a bundle file (off this thread) and uploads it; the segment to put into a manifest.
    // `progress` follows the upload's bytes (optional).
    void uploadSegment(const QString &bundlePath, ManifestSegment::Kind kind, const QMap<QString, QString> &refs,
        const QStringList &prerequisites, std::function<void(StoreResult<ManifestSegment>)> done,
        StoreClient::Progress progress = {});

    struct Publication
    {
        PublishOutcome outcome = PublishOutcome::Unknown;
        QByteArray etag; // of our manifest, when Published
    };
    // Writes `next` if the hub's manifest is still `ifMatch` (empty: only if there is none). `next`
    // must be newer than every generation seen and carry its save id (Manifest::successor does
    // both). A 412 is read back before it is called MovedOn, because a transport may resend a
    // request whose first copy won; on MovedOn the segments only `next` named are deleted on the
    // hub. After a compacting publish, segments the previous manifest had and `next` has not are
    // deleted on the hub. Deletions are best effort. `etag` of Published is the hub's manifest's
    // (ours, unless others already saved on top of it).
    void publish(const Manifest &next, const QByteArray &ifMatch, std::function<void(StoreResult<Publication>)> done);

    struct Settlement
    {
        bool published = false; // true: the hub's manifest carries the save; false: it never landed
        QByteArray etag;
        std::optional<Manifest> manifest; // the hub's manifest now
    };
    // Settles an Unknown publish by reading the manifest back: never by sending the save again.
    void settle(const QString &saveId, std::function<void(StoreResult<Settlement>)> done);

    // Starts downloading a segment and returns it as a stream at once: its reader (on another
    // thread) takes the plaintext as it arrives, checked chunk by chunk, and reaches the end only
    // once the whole segment is what the manifest names (SegmentStream). `downloaded` tells, on
    // this thread, how the download ended; cancelling the stream stops it, and so does this
    // store going away. `progress` follows every piece that arrives (not throttled).
    StoreResult<std::shared_ptr<SegmentStream>> streamSegment(const ManifestSegment &segment,
        std::function<void(StoreResult<void>)> downloaded, StoreClient::Progress progress = {});

    // Downloads a segment, checks it against the manifest (name, size) and decrypts it (off this
    // thread) into `outPath`, which appears only when everything verified.
    void downloadSegment(const ManifestSegment &segment, const QString &outPath,
        std::function<void(StoreResult<void>)> done, StoreClient::Progress progress = {});

    // Deletes segments no manifest names (uploaded for a save that was never published, or
    // superseded by a compaction); in the background, a failure only logged.
    void deleteSegments(const QStringList &names);

private:
    void fetchManifest(const QByteArray &knownEtag, std::function<void(StoreResult<Fetched>)> done, int retries);
    StoreResult<Manifest> accept(const QByteArray &sealed);
    void adopt(const Manifest &manifest, const QByteArray &etag);

    StoreClient *m_client;
    QPointer<StoreClient> m_registeredWith; // where the session was added, to remove it if still there
    QString m_workspaceId;
    QString m_sessionId;
    SecureBytes m_key;
    GenerationLedger m_ledger;
    QString m_tempDir;
    std::optional<Manifest> m_current;
    QByteArray m_currentEtag;
    QList<std::weak_ptr<SegmentSpool>> m_streams; // cancelled when the store goes
};

} // namespace isolation
