// A view's WebSocket: the handshake towards the sandbox written by the doorman (its own key,
// checked against the answer's Sec-WebSocket-Accept), then the bytes spliced both ways between
// the browser's side (an upgraded HTTP/1.1 socket or an extended-CONNECT tunnel stream) and the
// sandbox, with flow control, until either side closes or the view's token expires.
#pragma once

#include "doorman.h"
#include "upstreamexchange.h"

#include <QObject>
#include <QPointer>
#include <QTimer>

#include <memory>

class QIODevice;

namespace isolation {

class TcpStream;

class TunnelStream;

class WebSocketRelay final : public QObject, private UpstreamListener
{
    Q_OBJECT
public:
    // `admission` must be a WebSocket admission. The relay deletes itself when it is over.
    WebSocketRelay(Doorman *doorman, Admission admission, QObject *parent = nullptr);
    ~WebSocketRelay() override;

    // The browser's side: an upgraded socket (answer 101 with `Sec-WebSocket-Accept` for
    // `browserKey`) ...
    void startForSocket(QIODevice *browser, const QByteArray &browserKey, const QByteArray &rest);
    // ... or a tunnel stream (answer 200, RFC 8441).
    void startForStream(TunnelStream *stream);

private:
    void dropUpstream();
    void handshake();
    void connectUpstream(const ViewTarget &target, const QByteArray &path, const HttpHeaders &extra);
    void forgetRelay();
    void onUpstreamHead();
    void upstreamFinished() override { onUpstreamHead(); }
    void upstreamUpgraded() override { onUpstreamHead(); }
    void upstreamFailed(const QString &why) override;
    void refuse(const HttpResponse &response);
    void splice();
    void pumpToSandbox();
    void pumpToBrowser();
    void close(const char *why);

    Doorman *m_doorman;
    Admission m_admission;
    QPointer<QIODevice> m_browser;
    QPointer<TunnelStream> m_stream;
    QByteArray m_browserKey;
    QByteArray m_browserRest;
    QByteArray m_upstreamKey;
    std::unique_ptr<UpstreamExchange> m_up;
    QPointer<TcpStream> m_sandbox;
    QByteArray m_sandboxRest;
    QTimer m_expiry;
    bool m_closed = false;
    bool m_toRelay = false; // the upstream is the view's PTY relay
};

} // namespace isolation
