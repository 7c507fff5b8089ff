// ViewExchange: the agent conversation view's calls. Its transcript lives in the engine (the
// session's AgentSupervisor), so these are answered here, not forwarded to the sandbox; only the
// input reaches the sandbox, through the engine's own execd call.
#include "viewexchange.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTimer>

namespace isolation {

namespace {

// An answer at most this large: a page far behind takes the rest at its next poll.
constexpr qsizetype kMaxEventsBytes = 1024 * 1024;

HttpResponse errorResponse(const Error &e)
{
    switch (e.code) {
    case Error::Code::NotFound:
        return Doorman::refusal(404, QStringLiteral("not_found"), e.message);
    case Error::Code::InvalidInput:
        return Doorman::refusal(409, QStringLiteral("refused"), e.message);
    case Error::Code::Unavailable:
        return Doorman::refusal(503, QStringLiteral("unavailable"), e.message);
    case Error::Code::Cancelled:
        return Doorman::refusal(409, QStringLiteral("cancelled"), e.message);
    case Error::Code::Failed:
        break;
    }
    return Doorman::refusal(502, QStringLiteral("bad_gateway"), e.message);
}

} // namespace

void ViewExchange::agentRespond(const HttpResponse &response)
{
    // The wait's context stays until the exchange goes (this may run inside one of its
    // callbacks); whatever else it had queued finds the exchange ended.
    QObject::disconnect(m_agentWatch);
    if (m_ended)
        return;
    if (m_down->alive()) {
        HttpResponse r = response;
        HeaderPolicy::addStandard(&r.headers);
        r.setHeader("Cache-Control", "no-store");
        m_down->respond(r);
    }
    end();
}

void ViewExchange::agentStart()
{
    if (!m_doorman->agents()) {
        agentRespond(Doorman::refusal(
            503, QStringLiteral("unavailable"), QStringLiteral("this engine serves no agent conversations")));
        return;
    }
    if (m_admission.agentCall == Admission::AgentCall::Events)
        agentEvents(false);
    else if (m_bodyLength == 0 || m_bodyEnded)
        agentInput();
}

void ViewExchange::agentEvents(bool waited)
{
    if (m_ended)
        return;
    AgentViewSource *agents = m_doorman->agents();
    const QString &session = m_admission.claims.sessionId;
    const Result<AgentViewState> view = agents->agentView(session, m_admission.agentAfter);
    if (!view) {
        agentRespond(errorResponse(view.error()));
        return;
    }
    const AgentViewState &v = view.value();
    if (v.entries.isEmpty() && !waited && v.lastSeq <= m_admission.agentAfter) {
        // Nothing new: the answer waits for the next entry (a line, an input, a state change),
        // taken one turn of the event loop later so that a burst of lines goes in one answer.
        m_agentWait = std::make_unique<QObject>();
        QObject *context = m_agentWait.get();
        m_agentWatch = agents->watchAgent(session, context, [this, context] {
            QObject::disconnect(m_agentWatch); // once is enough
            QTimer::singleShot(0, context, [this] { agentEvents(true); });
        });
        if (!m_agentWatch) {
            agentRespond(Doorman::refusal(404, QStringLiteral("not_found"), QStringLiteral("the agent is gone")));
            return;
        }
        QTimer::singleShot(kAgentPollMs, context, [this] { agentEvents(true); });
        return;
    }
    QJsonArray entries;
    qsizetype bytes = 0;
    bool more = false;
    for (const AgentViewEntry &e : v.entries) {
        if (bytes > kMaxEventsBytes) {
            more = true;
            break;
        }
        bytes += e.text.size() + 64;
        entries.append(QJsonObject {{QStringLiteral("seq"), qint64(e.seq)}, {QStringLiteral("run"), e.run},
            {QStringLiteral("kind"), e.kind}, {QStringLiteral("text"), e.text}, {QStringLiteral("at"), e.atMs}});
    }
    agentRespond(HttpResponse::json(200,
        QJsonObject {{QStringLiteral("command"), v.command}, {QStringLiteral("state"), v.state},
            {QStringLiteral("reason"), v.reason}, {QStringLiteral("runs"), v.runs},
            {QStringLiteral("restarts"), v.restarts}, {QStringLiteral("lastExitCode"), v.lastExitCode},
            {QStringLiteral("last"), qint64(v.lastSeq)}, {QStringLiteral("truncated"), v.truncated},
            {QStringLiteral("more"), more}, {QStringLiteral("entries"), entries}}));
}

void ViewExchange::agentInput()
{
    if (m_agentInputTaken || m_ended)
        return;
    m_agentInputTaken = true;
    QJsonParseError error;
    const QJsonDocument body = QJsonDocument::fromJson(std::exchange(m_pending, {}), &error);
    const QJsonValue text = body.object().value(QStringLiteral("text"));
    if (error.error != QJsonParseError::NoError || !body.isObject() || !text.isString()) {
        agentRespond(Doorman::refusal(
            400, QStringLiteral("bad_request"), QStringLiteral("the body is {\"text\": \"what to send the agent\"}")));
        return;
    }
    m_doorman->agents()->sendAgentInput(
        m_admission.claims.sessionId, text.toString(), [this, life = life()](Result<void> sent) {
            if (life.expired() || m_ended)
                return;
            agentRespond(sent ? HttpResponse::json(200, QJsonObject {{QStringLiteral("sent"), true}})
                              : errorResponse(sent.error()));
        });
}

} // namespace isolation
