#include "storeclient.h"

#include "core/huburl.h"
#include "core/logging.h"
#include "core/storagefault.h"
#include "core/version.h"
#include "net/nagle.h"
#include "pairing/serveridentity.h"
#include "sessiondeclaration.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QNetworkRequest>
#include <QRegularExpression>

#include <cerrno>

namespace isolation {

namespace {

constexpr qint64 kDownloadBuffer = 1024 * 1024; // QNAM holds at most this much of a segment at a time

bool isPathSafe(const QString &s)
{
    static const QRegularExpression safe(QStringLiteral("^[A-Za-z0-9_-]{1,128}$"));
    return safe.match(s).hasMatch();
}

// Why a downloaded piece could not be written: a full or read-only disk said as such.
QString downloadWriteFailure(const QIODevice &download, int errnum)
{
    const auto *file = qobject_cast<const QFileDevice *>(&download);
    if (!file || file->fileName().isEmpty())
        return QStringLiteral("cannot write the download: %1").arg(download.errorString());
    return writeFailureText(file->fileName(), download.errorString(), errnum);
}

} // namespace

struct StoreClient::Answer
{
    int status = 0; // 0: no answer (networkError says why)
    QString errorCode;
    QString message;
    QByteArray etag;
    QByteArray body; // not for downloads
    bool bodySent = false; // the whole request body went out
    bool nagleOff = false; // disableNagleOnTcpConnections() ran once the upload was under way
    QString networkError;
    qint64 received = 0; // bytes written to the download device
    QString localError; // writing the download device failed
};

struct StoreClient::Exchange
{
    QString workspaceId; // empty: authenticated with the server credential, not a workspace token
    QByteArray method;
    QString path;
    QList<QPair<QByteArray, QByteArray>> headers;
    QByteArray body;
    QString uploadFile; // streamed from this file instead of `body`
    QIODevice *download = nullptr; // the body of a 200 answer goes here as it arrives
    std::function<void(StoreResult<Answer>)> done;
    Progress progress; // upload progress for uploads, download progress for downloads
};

StoreClient::StoreClient(QNetworkAccessManager *network, const QUrl &hubUrl, const ServerIdentity &server,
    const Clock *clock, QObject *parent)
    : QObject(parent)
    , m_network(network)
    , m_base(hubUrl)
    , m_credential(server.credential)
    , m_serverId(server.serverId)
    , m_signingKey(server.ed25519Private)
    , m_ownClock(clock ? nullptr : std::make_unique<SystemClock>())
    , m_clock(clock ? clock : m_ownClock.get())
{
    if (auto checked = HubUrl::check(hubUrl); !checked) {
        m_refusal = checked.error().message;
        qCWarning(lcStore) << "the workspace store is off:" << m_refusal;
    }
}

StoreClient::~StoreClient()
{
    dropTokens();
}

void StoreClient::dropTokens()
{
    for (const Token &t : std::as_const(m_tokens))
        logging::removeRedaction(t.value.toByteArray());
    m_tokens.clear();
}

void StoreClient::addSession(const QString &workspaceId, const QString &sessionId)
{
    m_sessions[workspaceId].append(sessionId);
}

void StoreClient::removeSession(const QString &workspaceId, const QString &sessionId)
{
    auto it = m_sessions.find(workspaceId);
    if (it == m_sessions.end())
        return;
    it->removeOne(sessionId);
    const bool last = it->isEmpty();
    if (last)
        m_sessions.erase(it);
    // A bearer goes with the session it was minted for (the hub refuses it once told).
    if (m_tokens.contains(workspaceId) && (last || m_tokens.value(workspaceId).session == sessionId))
        logging::removeRedaction(m_tokens.take(workspaceId).value.toByteArray());
}

void StoreClient::endSession(const QString &sessionId)
{
    if (!m_refusal.isEmpty() || !isPathSafe(sessionId))
        return;
    QNetworkRequest r = request(QStringLiteral("/v1/servers/self/sessions/%1").arg(sessionId));
    r.setRawHeader("Authorization", "Bearer " + m_credential.toByteArray());
    QNetworkReply *reply = m_network->sendCustomRequest(r, "DELETE");
    reply->setParent(this);
    connect(reply, &QNetworkReply::finished, this, [reply, sessionId] {
        reply->deleteLater();
        const int status = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
        if (status == 204 || status == 404) // 404: the hub never knew it, or it moved to another server
            qCDebug(lcStore) << "session" << sessionId << "ended at the hub";
        else
            qCInfo(lcStore) << "the hub was not told that session" << sessionId << "ended:"
                            << (status ? QStringLiteral("HTTP %1").arg(status) : reply->errorString());
    });
}

QNetworkRequest StoreClient::request(const QString &path) const
{
    QUrl url = m_base;
    url.setPath(path);
    QNetworkRequest r(url);
    r.setHeader(QNetworkRequest::UserAgentHeader, QStringLiteral("isolation-engine/" ISOLATION_VERSION));
    r.setAttribute(QNetworkRequest::RedirectPolicyAttribute, QNetworkRequest::ManualRedirectPolicy);
    r.setAttribute(QNetworkRequest::CacheLoadControlAttribute, QNetworkRequest::AlwaysNetwork);
    r.setAttribute(QNetworkRequest::CacheSaveControlAttribute, false);
    r.setTransferTimeout(m_timeoutMs);
    return r;
}

StoreError StoreClient::errorFrom(const Answer &a)
{
    if (!a.localError.isEmpty())
        return StoreError::local(a.localError);
    if (a.status == 0 || !a.networkError.isEmpty())
        return StoreError::unavailable(QStringLiteral("cannot reach the hub: %1").arg(a.networkError));
    const QString detail = a.message.isEmpty() ? QStringLiteral("HTTP %1").arg(a.status) : a.message;
    StoreError e {a.status >= 500 ? StoreError::Code::Unavailable : StoreError::Code::Rejected, a.status, a.errorCode,
        QStringLiteral("the hub refused: %1").arg(detail)};
    if (a.status >= 500)
        e.message = QStringLiteral("the hub failed: %1").arg(detail);
    return e;
}

void StoreClient::withToken(const QString &workspaceId, std::function<void(StoreResult<QByteArray>)> done)
{
    if (workspaceId.isEmpty()) {
        done(m_credential.toByteArray());
        return;
    }
    const auto it = m_tokens.constFind(workspaceId);
    if (it != m_tokens.cend() && m_clock->monotonicMs() < it->renewAtMs) {
        done(it->value.toByteArray());
        return;
    }
    // Least privilege (docs/protocol.md, "Workspace bearers"): a bearer is for a session of ours.
    const QStringList sessions = m_sessions.value(workspaceId);
    if (sessions.isEmpty()) {
        done(StoreError::local(
            QStringLiteral("no session on this computer uses workspace %1, so it gets no bearer for it").arg(workspaceId)));
        return;
    }
    auto &queue = m_waiting[workspaceId];
    queue.append(std::move(done));
    if (queue.size() > 1)
        return; // a request for this token is already out

    // The proof goes with every request: the hub needs it only for a session it does not know yet
    // (one made here rather than launched by the hub), and cannot tell us which that is.
    auto proof = SessionDeclaration::proof(
        m_signingKey.view(), m_serverId, sessions.first(), workspaceId, m_clock->unixSeconds());
    if (!proof) {
        const auto waiting = m_waiting.take(workspaceId);
        for (const auto &w : waiting)
            w(StoreError::local(proof.error().message));
        return;
    }
    QNetworkRequest r = request(QStringLiteral("/v1/workspaces/%1/token").arg(workspaceId));
    r.setRawHeader("Authorization", "Bearer " + m_credential.toByteArray());
    r.setHeader(QNetworkRequest::ContentTypeHeader, QStringLiteral("application/json"));
    const QByteArray body = QJsonDocument(QJsonObject {{QStringLiteral("session"), sessions.first()},
                                              {QStringLiteral("proof"), proof.value()}})
                                .toJson(QJsonDocument::Compact);
    QNetworkReply *reply = m_network->post(r, body);
    reply->setParent(this); // destroying the client aborts it
    connect(reply, &QNetworkReply::finished, this, [this, reply, workspaceId, session = sessions.first()] {
        reply->deleteLater();
        Answer a;
        a.status = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
        a.networkError = reply->errorString();
        const QJsonObject o = QJsonDocument::fromJson(reply->readAll()).object();
        a.errorCode = o.value(QStringLiteral("error")).toObject().value(QStringLiteral("code")).toString();
        a.message = o.value(QStringLiteral("error")).toObject().value(QStringLiteral("message")).toString();
        StoreResult<QByteArray> result = StoreError {};
        const QByteArray token = o.value(QStringLiteral("token")).toString().toLatin1();
        const int expiresIn = o.value(QStringLiteral("expiresIn")).toInt();
        if (a.status != 200) {
            result = errorFrom(a);
        } else if (token.isEmpty() || expiresIn <= 0) {
            result = StoreError {StoreError::Code::Refused, 200, {},
                QStringLiteral("the hub answered a workspace token request with something that is not one")};
        } else {
            logging::addRedaction(token);
            if (m_tokens.contains(workspaceId))
                logging::removeRedaction(m_tokens.value(workspaceId).value.toByteArray());
            // Renew at four fifths of the lifetime, so clock drift and slow requests never meet expiry.
            m_tokens.insert(
                workspaceId, Token {SecureBytes(token), m_clock->monotonicMs() + qint64(expiresIn) * 800, session});
            qCDebug(lcStore) << "got a workspace token for" << workspaceId << "valid" << expiresIn << "s";
            result = token;
        }
        const auto waiting = m_waiting.take(workspaceId);
        for (const auto &w : waiting)
            w(result);
    });
}

void StoreClient::send(std::shared_ptr<Exchange> ex, bool retried)
{
    if (!m_refusal.isEmpty()) {
        ex->done(StoreError::local(m_refusal));
        return;
    }
    withToken(ex->workspaceId, [this, ex, retried](StoreResult<QByteArray> token) {
        if (!token) {
            ex->done(token.error());
            return;
        }
        QString error;
        QNetworkReply *reply = start(*ex, token.value(), &error);
        if (!reply) {
            ex->done(StoreError::local(error));
            return;
        }
        auto answer = std::make_shared<Answer>();
        follow(reply, ex, answer);
        connect(reply, &QNetworkReply::finished, this,
            [this, reply, ex, answer, retried] { finished(reply, ex, *answer, retried); });
    });
}

QNetworkReply *StoreClient::start(const Exchange &ex, const QByteArray &token, QString *error)
{
    QNetworkRequest r = request(ex.path);
    r.setRawHeader("Authorization", "Bearer " + token);
    for (const auto &h : std::as_const(ex.headers))
        r.setRawHeader(h.first, h.second);
    QNetworkReply *reply = nullptr;
    if (!ex.uploadFile.isEmpty()) {
        // Without Nagle's algorithm, or the body's last piece may wait for a delayed ACK
        // (net/nagle.h): here for a connection kept from an earlier request, and once the upload
        // is under way (follow()) for one opened for it.
        disableNagleOnTcpConnections();
        auto file = std::make_unique<QFile>(ex.uploadFile);
        if (!file->open(QIODevice::ReadOnly)) {
            *error = QStringLiteral("cannot read %1: %2").arg(ex.uploadFile, file->errorString());
            return nullptr;
        }
        r.setHeader(QNetworkRequest::ContentLengthHeader, file->size());
        r.setHeader(QNetworkRequest::ContentTypeHeader, QStringLiteral("application/octet-stream"));
        reply = m_network->sendCustomRequest(r, ex.method, file.get());
        file.release()->setParent(reply);
    } else if (ex.method == "PUT" || ex.method == "POST") {
        r.setHeader(QNetworkRequest::ContentTypeHeader, QStringLiteral("application/octet-stream"));
        reply = m_network->sendCustomRequest(r, ex.method, ex.body);
    } else {
        reply = m_network->sendCustomRequest(r, ex.method);
    }
    reply->setParent(this);
    return reply;
}

void StoreClient::follow(QNetworkReply *reply, const std::shared_ptr<Exchange> &ex, const std::shared_ptr<Answer> &answer)
{
    connect(reply, &QNetworkReply::uploadProgress, this, [answer, ex](qint64 sent, qint64 total) {
        if (sent > 0 && !answer->nagleOff && !ex->uploadFile.isEmpty()) {
            answer->nagleOff = true;
            disableNagleOnTcpConnections();
        }
        if (total > 0 && sent >= total)
            answer->bodySent = true;
        if (ex->progress && !ex->uploadFile.isEmpty())
            ex->progress(sent, total);
    });
    if (ex->progress && ex->download) {
        connect(reply, &QNetworkReply::downloadProgress, this,
            [ex](qint64 received, qint64 total) { ex->progress(received, total); });
    }
    if (!ex->download)
        return;
    reply->setReadBufferSize(kDownloadBuffer);
    connect(reply, &QNetworkReply::readyRead, this, [reply, ex, answer] {
        if (reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt() != 200 || !answer->localError.isEmpty())
            return;
        const QByteArray piece = reply->readAll();
        if (ex->download->write(piece) != piece.size()) {
            answer->localError = downloadWriteFailure(*ex->download, errno);
            reply->abort();
            return;
        }
        answer->received += piece.size();
    });
}

void StoreClient::finished(QNetworkReply *reply, const std::shared_ptr<Exchange> &ex, Answer &a, bool retried)
{
    reply->deleteLater();
    a.status = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
    a.etag = reply->rawHeader("ETag");
    // No answer, or a 2xx whose body broke off (cut connection, timeout, abort).
    if (a.status == 0 || (a.status < 300 && reply->error() != QNetworkReply::NoError)) {
        // Nothing here aborts a request but a download whose bytes cannot be kept (localError):
        // a request "canceled" otherwise is the transfer timeout's, which Qt words the same way.
        a.networkError = reply->error() == QNetworkReply::OperationCanceledError && a.localError.isEmpty()
            ? QStringLiteral("nothing came from the hub for %1 s").arg(m_timeoutMs / 1000.0)
            : reply->errorString();
    }
    if (ex->download && a.status == 200 && a.localError.isEmpty()) {
        const QByteArray rest = reply->readAll();
        if (ex->download->write(rest) != rest.size())
            a.localError = downloadWriteFailure(*ex->download, errno);
        a.received += rest.size();
    } else {
        a.body = reply->readAll();
    }
    if (a.status >= 400) {
        const QJsonObject error = QJsonDocument::fromJson(a.body).object().value(QStringLiteral("error")).toObject();
        a.errorCode = error.value(QStringLiteral("code")).toString();
        a.message = error.value(QStringLiteral("message")).toString();
    }
    // A bearer the hub no longer takes (expired, the hub restarted, or its session ended while
    // another session of ours still uses the workspace): renew it once.
    if (a.status == 401 && !retried && !ex->workspaceId.isEmpty()
        && (a.errorCode == QLatin1String("token_expired") || a.errorCode == QLatin1String("unauthorized")
            || a.errorCode == QLatin1String("session_ended"))) {
        qCInfo(lcStore) << "workspace token for" << ex->workspaceId << "refused (" << a.errorCode << "); renewing it";
        if (m_tokens.contains(ex->workspaceId))
            logging::removeRedaction(m_tokens.take(ex->workspaceId).value.toByteArray());
        send(ex, true);
        return;
    }
    ex->done(a);
}

void StoreClient::listWorkspaces(std::function<void(StoreResult<QList<Workspace>>)> done)
{
    auto ex = std::make_shared<Exchange>();
    ex->method = "GET";
    ex->path = QStringLiteral("/v1/workspaces");
    ex->done = [done = std::move(done)](StoreResult<Answer> r) {
        if (!r || r.value().status != 200) {
            done(r ? errorFrom(r.value()) : r.error());
            return;
        }
        QList<Workspace> list;
        const QJsonArray array
            = QJsonDocument::fromJson(r.value().body).object().value(QStringLiteral("workspaces")).toArray();
        for (const QJsonValue v : array) {
            const QJsonObject o = v.toObject();
            list.append({o.value(QStringLiteral("id")).toString(), o.value(QStringLiteral("name")).toString(),
                o.value(QStringLiteral("createdAt")).toString()});
        }
        done(list);
    };
    send(ex, false);
}

void StoreClient::getManifest(
    const QString &workspaceId, const QByteArray &ifNoneMatch, std::function<void(StoreResult<ManifestReply>)> done)
{
    if (!isPathSafe(workspaceId)) {
        done(StoreError::local(QStringLiteral("%1 is not a workspace id").arg(workspaceId)));
        return;
    }
    auto ex = std::make_shared<Exchange>();
    ex->workspaceId = workspaceId;
    ex->method = "GET";
    ex->path = QStringLiteral("/v1/workspaces/%1/manifest").arg(workspaceId);
    if (!ifNoneMatch.isEmpty())
        ex->headers.append({"If-None-Match", ifNoneMatch});
    ex->done = [done = std::move(done), ifNoneMatch](StoreResult<Answer> r) {
        if (!r) {
            done(r.error());
            return;
        }
        const Answer &a = r.value();
        ManifestReply m;
        if (a.status == 200 && !a.etag.isEmpty()) {
            m.exists = true;
            m.etag = a.etag;
            m.body = a.body;
        } else if (a.status == 304) {
            m.exists = true;
            m.notModified = true;
            m.etag = a.etag.isEmpty() ? ifNoneMatch : a.etag;
        } else if (a.status == 404 && a.errorCode == QLatin1String("no_manifest")) {
            m.exists = false;
        } else if (a.status == 200) {
            done(StoreError {
                StoreError::Code::Refused, 200, {}, QStringLiteral("the hub sent a manifest without an ETag")});
            return;
        } else {
            done(errorFrom(a));
            return;
        }
        done(m);
    };
    send(ex, false);
}

void StoreClient::putManifest(const QString &workspaceId, const QByteArray &sealed, const QByteArray &ifMatch,
    std::function<void(StoreResult<PutReply>)> done)
{
    if (!isPathSafe(workspaceId)) {
        done(StoreError::local(QStringLiteral("%1 is not a workspace id").arg(workspaceId)));
        return;
    }
    auto ex = std::make_shared<Exchange>();
    ex->workspaceId = workspaceId;
    ex->method = "PUT";
    ex->path = QStringLiteral("/v1/workspaces/%1/manifest").arg(workspaceId);
    ex->body = sealed;
    ex->headers.append(ifMatch.isEmpty() ? qMakePair(QByteArray("If-None-Match"), QByteArray("*"))
                                         : qMakePair(QByteArray("If-Match"), ifMatch));
    ex->done = [done = std::move(done)](StoreResult<Answer> r) {
        if (!r) {
            done(r.error());
            return;
        }
        const Answer &a = r.value();
        PutReply p;
        if (a.status == 200 || a.status == 201) {
            p.outcome = PutReply::Outcome::Stored;
            p.etag = a.etag;
        } else if (a.status == 412) {
            p.outcome = PutReply::Outcome::PreconditionFailed;
        } else if (a.status == 0 && a.bodySent) {
            // The hub may have stored it and the answer got lost: only reading it back can tell.
            qCWarning(lcStore) << "the connection failed after the manifest was sent:" << a.networkError;
            p.outcome = PutReply::Outcome::Unknown;
        } else {
            done(errorFrom(a));
            return;
        }
        done(p);
    };
    send(ex, false);
}

void StoreClient::putSegment(const QString &workspaceId, const QString &name, const QString &filePath,
    std::function<void(StoreResult<void>)> done, Progress progress)
{
    if (!isPathSafe(workspaceId) || !isPathSafe(name)) {
        done(StoreError::local(QStringLiteral("bad workspace id or segment name")));
        return;
    }
    auto ex = std::make_shared<Exchange>();
    ex->workspaceId = workspaceId;
    ex->method = "PUT";
    ex->path = QStringLiteral("/v1/workspaces/%1/segments/%2").arg(workspaceId, name);
    ex->uploadFile = filePath;
    ex->progress = std::move(progress);
    ex->done = [done = std::move(done)](StoreResult<Answer> r) {
        if (!r)
            done(r.error());
        else if (r.value().status == 200 || r.value().status == 201)
            done({});
        else
            done(errorFrom(r.value()));
    };
    send(ex, false);
}

void StoreClient::getSegment(const QString &workspaceId, const QString &name, QIODevice *out,
    std::function<void(StoreResult<qint64>)> done, Progress progress)
{
    if (!isPathSafe(workspaceId) || !isPathSafe(name)) {
        done(StoreError::local(QStringLiteral("bad workspace id or segment name")));
        return;
    }
    auto ex = std::make_shared<Exchange>();
    ex->workspaceId = workspaceId;
    ex->method = "GET";
    ex->path = QStringLiteral("/v1/workspaces/%1/segments/%2").arg(workspaceId, name);
    ex->download = out;
    ex->progress = std::move(progress);
    ex->done = [done = std::move(done)](StoreResult<Answer> r) {
        if (!r)
            done(r.error());
        else if (r.value().status == 200 && r.value().localError.isEmpty() && r.value().networkError.isEmpty())
            done(r.value().received);
        else
            done(errorFrom(r.value()));
    };
    send(ex, false);
}

void StoreClient::deleteSegment(
    const QString &workspaceId, const QString &name, std::function<void(StoreResult<void>)> done)
{
    if (!isPathSafe(workspaceId) || !isPathSafe(name)) {
        done(StoreError::local(QStringLiteral("bad workspace id or segment name")));
        return;
    }
    auto ex = std::make_shared<Exchange>();
    ex->workspaceId = workspaceId;
    ex->method = "DELETE";
    ex->path = QStringLiteral("/v1/workspaces/%1/segments/%2").arg(workspaceId, name);
    ex->done = [done = std::move(done)](StoreResult<Answer> r) {
        if (!r)
            done(r.error());
        else if (r.value().status == 204 || r.value().status == 200 || r.value().status == 404)
            done({});
        else
            done(errorFrom(r.value()));
    };
    send(ex, false);
}

} // namespace isolation
