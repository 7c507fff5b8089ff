#include "http2session.h"

#include "net/tcpstream.h"

#include <QLoggingCategory>
#include <QVarLengthArray>

#include <algorithm>
#include <charconv>
#include <cstring>

#include <nghttp2/nghttp2.h>

Q_LOGGING_CATEGORY(lcHttp2, "isolation.tunnel.http2")

namespace isolation {

namespace {

using OptionPtr = std::unique_ptr<nghttp2_option, decltype(&nghttp2_option_del)>;
using CallbacksPtr = std::unique_ptr<nghttp2_session_callbacks, decltype(&nghttp2_session_callbacks_del)>;

// Headers HTTP/2 forbids (RFC 9113 section 8.2.2); HTTP/1.1 callers may still hand them over.
bool connectionSpecific(QByteArrayView name)
{
    const auto is = [name](QByteArrayView h) { return name.compare(h, Qt::CaseInsensitive) == 0; };
    switch (name.size()) { // the length settles most names at once
    case 4:
        return is("host");
    case 7:
        return is("upgrade");
    case 10:
        return is("connection") || is("keep-alive");
    case 16:
        return is("proxy-connection");
    case 17:
        return is("transfer-encoding");
    default:
        return false;
    }
}

// The name/value pairs of a head for one submit call (nghttp2 copies them). Names go lower case
// (HTTP/2); one that already is is not copied, nor is any value: the bytes added must outlive the
// block.
class HeaderBlock
{
public:
    void add(QByteArrayView name, QByteArrayView value)
    {
        if (std::any_of(name.begin(), name.end(), [](char c) { return c >= 'A' && c <= 'Z'; })) {
            m_lowered.append(sharedLowerHeaderName(name)); // the common names without a copy
            name = m_lowered.last();
        }
        m_nv.append({const_cast<uint8_t *>(reinterpret_cast<const uint8_t *>(name.data())),
            const_cast<uint8_t *>(reinterpret_cast<const uint8_t *>(value.data())), size_t(name.size()),
            size_t(value.size()), NGHTTP2_NV_FLAG_NONE});
    }
    void addHeaders(const HttpHeaders &headers)
    {
        for (const auto &h : headers) {
            if (!connectionSpecific(h.first) && !h.first.startsWith(':'))
                add(h.first, h.second);
        }
    }
    void addHeaders(const HeaderFields &headers)
    {
        for (const HeaderField &h : headers) {
            if (!connectionSpecific(h.name) && !h.name.startsWith(':'))
                add(h.name, h.value);
        }
    }
    const nghttp2_nv *data() const { return m_nv.constData(); }
    size_t size() const { return size_t(m_nv.size()); }

private:
    QVarLengthArray<nghttp2_nv, 24> m_nv;
    QVarLengthArray<QByteArray, 4> m_lowered; // moving one keeps its bytes where they are
};

template<size_t N>
bool named(const uint8_t *name, size_t length, const char (&literal)[N])
{
    return length == N - 1 && std::memcmp(name, literal, N - 1) == 0;
}

} // namespace

// nghttp2's C callbacks, with the session as user data.
struct Http2Session::Callbacks
{
    static Http2Session *self(void *user) { return static_cast<Http2Session *>(user); }

    static int beginHeaders(nghttp2_session *, const nghttp2_frame *frame, void *user)
    {
        Http2Session *s = self(user);
        if (frame->hd.type != NGHTTP2_HEADERS)
            return 0;
        const qint32 id = frame->hd.stream_id;
        if (frame->headers.cat == NGHTTP2_HCAT_REQUEST && s->m_role == Role::Server) {
            auto *stream = new TunnelStream(s, id, s);
            s->m_streams.insert(id, stream);
        }
        if (TunnelStream *stream = s->stream(id)) {
            stream->m_partial = TunnelHead {};
            stream->m_partial.headers.reserve(16);
        }
        return 0;
    }

