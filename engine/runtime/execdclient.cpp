#include "execdclient.h"

#include "commandstream.h"

#include "crypto/random.h"

#include <QHttpMultiPart>
#include <QJsonDocument>
#include <QJsonObject>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QPointer>
#include <QRegularExpression>
#include <QUrlQuery>

namespace isolation {

ExecdClient::ExecdClient(QNetworkAccessManager *network, QUrl base, QByteArray accessToken, QObject *parent)
    : QObject(parent)
    , m_network(network)
    , m_base(std::move(base))
    , m_token(std::move(accessToken))
{ }

QNetworkRequest ExecdClient::request(const QString &path) const
{
    QUrl url = m_base;
    url.setPath(m_base.path() + path);
    QNetworkRequest r(url);
    r.setAttribute(QNetworkRequest::RedirectPolicyAttribute, QNetworkRequest::ManualRedirectPolicy);
    r.setTransferTimeout(m_timeoutMs);
    if (!m_token.isEmpty())
        r.setRawHeader("X-EXECD-ACCESS-TOKEN", m_token);
    return r;
}

template<typename T>
void ExecdClient::finish(
    QNetworkReply *reply, Callback<T> done, std::function<Result<T, ExecdError>(const QByteArray &)> read)
{
    QPointer<ExecdClient> self(this);
    connect(reply, &QNetworkReply::finished, this, [reply, self, done = std::move(done), read = std::move(read)] {
        reply->deleteLater();
        if (!self)
            return;
        const int status = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
        if (status == 0) {
            done(ExecdError {
                ExecdError::Code::Unreachable, 0, QStringLiteral("cannot reach execd: %1").arg(reply->errorString())});
            return;
        }
        const QByteArray body = reply->readAll();
        if (status < 200 || status > 299) {
            const QJsonObject e = QJsonDocument::fromJson(body).object();
            done(ExecdError {ExecdError::Code::Rejected, status,
                e.value(QStringLiteral("message")).toString(QStringLiteral("execd answered HTTP %1").arg(status))});
            return;
        }
        done(read(body));
    });
}

void ExecdClient::ping(Callback<bool> done)
{
    finish<bool>(m_network->get(request(QStringLiteral("/ping"))), std::move(done),
        [](const QByteArray &) -> Result<bool, ExecdError> { return true; });
}

void ExecdClient::runCommand(const QString &command, const QString &cwd, Callback<CommandOutput> done)
{
    runCommand(CommandRequest {command, cwd, {}, std::nullopt}, std::move(done));
}

void ExecdClient::runCommand(const CommandRequest &request, Callback<CommandOutput> done)
{
    // Collected commands keep the client's idle timeout; streamed ones have none.
    CommandStream *stream = post(request, this, m_timeoutMs);
    auto out = std::make_shared<CommandOutput>();
    connect(stream, &CommandStream::output, stream, [out](CommandStream::Channel channel, const QByteArray &data) {
        (channel == CommandStream::Channel::StdOut ? out->stdOut : out->stdErr) += data;
    });
    connect(stream, &CommandStream::finished, this, [stream, out, done = std::move(done)] {
        stream->deleteLater();
        if (stream->failure()) {
            done(*stream->failure());
            return;
        }
        out->id = stream->id();
        out->exitCode = stream->exitCode();
        out->error = stream->errorText();
        done(std::move(*out));
    });
}

CommandStream *ExecdClient::startCommand(const CommandRequest &request, QObject *parent)
{
    return post(request, parent ? parent : this, 0);
}

CommandStream *ExecdClient::post(const CommandRequest &request, QObject *parent, int idleTimeoutMs)
{
    QJsonObject body {{QStringLiteral("command"), request.command}, {QStringLiteral("background"), false}};
    if (!request.cwd.isEmpty())
        body.insert(QStringLiteral("cwd"), request.cwd);
    if (request.timeoutMs)
        body.insert(QStringLiteral("timeout"), *request.timeoutMs);
    if (!request.envs.isEmpty()) {
        QJsonObject envs;
        for (auto it = request.envs.begin(); it != request.envs.end(); ++it)
            envs.insert(it.key(), it.value());
        body.insert(QStringLiteral("envs"), envs);
    }
    QNetworkRequest r = this->request(QStringLiteral("/command"));
    r.setHeader(QNetworkRequest::ContentTypeHeader, QStringLiteral("application/json"));
    r.setRawHeader("Accept", "text/event-stream");
    r.setTransferTimeout(idleTimeoutMs);
    return new CommandStream(m_network->post(r, QJsonDocument(body).toJson(QJsonDocument::Compact)), parent);
}

void ExecdClient::interrupt(const QString &commandId, Callback<bool> done)
{
    QNetworkRequest r = request(QStringLiteral("/command"));
    QUrl url = r.url();
    QUrlQuery q;
    q.addQueryItem(QStringLiteral("id"), commandId);
    url.setQuery(q);
    r.setUrl(url);
    finish<bool>(m_network->deleteResource(r), std::move(done),
        [](const QByteArray &) -> Result<bool, ExecdError> { return true; });
}

void ExecdClient::commandStatus(const QString &commandId, Callback<CommandStatus> done)
{
    static const QRegularExpression idPattern(QStringLiteral("^[A-Za-z0-9._-]{1,128}$"));
    if (!idPattern.match(commandId).hasMatch()) {
        QMetaObject::invokeMethod(this, [done = std::move(done), commandId] {
            done(ExecdError {ExecdError::Code::Rejected, 404, QStringLiteral("'%1' is not a command id").arg(commandId)});
        }, Qt::QueuedConnection);
        return;
    }
    finish<CommandStatus>(m_network->get(request(QStringLiteral("/command/status/") + commandId)), std::move(done),
        [](const QByteArray &body) -> Result<CommandStatus, ExecdError> {
            QJsonParseError error {};
            const QJsonDocument doc = QJsonDocument::fromJson(body, &error);
            const QJsonValue running = doc.object().value(QStringLiteral("running"));
            if (error.error != QJsonParseError::NoError || !doc.isObject() || !running.isBool())
                return ExecdError {ExecdError::Code::Garbage, 200, QStringLiteral("execd's command status is not JSON with 'running'")};
            CommandStatus status;
            status.running = running.toBool();
            const QJsonValue code = doc.object().value(QStringLiteral("exit_code"));
            if (code.isDouble())
                status.exitCode = code.toInt();
            status.error = doc.object().value(QStringLiteral("error")).toString();
            return status;
        });
}

void ExecdClient::upload(const QString &path, const QByteArray &content, int mode, Callback<bool> done)
{
    auto *multi = new QHttpMultiPart(QHttpMultiPart::FormDataType);
    // 128 bits from OpenSSL's DRBG: Qt's own boundary comes from QRandomGenerator::global(), a
    // seeded generator that is not a CSPRNG, and a file that holds the boundary ends its part early.
    multi->setBoundary("isolation-" + randomBytes(16).toHex());
    QHttpPart metadata;
    metadata.setHeader(QNetworkRequest::ContentDispositionHeader, QStringLiteral("form-data; name=\"metadata\""));
    metadata.setHeader(QNetworkRequest::ContentTypeHeader, QStringLiteral("application/json"));
    metadata.setBody(QJsonDocument(QJsonObject {{QStringLiteral("path"), path}, {QStringLiteral("mode"), mode}})
                         .toJson(QJsonDocument::Compact));
    QHttpPart file;
    file.setHeader(QNetworkRequest::ContentDispositionHeader,
        QStringLiteral("form-data; name=\"file\"; filename=\"%1\"").arg(path.section(QLatin1Char('/'), -1)));
    file.setHeader(QNetworkRequest::ContentTypeHeader, QStringLiteral("application/octet-stream"));
    file.setBody(content);
    multi->append(metadata);
    multi->append(file);
    QNetworkReply *reply = m_network->post(request(QStringLiteral("/files/upload")), multi);
    multi->setParent(reply);
    finish<bool>(reply, std::move(done), [](const QByteArray &) -> Result<bool, ExecdError> { return true; });
}

void ExecdClient::download(const QString &path, Callback<QByteArray> done)
{
    QNetworkRequest r = request(QStringLiteral("/files/download"));
    QUrl url = r.url();
    QUrlQuery q;
    q.addQueryItem(QStringLiteral("path"), path);
    url.setQuery(q);
    r.setUrl(url);
    finish<QByteArray>(m_network->get(r), std::move(done),
        [](const QByteArray &body) -> Result<QByteArray, ExecdError> { return body; });
}

QUrl ExecdClient::proxyUrl(quint16 port, const QString &path) const
{
    QUrl url = m_base;
    url.setPath(m_base.path()
        + QStringLiteral("/proxy/%1%2")
              .arg(port)
              .arg(path.startsWith(QLatin1Char('/')) ? path : QLatin1Char('/') + path));
    return url;
}

} // namespace isolation
