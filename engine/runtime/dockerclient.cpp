#include "dockerclient.h"

#include "curlrequest.h"

#include <QFileInfo>
#include <QJsonDocument>
#include <QLoggingCategory>
#include <QUrl>
#include <QVersionNumber>

#include <curl/curl.h>

#include <cerrno>

Q_LOGGING_CATEGORY(lcDocker, "isolation.runtime.docker")

namespace isolation {

namespace {

const QString kDefaultSocket = QStringLiteral("/var/run/docker.sock");

QString dockerMessage(const HttpResponse &r)
{
    const QJsonObject o = QJsonDocument::fromJson(r.body).object();
    const QString m = o.value(QStringLiteral("message")).toString();
    return m.isEmpty() ? QString::fromUtf8(r.body.trimmed()).left(300) : m;
}

} // namespace

DockerClient::DockerClient(QString socketPath, int timeoutMs)
    : m_socket(std::move(socketPath))
    , m_timeoutMs(timeoutMs)
    , m_apiVersion(QString::fromLatin1(MinApiVersion))
{ }

Result<DockerClient, DockerError> DockerClient::fromEnvironment(const QProcessEnvironment &env)
{
    const QString host = env.value(QStringLiteral("DOCKER_HOST"));
    if (host.isEmpty())
        return DockerClient(kDefaultSocket);
    if (host.startsWith(QLatin1String("unix://")))
        return DockerClient(host.mid(7));
    return DockerError {DockerError::Code::Failed, 0,
        QStringLiteral("DOCKER_HOST=%1 is not supported: Isolation talks to Docker over a local unix socket "
                       "(unix:///path/to/docker.sock)")
            .arg(host)};
}

DockerError DockerClient::transportError(int curlCode, int osErrno, const QString &what) const
{
    if (curlCode == CURLE_ABORTED_BY_CALLBACK)
        return {DockerError::Code::Failed, 0, QStringLiteral("cancelled: the engine is stopping")};
    if (!QFileInfo::exists(m_socket))
        return {DockerError::Code::NoDaemon, 0,
            QStringLiteral("Docker is not running (no socket at %1). Install it (sudo apt-get install docker.io) "
                           "and start it (sudo systemctl start docker)")
                .arg(m_socket)};
    if (osErrno == EACCES || osErrno == EPERM)
        return {DockerError::Code::PermissionDenied, 0,
            QStringLiteral("permission denied on the Docker socket %1. Add your user to the docker group "
                           "(sudo usermod -aG docker $USER) and log in again")
                .arg(m_socket)};
    if (curlCode == CURLE_COULDNT_CONNECT)
        return {DockerError::Code::NoDaemon, 0,
            QStringLiteral("no Docker daemon answers on %1 (%2). Start it (sudo systemctl start docker)")
                .arg(m_socket, what)};
    return {DockerError::Code::Failed, 0, QStringLiteral("Docker request failed: %1").arg(what)};
}

Result<HttpResponse, DockerError> DockerClient::raw(const QByteArray &method, const QString &path,
    const QUrlQuery &query, const QByteArray &body, const QByteArray &contentType) const
{
    QUrl url(QStringLiteral("http://docker"));
    url.setPath(path.startsWith(QLatin1String("/v")) || path == QLatin1String("/version")
            ? path
            : QStringLiteral("/v%1%2").arg(m_apiVersion, path));
    url.setQuery(query);
    CurlRequest request;
    request.method = method;
    request.url = url.toEncoded();
    request.unixSocket = m_socket;
    request.body = body;
    request.sendBody = method == "POST" || method == "PUT";
    request.timeoutMs = m_timeoutMs;
    request.cancel = m_cancel;
    if (!contentType.isEmpty())
        request.headers.append({"Content-Type", contentType});
    auto r = request.perform();
    if (!r)
        return transportError(r.error().curlCode, r.error().osErrno, r.error().message);
    return std::move(r).value();
}

Result<QJsonValue, DockerError> DockerClient::call(
    const QByteArray &method, const QString &path, const QUrlQuery &query, const QJsonValue &body) const
{
    QByteArray payload;
    if (body.isObject())
        payload = QJsonDocument(body.toObject()).toJson(QJsonDocument::Compact);
    else if (body.isArray())
        payload = QJsonDocument(body.toArray()).toJson(QJsonDocument::Compact);
    auto r = raw(method, path, query, payload, payload.isEmpty() ? QByteArray() : QByteArray("application/json"));
    if (!r)
        return r.error();
    const HttpResponse &response = r.value();
    if (response.status >= 200 && response.status <= 299) {
        if (response.body.trimmed().isEmpty())
            return QJsonValue();
        const QJsonDocument doc = QJsonDocument::fromJson(response.body);
        return doc.isArray() ? QJsonValue(doc.array()) : QJsonValue(doc.object());
    }
    const QString message = dockerMessage(response);
    DockerError::Code code = DockerError::Code::Failed;
    if (response.status == 404)
        code = DockerError::Code::NotFound;
    else if (message.contains(QLatin1String("port is already allocated"))
        || message.contains(QLatin1String("address already in use")))
        code = DockerError::Code::PortTaken;
    return DockerError {code, response.status, message};
}

Result<QJsonObject, DockerError> DockerClient::negotiate()
{
    auto r = raw("GET", QStringLiteral("/version"));
    if (!r)
        return r.error();
    if (r.value().status != 200)
        return DockerError {DockerError::Code::Failed, r.value().status,
            QStringLiteral("Docker's /version answered HTTP %1: %2")
                .arg(r.value().status)
                .arg(dockerMessage(r.value()))};
    const QJsonObject version = QJsonDocument::fromJson(r.value().body).object();
    const auto server = QVersionNumber::fromString(version.value(QStringLiteral("ApiVersion")).toString());
    const auto ours = QVersionNumber::fromString(QLatin1String(MaxApiVersion));
    const auto oldest = QVersionNumber::fromString(QLatin1String(MinApiVersion));
    if (server.isNull())
        return DockerError {DockerError::Code::Failed, 200, QStringLiteral("Docker's /version carries no ApiVersion")};
    if (server < oldest)
        return DockerError {DockerError::Code::Failed, 200,
            QStringLiteral("Docker %1 speaks Engine API %2; Isolation needs %3 or newer (Docker 19.03+)")
                .arg(version.value(QStringLiteral("Version")).toString(), server.toString(), oldest.toString())};
    m_apiVersion = (server < ours ? server : ours).toString();
    qCDebug(lcDocker) << "Docker" << version.value(QStringLiteral("Version")).toString() << "API" << m_apiVersion;
    return version;
}

Result<QJsonObject, DockerError> DockerClient::inspectImage(const QString &name) const
{
    auto r = call("GET", QStringLiteral("/images/%1/json").arg(name));
    if (!r) {
        DockerError e = r.error();
        if (e.code == DockerError::Code::NotFound)
            e.message = QStringLiteral("image %1 is not on this machine").arg(name);
        return e;
    }
    return r.value().toObject();
}

Result<void, DockerError> DockerClient::pullImage(const QString &name) const
{
    const qsizetype colon = name.lastIndexOf(QLatin1Char(':'));
    const bool tagged = colon > name.lastIndexOf(QLatin1Char('/'));
    QUrlQuery q;
    q.addQueryItem(QStringLiteral("fromImage"), tagged ? name.left(colon) : name);
    q.addQueryItem(QStringLiteral("tag"), tagged ? name.mid(colon + 1) : QStringLiteral("latest"));
    auto r = raw("POST", QStringLiteral("/images/create"), q);
    if (!r)
        return r.error();
    if (r.value().status != 200)
        return DockerError {r.value().status == 404 ? DockerError::Code::NotFound : DockerError::Code::Failed,
            r.value().status, QStringLiteral("cannot pull %1: %2").arg(name, dockerMessage(r.value()))};
    // Errors during the pull come as a progress line with "error" in a 200 stream.
    for (const QByteArray &line : r.value().body.split('\n')) {
        const QJsonObject o = QJsonDocument::fromJson(line).object();
        if (o.contains(QStringLiteral("error")))
            return DockerError {DockerError::Code::Failed, 200,
                QStringLiteral("cannot pull %1: %2").arg(name, o.value(QStringLiteral("error")).toString())};
    }
    return {};
}

Result<void, DockerError> DockerClient::buildImage(
    const QUrlQuery &query, const QByteArray &tarContext, const std::function<void(const QJsonObject &)> &message) const
{
    QUrl url(QStringLiteral("http://docker"));
    url.setPath(QStringLiteral("/v%1/build").arg(m_apiVersion));
    url.setQuery(query);
    CurlRequest request;
    request.method = "POST";
    request.url = url.toEncoded();
    request.unixSocket = m_socket;
    request.body = tarContext;
    request.sendBody = true;
    request.timeoutMs = m_timeoutMs;
    request.cancel = m_cancel;
    request.headers.append({QByteArray("Content-Type"), QByteArray("application/x-tar")});
    // Docker sends one JSON object per line; a chunk may end in the middle of one.
    QByteArray all;
    QByteArray pending;
    QString failure;
    request.onBody = [&](QByteArrayView chunk) {
        all.append(chunk.first(qMax<qsizetype>(0, qMin(chunk.size(), 65536 - all.size())))); // errors are short
        pending.append(chunk);
        qsizetype end;
        while ((end = pending.indexOf('\n')) >= 0) {
            const QJsonObject o = QJsonDocument::fromJson(pending.first(end)).object();
            pending.remove(0, end + 1);
            if (o.isEmpty())
                continue;
            if (o.contains(QStringLiteral("error")) && failure.isEmpty())
                failure = o.value(QStringLiteral("error")).toString();
            message(o);
        }
    };
    auto r = request.perform();
    if (!r)
        return transportError(r.error().curlCode, r.error().osErrno, r.error().message);
    if (r.value().status < 200 || r.value().status > 299) {
        HttpResponse answer = r.value();
        answer.body = all;
        return DockerError {r.value().status == 404 ? DockerError::Code::NotFound : DockerError::Code::Failed,
            r.value().status, dockerMessage(answer)};
    }
    if (!failure.isEmpty())
        return DockerError {DockerError::Code::Failed, 200, failure};
    return {};
}

Result<void, DockerError> DockerClient::removeImage(const QString &name) const
{
    auto r = call("DELETE", QStringLiteral("/images/%1").arg(name));
    if (!r && r.error().code != DockerError::Code::NotFound)
        return r.error();
    return {};
}

Result<QJsonObject, DockerError> DockerClient::inspectContainer(const QString &nameOrId) const
{
    auto r = call("GET", QStringLiteral("/containers/%1/json").arg(nameOrId));
    if (!r)
        return r.error();
    return r.value().toObject();
}

Result<QJsonArray, DockerError> DockerClient::listContainers(const QStringList &labels) const
{
    QUrlQuery q;
    q.addQueryItem(QStringLiteral("all"), QStringLiteral("true"));
    const QJsonObject filters {{QStringLiteral("label"), QJsonArray::fromStringList(labels)}};
    q.addQueryItem(QStringLiteral("filters"), QString::fromUtf8(QJsonDocument(filters).toJson(QJsonDocument::Compact)));
    auto r = call("GET", QStringLiteral("/containers/json"), q);
    if (!r)
        return r.error();
    return r.value().toArray();
}

Result<QString, DockerError> DockerClient::createContainer(const QString &name, const QJsonObject &spec) const
{
    QUrlQuery q;
    if (!name.isEmpty())
        q.addQueryItem(QStringLiteral("name"), name);
    auto r = call("POST", QStringLiteral("/containers/create"), q, spec);
    if (!r) {
        DockerError e = r.error();
        if (e.code == DockerError::Code::NotFound)
            e.message
                = QStringLiteral("image %1 is not on this machine").arg(spec.value(QStringLiteral("Image")).toString());
        return e;
    }
    return r.value().toObject().value(QStringLiteral("Id")).toString();
}

Result<void, DockerError> DockerClient::startContainer(const QString &id) const
{
    auto r = call("POST", QStringLiteral("/containers/%1/start").arg(id));
    if (!r && r.error().status != 304) {
        DockerError e = r.error();
        if (e.code == DockerError::Code::PortTaken)
            e.message = QStringLiteral("a port to publish is already in use on this machine: %1").arg(e.message);
        return e;
    }
    return {};
}

Result<void, DockerError> DockerClient::restartContainer(const QString &id, int timeoutSeconds) const
{
    QUrlQuery q;
    q.addQueryItem(QStringLiteral("t"), QString::number(timeoutSeconds));
    auto r = call("POST", QStringLiteral("/containers/%1/restart").arg(id), q);
    if (!r)
        return r.error();
    return {};
}

Result<void, DockerError> DockerClient::removeContainer(const QString &id, bool force) const
{
    QUrlQuery q;
    q.addQueryItem(QStringLiteral("force"), force ? QStringLiteral("true") : QStringLiteral("false"));
    q.addQueryItem(QStringLiteral("v"), QStringLiteral("true"));
    auto r = call("DELETE", QStringLiteral("/containers/%1").arg(id), q);
    if (!r && r.error().code != DockerError::Code::NotFound)
        return r.error();
    return {};
}

} // namespace isolation
