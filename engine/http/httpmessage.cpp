#include "httpmessage.h"

#include <QJsonArray>
#include <QJsonObject>

namespace isolation {

QByteArray headerValue(const HttpHeaders &headers, QByteArrayView name)
{
    for (const auto &h : headers) {
        if (name.size() == h.first.size() && name.compare(h.first, Qt::CaseInsensitive) == 0)
            return h.second;
    }
    return {};
}

bool hasHeader(const HttpHeaders &headers, QByteArrayView name)
{
    for (const auto &h : headers) {
        if (name.size() == h.first.size() && name.compare(h.first, Qt::CaseInsensitive) == 0)
            return true;
    }
    return false;
}

bool HttpRequest::jsonBody(QJsonObject *out, QString *error) const
{
    if (body.trimmed().isEmpty()) {
        *out = {};
        return true;
    }
    QJsonParseError pe {};
    const QJsonDocument doc = QJsonDocument::fromJson(body, &pe);
    if (pe.error != QJsonParseError::NoError || !doc.isObject()) {
        if (error)
            *error = pe.error != QJsonParseError::NoError ? pe.errorString() : QStringLiteral("expected a JSON object");
        return false;
    }
    *out = doc.object();
    return true;
}

QByteArray HttpRequest::bearerToken() const
{
    const QByteArray value = header("authorization");
    static const QByteArray prefix = QByteArrayLiteral("bearer ");
    if (value.size() <= prefix.size() || !value.first(prefix.size()).toLower().startsWith(prefix))
        return {};
    return value.mid(prefix.size()).trimmed();
}

HttpResponse &HttpResponse::setHeader(const QByteArray &name, const QByteArray &value)
{
    for (auto &h : headers) {
        if (QByteArrayView(name).compare(h.first, Qt::CaseInsensitive) == 0) {
            h.second = value;
            return *this;
        }
    }
    headers.append({name, value});
    return *this;
}

HttpResponse HttpResponse::json(int status, const QJsonObject &object)
{
    HttpResponse r;
    r.status = status;
    r.body = QJsonDocument(object).toJson(QJsonDocument::Compact);
    r.setHeader("Content-Type", "application/json");
    return r;
}

HttpResponse HttpResponse::json(int status, const QJsonArray &array)
{
    HttpResponse r;
    r.status = status;
    r.body = QJsonDocument(array).toJson(QJsonDocument::Compact);
    r.setHeader("Content-Type", "application/json");
    return r;
}

HttpResponse HttpResponse::text(int status, const QByteArray &body, const QByteArray &contentType)
{
    HttpResponse r;
    r.status = status;
    r.body = body;
    r.setHeader("Content-Type", contentType);
    return r;
}

HttpResponse HttpResponse::error(int status, const QString &code, const QString &message)
{
    return json(status,
        QJsonObject {{QStringLiteral("error"),
            QJsonObject {{QStringLiteral("code"), code}, {QStringLiteral("message"), message}}}});
}

QByteArray reasonPhrase(int status)
{
    switch (status) {
    case 100:
        return "Continue";
    case 101:
        return "Switching Protocols";
    case 200:
        return "OK";
    case 201:
        return "Created";
    case 202:
        return "Accepted";
    case 204:
        return "No Content";
    case 301:
        return "Moved Permanently";
    case 302:
        return "Found";
    case 303:
        return "See Other";
    case 304:
        return "Not Modified";
    case 307:
        return "Temporary Redirect";
    case 400:
        return "Bad Request";
    case 401:
        return "Unauthorized";
    case 403:
        return "Forbidden";
    case 404:
        return "Not Found";
    case 405:
        return "Method Not Allowed";
    case 408:
        return "Request Timeout";
    case 409:
        return "Conflict";
    case 410:
        return "Gone";
    case 411:
        return "Length Required";
    case 412:
        return "Precondition Failed";
    case 413:
        return "Content Too Large";
    case 414:
        return "URI Too Long";
    case 415:
        return "Unsupported Media Type";
    case 422:
        return "Unprocessable Content";
    case 428:
        return "Precondition Required";
    case 429:
        return "Too Many Requests";
    case 431:
        return "Request Header Fields Too Large";
    case 500:
        return "Internal Server Error";
    case 501:
        return "Not Implemented";
    case 502:
        return "Bad Gateway";
    case 503:
        return "Service Unavailable";
    case 504:
        return "Gateway Timeout";
    default:
        return "Status";
    }
}

} // namespace isolation
