#include "tunnelstream.h"

#include "http2session.h"

#include <cstring>

namespace isolation {

TunnelStream::TunnelStream(Http2Session *session, qint32 id, QObject *parent)
    : QObject(parent)
    , m_session(session)
    , m_id(id)
{ }

TunnelStream::~TunnelStream()
{
    if (m_session) {
        // Whatever was never read still holds the connection window.
        m_session->forget(this);
        m_session->consumeConnection(m_inSize);
        if (!m_closed)
            m_session->resetStream(this, Cancel);
    }
}

QByteArray TunnelStream::read(qint64 maxSize)
{
    if (maxSize < 0 || maxSize > m_inSize)
        maxSize = m_inSize;
    QByteArray out;
    if (maxSize > 0 && m_inOffset == 0 && m_in.front().size() == maxSize) {
        out = m_in.front(); // exactly one piece (a DATA frame's): handed over, not copied
        m_in.pop_front();
    } else {
        out.reserve(maxSize);
    }
    while (out.size() < maxSize) {
        const QByteArray &front = m_in.front();
        const qint64 take = std::min<qint64>(maxSize - out.size(), front.size() - m_inOffset);
        out.append(front.constData() + m_inOffset, take);
        m_inOffset += take;
        if (m_inOffset == front.size()) {
            m_in.pop_front();
            m_inOffset = 0;
        }
    }
    m_inSize -= out.size();
    if (m_session && !out.isEmpty())
        m_session->consume(this, out.size());
    if (m_closed && m_inSize == 0)
        deleteLater();
    return out;
}

bool TunnelStream::respond(int status, const HttpHeaders &headers, bool endStream)
{
    return respondFields(status, fieldsOf(headers), endStream);
}

bool TunnelStream::respondFields(int status, const HeaderFields &headers, bool endStream)
{
    if (!m_session || m_closed || m_session->role() != Http2Session::Role::Server || hasResponseHead())
        return false;
    m_response.status = status;
    if (endStream) {
        m_bodyAllowed = false;
        m_localFinished = true;
        m_out.clear();
        m_outSize = 0;
        m_outOffset = 0;
    }
    m_session->submitResponse(this, headers, endStream);
    return true;
}

bool TunnelStream::write(const QByteArray &data)
{
    if (!m_session || m_closed || m_localFinished || !m_bodyAllowed)
        return false;
    if (data.isEmpty())
        return true;
    m_out.push_back(data);
    m_outSize += data.size();
    if (m_hasProvider)
        m_session->resume(this, data.size());
    return true;
}

void TunnelStream::finish()
{
    if (!m_session || m_closed || m_localFinished)
        return;
    m_localFinished = true;
    if (m_hasProvider)
        m_session->resume(this);
}

void TunnelStream::respondWith(int status, const HttpHeaders &headers, const QByteArray &body)
{
    if (!respond(status, headers, false))
        return;
    write(body);
    finish();
}

void TunnelStream::reset(quint32 errorCode)
{
    if (m_closed)
        return;
    if (m_session) {
        m_session->consumeConnection(m_inSize);
        m_in.clear();
        m_inSize = 0;
        m_inOffset = 0;
        m_session->resetStream(this, errorCode);
    }
}

void TunnelStream::receiveData(const char *data, size_t size)
{
    if (size == 0)
        return;
    m_in.emplace_back(data, qsizetype(size));
    m_inSize += qint64(size);
    if (m_listener)
        m_listener->streamReadyRead(this);
    Q_EMIT readyRead();
}

void TunnelStream::receiveEnd()
{
    if (m_remoteFinished)
        return;
    m_remoteFinished = true;
    announceRemoteFinished();
}

void TunnelStream::announceRemoteFinished()
{
    if (m_listener)
        m_listener->streamRemoteFinished(this);
    Q_EMIT remoteFinishedReceived();
}

void TunnelStream::announceHead()
{
    if (m_listener)
        m_listener->streamHeadReceived(this);
    Q_EMIT headReceived();
}

qint64 TunnelStream::takeOutput(char *buffer, qint64 size, bool *eof)
{
    qint64 taken = 0;
    while (taken < size && !m_out.empty()) {
        const QByteArray &front = m_out.front();
        const qint64 n = std::min<qint64>(size - taken, front.size() - m_outOffset);
        std::memcpy(buffer + taken, front.constData() + m_outOffset, size_t(n));
        taken += n;
        m_outOffset += n;
        if (m_outOffset == front.size()) {
            m_out.pop_front();
            m_outOffset = 0;
        }
    }
    m_outSize -= taken;
    m_written += taken;
    *eof = m_out.empty() && m_localFinished;
    m_deferred = taken == 0 && !*eof;
    return taken;
}

void TunnelStream::notifyWritten()
{
    // Never from inside write(): like QIODevice, bytesWritten() comes from the event loop, so a
    // writer that writes again from its handler does not recurse.
    if (m_written == 0 || m_writtenPending)
        return;
    m_writtenPending = true;
    QMetaObject::invokeMethod(
        this,
        [this] {
            m_writtenPending = false;
            const qint64 n = std::exchange(m_written, 0);
            if (n > 0 && !m_closed) {
                if (m_listener)
                    m_listener->streamBytesWritten(this);
                Q_EMIT bytesWritten(n);
            }
        },
        Qt::QueuedConnection);
}

void TunnelStream::close(quint32 errorCode)
{
    if (m_closed)
        return;
    m_closed = true;
    m_closeError = errorCode;
    m_out.clear();
    m_outSize = 0;
    if (errorCode != NoError && m_session) {
        // An abandoned stream's input is of no use; return its window.
        m_session->consumeConnection(m_inSize);
        m_in.clear();
        m_inSize = 0;
        m_inOffset = 0;
    }
    if (m_listener)
        m_listener->streamClosed(this, errorCode);
    Q_EMIT closed(errorCode);
    if (m_inSize == 0)
        deleteLater();
}

} // namespace isolation
