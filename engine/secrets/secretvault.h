// The secrets of one session, in memory only: each value is registered with the log redactor while
// the vault holds it, and zeroed and unregistered when it is dropped. Never written anywhere.
#pragma once

#include "crypto/securebytes.h"
#include "secretserror.h"

#include <QHash>
#include <QString>
#include <QStringList>

#include <map>

namespace isolation {

class LaunchSecrets;

class SecretVault
{
public:
    SecretVault() = default;
    ~SecretVault(); // clear()
    SecretVault(const SecretVault &) = delete;
    SecretVault &operator=(const SecretVault &) = delete;

    // Takes the opened launch secrets (values of the same name are replaced) and their session and expiry.
    void adopt(LaunchSecrets secrets);
    // One more secret: Malformed for a name LaunchSecrets::isValidName refuses or a value shorter
    // than LaunchSecrets::kMinValueBytes (it could not be redacted).
    Result<void, SecretsError> insert(const QString &name, SecureBytes value);
    bool remove(const QString &name);
    // Drops every value: zeroed, unregistered from the redactor.
    void clear();

    bool isEmpty() const { return m_values.empty(); }
    qsizetype size() const { return qsizetype(m_values.size()); }
    bool contains(const QString &name) const { return m_values.count(name) > 0; }
    QStringList names() const; // sorted
    const SecureBytes *value(const QString &name) const;
    QString sessionId() const { return m_sessionId; }
    qint64 expiresAt() const { return m_expiresAt; } // Unix seconds; 0 when nothing was adopted

    // Copies of every value for the environment of a process execd starts (CommandRequest::envs).
    // The caller keeps them no longer than the request takes.
    QHash<QString, QString> environment() const;

private:
    void put(const QString &name, SecureBytes value);

    std::map<QString, SecureBytes> m_values;
    QString m_sessionId;
    qint64 m_expiresAt = 0;
};

} // namespace isolation
