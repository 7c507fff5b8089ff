// Where a paired server's secrets live: the desktop keychain (QtKeychain: Secret Service on
// Linux, never its plaintext fallback; in a helper process, keychainhelper.h), or — only when
// asked for, on headless servers — one 0600 file. Entries are namespaced by state directory so
// engines never share them. Which one an engine uses is decided in Engine::start (the option, else
// the store its identity was found or saved in before, else the keychain; docs/architecture.md).
#pragma once

#include "core/result.h"
#include "crypto/securebytes.h"

#include <QObject>

#include <functional>
#include <memory>
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

// Auto is a choice, never a store's kind: the keychain when the session has one, else the file
// (AutoCredentialStore).
enum class CredentialStoreKind { Keychain, File, Auto };
QString credentialStoreKindName(CredentialStoreKind kind); // "keychain", "file", "auto"
std::optional<CredentialStoreKind> credentialStoreKindFromName(const QString &name);

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
    virtual CredentialStoreKind kind() const = 0; // Keychain or File: where the secrets are now
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
    CredentialStoreKind kind() const override { return CredentialStoreKind::Keychain; }

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
    CredentialStoreKind kind() const override { return CredentialStoreKind::File; }

private:
    QString m_path;
};

// `--credential-store auto` (the systemd user unit's choice): the keychain when the session has
// one, else the file. Decided by the first load: a keychain that answers "unavailable" (no Secret
// Service on the bus, no bus at all) hands over to the file for good; a locked or refusing keychain
// is there, so that stays an error rather than a silent move of the keys. Until the first load
// answers, save() and remove() go to the keychain.
class AutoCredentialStore final : public CredentialStore
{
    Q_OBJECT
public:
    AutoCredentialStore(std::unique_ptr<CredentialStore> keychain, std::unique_ptr<CredentialStore> file,
        QObject *parent = nullptr);
    ~AutoCredentialStore() override;
    void load(LoadDone done) override;
    void save(const SecureBytes &blob, Done done) override;
    void remove(Done done) override;
    QString describe() const override;
    CredentialStoreKind kind() const override;

private:
    CredentialStore *active() const;

    std::unique_ptr<CredentialStore> m_keychain;
    std::unique_ptr<CredentialStore> m_file;
    bool m_useFile = false;
};

} // namespace isolation
