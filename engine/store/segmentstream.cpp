#include "segmentstream.h"

#include "crypto/objectdecryptor.h"
#include "crypto/sha256.h"

#include "core/storagefault.h"

#include <QFile>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace isolation {

namespace {

constexpr qint64 kSpoolRead = 256 * 1024; // ciphertext read from the spool at a time

// The plaintext the decryptor releases, collected for the reader to hand out.
class Collector final : public QIODevice
{
public:
    explicit Collector(QByteArray &into)
        : m_into(into)
    {
        open(QIODevice::WriteOnly | QIODevice::Unbuffered);
    }

protected:
    qint64 readData(char *, qint64) override { return -1; }
    qint64 writeData(const char *data, qint64 size) override
    {
        m_into.append(data, size);
        return size;
    }

private:
    QByteArray &m_into;
};

class SegmentReader final : public QIODevice
{
public:
    SegmentReader(std::shared_ptr<SegmentSpool> spool, const SecureBytes &key, const ObjectBinding &binding,
        QString name, qint64 size)
        : m_spool(std::move(spool))
        , m_collector(m_plain)
        , m_decryptor(key.view(), binding, &m_collector)
        , m_workspaceId(binding.workspaceId)
        , m_name(std::move(name))
        , m_size(size)
        , m_piece(kSpoolRead, Qt::Uninitialized)
    {
        open(QIODevice::ReadOnly);
    }

    bool isSequential() const override { return true; }
    bool atEnd() const override { return m_done && m_taken == m_plain.size() && QIODevice::atEnd(); }
    qint64 bytesAvailable() const override { return m_plain.size() - m_taken + QIODevice::bytesAvailable(); }

protected:
    qint64 readData(char *data, qint64 max) override
    {
        while (m_taken == m_plain.size()) {
            if (m_failed)
                return -1;
            if (m_done)
                return 0;
            m_plain.resize(0);
            m_taken = 0;
            pull();
        }
        const qint64 n = std::min<qint64>(max, m_plain.size() - m_taken);
        memcpy(data, m_plain.constData() + m_taken, size_t(n));
        m_taken += n;
        return n;
    }
    qint64 writeData(const char *, qint64) override { return -1; }

private:
    // One piece of ciphertext from the spool through the hash and the decryptor.
    void pull()
    {
        const qint64 n = m_spool->read(m_offset, m_piece.data(), kSpoolRead);
        if (n < 0) {
            m_failed = true;
            setErrorString(m_spool->error() ? m_spool->error()->message : QStringLiteral("the download failed"));
            return;
        }
        if (n == 0) {
            check();
            return;
        }
        const QByteArrayView piece(m_piece.constData(), n);
        m_offset += n;
        m_sha.add(piece);
        if (m_offset > m_size) {
            refuse(notNamed()); // more than the manifest says: no point in the rest
            return;
        }
        // After a chunk failed, the rest is only hashed: whether the bytes are the segment the
        // manifest names decides what the error says (as when the whole file was hashed first).
        if (!m_decryptError.isEmpty())
            return;
        if (CryptoResult<void> ok = m_decryptor.write(piece); !ok) {
            m_decryptError = ok.error().message;
            m_plain.resize(0);
        }
    }

    // The download ended: the whole segment must be the one named, then its final chunk checked.
    void check()
    {
        if (m_offset != m_size || QString::fromLatin1(m_sha.result().toHex()) != m_name) {
            refuse(notNamed());
            return;
        }
        if (m_decryptError.isEmpty()) {
            if (CryptoResult<void> ok = m_decryptor.finish(); !ok)
                m_decryptError = ok.error().message;
        }
        if (!m_decryptError.isEmpty()) {
            m_plain.resize(0);
            refuse(QStringLiteral("segment %1 of workspace %2 does not verify (%3): refusing it")
                       .arg(m_name.left(12), m_workspaceId, m_decryptError));
            return;
        }
        m_done = true;
    }

    QString notNamed() const
    {
        return QStringLiteral("segment %1 of workspace %2 is not what the manifest names (renamed, swapped or "
                              "corrupted on the hub)")
            .arg(m_name.left(12), m_workspaceId);
    }

    void refuse(const QString &why)
    {
        m_plain.resize(0);
        m_taken = 0;
        m_failed = true;
        m_spool->cancel(StoreError::refused(why));
        setErrorString(why);
    }

    std::shared_ptr<SegmentSpool> m_spool;
    QByteArray m_plain;
    qsizetype m_taken = 0; // of m_plain, handed out
    Collector m_collector;
    ObjectDecryptor m_decryptor;
    Sha256 m_sha;
    QString m_workspaceId;
    QString m_name;
    qint64 m_size;
    qint64 m_offset = 0; // ciphertext read from the spool
    QByteArray m_piece;
    QString m_decryptError;
    bool m_done = false; // verified to the end
    bool m_failed = false;
};

} // namespace

