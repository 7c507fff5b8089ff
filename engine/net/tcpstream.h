// A TCP connection for the data plane (the doorman's local door and its connections to execd, the
// hub's preview origin): a non-blocking socket watched through one epoll set per thread, written
// at once and queued only when the kernel's buffer is full, read into one buffer.
//
// Why not QTcpSocket: it queues every write until the next turn of the event loop (a notifier
// switched on and off for each one), asks the kernel how much there is to read before each read,
// and keeps one poll entry per socket. On the views benchmark (bench/views) that made the doorman
// spend about twice nginx's CPU per proxied request; see docs/architecture.md, "The data plane".
#pragma once

#include <QByteArray>
#include <QHostAddress>
#include <QIODevice>

#include <functional>

namespace isolation {

class TcpStream;

// A receiver that the stream calls directly, besides its signals: for owners that change with
// every exchange (a pooled connection), where connecting and disconnecting signals would cost
// more than the exchange itself.
class TcpStreamListener
{
public:
    virtual void streamReadyRead(TcpStream *stream) = 0;
    virtual void streamDisconnected(TcpStream *stream) = 0;
    virtual void streamBytesWritten(TcpStream *) { }

protected:
    ~TcpStreamListener() = default;
};

class TcpStream final : public QIODevice
{
    Q_OBJECT
public:
    enum class State { Connecting, Connected, Closing, Closed };

    // Takes a connected socket (an accepted one), made non-blocking here.
    explicit TcpStream(int fd, QObject *parent = nullptr);
    // Starts connecting to address:port without blocking; connected() or disconnected() follows.
    static TcpStream *connectTo(const QHostAddress &address, quint16 port, QObject *parent = nullptr);
    ~TcpStream() override;

    State state() const { return m_state; }
    bool isConnected() const { return m_state == State::Connected; }
    QHostAddress peerAddress() const;

    bool isSequential() const override { return true; }
    qint64 bytesAvailable() const override;
    qint64 bytesToWrite() const override;
    // The whole read buffer at once, without a copy.
    QByteArray takeAll();
    // Stops reading from the kernel while this much is buffered unread (0: no limit).
    void setReadBufferSize(qint64 bytes);

    // write(), taking `bytes` without a copy when they would wait in a write batch with nothing
    // before them (a WebSocket frame built for this one write).
    qint64 writeOwned(QByteArray bytes);

    // Closes once everything queued went out (disconnected() then); abort() closes at once.
    void disconnectFromHost();
    // Ends our direction once everything queued went out (the peer reads the end of the
    // stream); reading goes on until the peer closes too (disconnected() then).
    void shutdownWrite();
    void abort();
    void close() override { abort(); }

    // One listener at a time (nullptr: none).
    void setListener(TcpStreamListener *listener) { m_listener = listener; }

    // Within a WriteBatch (any number, nested, in this thread) writes are held; when the last one
    // ends each stream written to sends what it holds at once. The streams' own events run in
    // one, so an answer's pieces written in one turn (a head, a body, a chunk's end) leave
    // in one send. Outside any batch a write is sent at once.
    class WriteBatch
    {
    public:
        WriteBatch();
        ~WriteBatch();
        WriteBatch(const WriteBatch &) = delete;
        WriteBatch &operator=(const WriteBatch &) = delete;

        static bool active();
        // Runs `f` when the batches end, before the held writes leave (once per call; not when
        // `context` is gone by then): for a writer of its own that gathers too (the tunnel's
        // HTTP/2 frames: one WebSocket message for all the streams of one turn).
        static void atEnd(QObject *context, std::function<void()> f);
    };

    // Hands the socket over (the caller owns the descriptor; this stream is closed without it).
    // Only when nothing is queued for writing.
    int releaseDescriptor();

    // Called by the poller.
    void onEvents(quint32 events);

Q_SIGNALS:
    void connected();
    void disconnected(); // the peer closed, an error, or disconnectFromHost() completed

protected:
    qint64 readData(char *data, qint64 maxSize) override;
    qint64 writeData(const char *data, qint64 size) override;

private:
    TcpStream(int fd, State state, QObject *parent);
    void watch();
    void updateInterest();
    void readSome();
    void flushQueue();
    void closeSocket(const QString &error);
    void failLater(const QString &error);
    friend class TcpStreamPoller;

    // On the stack of a member function that calls out (a listener, a signal's receiver) and
    // must know afterwards whether the stream is still there: the destructor clears `alive` of
    // each. A QPointer does the same with atomic reference counting on every call.
    struct Guard
    {
#if defined(__GNUC__) && !defined(__clang__) && __GNUC__ >= 12
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdangling-pointer" // the destructor takes it out again
#endif
        explicit Guard(TcpStream *stream)
            : stream(stream)
            , next(stream->m_guards)
        {
            stream->m_guards = this;
        }
#if defined(__GNUC__) && !defined(__clang__) && __GNUC__ >= 12
#pragma GCC diagnostic pop
#endif
        ~Guard()
        {
            if (alive)
                stream->m_guards = next;
        }
        Guard(const Guard &) = delete;
        Guard &operator=(const Guard &) = delete;
        TcpStream *stream;
        Guard *next;
        bool alive = true;
    };

    Guard *m_guards = nullptr;
    TcpStreamListener *m_listener = nullptr;
    int m_fd = -1;
    quint64 m_id = 0;
    State m_state = State::Closed;
    QByteArray m_in;
    qsizetype m_inPos = 0;
    QByteArray m_out;
    qsizetype m_outPos = 0;
    qint64 m_readLimit = 0;
    quint32 m_interest = 0;
    bool m_disconnectAfterFlush = false;
    bool m_shutdownAfterFlush = false;
    bool m_closeReported = false;
    bool m_held = false; // written to in a batch, to be sent when it ends
};

// For code that takes any connected QIODevice (a TcpStream, a QTcpSocket or a QLocalSocket):
// close after what is queued went out; close at once; run `f` (in `context`) when the peer is
// gone. Other devices are closed.
void disconnectDevice(QIODevice *device);
void abortDevice(QIODevice *device);
QMetaObject::Connection onDeviceDisconnected(QIODevice *device, QObject *context, std::function<void()> f);

} // namespace isolation
