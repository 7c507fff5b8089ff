#include "rpcdispatcher.h"

#include "tunnelstream.h"

#include <QJsonDocument>
#include <QLoggingCategory>
#include <QPointer>

#include <memory>

Q_LOGGING_CATEGORY(lcRpc, "isolation.tunnel.rpc")

namespace isolation {

namespace {

void answer(TunnelStream *stream, int status, const QJsonObject &body)
{
    stream->respondWith(
        status, {{"content-type", "application/json"}}, QJsonDocument(body).toJson(QJsonDocument::Compact));
}

void answerError(TunnelStream *stream, int status, const QString &code, const QString &message)
{
    answer(stream, status,
        QJsonObject {{QStringLiteral("error"),
            QJsonObject {{QStringLiteral("code"), code}, {QStringLiteral("message"), message}}}});
}

void answerResult(TunnelStream *stream, const Result<QJsonObject> &result)
{
    if (result.ok()) {
        answer(stream, 200, result.value());
        return;
    }
    const Error &e = result.error();
    switch (e.code) {
    case Error::Code::InvalidInput:
        answerError(stream, 400, QStringLiteral("bad_request"), e.message);
        return;
    case Error::Code::NotFound:
        answerError(stream, 404, QStringLiteral("not_found"), e.message);
        return;
    case Error::Code::Unavailable:
        answerError(stream, 503, QStringLiteral("unavailable"), e.message);
        return;
    case Error::Code::Failed:
        answerError(stream, 500, QStringLiteral("internal"), e.message);
        return;
    }
}

} // namespace

void RpcDispatcher::add(const QString &method, Handler handler)
{
    m_handlers.insert(method,
        [handler = std::move(handler)](const QJsonObject &params, const Reply &reply) { reply(handler(params)); });
}

void RpcDispatcher::addAsync(const QString &method, AsyncHandler handler)
{
    m_handlers.emplace(method, std::move(handler));
}

void RpcDispatcher::serve(TunnelStream *stream) const
{
    const TunnelHead &head = stream->requestHead();
    const QString method = QString::fromUtf8(head.path.mid(qsizetype(qstrlen(PathPrefix))));
    if (head.method != "POST") {
        answerError(stream, 405, QStringLiteral("method_not_allowed"), QStringLiteral("RPC calls use POST"));
        return;
    }
    const auto it = m_handlers.constFind(method);
    if (it == m_handlers.constEnd()) {
        answerError(stream, 404, QStringLiteral("unknown_method"), QStringLiteral("no such method: %1").arg(method));
        return;
    }
    AsyncHandler handler = *it;

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
                answerError(guard, 400, QStringLiteral("bad_request"),
                    QStringLiteral("the params of %1 are not a JSON object").arg(method));
                return;
            }
            params = doc.object();
        }
        auto answered = std::make_shared<bool>(false);
        handler(params, [guard, answered](const Result<QJsonObject> &result) {
            if (*answered)
                return;
            *answered = true;
            if (guard && !guard->isClosed())
                answerResult(guard, result);
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
            answerError(guard, 413, QStringLiteral("bad_request"), QStringLiteral("the params exceed 4 MiB"));
            return;
        }
        run();
    };
    QObject::connect(stream, &TunnelStream::readyRead, stream, collect);
    QObject::connect(stream, &TunnelStream::remoteFinishedReceived, stream, collect);
    collect(); // the head may have ended the stream already
}

} // namespace isolation
