// The host keys an ssh:// clone trusts: OpenSSH known_hosts lines sent with the launch
// (`host[,host...] keytype base64key [comment]`), never the engine user's ~/.ssh/known_hosts.
// Hosts are matched as OpenSSH does: the name alone on port 22, "[name]:port" on any other port,
// without case; patterns with `*` and `?`, negated ones (`!pattern`), and hashed names
// (`|1|salt|hash`, HMAC-SHA1 as `ssh-keygen -H` writes them). `@revoked` lines refuse their key;
// `@cert-authority` lines are read and ignored (libgit2 offers no host certificates).
#pragma once

#include <QByteArray>
#include <QList>
#include <QString>
#include <QStringList>

namespace isolation {

class KnownHosts
{
public:
    // The text's lines; an error names the first line that is not a known_hosts line.
    static KnownHosts parse(QByteArrayView text, QString *error);

    // The name OpenSSH looks a host up by: "host", or "[host]:port" off port 22 (port -1: 22).
    static QString lookupName(const QString &host, int port);
    // "SHA256:..." of a key blob, as `ssh-keygen -l` shows it.
    static QString fingerprint(QByteArrayView keyBlob);
    // The key type written at the start of a key blob ("ssh-ed25519"); empty when there is none.
    static QString keyTypeOf(QByteArrayView keyBlob);

    enum class Verdict {
        Match, // a line for the host has this key
        Mismatch, // lines for the host, none with this key
        Unknown, // no line for the host
        Revoked, // a @revoked line for the host has this key
    };
    struct Check
    {
        Verdict verdict = Verdict::Unknown;
        QStringList known; // "keytype SHA256:..." of the host's lines (for a mismatch's message)
    };
    Check check(const QString &host, int port, QByteArrayView keyBlob) const;
    // Whether a line (not @revoked) names the host.
    bool knows(const QString &host, int port) const;
    bool isEmpty() const { return m_entries.isEmpty(); }

private:
    struct Entry
    {
        QStringList patterns; // lower case, "!..." negated; hashed ones ("|1|salt|hash") as written
        QString keyType;
        QByteArray key; // the blob
        bool revoked = false;
    };
    static bool matches(const Entry &entry, const QString &name);

    QList<Entry> m_entries;
};

} // namespace isolation
