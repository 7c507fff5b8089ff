#include "tcpstream.h"

#include <QAbstractSocket>
#include <QHash>
#include <QLocalSocket>
#include <QPointer>
#include <QSocketNotifier>
#include <QVarLengthArray>

#include <cerrno>
#include <cstring>
#include <memory>

#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

namespace isolation {

namespace {

constexpr qsizetype kReadPiece = 64 * 1024;
// Ready sockets handled per write batch: small batches let the peer start on the first answers
// while the rest are taken in, instead of both ends working in turns (the measurements that chose
// 8: bench/README.md, "Views", 2026-12-01).
constexpr int kEventsPerBatch = 8;

// One epoll set per thread, itself watched by one QSocketNotifier: the event loop sees a single
// descriptor however many streams there are, and one wake-up hands over all that is ready.
} // namespace

class TcpStreamPoller
{
public:
    TcpStreamPoller()
        : m_fd(::epoll_create1(EPOLL_CLOEXEC))
    {
        if (m_fd >= 0) {
            m_notifier = std::make_unique<QSocketNotifier>(m_fd, QSocketNotifier::Read);
            QObject::connect(m_notifier.get(), &QSocketNotifier::activated, m_notifier.get(), [this] { dispatch(); });
        }
    }
    ~TcpStreamPoller()
    {
        m_notifier.reset();
        if (m_fd >= 0)
            ::close(m_fd);
    }

    static TcpStreamPoller &forThisThread()
    {
        thread_local std::unique_ptr<TcpStreamPoller> poller;
        if (!poller)
            poller = std::make_unique<TcpStreamPoller>();
        return *poller;
    }

    bool batching() const { return m_batches > 0; }
    void beginBatch() { ++m_batches; }
    void atEnd(QObject *context, std::function<void()> f) { m_atEnd.append({context, std::move(f)}); }
    void endBatch()
    {
        if (m_batches > 1) {
            --m_batches;
            return;
        }
        // Still inside the batch: what these write is held like the rest.
        while (!m_atEnd.isEmpty()) {
            const auto calls = std::exchange(m_atEnd, {});
            for (const auto &[context, f] : calls) {
                if (context)
                    f();
            }
        }
        m_batches = 0;
        // Sending may run handlers that write again (outside the batch now: sent at once) or
        // open another batch, which then sends its own.
        while (!m_held.isEmpty()) {
            // A copy on the stack (a handler may start and end a batch of its own meanwhile);
            // m_held keeps its memory from batch to batch.
            const QVarLengthArray<quint64, 64> held(m_held.cbegin(), m_held.cend());
            m_held.clear();
            for (const quint64 id : held) {
                if (TcpStream *s = m_streams.value(id)) {
                    s->m_held = false;
                    s->flushQueue();
                }
            }
        }
    }
    void hold(TcpStream *stream)
    {
        stream->m_held = true;
        m_held.append(stream->m_id);
    }

    quint64 add(int fd, TcpStream *stream, quint32 events)
    {
        const quint64 id = ++m_nextId;
        m_streams.insert(id, stream);
        epoll_event ev {};
        ev.events = events;
        ev.data.u64 = id;
        ::epoll_ctl(m_fd, EPOLL_CTL_ADD, fd, &ev);
        return id;
    }
    void modify(int fd, quint64 id, quint32 events)
    {
        epoll_event ev {};
        ev.events = events;
        ev.data.u64 = id;
        ::epoll_ctl(m_fd, EPOLL_CTL_MOD, fd, &ev);
    }
    void remove(int fd, quint64 id)
    {
        m_streams.remove(id);
        ::epoll_ctl(m_fd, EPOLL_CTL_DEL, fd, nullptr);
    }

private:
    void dispatch()
    {
        epoll_event events[64];
        const int n = ::epoll_wait(m_fd, events, 64, 0);
        // The writes held in a batch leave every few ready sockets rather than once for all of
        // them: a stage downstream (the tunnel's peer, the sandbox) starts on the first answers
        // while this one reads the next, instead of every stage taking the whole wave in turn.
        for (int start = 0; start < n; start += kEventsPerBatch) {
            const TcpStream::WriteBatch batch;
            for (int i = start; i < std::min(n, start + kEventsPerBatch); ++i) {
                // A stream closed by an earlier event of this batch is no longer in the table.
                if (TcpStream *s = m_streams.value(events[i].data.u64))
                    s->onEvents(events[i].events);
            }
        }
    }

