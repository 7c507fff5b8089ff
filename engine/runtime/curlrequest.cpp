#include "curlrequest.h"

#include "core/libcurl.h"

#include <QElapsedTimer>
#include <QFile>

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
    static_cast<QByteArray *>(userdata)->append(ptr, static_cast<qsizetype>(size) * static_cast<qsizetype>(nmemb));
    return size * nmemb;
}

size_t collectHeader(char *ptr, size_t size, size_t nmemb, void *userdata)
{
    auto *headers = static_cast<HttpHeaders *>(userdata);
    const QByteArray line = QByteArray(ptr, static_cast<qsizetype>(size) * static_cast<qsizetype>(nmemb)).trimmed();
    if (line.startsWith("HTTP/")) {
        headers->clear(); // a new response head (after 100 Continue)
    } else if (const qsizetype colon = line.indexOf(':'); colon > 0) {
        headers->append({line.first(colon).trimmed(), line.mid(colon + 1).trimmed()});
    }
    return size * nmemb;
}

size_t streamBody(char *ptr, size_t size, size_t nmemb, void *userdata)
{
    (*static_cast<const std::function<void(QByteArrayView)> *>(userdata))(
        QByteArrayView(ptr, static_cast<qsizetype>(size) * static_cast<qsizetype>(nmemb)));
    return size * nmemb;
}

// What the progress callback watches: the cancel flag, and bytes moving. Our own idle check rather
// than CURLOPT_LOW_SPEED_LIMIT/TIME: libcurl judges the speed over a window of the last ~5 s, so
// "no byte for N s" would fire only after N + 5 s, and its error is the total timeout's.
struct Watch
{
    const std::atomic_bool *cancel = nullptr;
    qint64 idleMs = 0;
    QElapsedTimer sinceActivity;
    curl_off_t moved = -1;
    bool idled = false;
};

int watchTransfer(void *clientp, curl_off_t dltotal, curl_off_t dlnow, curl_off_t ultotal, curl_off_t ulnow)
{
    Q_UNUSED(dltotal)
    Q_UNUSED(ultotal)
    auto *w = static_cast<Watch *>(clientp);
    if (w->cancel && w->cancel->load())
        return 1;
    if (w->idleMs > 0) {
        if (dlnow + ulnow != w->moved) {
            w->moved = dlnow + ulnow;
            w->sinceActivity.start();
        } else if (w->sinceActivity.elapsed() >= w->idleMs) {
            w->idled = true;
            return 1;
        }
    }
    return 0;
}

} // namespace

Result<HttpResponse, CurlFailure> CurlRequest::perform() const
{
    QString unloadable;
    const libcurl::Api *lib = libcurl::load(&unloadable);
    if (!lib)
        return CurlFailure {CURLE_FAILED_INIT, 0, unloadable};
    std::unique_ptr<CURL, CurlDeleter> curl(lib->easy_init());
    if (!curl)
        return CurlFailure {CURLE_FAILED_INIT, 0, QStringLiteral("cannot initialise libcurl")};
    CURL *c = curl.get();

    std::unique_ptr<curl_slist, SlistDeleter> list;
    auto add = [&list, lib](const QByteArray &h) { list.reset(lib->slist_append(list.release(), h.constData())); };
    add("Expect:");
    for (const auto &[name, value] : headers)
        add(name + ": " + value);

    const QByteArray socket = QFile::encodeName(unixSocket);
    if (!unixSocket.isEmpty())
        lib->easy_setopt(c, CURLOPT_UNIX_SOCKET_PATH, socket.constData());
    lib->easy_setopt(c, CURLOPT_URL, url.constData());
    lib->easy_setopt(c, CURLOPT_CUSTOMREQUEST, method.constData());
    lib->easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
    lib->easy_setopt(c, CURLOPT_TIMEOUT_MS, long(qMax(timeoutMs, 0)));
    lib->easy_setopt(c, CURLOPT_CONNECTTIMEOUT_MS, long(timeoutMs > 0 ? qMin(timeoutMs, 10000) : 10000));
    lib->easy_setopt(c, CURLOPT_HTTPHEADER, list.get());
    lib->easy_setopt(c, CURLOPT_PROXY, ""); // never through a proxy from the environment
    if (sendBody || !body.isEmpty()) {
        lib->easy_setopt(c, CURLOPT_POSTFIELDS, body.constData());
        lib->easy_setopt(c, CURLOPT_POSTFIELDSIZE_LARGE, curl_off_t(body.size()));
    }
    if (method == "HEAD")
        lib->easy_setopt(c, CURLOPT_NOBODY, 1L);
    Watch watch;
    if (cancel && *cancel)
        return CurlFailure {CURLE_ABORTED_BY_CALLBACK, 0, QStringLiteral("cancelled")};
    if (cancel || idleTimeoutMs > 0) {
        // libcurl calls it at least once a second, bytes moving or not.
        watch.cancel = cancel.get();
        watch.idleMs = idleTimeoutMs;
        watch.sinceActivity.start();
        lib->easy_setopt(c, CURLOPT_XFERINFOFUNCTION, &watchTransfer);
        lib->easy_setopt(c, CURLOPT_XFERINFODATA, &watch);
        lib->easy_setopt(c, CURLOPT_NOPROGRESS, 0L);
    }
    QByteArray responseBody;
    HttpHeaders responseHeaders;
    if (onBody) {
        lib->easy_setopt(c, CURLOPT_WRITEFUNCTION, &streamBody);
        lib->easy_setopt(c, CURLOPT_WRITEDATA, &onBody);
    } else {
        lib->easy_setopt(c, CURLOPT_WRITEFUNCTION, &collectBody);
        lib->easy_setopt(c, CURLOPT_WRITEDATA, &responseBody);
    }
    lib->easy_setopt(c, CURLOPT_HEADERFUNCTION, &collectHeader);
    lib->easy_setopt(c, CURLOPT_HEADERDATA, &responseHeaders);

    const CURLcode rc = lib->easy_perform(c);
    if (rc != CURLE_OK) {
        if (watch.idled)
            return CurlFailure {CURLE_OPERATION_TIMEDOUT, 0,
                QStringLiteral("no progress for %1 s").arg(double(idleTimeoutMs) / 1000.0), true};
        long osErrno = 0;
        lib->easy_getinfo(c, CURLINFO_OS_ERRNO, &osErrno);
        return CurlFailure {int(rc), int(osErrno), QString::fromUtf8(lib->easy_strerror(rc))};
    }
    long status = 0;
    lib->easy_getinfo(c, CURLINFO_RESPONSE_CODE, &status);
    HttpResponse response;
    response.status = int(status);
    response.headers = std::move(responseHeaders);
    response.body = std::move(responseBody);
    return response;
}

} // namespace isolation
