#include "commandstream.h"

#include <QJsonDocument>
#include <QJsonObject>
#include <QNetworkReply>

namespace isolation {

CommandStream::CommandStream(QNetworkReply *reply, QObject *parent)
    : QObject(parent)
    , m_reply(reply)
{
    connect(reply, &QNetworkReply::readyRead, this, &CommandStream::readEvents);
    connect(reply, &QNetworkReply::finished, this, &CommandStream::end);
}

CommandStream::~CommandStream()
{
    if (m_reply) {
        m_reply->disconnect(this);
        m_reply->abort();
        m_reply->deleteLater();
    }
}

void CommandStream::abort()
{
    if (m_finished || !m_reply)
        return;
    m_aborted = true;
    m_reply->abort(); // finished() follows at once, through end()
}

void CommandStream::readEvents()
{
    if (!m_reply)
        return;
    const int status = m_reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
    if (status < 200 || status > 299)
        return; // an error body, read by end()
    m_buffer += m_reply->readAll();
    qsizetype at = 0;
    while ((at = m_buffer.indexOf('\n')) >= 0) {
        QByteArray line = m_buffer.left(at);
        m_buffer.remove(0, at + 1);
        takeLine(std::move(line));
    }
}

// Server-sent events (Qt has no reader for them): "data:" lines, an event ending at a blank line.
// A bare JSON line is taken as one event too. Comments (":...") and other fields are skipped.
void CommandStream::takeLine(QByteArray line)
{
    if (line.endsWith('\r'))
        line.chop(1);
    if (line.isEmpty()) {
        if (!m_event.isEmpty())
            dispatch(std::exchange(m_event, {}));
        return;
    }
    if (line.startsWith("data:")) {
        QByteArray data = line.mid(5);
        if (data.startsWith(' '))
            data.remove(0, 1);
        m_event += m_event.isEmpty() ? data : '\n' + data;
        return;
    }
    if (line.startsWith('{'))
        dispatch(line);
}

void CommandStream::dispatch(const QByteArray &data)
{
    const QJsonObject e = QJsonDocument::fromJson(data).object();
    const QString type = e.value(QStringLiteral("type")).toString();
    if (type == QLatin1String("init")) {
        m_id = e.value(QStringLiteral("text")).toString();
        Q_EMIT started(m_id);
    } else if (type == QLatin1String("stdout") || type == QLatin1String("stderr")) {
        const QByteArray text = e.value(QStringLiteral("text")).toString().toUtf8();
        if (!text.isEmpty())
            Q_EMIT output(type == QLatin1String("stdout") ? Channel::StdOut : Channel::StdErr, text);
    } else if (type == QLatin1String("error")) {
        m_errorText = e.value(QStringLiteral("error")).toObject().value(QStringLiteral("evalue")).toString();
        bool numeric = false;
        const int code = m_errorText.toInt(&numeric);
        m_exitCode = numeric && code != 0 ? code : 1;
    } else if (type == QLatin1String("execution_complete")) {
        m_complete = true;
    }
}

void CommandStream::end()
{
    if (m_finished || !m_reply)
        return;
    QNetworkReply *reply = m_reply;
    const int status = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
    if (status >= 200 && status <= 299) {
        readEvents();
        if (!m_buffer.isEmpty())
            takeLine(std::exchange(m_buffer, {}));
        if (!m_event.isEmpty())
            dispatch(std::exchange(m_event, {}));
    }
    if (m_aborted) {
        m_failure
            = ExecdError {ExecdError::Code::Unreachable, status, QStringLiteral("the command's stream was closed")};
    } else if (status == 0) {
        m_failure = ExecdError {
            ExecdError::Code::Unreachable, 0, QStringLiteral("cannot reach execd: %1").arg(reply->errorString())};
    } else if (status < 200 || status > 299) {
        const QJsonObject e = QJsonDocument::fromJson(reply->readAll()).object();
        m_failure = ExecdError {ExecdError::Code::Rejected, status,
            e.value(QStringLiteral("message")).toString(QStringLiteral("execd answered HTTP %1").arg(status))};
    } else if (!m_complete) {
        m_failure = ExecdError {ExecdError::Code::Unreachable, status,
            QStringLiteral("the command's output stream ended early: %1").arg(reply->errorString())};
    }
    m_finished = true;
    reply->disconnect(this);
    reply->deleteLater();
    m_reply = nullptr;
    Q_EMIT finished();
}

} // namespace isolation
