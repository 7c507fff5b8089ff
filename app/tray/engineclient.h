// The tray's calls to its engine: each LocalAPI request (localapi/localapiclient.h, libcurl over
// the unix socket) runs on a thread of its own, and its answer comes back on the GUI thread, to a
// callback that is dropped if the client is gone. The GUI thread never waits on the engine: a save
// that takes a minute ties up one thread, not the window, and quitting the tray waits for nothing
// (the engine finishes the save; the tray only stops listening).
#pragma once

#include "core/result.h"
#include "localapi/localapiclient.h"

#include <QJsonObject>
#include <QObject>

#include <functional>

namespace isolation {

class EngineClient final : public QObject
{
    Q_OBJECT
public:
    using Answer = Result<QJsonObject, LocalApiError>;
    using Done = std::function<void(Answer)>;

    // Answers that take long (a save of a large tree, a sync, a suspend) have this long.
    static constexpr int LongTimeoutMs = 60 * 60 * 1000;

    explicit EngineClient(QString socketPath, QObject *parent = nullptr);
    ~EngineClient() override;

    void get(const QString &path, Done done, int timeoutMs = 30000);
    void post(const QString &path, const QJsonObject &body, Done done, int timeoutMs = 30000);
    void call(const QByteArray &method, const QString &path, const QJsonObject &body, Done done, int timeoutMs);
    QString socketPath() const { return m_socketPath; }
    // Requests under way (tests wait for none).
    int pending() const { return m_pending; }

private:
    QString m_socketPath;
    int m_pending = 0;
};

// One line for a person from a failed call ("The engine is not running", or the engine's message).
QString describe(const LocalApiError &error);

} // namespace isolation