    int m_fd;
    std::unique_ptr<QSocketNotifier> m_notifier;
    QHash<quint64, TcpStream *> m_streams;
    quint64 m_nextId = 0;
    int m_batches = 0;
    QList<quint64> m_held;
    QList<std::pair<QPointer<QObject>, std::function<void()>>> m_atEnd;
};

namespace {

void setNoDelay(int fd)
{
    // Answers go out as they are written: with Nagle's algorithm a body written after its head
    // waits for the peer's delayed ACK (up to 40 ms on Linux) on a keep-alive connection.
    const int one = 1;
    ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
}

} // namespace

TcpStream::TcpStream(int fd, QObject *parent)
    : TcpStream(fd, State::Connected, parent)
{ }

TcpStream::TcpStream(int fd, State state, QObject *parent)
    : QIODevice(parent)
    , m_fd(fd)
    , m_state(state)
{
    QIODevice::open(QIODevice::ReadWrite | QIODevice::Unbuffered);
    if (m_fd < 0) {
        m_state = State::Closed;
        return;
    }
    ::fcntl(m_fd, F_SETFL, ::fcntl(m_fd, F_GETFL) | O_NONBLOCK);
    if (m_state == State::Connected)
        setNoDelay(m_fd);
    watch();
}

TcpStream *TcpStream::connectTo(const QHostAddress &address, quint16 port, QObject *parent)
{
    sockaddr_storage storage {};
    socklen_t length = 0;
    int family = AF_INET;
    if (address.protocol() == QAbstractSocket::IPv6Protocol) {
        auto *a = reinterpret_cast<sockaddr_in6 *>(&storage);
        a->sin6_family = family = AF_INET6;
        a->sin6_port = htons(port);
        const Q_IPV6ADDR ip = address.toIPv6Address();
        std::memcpy(&a->sin6_addr, &ip, sizeof ip);
        length = sizeof *a;
    } else {
        auto *a = reinterpret_cast<sockaddr_in *>(&storage);
        a->sin_family = AF_INET;
        a->sin_port = htons(port);
        a->sin_addr.s_addr = htonl(address.toIPv4Address());
        length = sizeof *a;
    }
    const int fd = ::socket(family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0) {
        auto *s = new TcpStream(-1, State::Closed, parent);
        s->failLater(QString::fromLocal8Bit(std::strerror(errno)));
        return s;
    }
    if (address.isNull()) {
        ::close(fd);
        auto *s = new TcpStream(-1, State::Closed, parent);
        s->failLater(QStringLiteral("no address"));
        return s;
    }
    const int r = ::connect(fd, reinterpret_cast<sockaddr *>(&storage), length);
    if (r != 0 && errno != EINPROGRESS) {
        const QString why = QString::fromLocal8Bit(std::strerror(errno));
        ::close(fd);
        auto *s = new TcpStream(-1, State::Closed, parent);
        s->failLater(why);
        return s;
    }
    setNoDelay(fd);
    return new TcpStream(fd, r == 0 ? State::Connected : State::Connecting, parent);
}

TcpStream::~TcpStream()
{
    for (Guard *g = m_guards; g; g = g->next)
        g->alive = false;
    if (m_fd >= 0) {
        TcpStreamPoller::forThisThread().remove(m_fd, m_id);
        ::close(m_fd);
    }
}

QHostAddress TcpStream::peerAddress() const
{
    sockaddr_storage storage {};
    socklen_t length = sizeof storage;
    if (m_fd < 0 || ::getpeername(m_fd, reinterpret_cast<sockaddr *>(&storage), &length) != 0)
        return {};
    return QHostAddress(reinterpret_cast<sockaddr *>(&storage));
}

void TcpStream::watch()
{
    m_interest = quint32(EPOLLIN | EPOLLRDHUP) | (m_state == State::Connecting ? quint32(EPOLLOUT) : 0u);
    m_id = TcpStreamPoller::forThisThread().add(m_fd, this, m_interest);
}

void TcpStream::updateInterest()
{
    if (m_fd < 0)
        return;
    quint32 want = 0;
    if (m_state == State::Connecting || (m_outPos < m_out.size() && !m_held))
        want |= EPOLLOUT;
    if (m_readLimit <= 0 || bytesAvailable() < m_readLimit)
        want |= EPOLLIN | EPOLLRDHUP;
    if (want != m_interest) {
        m_interest = want;
        TcpStreamPoller::forThisThread().modify(m_fd, m_id, want);
    }
}

qint64 TcpStream::bytesAvailable() const
{
    return m_in.size() - m_inPos;
}

qint64 TcpStream::bytesToWrite() const
{
    return m_out.size() - m_outPos;
}

QByteArray TcpStream::takeAll()
{
    QByteArray out = m_inPos == 0 ? std::exchange(m_in, {}) : m_in.sliced(m_inPos);
    m_in.clear();
    m_inPos = 0;
    if (m_readLimit > 0)
        updateInterest();
    return out;
}

void TcpStream::setReadBufferSize(qint64 bytes)
{
    m_readLimit = bytes;
    updateInterest();
}

qint64 TcpStream::readData(char *data, qint64 maxSize)
{
    const qint64 n = std::min<qint64>(maxSize, bytesAvailable());
    if (n <= 0)
        return m_state == State::Closed ? -1 : 0;
    std::memcpy(data, m_in.constData() + m_inPos, size_t(n));
    m_inPos += n;
    if (m_inPos == m_in.size()) {
        m_in.clear();
        m_inPos = 0;
    }
    if (m_readLimit > 0)
        updateInterest();
    return n;
}

qint64 TcpStream::writeData(const char *data, qint64 size)
{
    if (m_state == State::Closed || m_state == State::Closing)
        return -1;
    if (size <= 0)
        return 0;
    if (m_outPos > 0 && m_outPos == m_out.size()) {
        m_out.truncate(0); // the memory serves this write
        m_outPos = 0;
    }
    TcpStreamPoller &poller = TcpStreamPoller::forThisThread();
    if (m_state == State::Connected && poller.batching()) {
        if (!m_held)
            poller.hold(this);
        m_out.append(data, qsizetype(size)); // sent when the batch ends
        return size;
    }
    qint64 sent = 0;
    if (m_state == State::Connected && bytesToWrite() == 0) {
        const ssize_t n = ::send(m_fd, data, size_t(size), MSG_NOSIGNAL);
        if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) {
            failLater(QString::fromLocal8Bit(std::strerror(errno)));
            return size; // taken; the stream closes on the next turn of the loop
        }
        sent = std::max<ssize_t>(n, 0);
    }
    if (sent < size) {
        m_out.append(data + sent, qsizetype(size - sent));
        updateInterest();
    }
    return size;
}

