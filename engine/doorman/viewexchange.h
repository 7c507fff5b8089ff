// One admitted view request forwarded to the sandbox: the target resolved, the terminal's shell
// session made when needed, the request body passed on as it comes, the answer relayed back
// with its headers cleaned, all with flow control. Front doors plug in through ViewDownstream.
#pragma once

#include "doorman.h"
#include "upstreamexchange.h"

#include <QObject>

#include <functional>
#include <memory>
#include <optional>
#include <vector>

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

class ViewExchanges;

// Not a QObject: one is made for every proxied request. Its front door keeps it in a
// ViewExchanges, which deletes it once retired.
class ViewExchange final : private UpstreamListener
{
public:
    static constexpr qint64 HighWater = 512 * 1024;
    // A request body is held back until it is complete or this large, so that a request whose
    // framing breaks early (a malformed chunk) never reaches the sandbox at all.
    static constexpr qint64 HoldBack = 64 * 1024;

    // `bodyLength`: the request body's length when known, -1 when it comes chunked, 0 for none.
    ViewExchange(Doorman *doorman, Admission admission, std::unique_ptr<ViewDownstream> downstream, qint64 bodyLength);
    ~ViewExchange();
    ViewExchange(const ViewExchange &) = delete;
    ViewExchange &operator=(const ViewExchange &) = delete;

    void start();
    // The request body, as it arrives; requestBodyEnd() once it is all there.
    void requestBody(QByteArrayView piece);
    void requestBodyEnd();
    // Request bytes buffered towards the sandbox (the door reads more only below HighWater).
    qint64 pendingRequestBytes() const;
    std::function<void()> onRequestDrained; // the sandbox took request bytes: read more
    // The exchange is over (answered, failed or the browser gone); the owner retires it.
    std::function<void()> onDone;
    // Deleted on the next turn of the event loop (whoever calls this may be inside one of its
    // callbacks); once retired, again is nothing.
    void retire();

private:
    void onTarget(const Result<ViewTarget> &target);
    void resolved(const ViewTarget &target);
    // The editor's save: goes on only while the file is still the version the page opened.
    // A GET of the doorman's own on the target's execd; `done` runs only while this exchange lives.
    void askExecd(const ViewTarget &target, const QByteArray &get, std::function<void(Result<UpstreamAnswer>)> done);
    void checkUnchanged(const ViewTarget &target);
    void keepMode(const ViewTarget &target);
    void maybeSend();
    void send(const ViewTarget &target, const QByteArray &terminalSession);
    void upstreamHead() override;
    void upstreamReadyRead() override { pump(); }
    void upstreamFinished() override;
    void upstreamFailed(const QString &why) override;
    void upstreamBodyWritten() override;
    void pump();
    void end();
    // The agent view's calls, answered from Doorman::agents() (viewexchange_agent.cpp): the
    // events as a long poll (answered at the first new entry, or empty after kAgentPollMs), the
    // input once its body is all there.
    static constexpr int kAgentPollMs = 20000;
    static constexpr qsizetype kMaxAgentInputBody = 64 * 1024;
    void agentStart();
    void agentEvents(bool waited);
    void agentInput();
    void agentRespond(const HttpResponse &response);
    // For a callback that may come after the exchange went: expired then.
    std::weak_ptr<char> life();

    friend class ViewExchanges;
    ViewExchanges *m_owner = nullptr;
    ViewExchange *m_prev = nullptr; // among the owner's live exchanges
    ViewExchange *m_next = nullptr;
    bool m_retired = false;
    std::shared_ptr<char> m_life; // made only for a callback that waits (see life())

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
    std::unique_ptr<QObject> m_agentWait; // the agent events' long poll: the context of its callbacks
    QMetaObject::Connection m_agentWatch;
    bool m_agentInputTaken = false;
};

// The exchanges of one front door. A retired one goes on the next turn of the loop (one queued
// call for all that a turn retired, where deleteLater() posted an event for each); those still
// running go with the door. Declared before the door's server, so that it outlives the server's
// connections and body sinks, which retire exchanges as they go.
class ViewExchanges
{
public:
    explicit ViewExchanges(QObject *context)
        : m_context(context)
    { }
    ~ViewExchanges();
    ViewExchanges(const ViewExchanges &) = delete;
    ViewExchanges &operator=(const ViewExchanges &) = delete;

    ViewExchange *add(std::unique_ptr<ViewExchange> exchange);

private:
    friend class ViewExchange;
    void retire(ViewExchange *exchange);
    void unlink(ViewExchange *exchange);
    void reap();

    QObject *m_context; // where the reaping call is queued
    ViewExchange *m_first = nullptr;
    std::vector<ViewExchange *> m_retired;
    std::vector<ViewExchange *> m_reaping;
    bool m_reapQueued = false;
};

} // namespace isolation