    static int header(nghttp2_session *, const nghttp2_frame *frame, const uint8_t *name, size_t namelen,
        const uint8_t *value, size_t valuelen, uint8_t, void *user)
    {
        Http2Session *s = self(user);
        if (frame->hd.type != NGHTTP2_HEADERS)
            return 0;
        TunnelStream *stream = s->stream(frame->hd.stream_id);
        if (!stream)
            return 0; // a stream we gave up: its head goes nowhere
        const auto v = [&] { return QByteArray(reinterpret_cast<const char *>(value), qsizetype(valuelen)); };
        TunnelHead &head = stream->m_partial;
        if (namelen == 0 || name[0] != ':')
            head.headers.append({sharedHeaderName(QByteArrayView(name, qsizetype(namelen))), v()});
        else if (named(name, namelen, ":method"))
            head.method = sharedMethod(QByteArrayView(value, qsizetype(valuelen)));
        else if (named(name, namelen, ":scheme"))
            head.scheme = v();
        else if (named(name, namelen, ":authority"))
            head.authority = v();
        else if (named(name, namelen, ":path"))
            head.path = v();
        else if (named(name, namelen, ":protocol"))
            head.protocol = v();
        else if (named(name, namelen, ":status"))
            head.status = QByteArrayView(reinterpret_cast<const char *>(value), qsizetype(valuelen)).toInt();
        return 0;
    }

    static int frameReceived(nghttp2_session *, const nghttp2_frame *frame, void *user)
    {
        Http2Session *s = self(user);
        const qint32 id = frame->hd.stream_id;
        const bool endStream = frame->hd.flags & NGHTTP2_FLAG_END_STREAM;
        switch (frame->hd.type) {
        case NGHTTP2_HEADERS: {
            TunnelStream *stream = s->stream(id);
            if (!stream)
                return 0;
            TunnelHead head = std::exchange(stream->m_partial, {});
            if (s->m_role == Role::Server && frame->headers.cat == NGHTTP2_HCAT_REQUEST) {
                stream->m_request = std::move(head);
                // Whoever takes the stream sees at once whether a body follows.
                stream->m_remoteFinished = endStream;
                Q_EMIT s->incomingStream(stream);
                if (endStream) {
                    if (TunnelStream *still = s->stream(id))
                        still->announceRemoteFinished();
                }
                return 0;
            }
            if (s->m_role == Role::Client && !stream->hasResponseHead() && head.status >= 200) {
                // Informational (1xx) heads are skipped; trailers are not used by the tunnel.
                stream->m_response = std::move(head);
                stream->announceHead();
            }
            if (endStream && s->stream(id))
                s->stream(id)->receiveEnd();
            return 0;
        }
        case NGHTTP2_DATA:
            if (endStream) {
                if (TunnelStream *stream = s->stream(id))
                    stream->receiveEnd();
            }
            return 0;
        case NGHTTP2_PING:
            if (frame->hd.flags & NGHTTP2_FLAG_ACK)
                Q_EMIT s->pingAcknowledged();
            return 0;
        case NGHTTP2_GOAWAY:
            s->m_goAwayReceived = true;
            qCDebug(lcHttp2) << "GOAWAY received, error code" << frame->goaway.error_code << "last stream"
                             << frame->goaway.last_stream_id;
            Q_EMIT s->goAway(frame->goaway.error_code);
            return 0;
        default:
            return 0;
        }
    }

    static int dataChunk(nghttp2_session *session, uint8_t, int32_t id, const uint8_t *data, size_t len, void *user)
    {
        Http2Session *s = self(user);
        if (TunnelStream *stream = s->stream(id))
            stream->receiveData(reinterpret_cast<const char *>(data), len);
        else
            nghttp2_session_consume(session, id, len); // nobody will read it: give the window back
        return 0;
    }

    static int streamClosed(nghttp2_session *, int32_t id, uint32_t errorCode, void *user)
    {
        Http2Session *s = self(user);
        TunnelStream *stream = s->m_streams.take(id);
        if (!stream)
            return 0;
        if (errorCode != NGHTTP2_NO_ERROR)
            qCDebug(lcHttp2) << "stream" << id << "closed with error" << nghttp2_http2_strerror(errorCode);
        stream->close(errorCode);
        Q_EMIT s->streamClosed();
        return 0;
    }

    static int frameNotSent(nghttp2_session *, const nghttp2_frame *frame, int libError, void *user)
    {
        Http2Session *s = self(user);
        if (frame->hd.type != NGHTTP2_HEADERS)
            return 0;
        // A request that could not start (e.g. after GOAWAY) never opens; fail it explicitly.
        qCDebug(lcHttp2) << "HEADERS not sent on stream" << frame->hd.stream_id << nghttp2_strerror(libError);
        if (TunnelStream *stream = s->m_streams.take(frame->hd.stream_id)) {
            stream->close(TunnelStream::RefusedStream);
            Q_EMIT s->streamClosed();
        }
        return 0;
    }

