#include "localapiclient.h"

#include "core/libcurl.h"

#include <QFile>
#include <QFileInfo>
#include <QJsonDocument>

#include <memory>

namespace isolation {

namespace {

struct CurlDeleter
{
    void operator()(CURL *c) const { libcurl::load()->easy_cleanup(c); }
};
struct SlistDeleter
{
    void operator()(curl_slist *l) const { libcurl::load()->slist_free_all(l); }
};

size_t collectBody(char *ptr, size_t size, size_t nmemb, void *userdata)
{
    static_cast<QByteArray *>(userdata)->append(ptr, qsizetype(size * nmemb));
    return size * nmemb;
}

size_t collectHeader(char *ptr, size_t size, size_t nmemb, void *userdata)
{
    auto *headers = static_cast<HttpHeaders *>(userdata);
    const QByteArray line = QByteArray(ptr, qsizetype(size * nmemb)).trimmed();
    if (line.startsWith("HTTP/")) {
        headers->clear(); // a new response head (after 100 Continue)
    } else if (const qsizetype colon = line.indexOf(':'); colon > 0) {
        headers->append({line.first(colon).trimmed(), line.mid(colon + 1).trimmed()});
    }
    return size * nmemb;
}

} // namespace

LocalApiClient::LocalApiClient(QString socketPath, int timeoutMs)
    : m_socket(std::move(socketPath))
    , m_timeoutMs(timeoutMs)
{ }

Result<HttpResponse, LocalApiError> LocalApiClient::request(
    const QByteArray &method, const QString &path, const QByteArray &body, const QByteArray &contentType) const
{
    if (!QFileInfo::exists(m_socket))
        return LocalApiError {LocalApiError::Code::NotRunning, 0, {},
            QStringLiteral("no engine is running (no socket at %1); start one with "
                           "`isolation-server up` or the tray")
                .arg(m_socket),
            {}};

    QString unloadable;
    const libcurl::Api *lib = libcurl::load(&unloadable);
    if (!lib)
        return LocalApiError {LocalApiError::Code::Transport, 0, {}, unloadable, {}};
    std::unique_ptr<CURL, CurlDeleter> curl(lib->easy_init());
    if (!curl)
        return LocalApiError {LocalApiError::Code::Transport, 0, {}, QStringLiteral("cannot initialise libcurl"), {}};

    const QByteArray socket = QFile::encodeName(m_socket);
    const QByteArray url = "http://local" + path.toUtf8();
    QByteArray responseBody;
    HttpHeaders responseHeaders;
    std::unique_ptr<curl_slist, SlistDeleter> headers;
    auto addHeader
        = [&headers, lib](const QByteArray &h) { headers.reset(lib->slist_append(headers.release(), h.constData())); };
    addHeader("Expect:");
    if (!body.isEmpty())
        addHeader("Content-Type: " + contentType);

    CURL *c = curl.get();
    lib->easy_setopt(c, CURLOPT_UNIX_SOCKET_PATH, socket.constData());
    lib->easy_setopt(c, CURLOPT_URL, url.constData());
    lib->easy_setopt(c, CURLOPT_CUSTOMREQUEST, method.constData());
    lib->easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
    lib->easy_setopt(c, CURLOPT_TIMEOUT_MS, long(m_timeoutMs));
    lib->easy_setopt(c, CURLOPT_HTTPHEADER, headers.get());
    if (!body.isEmpty() || method == "POST" || method == "PUT") {
        lib->easy_setopt(c, CURLOPT_POSTFIELDS, body.constData());
        lib->easy_setopt(c, CURLOPT_POSTFIELDSIZE_LARGE, curl_off_t(body.size()));
    }
    if (method == "HEAD")
        lib->easy_setopt(c, CURLOPT_NOBODY, 1L);
    lib->easy_setopt(c, CURLOPT_WRITEFUNCTION, &collectBody);
    lib->easy_setopt(c, CURLOPT_WRITEDATA, &responseBody);
    lib->easy_setopt(c, CURLOPT_HEADERFUNCTION, &collectHeader);
    lib->easy_setopt(c, CURLOPT_HEADERDATA, &responseHeaders);

    const CURLcode rc = lib->easy_perform(c);
    if (rc == CURLE_COULDNT_CONNECT)
        return LocalApiError {LocalApiError::Code::NotRunning, 0, {},
            QStringLiteral("no engine answers on %1 (stale socket?); start one with "
                           "`isolation-server up` or the tray")
                .arg(m_socket),
            {}};
    if (rc != CURLE_OK)
        return LocalApiError {LocalApiError::Code::Transport, 0, {},
            QStringLiteral("LocalAPI request failed: %1").arg(QString::fromUtf8(lib->easy_strerror(rc))), {}};
    long status = 0;
    lib->easy_getinfo(c, CURLINFO_RESPONSE_CODE, &status);
    HttpResponse response;
    response.status = int(status);
    response.headers = std::move(responseHeaders);
    response.body = std::move(responseBody);
    return response;
}

Result<QJsonObject, LocalApiError> LocalApiClient::call(
    const QByteArray &method, const QString &path, const QJsonObject &body) const
{
    const QByteArray payload = body.isEmpty() ? QByteArray() : QJsonDocument(body).toJson(QJsonDocument::Compact);
    auto result = request(method, path, payload);
    if (!result)
        return result.error();
    const HttpResponse &response = result.value();
    QJsonObject object;
    if (!response.body.isEmpty()) {
        QJsonParseError pe {};
        const QJsonDocument doc = QJsonDocument::fromJson(response.body, &pe);
        if (pe.error != QJsonParseError::NoError || !doc.isObject())
            return LocalApiError {LocalApiError::Code::Transport, response.status, {},
                QStringLiteral("the engine answered something that is not JSON (HTTP %1)").arg(response.status), {}};
        object = doc.object();
    }
    if (response.status < 200 || response.status > 299) {
        const QJsonObject error = object.value(QStringLiteral("error")).toObject();
        return LocalApiError {LocalApiError::Code::Api, response.status, error.value(QStringLiteral("code")).toString(),
            error.value(QStringLiteral("message")).toString(QStringLiteral("HTTP %1").arg(response.status)), object};
    }
    return object;
}

} // namespace isolation
