// The WebSocket opening handshake (RFC 6455 §4) for the tunnel, both sides: the client's request
// and the check of the server's answer (read by HttpResponseParser), the server's check of a request
// (parsed by HttpServer) and its 101 answer. Version 13, no extensions, no subprotocol.
#pragma once

#include "core/result.h"
#include "http/httprequest.h"
#include "http/httpresponseparser.h"

#include <QByteArray>
#include <QUrl>

namespace isolation::websocket {

// Sec-WebSocket-Accept for a Sec-WebSocket-Key: base64(SHA-1(key + the RFC's GUID)).
QByteArray acceptFor(QByteArrayView key);
// A new Sec-WebSocket-Key: 16 random bytes in base64.
QByteArray newKey();

// The client's opening request for a ws:// or wss:// URL, with `extra` headers after the
// WebSocket ones (names and values as given; the caller checked them).
QByteArray clientRequest(const QUrl &url, const QByteArray &key, const HttpHeaders &extra);

// Server side: whether `request` is a WebSocket opening handshake this code takes, and the 101
// answer to write, or why not (for a 400).
Result<QByteArray> serverAnswer(const HttpRequest &request);

// Client side: the server's answer to clientRequest(), read as it comes.
class HandshakeReader
{
public:
    enum class Status { NeedMore, Accepted, Refused, Error };
    static constexpr qsizetype MaxHeadBytes = 16 * 1024;

    explicit HandshakeReader(QByteArray key);
    HandshakeReader(const HandshakeReader &) = delete;
    HandshakeReader &operator=(const HandshakeReader &) = delete;

    // Accepted: a 101 that completes the handshake; rest() holds what came after it (frames).
    // Refused: a complete answer head with another status (status()). Error: not an answer to
    // this handshake, or a broken one (errorText()).
    Status feed(QByteArrayView bytes);

    int status() const { return m_answer.response().status; }
    QByteArray rest() const { return m_answer.rest(); }
    QString errorText() const { return m_error; }

private:
    Status decide();

    QByteArray m_key;
    HttpResponseParser m_answer;
    Status m_decided = Status::NeedMore;
    QString m_error;
};

} // namespace isolation::websocket
