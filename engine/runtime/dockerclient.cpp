#include "dockerclient.h"

#include "curlrequest.h"

#include <QElapsedTimer>
#include <QFileInfo>
#include <QJsonDocument>
#include <QLoggingCategory>
#include <QUrl>
#include <QVersionNumber>

#include <curl/curl.h>

#include <algorithm>
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

void PullProgress::take(const QJsonObject &m)
{
    message = m;
    const QString id = m.value(QStringLiteral("id")).toString();
    const QString status = m.value(QStringLiteral("status")).toString();
    const QJsonObject detail = m.value(QStringLiteral("progressDetail")).toObject();
    const qint64 current = detail.value(QStringLiteral("current")).toInteger(-1);
    const qint64 total = detail.value(QStringLiteral("total")).toInteger(-1);
    // Only layers' messages: "Pulling from REPO" and "Digest:" carry the tag or nothing as id.
    static const QStringList kLayerStatus {QStringLiteral("Pulling fs layer"), QStringLiteral("Waiting"),
        QStringLiteral("Downloading"), QStringLiteral("Verifying Checksum"), QStringLiteral("Download complete"),
        QStringLiteral("Extracting"), QStringLiteral("Pull complete"), QStringLiteral("Already exists"),
        QStringLiteral("Retrying")};
    const bool layerStatus
        = std::any_of(kLayerStatus.begin(), kLayerStatus.end(), [&](const QString &s) { return status.startsWith(s); });
    if (id.isEmpty() || !layerStatus)
        return;
    Layer &l = m_layers[id];
    if (total > 0)
        l.size = total;
    if (status == QLatin1String("Downloading") && current >= 0) {
        l.downloaded = current;
    } else if (status == QLatin1String("Verifying Checksum") || status == QLatin1String("Download complete")) {
        l.downloaded = qMax(l.downloaded, l.size);
    } else if (status == QLatin1String("Extracting")) {
        l.downloaded = qMax(l.downloaded, l.size);
        if (current >= 0)
            l.extracted = current;
    } else if (status == QLatin1String("Pull complete")) {
        l.downloaded = l.extracted = qMax(l.downloaded, l.size);
    } else if (status == QLatin1String("Already exists")) {
        l.size = l.downloaded = l.extracted = 0; // nothing to move
    }
    layers = int(m_layers.size());
    qint64 downloaded = 0;
    qint64 extracted = 0;
    qint64 sizes = -1;
    bool allDownloaded = true;
    bool extracting = false;
    for (const Layer &layer : std::as_const(m_layers)) {
        downloaded += layer.downloaded;
        extracted += layer.extracted;
        if (layer.size >= 0)
            sizes = qMax<qint64>(sizes, 0) + layer.size;
        allDownloaded = allDownloaded && layer.size >= 0 && layer.downloaded >= layer.size;
        extracting = extracting || layer.extracted > 0;
    }
    phase = allDownloaded && extracting ? QStringLiteral("extracting") : QStringLiteral("pulling");
    bytes = phase == QLatin1String("extracting") ? extracted : downloaded;
    totalBytes = sizes;
}

QString PullProgress::describe() const
{
    const auto mib = [](qint64 b) { return QString::number(double(b) / (1024.0 * 1024.0), 'f', 1); };
    if (totalBytes <= 0)
        return layers ? QStringLiteral("%1, %2 layers").arg(phase).arg(layers) : phase;
    return QStringLiteral("%1 %2 of %3 MiB").arg(phase, mib(bytes), mib(totalBytes));
}

std::function<void(const PullProgress &)> PullProgress::throttled(
    std::function<void(const PullProgress &)> show, int intervalMs)
{
    struct Shown
    {
        QElapsedTimer at;
        QString phase;
        qint64 bytes = -1;
        qint64 totalBytes = -1;
    };
    return [show = std::move(show), intervalMs, last = std::make_shared<Shown>()](const PullProgress &p) {
        if (p.phase == last->phase && p.bytes == last->bytes && p.totalBytes == last->totalBytes)
            return;
        const bool now = !last->at.isValid() || last->at.elapsed() >= intervalMs || p.phase != last->phase
            || (p.totalBytes > 0 && p.bytes == p.totalBytes);
        if (!now)
            return;
        last->at.start();
        last->phase = p.phase;
        last->bytes = p.bytes;
        last->totalBytes = p.totalBytes;
        show(p);
    };
}

Result<void, DockerError> DockerClient::streamJsonLines(const QString &path, const QUrlQuery &query,
    const QByteArray &body, const QByteArray &contentType, int timeoutMs, int idleTimeoutMs,
    const std::function<void(const QJsonObject &)> &message) const
{
    QUrl url(QStringLiteral("http://docker"));
    url.setPath(QStringLiteral("/v%1%2").arg(m_apiVersion, path));
    url.setQuery(query);
    CurlRequest request;
    request.method = "POST";
    request.url = url.toEncoded();
    request.unixSocket = m_socket;
    request.body = body;
    request.sendBody = true;
    request.timeoutMs = timeoutMs;
    request.idleTimeoutMs = idleTimeoutMs;
    request.cancel = m_cancel;
    if (!contentType.isEmpty())
        request.headers.append({QByteArray("Content-Type"), contentType});
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
            if (message)
                message(o);
        }
    };
    auto r = request.perform();
    if (!r) {
        if (r.error().idle)
            return DockerError {DockerError::Code::Failed, 0, QStringLiteral("Docker sent %1").arg(r.error().message)};
        return transportError(r.error().curlCode, r.error().osErrno, r.error().message);
    }
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

Result<void, DockerError> DockerClient::pullImage(
    const QString &name, const std::function<void(const PullProgress &)> &progress) const
{
    const qsizetype colon = name.lastIndexOf(QLatin1Char(':'));
    const bool tagged = colon > name.lastIndexOf(QLatin1Char('/'));
    QUrlQuery q;
    q.addQueryItem(QStringLiteral("fromImage"), tagged ? name.left(colon) : name);
    q.addQueryItem(QStringLiteral("tag"), tagged ? name.mid(colon + 1) : QStringLiteral("latest"));
    PullProgress figures;
    // No total cap (a slow network is no error); errors during the pull come as a message with
    // "error" in a 200 stream.
    auto r = streamJsonLines(
        QStringLiteral("/images/create"), q, {}, {}, 0, m_pullIdleMs, [&](const QJsonObject &message) {
            figures.take(message);
            if (progress)
                progress(figures);
        });
    if (!r) {
        DockerError e = r.error();
        e.message = QStringLiteral("cannot pull %1: %2").arg(name, e.message);
        return e;
    }
    return {};
}

Result<void, DockerError> DockerClient::buildImage(
    const QUrlQuery &query, const QByteArray &tarContext, const std::function<void(const QJsonObject &)> &message) const
{
    return streamJsonLines(
        QStringLiteral("/build"), query, tarContext, QByteArrayLiteral("application/x-tar"), m_timeoutMs, 0, message);
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
