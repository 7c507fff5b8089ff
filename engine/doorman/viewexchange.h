// One admitted view request forwarded to the sandbox: the target resolved, the terminal's shell
// session made when needed, the request body passed on as it comes, the answer relayed back
// with its headers cleaned, all with flow control. Front doors plug in through ViewDownstream.
#pragma once

#include "doorman.h"
#include "upstreamexchange.h"

#include <QObject>
#include <QPointer>

#include <memory>
#include <optional>

namespace isolation {

// Where an answer goes: an HTTP/1.1 reply or a tunnel stream.
class ViewDownstream
{
public:
    virtual ~ViewDownstream() = default;
    virtual bool alive() const = 0;
    virtual void respond(const HttpResponse &response) = 0;
    // length -1: unknown. The fields are views the downstream uses (or copies) before it returns.
    virtual void sendHead(int status, const HeaderFields &headers, qint64 length) = 0;
    virtual void write(const QByteArray &data) = 0;
    virtual void finish() = 0;
    virtual void abort() = 0; // the answer is cut off: the peer must not take it as complete
    virtual qint64 bytesToWrite() const = 0;
    virtual void setDrainHandler(std::function<void()> handler) = 0;
};

class ViewExchange final : public QObject, private UpstreamListener
{
    Q_OBJECT
public:
    static constexpr qint64 HighWater = 512 * 1024;
    // A request body is held back until it is complete or this large, so that a request whose
    // framing breaks early (a malformed chunk) never reaches the sandbox at all.
    static constexpr qint64 HoldBack = 64 * 1024;

    // `bodyLength`: the request body's length when known, -1 when it comes chunked, 0 for none.
    ViewExchange(Doorman *doorman, Admission admission, std::unique_ptr<ViewDownstream> downstream, qint64 bodyLength,
        QObject *parent = nullptr);
    ~ViewExchange() override;

    void start();
    // The request body, as it arrives; requestBodyEnd() once it is all there.
    void requestBody(QByteArrayView piece);
    void requestBodyEnd();
    // Request bytes buffered towards the sandbox (the door reads more only below HighWater).
    qint64 pendingRequestBytes() const;
    std::function<void()> onRequestDrained; // the sandbox took request bytes: read more
    // The exchange is over (answered, failed or the browser gone); the owner deletes it later.
    std::function<void()> onDone;

private:
    void onTarget(const Result<ViewTarget> &target);
    void resolved(const ViewTarget &target);
    void maybeSend();
    void send(const ViewTarget &target, const QByteArray &terminalSession);
    void upstreamHead() override;
    void upstreamReadyRead() override { pump(); }
    void upstreamFinished() override;
    void upstreamFailed(const QString &why) override;
    void upstreamBodyWritten() override;
    void pump();
    void end();

    Doorman *m_doorman;
    Admission m_admission;
    std::unique_ptr<ViewDownstream> m_down;
    qint64 m_bodyLength;
    QByteArray m_pending; // request body before the upstream exists
    std::optional<ViewTarget> m_target; // resolved, waiting for the body to be held back
    QByteArray m_terminalSession;
    bool m_bodyEnded = false;
    std::unique_ptr<UpstreamExchange> m_up;
    bool m_headSent = false;
    bool m_ended = false;
    bool m_upstreamFinished = false;
};

} // namespace isolation