qint64 TcpStream::writeOwned(QByteArray bytes)
{
    if (m_state == State::Connected && !bytes.isEmpty() && (m_outPos == m_out.size())) {
        TcpStreamPoller &poller = TcpStreamPoller::forThisThread();
        if (poller.batching()) {
            if (!m_held)
                poller.hold(this);
            m_out = std::move(bytes); // sent when the batch ends, as writeData() would have
            m_outPos = 0;
            return m_out.size();
        }
    }
    return write(bytes);
}

void TcpStream::flushQueue()
{
    if (m_fd < 0 || m_state == State::Connecting)
        return;
    qint64 written = 0;
    while (m_outPos < m_out.size()) {
        const ssize_t n = ::send(m_fd, m_out.constData() + m_outPos, size_t(m_out.size() - m_outPos), MSG_NOSIGNAL);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            if (errno == EAGAIN || errno == EWOULDBLOCK)
                break;
            closeSocket(QString::fromLocal8Bit(std::strerror(errno)));
            return;
        }
        m_outPos += n;
        written += n;
    }
    if (m_outPos == m_out.size()) {
        // A small buffer stays for the next answer; a large one goes.
        if (m_out.capacity() <= kReadPiece)
            m_out.truncate(0);
        else
            m_out.clear();
        m_outPos = 0;
    }
    updateInterest();
    if (written > 0) {
        Guard guard(this);
        if (m_listener)
            m_listener->streamBytesWritten(this);
        if (!guard.alive)
            return;
        Q_EMIT bytesWritten(written);
        if (!guard.alive)
            return;
    }
    if (m_disconnectAfterFlush && bytesToWrite() == 0 && m_fd >= 0)
        closeSocket({});
    else if (m_shutdownAfterFlush && bytesToWrite() == 0 && m_fd >= 0) {
        m_shutdownAfterFlush = false;
        ::shutdown(m_fd, SHUT_WR);
    }
}

void TcpStream::readSome()
{
    thread_local char piece[kReadPiece];
    qint64 room = kReadPiece;
    if (m_readLimit > 0)
        room = std::min<qint64>(room, m_readLimit - bytesAvailable());
    if (room <= 0) {
        updateInterest();
        return;
    }
    const ssize_t n = ::recv(m_fd, piece, size_t(room), 0);
    if (n > 0) {
        if (m_inPos > 0 && m_inPos == m_in.size()) {
            m_in.clear();
            m_inPos = 0;
        }
        m_in.append(piece, qsizetype(n));
        if (m_listener)
            m_listener->streamReadyRead(this); // it deletes the stream with deleteLater() only
        Q_EMIT readyRead();
        return;
    }
    if (n == 0) {
        closeSocket({}); // the peer closed; what was read stays readable
        return;
    }
    if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)
        closeSocket(QString::fromLocal8Bit(std::strerror(errno)));
}

