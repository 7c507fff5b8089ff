#include "websockethandshake.h"

#include "crypto/random.h"
#include "http/llhttpresult.h"

#include <QCryptographicHash>

namespace isolation::websocket {

namespace {

constexpr char Guid[] = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"; // RFC 6455 §1.3

HandshakeReader *self(llhttp_t *p)
{
    return static_cast<HandshakeReader *>(p->data);
}

bool validKey(QByteArrayView key)
{
    if (key.size() != 24)
        return false;
    const auto decoded = QByteArray::fromBase64Encoding(key.toByteArray(), QByteArray::AbortOnBase64DecodingErrors);
    return decoded && decoded.decoded.size() == 16;
}

} // namespace

QByteArray acceptFor(QByteArrayView key)
{
    QCryptographicHash sha1(QCryptographicHash::Sha1);
    sha1.addData(key);
    sha1.addData(QByteArrayView(Guid));
    return sha1.result().toBase64();
}

QByteArray newKey()
{
    return randomBytes(16).toBase64();
}

QByteArray clientRequest(const QUrl &url, const QByteArray &key, const HttpHeaders &extra)
{
    QByteArray target = url.path(QUrl::FullyEncoded).toUtf8();
    if (target.isEmpty())
        target = "/";
    if (url.hasQuery())
        target += '?' + url.query(QUrl::FullyEncoded).toUtf8();
    QByteArray host = url.host(QUrl::FullyEncoded).toUtf8();
    if (host.contains(':'))
        host = '[' + host + ']';
    const int defaultPort = url.scheme() == QLatin1String("wss") ? 443 : 80;
    if (url.port() != -1 && url.port() != defaultPort)
        host += ':' + QByteArray::number(url.port());

    QByteArray request = "GET " + target + " HTTP/1.1\r\nHost: " + host
        + "\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: " + key
        + "\r\nSec-WebSocket-Version: 13\r\n";
    for (const auto &h : extra)
        request += h.first + ": " + h.second + "\r\n";
    request += "\r\n";
    return request;
}

Result<QByteArray> serverAnswer(const HttpRequest &request)
{
    if (request.method != "GET")
        return Error::invalidInput(QStringLiteral("a WebSocket handshake must be a GET"));
    if (!hasToken(request.header("upgrade"), "websocket") || !hasToken(request.header("connection"), "upgrade"))
        return Error::invalidInput(QStringLiteral("not a WebSocket upgrade (Upgrade: websocket, Connection: Upgrade)"));
    if (request.header("sec-websocket-version").trimmed() != "13")
        return Error::invalidInput(QStringLiteral("only WebSocket version 13 is spoken here"));
    const QByteArray key = request.header("sec-websocket-key").trimmed();
    if (!validKey(key))
        return Error::invalidInput(QStringLiteral("the Sec-WebSocket-Key is not 16 bytes in base64"));
    return QByteArray("HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                      "Sec-WebSocket-Accept: ")
        + acceptFor(key) + "\r\n\r\n";
}

HandshakeReader::HandshakeReader(QByteArray key)
    : m_key(std::move(key))
{
    llhttp_settings_init(&m_settings);
    m_settings.on_header_field = &HandshakeReader::onHeaderField;
    m_settings.on_header_value = &HandshakeReader::onHeaderValue;
    m_settings.on_headers_complete = &HandshakeReader::onHeadersComplete;
    llhttp_init(&m_parser, HTTP_RESPONSE, &m_settings);
    m_parser.data = this;
}

HandshakeReader::~HandshakeReader() = default;

int HandshakeReader::onHeaderField(llhttp_t *p, const char *at, size_t length)
{
    HandshakeReader *r = self(p);
    if (r->m_inValue || r->m_headers.isEmpty()) {
        r->m_headers.append({QByteArray(), QByteArray()});
        r->m_inValue = false;
    }
    r->m_headers.last().first.append(at, qsizetype(length));
    return 0;
}

int HandshakeReader::onHeaderValue(llhttp_t *p, const char *at, size_t length)
{
    HandshakeReader *r = self(p);
    r->m_inValue = true;
    if (!r->m_headers.isEmpty())
        r->m_headers.last().second.append(at, qsizetype(length));
    return 0;
}

int HandshakeReader::onHeadersComplete(llhttp_t *p)
{
    HandshakeReader *r = self(p);
    r->m_headDone = true;
    r->m_status = int(p->status_code);
    // 2: what follows a 101 is the new protocol's; 1: no body is read for any other answer.
    return r->m_status == 101 ? 2 : 1;
}

HandshakeReader::Status HandshakeReader::feed(QByteArrayView bytes)
{
    if (!m_error.isEmpty())
        return Status::Error;
    if (m_headDone)
        return m_status == 101 ? Status::Accepted : m_error.isEmpty() ? Status::Refused : Status::Error;
    const llhttp_errno_t err = llhttp_execute(&m_parser, bytes.data(), size_t(bytes.size()));
    if (m_headDone) {
        if (m_status != 101 && (m_status < 200 || m_status > 599)) {
            // llhttp takes any three digits; 1xx other than 101 (a 100 Continue) or a status
            // under 100 is no answer to this request.
            m_error = QStringLiteral("the answer to the WebSocket handshake has the status %1").arg(m_status);
            return Status::Error;
        }
        if (m_status != 101)
            return Status::Refused;
        // A 101 stops the parser right after its head (HPE_PAUSED_UPGRADE): the frames follow.
        const char *stop = err == HPE_PAUSED_UPGRADE ? llhttp_get_error_pos(&m_parser) : nullptr;
        if (!stop || stop < bytes.data() || stop > bytes.data() + bytes.size()) {
            m_error = QStringLiteral("the 101 answer to the WebSocket handshake did not end where expected");
            return Status::Error;
        }
        m_rest = bytes.sliced(stop - bytes.data()).toByteArray();
        return check();
    }
    if (err != HPE_OK) {
        m_error = QStringLiteral("the hub's answer to the WebSocket handshake is not HTTP: %1")
                      .arg(llhttpWhy(&m_parser, err));
        return Status::Error;
    }
    m_read += bytes.size();
    if (m_read > MaxHeadBytes) {
        m_error = QStringLiteral("the answer to the WebSocket handshake has a head over %1 bytes").arg(MaxHeadBytes);
        return Status::Error;
    }
    return Status::NeedMore;
}

HandshakeReader::Status HandshakeReader::check()
{
    if (!hasToken(headerValue(m_headers, "upgrade"), "websocket")
        || !hasToken(headerValue(m_headers, "connection"), "upgrade"))
        m_error = QStringLiteral("the 101 answer is not a WebSocket upgrade");
    else if (headerValue(m_headers, "sec-websocket-accept").trimmed() != acceptFor(m_key))
        m_error = QStringLiteral("the 101 answer's Sec-WebSocket-Accept does not match the key");
    else if (hasHeader(m_headers, "sec-websocket-extensions") || hasHeader(m_headers, "sec-websocket-protocol"))
        m_error = QStringLiteral("the 101 answer names an extension or subprotocol that was not asked for");
    return m_error.isEmpty() ? Status::Accepted : Status::Error;
}

} // namespace isolation::websocket
