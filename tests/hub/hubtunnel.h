// One connected server's tunnel, hub side: the accepted WebSocket and the HTTP/2 client session
// over it. Calls `/rpc/<method>` on the engine and opens raw streams (views, later).
#pragma once

#include "core/result.h"
#include "tunnel/http2session.h"

#include <QHash>
#include <QJsonObject>
#include <QObject>
#include <QPointer>

#include <chrono>
#include <functional>

class QTimer;

namespace isolation {
class WebSocketLink;
}

namespace isolation::hub {

// Why a call to a server failed. Every call ends in exactly one result or one of these.
struct CallError
{
    enum class Code {
        NotConnected, // no tunnel from that server now
        Timeout, // no answer within the call's timeout (the stream was cancelled)
        Lost, // the tunnel went away or the server refused the stream mid-call
        Remote, // the engine answered with an error body (status, errorCode)
    };

    Code code = Code::Lost;
    QString message;
    int status = 0; // Remote: the HTTP status the engine answered
    QString errorCode; // Remote: the error body's code
    QJsonObject error; // Remote: the error object as the engine sent it (a conflict's files too)

    bool retryable() const { return code == Code::NotConnected || code == Code::Lost; }

    static CallError notConnected(QString m) { return {Code::NotConnected, std::move(m), 0, {}, {}}; }
    static CallError timeout(QString m) { return {Code::Timeout, std::move(m), 0, {}, {}}; }
    static CallError lost(QString m) { return {Code::Lost, std::move(m), 0, {}, {}}; }
    static CallError remote(QString m, int status, QString errorCode, QJsonObject error = {})
    {
        return {Code::Remote, std::move(m), status, std::move(errorCode), std::move(error)};
    }
};

using CallResult = Result<QJsonObject, CallError>;
using CallCallback = std::function<void(CallResult)>;

class HubTunnel final : public QObject
{
    Q_OBJECT
public:
    static constexpr qint64 MaxResponseBody = qint64(16) * 1024 * 1024;

    // Takes ownership of `socket` (upgraded, not started).
    HubTunnel(QString serverId, WebSocketLink *socket, Http2Session::Settings settings, QObject *parent = nullptr);
    // Starts HTTP/2 as the client and reads from the socket (closed() may follow at once).
    void start();
    // Fails every pending call with Lost.
    ~HubTunnel() override;

    QString serverId() const { return m_serverId; }
    bool isOpen() const { return m_session != nullptr; }
    int pendingCalls() const { return int(m_calls.size()); }

    // POST /rpc/<method> with `params`; `done` runs exactly once.
    void call(const QString &method, const QJsonObject &params, std::chrono::milliseconds timeout, CallCallback done);
    // A raw stream to the engine (request head as given; body through the stream).
    Result<TunnelStream *> open(const TunnelHead &head, bool endStream);

    // GOAWAY, close the WebSocket, fail pending calls with Lost("`reason`"). Emits closed().
    void close(const QString &reason);

Q_SIGNALS:
    void closed(const QString &reason);

private:
    struct PendingCall
    {
        QPointer<TunnelStream> stream;
        QByteArray body;
        QTimer *timer = nullptr;
        CallCallback done;
    };
    void resolve(quint64 id, CallResult result);
    void onStreamClosed(quint64 id, quint32 errorCode);
    void failAll(const QString &reason);
    void checkEnded();

    QString m_serverId;
    QPointer<WebSocketLink> m_socket;
    Http2Session *m_session = nullptr;
    QHash<quint64, PendingCall> m_calls;
    quint64 m_nextCall = 1;
};

} // namespace isolation::hub