void TcpStream::onEvents(quint32 events)
{
    if (m_state == State::Connecting) {
        int error = 0;
        socklen_t length = sizeof error;
        ::getsockopt(m_fd, SOL_SOCKET, SO_ERROR, &error, &length);
        if (error != 0) {
            closeSocket(QString::fromLocal8Bit(std::strerror(error)));
            return;
        }
        if (!(events & EPOLLOUT))
            return;
        m_state = State::Connected;
        updateInterest();
        Q_EMIT connected();
        if (m_fd >= 0 && bytesToWrite() > 0)
            flushQueue();
        return;
    }
    Guard guard(this); // a signal's receiver may delete the stream
    if (events & EPOLLOUT) {
        flushQueue();
        if (!guard.alive || m_fd < 0)
            return;
    }
    if (events & (EPOLLIN | EPOLLRDHUP | EPOLLHUP | EPOLLERR))
        readSome();
}

TcpStream::WriteBatch::WriteBatch()
{
    TcpStreamPoller::forThisThread().beginBatch();
}

TcpStream::WriteBatch::~WriteBatch()
{
    TcpStreamPoller::forThisThread().endBatch();
}

bool TcpStream::WriteBatch::active()
{
    return TcpStreamPoller::forThisThread().batching();
}

void TcpStream::WriteBatch::atEnd(QObject *context, std::function<void()> f)
{
    TcpStreamPoller::forThisThread().atEnd(context, std::move(f));
}

void TcpStream::disconnectFromHost()
{
    if (m_fd < 0)
        return;
    if (bytesToWrite() == 0 && m_state != State::Connecting) {
        closeSocket({});
        return;
    }
    m_disconnectAfterFlush = true;
    m_state = State::Closing;
}

void TcpStream::shutdownWrite()
{
    if (m_fd < 0)
        return;
    if (bytesToWrite() > 0 || m_state == State::Connecting) {
        m_shutdownAfterFlush = true; // flushQueue() does it
        return;
    }
    ::shutdown(m_fd, SHUT_WR);
}

void TcpStream::abort()
{
    m_out.clear();
    m_outPos = 0;
    if (m_fd >= 0) {
        // RST rather than FIN: what was queued is dropped, as with QAbstractSocket::abort().
        const linger l {1, 0};
        ::setsockopt(m_fd, SOL_SOCKET, SO_LINGER, &l, sizeof l);
        closeSocket({});
    }
}

int TcpStream::releaseDescriptor()
{
    if (m_fd < 0 || bytesToWrite() > 0)
        return -1;
    const int fd = m_fd;
    TcpStreamPoller::forThisThread().remove(m_fd, m_id);
    m_fd = -1;
    m_state = State::Closed;
    return fd;
}

void TcpStream::closeSocket(const QString &error)
{
    if (m_fd < 0)
        return;
    TcpStreamPoller::forThisThread().remove(m_fd, m_id);
    ::close(m_fd);
    m_fd = -1;
    m_state = State::Closed;
    m_out.clear();
    m_outPos = 0;
    if (!error.isEmpty())
        setErrorString(error);
    m_closeReported = true;
    if (m_listener)
        m_listener->streamDisconnected(this);
    Q_EMIT disconnected();
}

void TcpStream::failLater(const QString &error)
{
    setErrorString(error);
    QMetaObject::invokeMethod(
        this,
        [this, error] {
            if (m_fd >= 0) {
                closeSocket(error);
            } else if (!m_closeReported) {
                m_state = State::Closed;
                m_closeReported = true;
                if (m_listener)
                    m_listener->streamDisconnected(this);
                Q_EMIT disconnected();
            }
        },
        Qt::QueuedConnection);
}

void disconnectDevice(QIODevice *device)
{
    if (auto *t = qobject_cast<TcpStream *>(device))
        t->disconnectFromHost();
    else if (auto *s = qobject_cast<QAbstractSocket *>(device))
        s->disconnectFromHost();
    else if (auto *l = qobject_cast<QLocalSocket *>(device))
        l->disconnectFromServer();
    else if (device)
        device->close();
}

void abortDevice(QIODevice *device)
{
    if (auto *t = qobject_cast<TcpStream *>(device))
        t->abort();
    else if (auto *s = qobject_cast<QAbstractSocket *>(device))
        s->abort();
    else if (auto *l = qobject_cast<QLocalSocket *>(device))
        l->abort();
    else if (device)
        device->close();
}

QMetaObject::Connection onDeviceDisconnected(QIODevice *device, QObject *context, std::function<void()> f)
{
    if (auto *t = qobject_cast<TcpStream *>(device))
        return QObject::connect(t, &TcpStream::disconnected, context, std::move(f));
    if (auto *s = qobject_cast<QAbstractSocket *>(device))
        return QObject::connect(s, &QAbstractSocket::disconnected, context, std::move(f));
    if (auto *l = qobject_cast<QLocalSocket *>(device))
        return QObject::connect(l, &QLocalSocket::disconnected, context, std::move(f));
    return {};
}

} // namespace isolation
