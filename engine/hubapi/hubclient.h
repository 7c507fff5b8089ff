// The engine's client for the hub's HTTP API (docs/protocol.md): JSON requests with the server
// credential, the protocol's error bodies read into HubError, and a clear error for a hub that
// answers garbage. Asynchronous, on the event loop of the thread that owns it.
#pragma once

#include "core/result.h"

#include <QByteArray>
#include <QJsonObject>
#include <QObject>
#include <QUrl>

#include <functional>

class QNetworkAccessManager;

namespace isolation {

struct HubError
{
    enum class Code {
        Unreachable, // no connection, timeout, TLS failure: retry later
        Rejected, // the hub answered with an error body (status and code say which)
        Garbage, // the hub answered something that is not the protocol
        Refused, // nothing was sent: the hub URL is neither https:// nor on this computer (core/huburl.h)
    };
    Code code = Code::Unreachable;
    int status = 0; // HTTP status, when there was an answer
    QString errorCode; // the error body's code ("authorization_pending", "revoked", ...)
    QString message;
    QJsonObject body; // the whole answer, for errors that carry detail

    bool retryable() const { return code == Code::Unreachable || (code == Code::Rejected && status >= 500); }
};

class HubClient final : public QObject
{
    Q_OBJECT
public:
    using Callback = std::function<void(Result<QJsonObject, HubError>)>;

    explicit HubClient(QNetworkAccessManager *network, QObject *parent = nullptr);

    void setBaseUrl(const QUrl &url) { m_base = url; }
    QUrl baseUrl() const { return m_base; }
    // The bearer sent with every call from now on (empty: none).
    void setCredential(const QByteArray &credential) { m_credential = credential; }
    void setTimeout(int ms) { m_timeoutMs = ms; }

    // Calls METHOD PATH with a JSON body (none when empty); the callback runs once, on this
    // object's thread, unless the client was destroyed first. A base URL HubUrl::check refuses
    // sends nothing: the callback gets a Refused error that says why.
    void call(const QByteArray &method, const QString &path, const QJsonObject &body, Callback done);

private:
    QNetworkAccessManager *m_network;
    QUrl m_base;
    QByteArray m_credential;
    int m_timeoutMs = 30000;
};

} // namespace isolation
