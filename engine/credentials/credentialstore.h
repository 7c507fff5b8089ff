// Where a paired server's secrets live: the desktop keychain (QtKeychain: Secret Service on
// Linux, never its plaintext fallback; in a helper process, keychainhelper.h), or — only when
// asked for, on headless servers — one 0600 file. Entries are namespaced by state directory so
// engines never share them.
#pragma once

#include "core/result.h"
#include "crypto/securebytes.h"

#include <QObject>

#include <functional>
#include <optional>

namespace isolation {

class KeychainHelper;

struct CredentialError
{
    enum class Code {
        Unavailable, // no keychain: the message says what to do
        Locked, // the keychain is there but locked (or refused access): unlock it
        Failed, // reading or writing failed
    };
    Code code = Code::Failed;
    QString message;
};

enum class CredentialStoreKind { Keychain, File };

class CredentialStore : public QObject
{
    Q_OBJECT
public:
    using LoadDone = std::function<void(Result<std::optional<SecureBytes>, CredentialError>)>;
    using Done = std::function<void(Result<void, CredentialError>)>;

    using QObject::QObject;

    // Each callback runs exactly once, on this object's thread, later (never inside the call).
    virtual void load(LoadDone done) = 0; // nullopt: nothing stored
    virtual void save(const SecureBytes &blob, Done done) = 0;
    virtual void remove(Done done) = 0; // removing nothing is success
    virtual QString describe() const = 0; // for status and errors: "the desktop keychain", "file /x/y"
};

// The keychain entry for one engine's state directory. `entry` names a second secret next to the
// server identity (e.g. "runtime-api-key"); empty is the identity's own entry.
class KeychainCredentialStore final : public CredentialStore
{
    Q_OBJECT
public:
    KeychainCredentialStore(QString stateDirectory, QObject *parent = nullptr);
    KeychainCredentialStore(QString stateDirectory, const QString &entry, QObject *parent = nullptr);
    void load(LoadDone done) override;
    void save(const SecureBytes &blob, Done done) override;
    void remove(Done done) override;
    QString describe() const override;

    static QString serviceName();
    QString entryKey() const { return m_key; }

private:
    QString m_key;
    KeychainHelper *m_helper; // a child: its helper processes die with the store
};

// One file, mode 0600, replaced atomically. A non-empty `entry` puts that secret in its own file
// beside `path` ("credentials.json" + "runtime-api-key" -> "credentials.runtime-api-key.json").
class FileCredentialStore final : public CredentialStore
{
    Q_OBJECT
public:
    FileCredentialStore(QString path, QObject *parent = nullptr);
    FileCredentialStore(const QString &path, const QString &entry, QObject *parent = nullptr);
    void load(LoadDone done) override;
    void save(const SecureBytes &blob, Done done) override;
    void remove(Done done) override;
    QString describe() const override;

private:
    QString m_path;
};

} // namespace isolation
