// StoreClient: the engine's HTTP client for the hub's workspace store (docs/protocol.md,
// "Workspace store"). Gets and renews per-workspace bearers with the server credential, each for a
// session of this engine that uses the workspace and proven by the server's Ed25519 key (a
// SessionDeclaration), streams segments from files and into devices, and
// reports manifest writes whose outcome is unknown. Sends nothing to a hub URL HubUrl::check
// refuses. Asynchronous on the event loop of its thread; never logs a token.
#pragma once

#include "core/clock.h"
#include "crypto/securebytes.h"
#include "storeerror.h"

#include <QByteArray>
#include <QHash>
#include <QList>
#include <QObject>
#include <QUrl>

#include <functional>
#include <memory>

class QIODevice;
class QNetworkAccessManager;
class QNetworkReply;
class QNetworkRequest;

namespace isolation {

struct ServerIdentity;

class StoreClient final : public QObject
{
    Q_OBJECT
public:
    // Talks to `hubUrl` (usually server.hubUrl) as `server`: its credential, and its id and Ed25519
    // key for the proofs. `clock` decides when a bearer is renewed and dates the proofs; null means
    // the system clock.
    StoreClient(QNetworkAccessManager *network, const QUrl &hubUrl, const ServerIdentity &server,
        const Clock *clock = nullptr, QObject *parent = nullptr);
    ~StoreClient() override;

    // Applies to every request (no progress for this long fails it). Default 60 s.
    void setTimeout(int ms) { m_timeoutMs = ms; }
    // Forgets the bearers held (the next request gets new ones).
    void dropTokens();

    // The sessions of this engine that use a workspace: a workspace's bearer is asked for one of
    // them, and a workspace with none gets no bearer (the request fails without asking the hub).
    // Counted: a session added twice is removed twice. Removing a workspace's last session drops
    // its bearer.
    void addSession(const QString &workspaceId, const QString &sessionId);
    void removeSession(const QString &workspaceId, const QString &sessionId);
    // Tells the hub the session ended here (its bearers stop working); best effort, only logged.
    void endSession(const QString &sessionId);

    struct Workspace
    {
        QString id;
        QString name;
        QString createdAt; // ISO 8601, as the hub sent it
    };
    // Bytes moved so far and in all (-1 when not known yet), for progress displays.
    using Progress = std::function<void(qint64 done, qint64 total)>;
    void listWorkspaces(std::function<void(StoreResult<QList<Workspace>>)> done);

    struct ManifestReply
    {
        bool exists = false; // false: the workspace has no manifest yet (404 no_manifest)
        bool notModified = false; // 304: the manifest is still `ifNoneMatch`
        QByteArray etag;
        QByteArray body; // the encrypted manifest (exists and modified)
    };
    // GET the manifest; with `ifNoneMatch` (an ETag) the hub answers 304 when it did not move.
    void getManifest(const QString &workspaceId, const QByteArray &ifNoneMatch,
        std::function<void(StoreResult<ManifestReply>)> done);

    struct PutReply
    {
        enum class Outcome {
            Stored, // the hub stored it: `etag` is its ETag
            PreconditionFailed, // 412: the manifest is not `ifMatch` (or exists, for a create); nothing written
            Unknown, // the connection failed after the whole body was sent: read the manifest back to know
        } outcome
            = Outcome::Unknown;
        QByteArray etag;
    };
    // PUT the manifest with If-Match: `ifMatch`, or If-None-Match: * when `ifMatch` is empty. A
    // failure before the whole body was sent is an error (nothing can have been stored).
    void putManifest(const QString &workspaceId, const QByteArray &sealed, const QByteArray &ifMatch,
        std::function<void(StoreResult<PutReply>)> done);

    // PUT a segment, streamed from a file; `name` is the SHA-256 of the file's bytes.
    void putSegment(const QString &workspaceId, const QString &name, const QString &filePath,
        std::function<void(StoreResult<void>)> done, Progress progress = {});
    // GET a segment, streamed into `out` (written only with the bytes of a 200 answer); the number
    // of bytes written on success. `out` must outlive the call.
    void getSegment(const QString &workspaceId, const QString &name, QIODevice *out,
        std::function<void(StoreResult<qint64>)> done, Progress progress = {});
    // DELETE a segment; one that is already gone counts as deleted.
    void deleteSegment(const QString &workspaceId, const QString &name, std::function<void(StoreResult<void>)> done);

private:
    struct Exchange;
    struct Answer;
    void withToken(const QString &workspaceId, std::function<void(StoreResult<QByteArray>)> done);
    void send(std::shared_ptr<Exchange> exchange, bool retried);
    // send()'s parts: the request made and sent (null, with `error`, when its file cannot be
    // read); its progress and download followed; its answer read when it finishes.
    QNetworkReply *start(const Exchange &exchange, const QByteArray &token, QString *error);
    void follow(QNetworkReply *reply, const std::shared_ptr<Exchange> &exchange, const std::shared_ptr<Answer> &answer);
    void finished(QNetworkReply *reply, const std::shared_ptr<Exchange> &exchange, Answer &answer, bool retried);
    QNetworkRequest request(const QString &path) const;
    static StoreError errorFrom(const Answer &answer);

    struct Token
    {
        SecureBytes value;
        qint64 renewAtMs = 0;
        QString session; // the session it was minted for
    };

    QNetworkAccessManager *m_network;
    QUrl m_base;
    SecureBytes m_credential;
    QString m_serverId;
    SecureBytes m_signingKey; // the server's Ed25519 seed: proves its session declarations
    std::unique_ptr<Clock> m_ownClock;
    const Clock *m_clock;
    int m_timeoutMs = 60000;
    QString m_refusal; // why the hub URL may not be used (HubUrl::check); empty when it may
    QHash<QString, Token> m_tokens;
    QHash<QString, QStringList> m_sessions; // workspace id → this engine's sessions on it
    QHash<QString, QList<std::function<void(StoreResult<QByteArray>)>>> m_waiting; // token requests in flight
};

} // namespace isolation
