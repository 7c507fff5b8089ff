// The nonces of the view tokens the doorman accepted, kept until their tokens expire, so that a
// token opens a view once: also across a restart of the engine, when they are kept in a file
// (docs/formats.md, "Used view-token nonces").
#pragma once

#include "core/result.h"
#include "views/viewtoken.h"

#include <QHash>
#include <QString>

namespace isolation {

class UsedNonces
{
public:
    enum class Use {
        Fresh, // not seen before: recorded (and written, when kept in a file)
        Replayed, // seen before: refuse the token
        BeforeLoss, // issued before the record was lost (see keepIn()): refuse the token
        Unrecorded, // the file could not be written: refuse the token (a restart would forget it)
    };

    // Loads `file` (none yet is an empty record) and writes every change there from now on, whole
    // and atomically (QSaveFile, 0600). A file that cannot be read or understood is moved aside to
    // "<file>.corrupt" and a fresh one written; as the nonces it held are lost, every token issued
    // before nowUnix + ViewToken::AllowedSkewSeconds (whatever could have been used before) is
    // refused until such tokens have expired, and that rule is written to the file too. Fails with
    // what happened then (the caller logs it); the safe rule is in force either way.
    Status keepIn(const QString &file, qint64 nowUnix);

    Use use(const ViewClaims &claims, qint64 nowUnix);
    // Forgets the nonces of expired tokens (and a lapsed rule); rewrites the file if that changed it.
    void purge(qint64 nowUnix);

    int size() const { return int(m_nonces.size()); }
    qint64 refusedIssuedBefore() const { return m_refuseIssuedBefore; }

    static constexpr qint64 MaxFileBytes = 4 << 20; // about 90,000 entries: a lot of views in an hour

private:
    Status load(qint64 nowUnix);
    Status save() const;

    QString m_file; // empty: in memory only
    QHash<QByteArray, qint64> m_nonces; // nonce -> its token's expiry (Unix seconds)
    qint64 m_refuseIssuedBefore = 0; // 0: no record was lost
};

} // namespace isolation
