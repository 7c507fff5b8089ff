// One command run by execd (POST /command), read while it runs: execd's server-sent events
// (init, stdout, stderr, error, execution_complete) become signals as they arrive. Made by
// ExecdClient::startCommand; on the event loop.
#pragma once

#include "execdclient.h"

#include <QByteArray>
#include <QObject>
#include <QPointer>

#include <optional>

class QNetworkReply;

namespace isolation {

class CommandStream final : public QObject
{
    Q_OBJECT
public:
    enum class Channel { StdOut, StdErr };
    Q_ENUM(Channel)

    ~CommandStream() override; // closes the stream (the command itself keeps running: interrupt it)

    // execd's id of the command (the init event), empty before started().
    QString id() const { return m_id; }
    bool isFinished() const { return m_finished; }
    // After finished(): the exit code (non-zero when execd reported an error event; 0 otherwise).
    int exitCode() const { return m_exitCode; }
    // After finished(): the text of execd's error event, if any.
    QString errorText() const { return m_errorText; }
    // After finished(): why the stream itself failed (execd unreachable, refused the request, or
    // the stream ended without execution_complete); nothing when the command ran to its end.
    const std::optional<ExecdError> &failure() const { return m_failure; }

    // Closes the stream now; finished() follows with a failure ("aborted"). No-op once finished.
    void abort();

Q_SIGNALS:
    void started(const QString &id);
    void output(isolation::CommandStream::Channel channel, const QByteArray &data);
    void finished();

private:
    friend class ExecdClient;
    explicit CommandStream(QNetworkReply *reply, QObject *parent = nullptr);

    void readEvents();
    void takeLine(QByteArray line);
    void dispatch(const QByteArray &data);
    void end();

    QPointer<QNetworkReply> m_reply;
    QByteArray m_buffer; // bytes not yet split into lines
    QByteArray m_event; // data lines of the event being read
    QString m_id;
    int m_exitCode = 0;
    QString m_errorText;
    std::optional<ExecdError> m_failure;
    bool m_complete = false; // execution_complete seen
    bool m_finished = false;
    bool m_aborted = false;
};

} // namespace isolation
