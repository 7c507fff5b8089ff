// A WebSocket connection for the tunnel after its opening handshake, either side, over any
// connected stream device (a TcpStream, a QTcpSocket, a QSslSocket): binary messages in and out,
// pings answered, the closing handshake. WebSocketConnector opens one as a client.
//
// Messages reach a handler as a view (valid during the call) rather than through a signal: the
// tunnel's HTTP/2 session reads each at once, and a message that came in one frame is then never
// copied out of the buffer it was read into. See websocketframes.h for why this replaces
// QWebSocket on the tunnel.
#pragma once

#include "http/httprequest.h"
#include "websocketframes.h"
#include "websockethandshake.h"

#include <QHostAddress>
#include <QNetworkProxy>
#include <QObject>
#include <QPointer>
#include <QTimer>
#include <QUrl>

#include <functional>
#include <memory>
#include <vector>

class QIODevice;

namespace isolation {

class WebSocketLink final : public QObject
{
    Q_OBJECT
public:
    using Role = websocket::FrameReader::Role;
    using MessageHandler = std::function<void(QByteArrayView message)>;
    enum class State { Open, Closing, Closed };
    // How long close() waits for the peer's close frame before cutting the connection.
    static constexpr int CloseTimeoutMs = 2000;

    // Takes `device` (connected, the handshake done). `alreadyRead`: bytes read past the handshake,
    // the start of the first frames. Nothing is read until start().
    WebSocketLink(
        Role role, QIODevice *device, QByteArray alreadyRead, quint64 maxMessageSize, QObject *parent = nullptr);
    // Cuts the connection (no close frame; close() first for a polite end).
    ~WebSocketLink() override;

    // Binary messages go to `handler` while the link is open (none once close() or abort() was
    // called, so a handler need not be taken away; replacing it from inside itself is not allowed).
    // A text message is refused (close code 1003): the tunnel carries only binary ones.
    void setMessageHandler(MessageHandler handler) { m_handler = std::move(handler); }
    // Reads what came with the handshake, then whatever arrives.
    void start();

    // One binary message. Nothing once closing.
    void sendBinary(QByteArrayView payload);
    // The closing handshake: a close frame, then the connection ends when the peer's close frame
    // comes back or after CloseTimeoutMs. disconnected() follows.
    void close(quint16 code, const QString &reason);
    // Ends the connection without a closing handshake: what is queued for writing (a last
    // GOAWAY) still leaves until the link is deleted. No disconnected().
    void abort();

    State state() const { return m_state; }
    bool isOpen() const { return m_state == State::Open; }
    QHostAddress peerAddress() const;
    QIODevice *device() const { return m_device; }
    // After disconnected(): whether it was for a break of the protocol by the peer (a frame that
    // breaks RFC 6455, a message over the size limit, a text message).
    bool peerBrokeProtocol() const { return m_protocolError; }

Q_SIGNALS:
    // Exactly once, unless abort() or the destructor came first: the peer closed (with its reason),
    // the connection was lost, the peer broke the protocol, or close() completed.
    void disconnected(const QString &why);

private:
    void onReadyRead();
    bool drain(); // false: the link ended (or was deleted) on the way
    void onDeviceGone();
    void send(websocket::Opcode opcode, QByteArrayView payload);
    void failProtocol(quint16 code, const QString &text);
    void finish(const QString &why);
    websocket::MaskKey nextKey();

    Role m_role;
    QPointer<QIODevice> m_device;
    websocket::FrameReader m_reader;
    QByteArray m_alreadyRead;
    MessageHandler m_handler;
    State m_state = State::Open;
    bool m_started = false;
    bool m_reported = false;
    bool m_protocolError = false;
    bool m_reading = false;
    bool m_readAgain = false;
    QTimer m_closeTimer;
    QString m_closeWhy;
    std::vector<websocket::MaskKey> m_keys; // masking keys drawn from the DRBG a batch at a time
};

// Opens a client WebSocket: ws:// to a loopback host over a TcpStream (no proxy: loopback is never
// proxied), wss:// over a QSslSocket with the system's trust store, directly or through the HTTP
// proxy given (CONNECT, net/proxyrules.h). Then the opening request, and the answer checked.
class WebSocketConnector final : public QObject
{
    Q_OBJECT
public:
    explicit WebSocketConnector(QObject *parent = nullptr);
    ~WebSocketConnector() override;

    // `headers` go in the opening request after the WebSocket ones (authentication, User-Agent).
    void open(const QUrl &url, const HttpHeaders &headers, quint64 maxMessageSize,
        const QNetworkProxy &proxy = QNetworkProxy(QNetworkProxy::NoProxy));
    // Gives up on an attempt under way; nothing is emitted.
    void abort();

Q_SIGNALS:
    // The receiver takes `link` (its parent is this connector until then) and calls start().
    void opened(isolation::WebSocketLink *link);
    // No WebSocket: `httpStatus` is the answer's status when there was a whole answer that was
    // not a 101 (401 for a refused credential), 0 when there was none.
    void failed(int httpStatus, const QString &message);

private:
    void onConnected();
    void onReadyRead();
    void fail(int status, const QString &message);
    void cleanup();

    QPointer<QIODevice> m_device;
    std::unique_ptr<websocket::HandshakeReader> m_reader;
    QByteArray m_request;
    quint64 m_maxMessageSize = 0;
};

} // namespace isolation
