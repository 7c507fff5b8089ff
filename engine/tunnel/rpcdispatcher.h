// The tunnel's control-plane calls: `POST /rpc/<method>` with a JSON object in and a JSON object
// out (docs/protocol.md, "Tunnel"). The Engine registers the handlers; errors answer with the
// protocol's error body.
#pragma once

#include "core/result.h"

#include <QHash>
#include <QJsonObject>
#include <QString>

#include <functional>

namespace isolation {

class TunnelStream;

class RpcDispatcher
{
public:
    using Reply = std::function<void(Result<QJsonObject>)>;
    // Answers now or later through `reply` (once; later calls are ignored).
    using AsyncHandler = std::function<void(const QJsonObject &params, Reply reply)>;
    using Handler = std::function<Result<QJsonObject>(const QJsonObject &params)>;
    // An answer with its own status and body, for a method whose errors carry more than a code
    // and a message (a session's save: `moved_on`, `conflict` with the conflicted files).
    struct Answer
    {
        int status = 200;
        QJsonObject body;
    };
    using AnswerReply = std::function<void(Answer)>;
    // The protocol's error body with `status`: {"error": {"code", "message"}}.
    static Answer refusal(int status, const QString &code, const QString &message);
    using AnsweringHandler = std::function<void(const QJsonObject &params, AnswerReply reply)>;

    static constexpr qint64 MaxRequestBody = qint64(4) * 1024 * 1024;
    static constexpr const char *PathPrefix = "/rpc/";

    void add(const QString &method, Handler handler);
    void addAsync(const QString &method, AsyncHandler handler);
    void addAnswering(const QString &method, AnsweringHandler handler);
    void remove(const QString &method) { m_handlers.remove(method); }
    bool has(const QString &method) const { return m_handlers.contains(method); }
    QStringList methods() const { return m_handlers.keys(); }

    // Serves a stream whose path starts with PathPrefix: collects the body, runs the handler,
    // answers. Error statuses: 400 bad JSON or InvalidInput, 404 unknown method or NotFound,
    // 405 not POST, 413 body too large, 500 Failed, 503 Unavailable.
    void serve(TunnelStream *stream) const;

private:
    QHash<QString, AnsweringHandler> m_handlers;
};

} // namespace isolation
