#include "rpcdispatcher.h"

#include "tunnelstream.h"

#include <QJsonDocument>
#include <QLoggingCategory>
#include <QPointer>

#include <memory>

Q_LOGGING_CATEGORY(lcRpc, "isolation.tunnel.rpc")

namespace isolation {

namespace {

void answer(TunnelStream *stream, const RpcDispatcher::Answer &a)
{
    stream->respondWith(
        a.status, {{"content-type", "application/json"}}, QJsonDocument(a.body).toJson(QJsonDocument::Compact));
}

RpcDispatcher::Answer answerOf(const Result<QJsonObject> &result)
{
    if (result.ok())
        return {200, result.value()};
    const Error &e = result.error();
    switch (e.code) {
    case Error::Code::InvalidInput:
        return RpcDispatcher::refusal(400, QStringLiteral("bad_request"), e.message);
    case Error::Code::NotFound:
        return RpcDispatcher::refusal(404, QStringLiteral("not_found"), e.message);
    case Error::Code::Unavailable:
        return RpcDispatcher::refusal(503, QStringLiteral("unavailable"), e.message);
    case Error::Code::Cancelled:
        return RpcDispatcher::refusal(409, QStringLiteral("cancelled"), e.message);
    case Error::Code::Failed:
        break;
    }
    return RpcDispatcher::refusal(500, QStringLiteral("internal"), e.message);
}

} // namespace

RpcDispatcher::Answer RpcDispatcher::refusal(int status, const QString &code, const QString &message)
{
    return {status,
        QJsonObject {{QStringLiteral("error"),
            QJsonObject {{QStringLiteral("code"), code}, {QStringLiteral("message"), message}}}}};
}

void RpcDispatcher::add(const QString &method, Handler handler)
{
    addAsync(method,
        [handler = std::move(handler)](const QJsonObject &params, const Reply &reply) { reply(handler(params)); });
}

void RpcDispatcher::addAsync(const QString &method, AsyncHandler handler)
{
    m_handlers.insert(method, [handler = std::move(handler)](const QJsonObject &params, const AnswerReply &reply) {
        handler(params, [reply](const Result<QJsonObject> &result) { reply(answerOf(result)); });
    });
}

void RpcDispatcher::addAnswering(const QString &method, AnsweringHandler handler)
{
    m_handlers.insert(method, std::move(handler));
}

void RpcDispatcher::serve(TunnelStream *stream) const
{
    const TunnelHead &head = stream->requestHead();
    const QString method = QString::fromUtf8(head.path.mid(qsizetype(qstrlen(PathPrefix))));
    if (head.method != "POST") {
        answer(stream, RpcDispatcher::refusal(405, QStringLiteral("method_not_allowed"), QStringLiteral("RPC calls use POST")));
        return;
    }
    const auto it = m_handlers.constFind(method);
    if (it == m_handlers.constEnd()) {
        answer(stream,
            RpcDispatcher::refusal(404, QStringLiteral("unknown_method"), QStringLiteral("no such method: %1").arg(method)));
        return;
    }
    AnsweringHandler handler = *it;

    auto body = std::make_shared<QByteArray>();
    auto started = std::make_shared<bool>(false);
    QPointer<TunnelStream> guard(stream);
    auto run = [guard, body, started, handler, method] {
        if (!guard || *started || !guard->atEnd())
            return;
        *started = true;
        QJsonObject params;
        if (!body->trimmed().isEmpty()) {
            QJsonParseError pe {};
            const QJsonDocument doc = QJsonDocument::fromJson(*body, &pe);
            if (pe.error != QJsonParseError::NoError || !doc.isObject()) {
                answer(guard,
                    RpcDispatcher::refusal(400, QStringLiteral("bad_request"),
                        QStringLiteral("the params of %1 are not a JSON object").arg(method)));
                return;
            }
            params = doc.object();
        }
        auto answered = std::make_shared<bool>(false);
        handler(params, [guard, answered](const Answer &a) {
            if (*answered)
                return;
            *answered = true;
            if (guard && !guard->isClosed())
                answer(guard, a);
        });
    };
    auto refused = std::make_shared<bool>(false);
    auto collect = [guard, body, run, refused] {
        if (!guard)
            return;
        if (*refused) {
            guard->read(); // drop the rest, so the caller can finish sending and read the answer
            return;
        }
        body->append(guard->read());
        if (body->size() > MaxRequestBody) {
            qCInfo(lcRpc) << "RPC request body too large on stream" << guard->id();
            // Answer at once, then keep draining: a reset would lose the answer (the caller would
            // see the call cut off instead of a 413).
            *refused = true;
            body->clear();
            body->squeeze();
            answer(guard, RpcDispatcher::refusal(413, QStringLiteral("too_large"), QStringLiteral("the params exceed 4 MiB")));
            return;
        }
        run();
    };
    QObject::connect(stream, &TunnelStream::readyRead, stream, collect);
    QObject::connect(stream, &TunnelStream::remoteFinishedReceived, stream, collect);
    collect(); // the head may have ended the stream already
}

} // namespace isolation