SegmentSpool::SegmentSpool(int fd)
    : m_fd(fd)
{ }

SegmentSpool::~SegmentSpool()
{
    ::close(m_fd);
}

StoreResult<std::shared_ptr<SegmentSpool>> SegmentSpool::create(const QString &dir)
{
    QByteArray path = QFile::encodeName(dir) + "/segment-XXXXXX.spool";
    const int fd = ::mkostemps(path.data(), 6, O_CLOEXEC);
    if (fd < 0)
        return StoreError::local(writeFailureText(QFile::decodeName(path), qt_error_string(errno), errno));
    ::unlink(path.constData());
    return std::shared_ptr<SegmentSpool>(new SegmentSpool(fd));
}

StoreResult<std::shared_ptr<SegmentSpool>> SegmentSpool::ofFile(const QString &path)
{
    const int fd = ::open(QFile::encodeName(path).constData(), O_RDONLY | O_CLOEXEC);
    struct stat st;
    if (fd < 0 || ::fstat(fd, &st) != 0) {
        const QString why = qt_error_string(errno);
        if (fd >= 0)
            ::close(fd);
        return StoreError::local(QStringLiteral("cannot read %1: %2").arg(path, why));
    }
    std::shared_ptr<SegmentSpool> spool(new SegmentSpool(fd));
    spool->m_size = st.st_size;
    spool->m_ended = true;
    return spool;
}

bool SegmentSpool::append(QByteArrayView bytes)
{
    qint64 at = 0;
    {
        std::lock_guard<std::mutex> lock(m_mutex);
        if (m_ended || m_error) {
            errno = ECANCELED;
            return false;
        }
        at = m_size;
    }
    const char *data = bytes.data();
    qint64 left = bytes.size();
    while (left > 0) {
        const ssize_t n = ::pwrite(m_fd, data, size_t(left), off_t(at));
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return false;
        data += n;
        left -= n;
        at += n;
    }
    std::lock_guard<std::mutex> lock(m_mutex);
    m_size = at;
    m_arrived.notify_all();
    return true;
}

void SegmentSpool::end(std::optional<StoreError> error)
{
    std::lock_guard<std::mutex> lock(m_mutex);
    m_ended = true;
    if (error && !m_error)
        m_error = std::move(error);
    m_arrived.notify_all();
}

void SegmentSpool::cancel(const StoreError &why)
{
    std::lock_guard<std::mutex> lock(m_mutex);
    if (!m_error)
        m_error = why;
    m_arrived.notify_all();
}

qint64 SegmentSpool::read(qint64 offset, char *data, qint64 max)
{
    qint64 available = 0;
    {
        std::unique_lock<std::mutex> lock(m_mutex);
        m_arrived.wait(lock, [&] { return m_error || m_ended || m_size > offset; });
        if (m_error)
            return -1;
        available = std::min(max, m_size - offset);
        if (available <= 0)
            return 0;
    }
    while (true) {
        const ssize_t n = ::pread(m_fd, data, size_t(available), off_t(offset));
        if (n < 0 && errno == EINTR)
            continue;
        if (n > 0)
            return n;
        cancel(StoreError::local(QStringLiteral("cannot read the downloaded segment back: %1")
                                     .arg(n < 0 ? qt_error_string(errno) : QStringLiteral("it is shorter"))));
        return -1;
    }
}

std::optional<StoreError> SegmentSpool::error() const
{
    std::lock_guard<std::mutex> lock(m_mutex);
    return m_error;
}

SegmentStream::SegmentStream(std::shared_ptr<SegmentSpool> spool, const SecureBytes &workspaceKey,
    ObjectBinding binding, QString name, qint64 size)
    : m_spool(std::move(spool))
    , m_key(workspaceKey)
    , m_binding(std::move(binding))
    , m_name(std::move(name))
    , m_size(size)
{ }

std::unique_ptr<QIODevice> SegmentStream::openReader()
{
    return std::make_unique<SegmentReader>(m_spool, m_key, m_binding, m_name, m_size);
}

std::optional<StoreError> SegmentStream::error() const
{
    return m_spool->error();
}

SpoolSink::SpoolSink(std::shared_ptr<SegmentSpool> spool, qint64 total, std::function<void(qint64, qint64)> progress)
    : m_spool(std::move(spool))
    , m_total(total)
    , m_progress(std::move(progress))
{
    open(QIODevice::WriteOnly | QIODevice::Unbuffered);
}

qint64 SpoolSink::writeData(const char *data, qint64 size)
{
    if (m_spool->append(QByteArrayView(data, size))) {
        m_written += size;
        if (m_progress)
            m_progress(m_written, m_total);
        return size;
    }
    setErrorString(errno == ECANCELED ? QStringLiteral("the segment's reader stopped") : qt_error_string(errno));
    return -1;
}

} // namespace isolation
