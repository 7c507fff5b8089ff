#include "viewexchange.h"

#include "upstreamexchange.h"

#include <QCryptographicHash>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLoggingCategory>

Q_DECLARE_LOGGING_CATEGORY(lcDoorman)

namespace isolation {

namespace {

// "host:port" of execd; the same few targets come again and again, so the last one is kept.
QByteArray hostHeader(const ViewTarget &target)
{
    thread_local QString lastHost;
    thread_local quint16 lastPort = 0;
    thread_local QByteArray last;
    if (last.isEmpty() || target.port != lastPort || target.host != lastHost) {
        last = target.host.toUtf8() + ':' + QByteArray::number(target.port);
        lastHost = target.host;
        lastPort = target.port;
    }
    return last;
}

} // namespace

ViewExchange::ViewExchange(
    Doorman *doorman, Admission admission, std::unique_ptr<ViewDownstream> downstream, qint64 bodyLength)
    : m_doorman(doorman)
    , m_admission(std::move(admission))
    , m_down(std::move(downstream))
    , m_bodyLength(m_admission.dropBody ? 0 : bodyLength)
{ }

ViewExchange::~ViewExchange()
{
    if (m_owner && !m_retired)
        m_owner->unlink(this);
    m_down->setDrainHandler({});
}

void ViewExchange::retire()
{
    Q_ASSERT(m_owner); // made by a door, through ViewExchanges::add()
    if (m_owner)
        m_owner->retire(this);
}

std::weak_ptr<char> ViewExchange::life()
{
    if (!m_life)
        m_life = std::make_shared<char>();
    return m_life;
}

void ViewExchange::start()
{
    if (m_admission.agentCall != Admission::AgentCall::None) {
        agentStart();
        return;
    }
    // Known at once for a running sandbox: no callback to allocate.
    if (auto now = m_doorman->targets()->resolveNow(m_admission.claims.sessionId)) {
        onTarget(*now);
        return;
    }
    m_doorman->targets()->resolve(m_admission.claims.sessionId, [this, life = life()](Result<ViewTarget> target) {
        if (!life.expired() && !m_ended)
            onTarget(target);
    });
}

void ViewExchange::onTarget(const Result<ViewTarget> &target)
{
    if (!target) {
        const bool gone = target.error().code == Error::Code::NotFound;
        m_down->respond(Doorman::refusal(gone ? 404 : 503,
            gone ? QStringLiteral("not_found") : QStringLiteral("unavailable"), target.error().message));
        end();
        return;
    }
    resolved(target.value());
}

void ViewExchange::askExecd(
    const ViewTarget &target, const QByteArray &get, std::function<void(Result<UpstreamAnswer>)> done)
{
    UpstreamCall::start(m_doorman->pool(), {target.host, target.port}, "GET", get,
        {{"Host", hostHeader(target)}, {"X-EXECD-ACCESS-TOKEN", target.accessToken}}, {},
        [this, life = life(), done = std::move(done)](Result<UpstreamAnswer> answer) {
            if (!life.expired() && !m_ended)
                done(std::move(answer));
        });
}

void ViewExchange::checkUnchanged(const ViewTarget &target)
{
    askExecd(target, std::exchange(m_admission.unchangedFile, {}), [this, target](Result<UpstreamAnswer> answer) {
        std::optional<HttpResponse> refused;
        if (!answer)
            refused = Doorman::refusal(502, QStringLiteral("bad_gateway"), answer.error().message);
        else if (answer.value().status == 404)
            refused = Doorman::refusal(412, QStringLiteral("changed_on_disk"),
                QStringLiteral("the file was deleted since it was opened; nothing was saved"));
        else if (answer.value().status != 200)
            refused = Doorman::refusal(502, QStringLiteral("bad_gateway"),
                QStringLiteral("the sandbox answered %1 when the file was read").arg(answer.value().status));
        else if (QCryptographicHash::hash(answer.value().body, QCryptographicHash::Sha256)
            != m_admission.unchangedSha256)
            refused = Doorman::refusal(412, QStringLiteral("changed_on_disk"),
                QStringLiteral("the file changed on disk since it was opened; nothing was saved"));
        if (refused) {
            m_down->respond(*refused);
            end();
            return;
        }
        keepMode(target);
    });
}

void ViewExchange::keepMode(const ViewTarget &target)
{
    askExecd(target, std::exchange(m_admission.modeListing, {}), [this, target](Result<UpstreamAnswer> answer) {
        // The upload's metadata says mode 644 (planUpload); the file's own mode replaces it,
        // so a script saved in the editor stays executable. Unknown: 644 stays.
        int mode = 0;
        if (answer && answer.value().status == 200) {
            for (const QJsonValue e : QJsonDocument::fromJson(answer.value().body).array()) {
                if (e.toObject().value(QStringLiteral("path")).toString() == m_admission.modePath)
                    mode = e.toObject().value(QStringLiteral("mode")).toInt();
            }
        }
        const QString digits = QString::number(mode);
        const bool octal = mode > 0 && mode <= 777 && !digits.contains(QLatin1Char('8'))
            && !digits.contains(QLatin1Char('9')) && (mode / 100) % 10 >= 4;
        if (octal && mode != 644) {
            const QByteArray from = "\"mode\":644";
            const qsizetype at = m_admission.bodyPrefix.indexOf(from);
            if (at >= 0)
                m_admission.bodyPrefix.replace(at, from.size(), QByteArray("\"mode\":" + digits.toLatin1()));
        }
        resolved(target);
    });
}

void ViewExchange::resolved(const ViewTarget &target)
{
    if (!m_admission.unchangedFile.isEmpty()) {
        checkUnchanged(target);
        return;
    }
    if (!m_admission.needsTerminalSession) {
        m_target = target;
        maybeSend();
        return;
    }
    m_doorman->terminalSession(m_admission.claims, target, [this, life = life(), target](Result<QByteArray> session) {
        if (life.expired() || m_ended)
            return;
        if (!session) {
            qCInfo(lcDoorman) << "view" << m_admission.claims.viewId << "has no shell:" << session.error().message;
            m_down->respond(Doorman::refusal(502, QStringLiteral("bad_gateway"), session.error().message));
            end();
            return;
        }
        m_target = target;
        m_terminalSession = session.value();
        maybeSend();
    });
}

void ViewExchange::maybeSend()
{
    if (m_up || m_ended || !m_target)
        return;
    if (m_bodyLength == 0 || m_bodyEnded || m_pending.size() >= HoldBack)
        send(*m_target, m_terminalSession);
}

void ViewExchange::send(const ViewTarget &target, const QByteArray &terminalSession)
{
    if (!m_down->alive()) {
        end();
        return;
    }
    m_doorman->countForwarded();
    const QByteArray host = hostHeader(target);
    HeaderFields headers;
    headers.append({"Host", host});
    for (const auto &h : std::as_const(m_admission.headers))
        headers.append({h.first, h.second});
    headers.append({"X-EXECD-ACCESS-TOKEN", target.accessToken});
    QByteArray path = m_admission.upstreamTarget;
    if (m_admission.needsTerminalSession)
        path.replace("{session}", terminalSession);

    m_up.reset(new UpstreamExchange(
        m_doorman->pool(), {target.host, target.port}, this)); // `this` as its listener: a private base
    const qint64 extra = m_admission.bodyPrefix.size() + m_admission.bodySuffix.size();
    UpstreamExchange::Body kind = UpstreamExchange::Body::None;
    qint64 length = 0;
    if (m_bodyLength < 0) {
        kind = UpstreamExchange::Body::Chunked;
    } else if (m_bodyLength > 0 || extra > 0) {
        kind = UpstreamExchange::Body::Length;
        length = m_bodyLength + extra;
    }
    m_up->start(m_admission.method, path, headers, kind, length);
    if (!m_admission.bodyPrefix.isEmpty())
        m_up->writeBody(m_admission.bodyPrefix);
    if (!m_pending.isEmpty() && !m_admission.dropBody)
        m_up->writeBody(m_pending);
    m_pending.clear();
    if (m_bodyEnded || kind == UpstreamExchange::Body::None) {
        if (!m_admission.bodySuffix.isEmpty())
            m_up->writeBody(m_admission.bodySuffix);
        m_up->finishBody();
    }
}

void ViewExchange::requestBody(QByteArrayView piece)
{
    if (m_admission.dropBody || m_ended)
        return;
    if (m_up) {
        m_up->writeBody(piece);
        return;
    }
    m_pending.append(piece.data(), piece.size());
    if (m_admission.agentCall == Admission::AgentCall::Input) {
        if (m_pending.size() > kMaxAgentInputBody)
            agentRespond(Doorman::refusal(413, QStringLiteral("too_large"),
                QStringLiteral("an input to the agent is at most %1 bytes").arg(kMaxAgentInputBody)));
        return;
    }
    maybeSend();
}

void ViewExchange::requestBodyEnd()
{
    if (m_bodyEnded)
        return;
    m_bodyEnded = true;
    if (m_admission.agentCall == Admission::AgentCall::Input) {
        agentInput();
        return;
    }
    if (m_up) {
        if (!m_admission.bodySuffix.isEmpty())
            m_up->writeBody(m_admission.bodySuffix);
        m_up->finishBody();
        return;
    }
    maybeSend();
}

qint64 ViewExchange::pendingRequestBytes() const
{
    return m_up ? m_up->bytesToWrite() : m_pending.size();
}

void ViewExchange::upstreamBodyWritten()
{
    if (!m_ended && onRequestDrained && pendingRequestBytes() < HighWater)
        onRequestDrained();
}

void ViewExchange::upstreamHead()
{
    if (m_ended)
        return;
    if (m_up->status() == 101) {
        // Only the WebSocket path asks to upgrade; a sandbox answering 101 here is wrong.
        upstreamFailed(QStringLiteral("the sandbox switched protocols unasked"));
        return;
    }
    m_down->sendHead(m_up->status(), HeaderPolicy::towardsBrowser(m_up->headers()), m_up->contentLength());
    m_headSent = true;
    // A plain pointer (a std::function holds it without allocating): the handler is dropped in
    // end() and in the destructor, before the exchange goes.
    m_down->setDrainHandler([this] { pump(); });
    pump();
}

void ViewExchange::pump()
{
    if (!m_up || !m_headSent || m_ended)
        return;
    if (!m_down->alive()) {
        end();
        return;
    }
    if (m_down->bytesToWrite() < HighWater) {
        const QByteArray data = m_up->read();
        if (!data.isEmpty())
            m_down->write(data);
    }
    m_up->setReading(m_down->bytesToWrite() < HighWater);
    if (m_upstreamFinished && m_up->bytesAvailable() == 0) {
        m_down->finish();
        end();
    }
}

void ViewExchange::upstreamFinished()
{
    m_upstreamFinished = true;
    pump();
}

void ViewExchange::upstreamFailed(const QString &why)
{
    if (m_ended)
        return;
    qCInfo(lcDoorman) << "view" << m_admission.claims.viewId << "upstream failed:" << why;
    if (!m_headSent)
        m_down->respond(
            Doorman::refusal(502, QStringLiteral("bad_gateway"), QStringLiteral("the sandbox did not answer")));
    else
        m_down->abort();
    end();
}

void ViewExchange::end()
{
    if (m_ended)
        return;
    m_ended = true;
    m_down->setDrainHandler({});
    if (onDone)
        onDone();
}

ViewExchanges::~ViewExchanges()
{
    reap();
    while (m_first)
        delete m_first; // unlinks itself
}

ViewExchange *ViewExchanges::add(std::unique_ptr<ViewExchange> exchange)
{
    ViewExchange *e = exchange.release();
    e->m_owner = this;
    e->m_next = m_first;
    if (m_first)
        m_first->m_prev = e;
    m_first = e;
    return e;
}

void ViewExchanges::unlink(ViewExchange *e)
{
    if (e->m_prev)
        e->m_prev->m_next = e->m_next;
    else
        m_first = e->m_next;
    if (e->m_next)
        e->m_next->m_prev = e->m_prev;
    e->m_prev = e->m_next = nullptr;
}

void ViewExchanges::retire(ViewExchange *e)
{
    if (e->m_retired)
        return;
    unlink(e);
    e->m_retired = true;
    m_retired.push_back(e);
    if (!m_reapQueued) {
        m_reapQueued = true;
        QMetaObject::invokeMethod(
            m_context, [this] { reap(); }, Qt::QueuedConnection);
    }
}

void ViewExchanges::reap()
{
    m_reapQueued = false;
    m_reaping.swap(m_retired); // what the deletions below retire waits for the next call
    for (ViewExchange *e : m_reaping)
        delete e;
    m_reaping.clear();
}

} // namespace isolation
