// The tunnel: one outbound, signed WebSocket to the hub (`<hub>/v1/tunnel`) carrying HTTP/2 with
// the hub as client and the engine as server (docs/protocol.md, "Tunnel"). Owns the connection,
// keepalive, reconnect with backoff, graceful drain, and routing the hub's streams to handlers.
#pragma once

#include "core/backoff.h"
#include "core/clock.h"
#include "core/result.h"
#include "core/timer.h"
#include "http2session.h"
#include "net/proxyrules.h"
#include "rpcdispatcher.h"
#include "tunnelerror.h"
#include "tunnelstate.h"

#include <QObject>
#include <QPointer>
#include <QTimer>
#include <QUrl>

#include <chrono>
#include <functional>
#include <memory>
#include <optional>

namespace isolation {

class WebSocketConnector;
class WebSocketLink;

class TunnelClient final : public QObject
{
    Q_OBJECT
    Q_PROPERTY(isolation::TunnelState state READ state NOTIFY stateChanged)
    Q_PROPERTY(QString reason READ reason NOTIFY stateChanged)

public:
    struct Options
    {
        QUrl hub; // the hub's app origin (http/https or ws/wss); ws/http only to a loopback host
        QString serverId;
        QByteArray credential; // the server credential; never logged
        // Signs a message with the server key (Ed25519); the signature's raw bytes.
        std::function<QByteArray(const QByteArray &message)> sign;
        Backoff::Policy backoff; // base 1 s, cap 30 s, reset after 60 s connected
        std::function<double()> random01; // the backoff's jitter; empty means QRandomGenerator
        // HTTP/2 PING at least this often. Longer than the heartbeat's default interval with its
        // jitter (15 s + 10 %): while heartbeats go, keepaliveSoon() pings with them and the
        // timer never wakes the engine by itself.
        std::chrono::milliseconds pingInterval {17000};
        std::chrono::milliseconds deadAfter {23000}; // nothing heard this long: the link is dead
        std::chrono::milliseconds handshakeTimeout {15000};
        Http2Session::Settings http2;
        QByteArray userAgent;
        ProxyRules proxy; // the environment's HTTPS_PROXY / NO_PROXY (net/proxyrules.h)
    };
    // The largest WebSocket message either side accepts (docs/protocol.md); outputs are smaller.
    static constexpr quint64 MaxMessageSize = quint64(1024) * 1024;

    // Serves a stream the hub opened; `path` prefixes select handlers (longest match first).
    using StreamHandler = std::function<void(TunnelStream *stream)>;

    // `clock` must outlive the client. `reconnectTimer` defaults to a real timer.
    TunnelClient(
        Options options, const Clock &clock, std::unique_ptr<Timer> reconnectTimer = {}, QObject *parent = nullptr);
    ~TunnelClient() override;

    // The WebSocket URL for a hub origin, or InvalidConfig: plain ws:// (or http://) only to a
    // loopback host, so a credential never crosses a network unencrypted.
    static Result<QUrl, TunnelError> tunnelUrl(const QUrl &hub);

    // Starts connecting (and reconnecting until stop() or drain()). Fails without any attempt
    // when the options cannot work; lastError() says why.
    Result<void, TunnelError> start();
    // Closes at once: open streams fail, no reconnect. State Disconnected.
    void stop();
    // Graceful: GOAWAY (the hub opens no new streams), wait up to `bound` for open streams to
    // finish, close. Emits drained() when done (at once when not connected).
    void drain(std::chrono::milliseconds bound = std::chrono::milliseconds(5000));

    // The engine is awake anyway (a heartbeat was answered): ping now, with it, rather than on a
    // wake of its own; the keepalive timer starts again. Nothing when not connected or when a
    // ping went out less than half a pingInterval ago.
    void keepaliveSoon();

    RpcDispatcher &rpc() { return m_rpc; }
    void setStreamHandler(const QByteArray &pathPrefix, StreamHandler handler);

    TunnelState state() const { return m_state; }
    // One line for the tray tooltip: the state and, when down, the last error.
    QString reason() const { return m_reason; }
    std::optional<TunnelError> lastError() const { return m_lastError; }
    int connectionCount() const { return m_connections; } // tunnels established so far
    int openStreams() const { return m_session ? m_session->streamCount() : 0; }
    const Options &options() const { return m_options; }

Q_SIGNALS:
    void stateChanged(isolation::TunnelState state);
    void connected();
    void disconnected(const QString &reason);
    void reconnectScheduled(std::chrono::milliseconds delay);
    void drained();

private:
    void connectNow();
    void onConnected(WebSocketLink *link);
    void onMessage(QByteArrayView bytes);
    void checkSessionEnded();
    void onSocketGone(const TunnelError &why);
    void onStream(TunnelStream *stream);
    void keepaliveTick();
    void finishDrain();
    void teardown();
    void setState(TunnelState state, const QString &reason);

    Options m_options;
    QUrl m_url;
    const Clock &m_clock;
    std::unique_ptr<Timer> m_reconnectTimer;
    Backoff m_backoff;
    RpcDispatcher m_rpc;
    QList<QPair<QByteArray, StreamHandler>> m_handlers;

    WebSocketConnector *m_connector = nullptr; // while a handshake is under way
    WebSocketLink *m_socket = nullptr; // once it is done
    Http2Session *m_session = nullptr;
    QTimer m_keepalive;
    QTimer m_handshakeTimer;
    QTimer m_drainTimer;
    qint64 m_lastHeard = 0;
    qint64 m_lastPing = 0; // monotonic ms of the last PING sent
    bool m_running = false; // reconnects until stop()/drain()
    bool m_drainClosing = false; // drain sent the WebSocket close and waits for the hub's
    int m_connections = 0;

    TunnelState m_state = TunnelState::Disconnected;
    QString m_reason;
    std::optional<TunnelError> m_lastError;
};

} // namespace isolation
