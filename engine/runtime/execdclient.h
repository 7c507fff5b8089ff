// Client of execd, the daemon inside every sandbox (execd-api.yaml): ping, commands with their
// output (the SSE stream of POST /command), file upload and download, and the URL of its
// /proxy/{port}/ route. Asynchronous, on the event loop.
#pragma once

#include "core/result.h"

#include <QByteArray>
#include <QHash>
#include <QObject>
#include <QUrl>

#include <functional>
#include <optional>

class QNetworkAccessManager;
class QNetworkReply;
class QNetworkRequest;

namespace isolation {

class CommandStream;

struct ExecdError
{
    enum class Code {
        Unreachable, // no answer: the sandbox is not up (yet)
        Rejected, // execd answered an error status
        Garbage, // the answer is not execd's API
    };
    Code code = Code::Unreachable;
    int status = 0;
    QString message;

    bool retryable() const { return code == Code::Unreachable; }
};

// A POST /command (RunCommandRequest). `envs` reach only the process execd starts: the way
// launch secrets enter a sandbox at run time, never through its creation config.
struct CommandRequest
{
    QString command; // run by `sh -c`
    QString cwd;
    QHash<QString, QString> envs;
    std::optional<qint64> timeoutMs; // execd ends the command after this long
};

struct CommandOutput
{
    QString id; // from the init event
    QByteArray stdOut;
    QByteArray stdErr;
    int exitCode = 0; // non-zero when execd reported the command failed
    QString error; // execd's error event, if any
};

// GET /command/status/{id} (CommandStatusResponse).
struct CommandStatus
{
    bool running = false;
    std::optional<int> exitCode; // once it finished
    QString error;
};

class ExecdClient final : public QObject
{
    Q_OBJECT
public:
    template<typename T>
    using Callback = std::function<void(Result<T, ExecdError>)>;
    static constexpr quint16 Port = 44772;

    // `base` is execd's root (the endpoint the lifecycle API gives for port 44772).
    ExecdClient(QNetworkAccessManager *network, QUrl base, QByteArray accessToken = {}, QObject *parent = nullptr);

    void setTimeout(int ms) { m_timeoutMs = ms; }
    QUrl base() const { return m_base; }
    QByteArray accessToken() const { return m_token; } // X-EXECD-ACCESS-TOKEN (the doorman's to use)

    void ping(Callback<bool> done);
    // Runs `command` in the foreground (sh -c) and collects its output stream.
    void runCommand(const QString &command, const QString &cwd, Callback<CommandOutput> done);
    void runCommand(const CommandRequest &request, Callback<CommandOutput> done);
    // Starts a command and streams its output as it comes (no idle timeout). The stream is a child
    // of `parent` (this client when null); deleting it closes the stream, not the command.
    CommandStream *startCommand(const CommandRequest &request, QObject *parent = nullptr);
    // DELETE /command?id=: execd stops the command (the id of CommandStream::started).
    void interrupt(const QString &commandId, Callback<bool> done);
    // Whether a command (foreground or background) still runs, and how it ended. Rejected with
    // status 404: execd does not know the id.
    void commandStatus(const QString &commandId, Callback<CommandStatus> done);
    void upload(const QString &path, const QByteArray &content, int mode, Callback<bool> done);
    void download(const QString &path, Callback<QByteArray> done);
    // http://.../proxy/PORT/PATH: HTTP and WebSocket to a port inside the sandbox.
    QUrl proxyUrl(quint16 port, const QString &path = QStringLiteral("/")) const;

private:
    QNetworkRequest request(const QString &path) const;
    CommandStream *post(const CommandRequest &request, QObject *parent, int idleTimeoutMs);
    template<typename T>
    void finish(QNetworkReply *reply, Callback<T> done, std::function<Result<T, ExecdError>(const QByteArray &)> read);

    QNetworkAccessManager *m_network;
    QUrl m_base;
    QByteArray m_token;
    int m_timeoutMs = 120000;
};

} // namespace isolation
