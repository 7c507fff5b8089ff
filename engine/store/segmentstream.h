// A segment on its way from the hub (WorkspaceStore::streamSegment): the download appends the
// sealed bytes to a spool file while one reader, on another thread, checks and decrypts them as
// they arrive, so that reading a segment into git overlaps its download and the next segment can
// arrive while one is read. The spool is unlinked from the start (nothing of it outlives the
// process) and holds what the reader has not taken yet on disk, not in memory.
#pragma once

#include "storeerror.h"

#include "crypto/objectformat.h"
#include "crypto/securebytes.h"

#include <QIODevice>
#include <QString>

#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>

namespace isolation {

struct SealedSegment;

// The sealed bytes so far, shared by the download and the reader; thread-safe.
class SegmentSpool
{
public:
    // An empty spool in `dir` (created 0600 and unlinked at once).
    static StoreResult<std::shared_ptr<SegmentSpool>> create(const QString &dir);
    // A spool holding the whole sealed file at `path`, already ended (nothing is copied).
    static StoreResult<std::shared_ptr<SegmentSpool>> ofFile(const QString &path);
    ~SegmentSpool();
    SegmentSpool(const SegmentSpool &) = delete;
    SegmentSpool &operator=(const SegmentSpool &) = delete;

    // The download's side. false: the spool was cancelled, or the disk refused (errno says).
    bool append(QByteArrayView bytes);
    // The download ended: completely (no error) or not.
    void end(std::optional<StoreError> error = std::nullopt);
    // The reader gives up (or its owner goes): a waiting reader wakes, further appends fail.
    void cancel(const StoreError &why);

    // The reader's side: blocks until bytes at `offset` have arrived or the download ended.
    // > 0: bytes read into `data`; 0: the download ended there; -1: it failed or was cancelled.
    qint64 read(qint64 offset, char *data, qint64 max);
    std::optional<StoreError> error() const;

private:
    explicit SegmentSpool(int fd);

    const int m_fd;
    mutable std::mutex m_mutex;
    std::condition_variable m_arrived;
    qint64 m_size = 0;
    bool m_ended = false;
    std::optional<StoreError> m_error;
};

// One segment being streamed: the spool, and what its bytes must be (the manifest's name and
// size, the workspace key and binding).
class SegmentStream
{
public:
    SegmentStream(std::shared_ptr<SegmentSpool> spool, const SecureBytes &workspaceKey, ObjectBinding binding,
        QString name, qint64 size);

    // A sequential device of the segment's plaintext, for one thread to read (blocking while the
    // download is behind). Each chunk's plaintext comes out only once its tag verified, and the
    // end only once the whole segment is the one the manifest names (SHA-256 and size) and its
    // final chunk came: a reader that reaches the end has the segment, a reader that gets -1 has
    // to discard what it read (error() says why). Call once.
    std::unique_ptr<QIODevice> openReader();
    // Why the stream failed: the download, the segment's check, or a cancel. Empty when the
    // stream did not fail (a reader's consumer failing for its own reasons, say).
    std::optional<StoreError> error() const;
    void cancel(const StoreError &why) { m_spool->cancel(why); }
    std::shared_ptr<SegmentSpool> spool() const { return m_spool; }

private:
    std::shared_ptr<SegmentSpool> m_spool;
    SecureBytes m_key;
    ObjectBinding m_binding;
    QString m_name;
    qint64 m_size;
    std::shared_ptr<std::optional<StoreError>> m_refused; // set by the reader when the check fails
};

// The download's end of a spool, as the device StoreClient::getSegment writes into. `progress`
// (bytes so far, `total`) follows every piece written, unthrottled (QNetworkReply's own signal
// comes at most every 100 ms).
class SpoolSink final : public QIODevice
{
    Q_OBJECT
public:
    SpoolSink(std::shared_ptr<SegmentSpool> spool, qint64 total, std::function<void(qint64, qint64)> progress);

protected:
    qint64 readData(char *, qint64) override { return -1; }
    qint64 writeData(const char *data, qint64 size) override;

private:
    std::shared_ptr<SegmentSpool> m_spool;
    qint64 m_written = 0;
    qint64 m_total;
    std::function<void(qint64, qint64)> m_progress;
};

} // namespace isolation
