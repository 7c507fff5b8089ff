// View tokens (docs/protocol.md, "Views"): minted by the hub for one view of one session on one
// server, signed with the hub's Ed25519 key, at most one hour long. A compact format with the
// algorithm fixed: base64url(claims JSON) "." base64url(Ed25519 signature); no algorithm field.
#pragma once

#include "core/result.h"
#include "viewkind.h"

#include <QByteArray>
#include <QString>

namespace isolation {

struct ViewClaims
{
    QString viewId; // "v" and 24 lowercase hex digits: also the first label of the view's host name
    QString sessionId;
    QString serverId;
    ViewKind kind = ViewKind::Preview;
    int port = 0; // preview: the sandbox port (1..65535); terminal and files: 0
    qint64 issuedAt = 0; // Unix seconds
    qint64 expiresAt = 0; // Unix seconds, at most MaxLifetime after issuedAt
    QByteArray nonce; // 16 random bytes

    bool operator==(const ViewClaims &) const = default;
};

struct ViewTokenError
{
    enum class Code {
        Invalid, // malformed, bad signature, wrong version, impossible claims: 401
        Expired, // past its expiry (or issued in the future): 401
        Forbidden, // genuine, but for another server: 403
    };
    Code code = Code::Invalid;
    QString message; // never contains the token

    int httpStatus() const { return code == Code::Forbidden ? 403 : 401; }
};

class ViewToken
{
public:
    static constexpr qint64 MaxLifetimeSeconds = 3600;
    static constexpr qint64 AllowedSkewSeconds = 60; // issued-at may lie this far in our future
    static constexpr qsizetype MaxTokenBytes = 1024;
    static constexpr int Version = 1;
    // The signed bytes are this prefix, a line feed, and the encoded claims.
    static constexpr const char *SigningPrefix = "isolation-view-token-v1";

    // A fresh view id ("v" + 24 lowercase hex digits) and nonce.
    static QString newViewId();
    static QByteArray newNonce();
    static bool isViewId(QStringView id);

    // Signs `claims` with the hub's Ed25519 private key (32-byte seed). InvalidInput for claims
    // that verify() would refuse anyway (lifetime, kind and port, ids).
    static Result<QByteArray> mint(const ViewClaims &claims, QByteArrayView hubPrivateKey);

    // Checks a token: shape and size, the signature under `hubPublicKey`, the claims (version,
    // ids, kind and port, lifetime at most one hour), that it is not expired at `nowUnix`, and
    // that it names `serverId`. The view scope (the host name) is the caller's to compare.
    static Result<ViewClaims, ViewTokenError> verify(
        QByteArrayView token, QByteArrayView hubPublicKey, const QString &serverId, qint64 nowUnix);

    // The claims without checking anything (diagnostics and tests only).
    static Result<ViewClaims, ViewTokenError> decodeUnverified(QByteArrayView token);
};

} // namespace isolation
