#include "engineclient.h"

#include <QCoreApplication>
#include <QPointer>

#include <thread>

namespace isolation {

EngineClient::EngineClient(QString socketPath, QObject *parent)
    : QObject(parent)
    , m_socketPath(std::move(socketPath))
{ }

// Answers still on their way are dropped: their callbacks check the pointer.
EngineClient::~EngineClient() = default;

void EngineClient::get(const QString &path, Done done, int timeoutMs)
{
    call("GET", path, {}, std::move(done), timeoutMs);
}

void EngineClient::post(const QString &path, const QJsonObject &body, Done done, int timeoutMs)
{
    call("POST", path, body, std::move(done), timeoutMs);
}

void EngineClient::call(const QByteArray &method, const QString &path, const QJsonObject &body, Done done, int timeoutMs)
{
    ++m_pending;
    QPointer<EngineClient> self(this);
    const QString socket = m_socketPath;
    std::thread([self, socket, method, path, body, timeoutMs, done = std::move(done)]() mutable {
        Answer answer = LocalApiClient(socket, timeoutMs, LocalApiClient::TrayAgent).call(method, path, body);
        // Back to the GUI thread; `self` is read there, where it can only be deleted.
        QMetaObject::invokeMethod(qApp, [self, answer = std::move(answer), done = std::move(done)]() mutable {
            if (!self)
                return;
            --self->m_pending;
            if (done)
                done(std::move(answer));
        });
    }).detach();
}

QString describe(const LocalApiError &error)
{
    switch (error.code) {
    case LocalApiError::Code::NotRunning:
        return QCoreApplication::translate("isolation::EngineClient", "The engine is not running");
    case LocalApiError::Code::Stopped:
        return QCoreApplication::translate("isolation::EngineClient", "The engine stopped before it answered");
    case LocalApiError::Code::Transport:
        return QCoreApplication::translate("isolation::EngineClient", "The engine did not answer: %1").arg(error.message);
    case LocalApiError::Code::Api:
        break;
    }
    return error.message;
}

} // namespace isolation