    static ssize_t readBody(
        nghttp2_session *, int32_t id, uint8_t *buf, size_t length, uint32_t *flags, nghttp2_data_source *, void *user)
    {
        Http2Session *s = self(user);
        TunnelStream *stream = s->stream(id);
        if (!stream)
            return NGHTTP2_ERR_TEMPORAL_CALLBACK_FAILURE;
        bool eof = false;
        const qint64 n = stream->takeOutput(reinterpret_cast<char *>(buf), qint64(length), &eof);
        if (eof)
            *flags |= NGHTTP2_DATA_FLAG_EOF;
        else if (n == 0)
            return NGHTTP2_ERR_DEFERRED;
        if (n > 0 && !stream->m_wroteNoted) {
            stream->m_wroteNoted = true;
            s->m_wrote.append(id);
        }
        return ssize_t(n);
    }

    static int error(nghttp2_session *, int code, const char *msg, size_t len, void *)
    {
        qCDebug(lcHttp2) << "nghttp2:" << code << QByteArray(msg, qsizetype(len));
        return 0;
    }
};

Http2Session::Http2Session(Role role, Settings settings, QObject *parent)
    : QObject(parent)
    , m_role(role)
    , m_settings(settings)
    , m_session(nullptr, nghttp2_session_del)
{
    nghttp2_session_callbacks *rawCallbacks = nullptr;
    nghttp2_option *rawOption = nullptr;
    if (nghttp2_session_callbacks_new(&rawCallbacks) != 0 || nghttp2_option_new(&rawOption) != 0) {
        nghttp2_session_callbacks_del(rawCallbacks);
        m_broken = true;
        return;
    }
    CallbacksPtr callbacks(rawCallbacks, nghttp2_session_callbacks_del);
    OptionPtr option(rawOption, nghttp2_option_del);
    nghttp2_session_callbacks_set_on_begin_headers_callback(rawCallbacks, &Callbacks::beginHeaders);
    nghttp2_session_callbacks_set_on_header_callback(rawCallbacks, &Callbacks::header);
    nghttp2_session_callbacks_set_on_frame_recv_callback(rawCallbacks, &Callbacks::frameReceived);
    nghttp2_session_callbacks_set_on_data_chunk_recv_callback(rawCallbacks, &Callbacks::dataChunk);
    nghttp2_session_callbacks_set_on_stream_close_callback(rawCallbacks, &Callbacks::streamClosed);
    nghttp2_session_callbacks_set_on_frame_not_send_callback(rawCallbacks, &Callbacks::frameNotSent);
    nghttp2_session_callbacks_set_error_callback2(rawCallbacks, &Callbacks::error);
    // Windows open only as the application reads (TunnelStream::read), so a slow reader
    // back-pressures the sender instead of buffering without bound.
    nghttp2_option_set_no_auto_window_update(rawOption, 1);
    nghttp2_option_set_peer_max_concurrent_streams(rawOption, m_settings.maxConcurrentStreams);

    nghttp2_session *raw = nullptr;
    const int rv = role == Role::Client ? nghttp2_session_client_new2(&raw, rawCallbacks, this, rawOption)
                                        : nghttp2_session_server_new2(&raw, rawCallbacks, this, rawOption);
    if (rv != 0) {
        qCWarning(lcHttp2) << "cannot create an HTTP/2 session:" << nghttp2_strerror(rv);
        m_broken = true;
        return;
    }
    m_session.reset(raw);
}

Http2Session::~Http2Session()
{
    // Streams must not call back into a session that is going away.
    const auto streams = std::exchange(m_streams, {});
    for (TunnelStream *stream : streams)
        stream->m_session = nullptr;
    m_session.reset();
    for (TunnelStream *stream : streams)
        stream->close(TunnelStream::Cancel);
}

Status Http2Session::start()
{
    if (!m_session)
        return Error::failed(QStringLiteral("the HTTP/2 session could not be created"));
    std::vector<nghttp2_settings_entry> entries {
        {NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS, m_settings.maxConcurrentStreams},
        {NGHTTP2_SETTINGS_INITIAL_WINDOW_SIZE, quint32(m_settings.streamWindow)},
        {NGHTTP2_SETTINGS_ENABLE_PUSH, 0},
    };
    if (m_role == Role::Server)
        entries.push_back({NGHTTP2_SETTINGS_ENABLE_CONNECT_PROTOCOL, 1}); // RFC 8441 for WebSocket views
    int rv = nghttp2_submit_settings(m_session.get(), NGHTTP2_FLAG_NONE, entries.data(), entries.size());
    if (rv == 0)
        rv = nghttp2_session_set_local_window_size(m_session.get(), NGHTTP2_FLAG_NONE, 0, m_settings.connectionWindow);
    if (rv != 0)
        return Error::failed(QStringLiteral("HTTP/2 settings: %1").arg(QString::fromLatin1(nghttp2_strerror(rv))));
    flush();
    return {};
}

Status Http2Session::receive(QByteArrayView bytes)
{
    if (!m_session || m_broken)
        return Error::failed(QStringLiteral("the HTTP/2 session has already failed"));
    ++m_busy;
    const ssize_t n = nghttp2_session_mem_recv(
        m_session.get(), reinterpret_cast<const uint8_t *>(bytes.data()), size_t(bytes.size()));
    --m_busy;
    if (n < 0) {
        m_broken = true;
        // nghttp2 queues a GOAWAY for protocol errors; send it before the caller closes.
        flush();
        return Error::failed(QStringLiteral("HTTP/2: %1").arg(QString::fromLatin1(nghttp2_strerror(int(n)))));
    }
    flushSoon();
    return {};
}

Result<TunnelStream *> Http2Session::request(const TunnelHead &head, bool endStream)
{
    if (!m_session || m_broken || m_role != Role::Client)
        return Error::unavailable(QStringLiteral("the HTTP/2 session cannot open streams"));
    if (m_goAwayReceived)
        return Error::unavailable(QStringLiteral("the peer is shutting down (GOAWAY)"));
    HeaderBlock block;
    block.add(":method", head.method);
    const bool plainConnect = head.method == "CONNECT" && head.protocol.isEmpty();
    if (!plainConnect) {
        block.add(":scheme", head.scheme.isEmpty() ? QByteArrayView("https") : QByteArrayView(head.scheme));
        block.add(":path", head.path.isEmpty() ? QByteArrayView("/") : QByteArrayView(head.path));
    }
    block.add(":authority", head.authority.isEmpty() ? QByteArrayView("tunnel") : QByteArrayView(head.authority));
    if (!head.protocol.isEmpty())
        block.add(":protocol", head.protocol);
    block.addHeaders(head.headers);
    nghttp2_data_provider provider {};
    provider.read_callback = &Callbacks::readBody;
    const int32_t id = nghttp2_submit_request(
        m_session.get(), nullptr, block.data(), block.size(), endStream ? nullptr : &provider, nullptr);
    if (id < 0)
        return Error::unavailable(QStringLiteral("HTTP/2 request: %1").arg(QString::fromLatin1(nghttp2_strerror(id))));
    auto *stream = new TunnelStream(this, id, this);
    stream->m_request = head;
    stream->m_hasProvider = !endStream;
    stream->m_bodyAllowed = !endStream;
    stream->m_localFinished = endStream;
    m_streams.insert(id, stream);
    flushSoon();
    return stream;
}

void Http2Session::ping()
{
    if (!m_session || m_broken)
        return;
    nghttp2_submit_ping(m_session.get(), NGHTTP2_FLAG_NONE, nullptr);
    flush();
}

void Http2Session::shutdown()
{
    if (!m_session || m_broken)
        return;
    nghttp2_submit_goaway(m_session.get(), NGHTTP2_FLAG_NONE, nghttp2_session_get_last_proc_stream_id(m_session.get()),
        NGHTTP2_NO_ERROR, nullptr, 0);
    flush();
}

void Http2Session::terminate(quint32 errorCode)
{
    if (!m_session || m_broken)
        return;
    nghttp2_session_terminate_session(m_session.get(), errorCode);
    flush();
}

bool Http2Session::isAlive() const
{
    return m_session && !m_broken
        && (nghttp2_session_want_read(m_session.get()) || nghttp2_session_want_write(m_session.get()));
}

void Http2Session::resume(TunnelStream *stream, qint64 bytes)
{
    if (!m_session)
        return;
    if (stream->m_deferred) {
        stream->m_deferred = false;
        nghttp2_session_resume_data(m_session.get(), stream->m_id);
    }
    m_heldBytes += bytes;
    if (m_heldBytes >= m_settings.eagerOutputBytes && TcpStream::WriteBatch::active() && m_busy == 0) {
        // Enough for a message of its own: the peer starts on it while the rest of the batch is
        // taken in, instead of waiting for all of it (bench/views: the hub and the engine took
        // whole waves of requests in turn and never ran at once).
        flush();
        return;
    }
    flushSoon();
}

void Http2Session::submitResponse(TunnelStream *stream, const HeaderFields &headers, bool endStream)
{
    if (!m_session)
        return;
    HeaderBlock block;
    char status[16];
    const auto digits = std::to_chars(status, status + sizeof status, stream->m_response.status);
    block.add(":status", QByteArrayView(status, digits.ptr - status));
    block.addHeaders(headers);
    nghttp2_data_provider provider {};
    provider.read_callback = &Callbacks::readBody;
    const int rv = nghttp2_submit_response(
        m_session.get(), stream->m_id, block.data(), block.size(), endStream ? nullptr : &provider);
    if (rv != 0) {
        qCDebug(lcHttp2) << "cannot respond on stream" << stream->m_id << nghttp2_strerror(rv);
        return;
    }
    stream->m_hasProvider = !endStream;
    flushSoon();
}

void Http2Session::consume(TunnelStream *stream, qint64 bytes)
{
    if (!m_session || bytes <= 0)
        return;
    // Once the peer has ended the stream only the connection window matters.
    if (stream->m_closed || stream->m_remoteFinished)
        nghttp2_session_consume_connection(m_session.get(), size_t(bytes));
    else
        nghttp2_session_consume(m_session.get(), stream->m_id, size_t(bytes));
    flushSoon();
}

void Http2Session::consumeConnection(qint64 bytes)
{
    if (!m_session || bytes <= 0)
        return;
    nghttp2_session_consume_connection(m_session.get(), size_t(bytes));
    flushSoon();
}

void Http2Session::resetStream(TunnelStream *stream, quint32 errorCode)
{
    if (!m_session)
        return;
    nghttp2_submit_rst_stream(m_session.get(), NGHTTP2_FLAG_NONE, stream->m_id, errorCode);
    flushSoon();
}

void Http2Session::forget(TunnelStream *stream)
{
    if (m_streams.value(stream->m_id) == stream)
        m_streams.remove(stream->m_id);
}

void Http2Session::whenOutputSent(std::function<void()> f)
{
    if (!TcpStream::WriteBatch::active()) {
        f();
        return;
    }
    if (std::exchange(m_whenSentQueued, true))
        return;
    // After the flush flushSoon() queued (the batch runs its calls in order).
    TcpStream::WriteBatch::atEnd(this, [this, f = std::move(f)] {
        m_whenSentQueued = false;
        f();
    });
}

void Http2Session::flushSoon()
{
    // In a write batch (the turn of the event loop that reads sockets, or a tunnel message
    // taken in): once at its end, so that the frames of all its streams leave as one output.
    if (TcpStream::WriteBatch::active()) {
        if (!m_flushQueued) {
            m_flushQueued = true;
            TcpStream::WriteBatch::atEnd(this, [this] {
                m_flushQueued = false;
                flush();
            });
        }
        return;
    }
    flush();
}

void Http2Session::flush()
{
    if (!m_session)
        return;
    // Inside nghttp2 (a callback) or already flushing: the running flush picks it up.
    if (m_busy > 0 || m_flushing) {
        m_flushAgain = true;
        return;
    }
    QPointer<Http2Session> alive(this);
    m_flushing = true;
    m_heldBytes = 0;
    do {
        m_flushAgain = false;
        // One buffer for the life of the session (it keeps its capacity): gathering a batch's
        // frames in a new one grew it, copying, a few times for every message.
        QByteArray &out = m_output;
        out.resize(0);
        for (;;) {
            const uint8_t *data = nullptr;
            ++m_busy;
            const ssize_t n = nghttp2_session_mem_send(m_session.get(), &data);
            --m_busy;
            if (n < 0) {
                qCWarning(lcHttp2) << "HTTP/2 send failed:" << nghttp2_strerror(int(n));
                m_broken = true;
                break;
            }
            if (n == 0)
                break;
            out.append(reinterpret_cast<const char *>(data), qsizetype(n));
            if (out.size() >= m_settings.maxOutputChunk) {
                Q_EMIT output(out);
                if (!alive)
                    return;
                out.resize(0);
            }
        }
        if (!out.isEmpty()) {
            Q_EMIT output(out);
            if (!alive)
                return;
        }
        // Writers learn there is room (bytesWritten, queued) only now, outside nghttp2.
        const auto wrote = std::exchange(m_wrote, {});
        for (qint32 id : wrote) {
            TunnelStream *stream = this->stream(id);
            if (!stream)
                continue;
            stream->m_wroteNoted = false;
            stream->notifyWritten();
            if (!alive)
                return;
        }
    } while (m_flushAgain && m_session && !m_broken);
    m_flushing = false;
}

} // namespace isolation
