#include "websockethandshake.h"

#include "crypto/random.h"

#include <QCryptographicHash>

namespace isolation::websocket {

namespace {

constexpr char Guid[] = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"; // RFC 6455 §1.3

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
    // Only the head is read: a 101's frames follow it, and another answer's body is not ours to
    // read. No interim answers: the request never asked for one.
    , m_answer(HttpResponseParser::Options {.stopAtHead = true, .interimIsError = true, .maxHeadBytes = MaxHeadBytes})
{ }

HandshakeReader::Status HandshakeReader::feed(QByteArrayView bytes)
{
    if (m_decided == Status::NeedMore) {
        m_answer.feed(bytes);
        m_decided = decide();
    }
    return m_decided;
}

HandshakeReader::Status HandshakeReader::decide()
{
    switch (m_answer.state()) {
    case HttpResponseParser::State::NeedMore:
        return Status::NeedMore;
    case HttpResponseParser::State::Error:
        m_error = QStringLiteral("the hub's answer to the WebSocket handshake: %1").arg(m_answer.errorMessage());
        return Status::Error;
    case HttpResponseParser::State::Complete:
        break;
    }
    const int status = m_answer.response().status;
    if (!m_answer.upgraded()) {
        // llhttp takes any three digits: a status under 200 (but 101) answers nothing.
        if (status >= 200 && status <= 599)
            return Status::Refused;
        m_error = QStringLiteral("the answer to the WebSocket handshake has the status %1").arg(status);
        return Status::Error;
    }
    const HttpHeaders &headers = m_answer.response().headers;
    if (!hasToken(headerValue(headers, "upgrade"), "websocket")
        || !hasToken(headerValue(headers, "connection"), "upgrade"))
        m_error = QStringLiteral("the 101 answer is not a WebSocket upgrade");
    else if (headerValue(headers, "sec-websocket-accept").trimmed() != acceptFor(m_key))
        m_error = QStringLiteral("the 101 answer's Sec-WebSocket-Accept does not match the key");
    else if (hasHeader(headers, "sec-websocket-extensions") || hasHeader(headers, "sec-websocket-protocol"))
        m_error = QStringLiteral("the 101 answer names an extension or subprotocol that was not asked for");
    return m_error.isEmpty() ? Status::Accepted : Status::Error;
}

} // namespace isolation::websocket
