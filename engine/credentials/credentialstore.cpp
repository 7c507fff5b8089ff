#include "credentialstore.h"

#include "keychainhelper.h"

#include <QFile>
#include <QFileInfo>
#include <QLoggingCategory>
#include <QSaveFile>
#include <QTimer>

Q_LOGGING_CATEGORY(lcCredentials, "isolation.pairing.credentials")

namespace isolation {

namespace {

// Defers a callback to the event loop so stores behave alike (never call back synchronously).
template<typename F>
void later(QObject *context, F &&f)
{
    QTimer::singleShot(0, context, std::forward<F>(f));
}

CredentialError keychainError(const KeychainHelper::Outcome &outcome)
{
    switch (outcome.exit) {
    case KeychainExit::Denied:
        return {CredentialError::Code::Locked,
            QStringLiteral("the desktop keychain refused access (%1); unlock it and try again").arg(outcome.message)};
    case KeychainExit::Locked:
        return {CredentialError::Code::Locked,
            QStringLiteral("the desktop keychain is locked (%1); unlock it (GNOME Keyring, KWallet), then start "
                           "the engine again")
                .arg(outcome.message)};
    case KeychainExit::CouldNotDelete:
        return {CredentialError::Code::Failed, QStringLiteral("keychain error: %1").arg(outcome.message)};
    default:
        // No Secret Service on the bus, no bus at all, a backend that failed to answer, or no helper.
        return {CredentialError::Code::Unavailable,
            QStringLiteral("no desktop keychain is available (%1). Start and unlock your keyring (for example "
                           "GNOME Keyring or KWallet), or on a headless server run "
                           "`isolation-server up --credential-store file`")
                .arg(outcome.message)};
    }
}

} // namespace

QString credentialStoreKindName(CredentialStoreKind kind)
{
    switch (kind) {
    case CredentialStoreKind::Keychain:
        return QStringLiteral("keychain");
    case CredentialStoreKind::File:
        return QStringLiteral("file");
    case CredentialStoreKind::Auto:
        break;
    }
    return QStringLiteral("auto");
}

std::optional<CredentialStoreKind> credentialStoreKindFromName(const QString &name)
{
    for (const auto kind : {CredentialStoreKind::Keychain, CredentialStoreKind::File, CredentialStoreKind::Auto})
        if (name == credentialStoreKindName(kind))
            return kind;
    return std::nullopt;
}

KeychainCredentialStore::KeychainCredentialStore(QString stateDirectory, QObject *parent)
    : CredentialStore(parent)
    , m_key(QStringLiteral("engine:") + stateDirectory)
    , m_helper(new KeychainHelper(this))
{ }

KeychainCredentialStore::KeychainCredentialStore(QString stateDirectory, const QString &entry, QObject *parent)
    : CredentialStore(parent)
    , m_key(QStringLiteral("engine:") + stateDirectory + (entry.isEmpty() ? QString() : QLatin1Char('#') + entry))
    , m_helper(new KeychainHelper(this))
{ }

QString KeychainCredentialStore::serviceName()
{
    return QStringLiteral("Isolation Connected Server");
}

QString KeychainCredentialStore::describe() const
{
    return QStringLiteral("the desktop keychain");
}

void KeychainCredentialStore::load(LoadDone done)
{
    m_helper->run(KeychainHelper::Operation::Read, serviceName(), m_key, {},
        [done = std::move(done)](KeychainHelper::Outcome outcome) {
            if (outcome.exit == KeychainExit::NotFound)
                done(std::optional<SecureBytes>());
            else if (outcome.exit != KeychainExit::Ok)
                done(keychainError(outcome));
            else
                done(std::optional<SecureBytes>(std::move(outcome.secret)));
        });
}

void KeychainCredentialStore::save(const SecureBytes &blob, Done done)
{
    m_helper->run(KeychainHelper::Operation::Write, serviceName(), m_key, blob,
        [done = std::move(done)](KeychainHelper::Outcome outcome) {
            if (outcome.exit != KeychainExit::Ok)
                done(keychainError(outcome));
            else
                done({});
        });
}

void KeychainCredentialStore::remove(Done done)
{
    m_helper->run(KeychainHelper::Operation::Delete, serviceName(), m_key, {},
        [done = std::move(done)](KeychainHelper::Outcome outcome) {
            if (outcome.exit != KeychainExit::Ok && outcome.exit != KeychainExit::NotFound)
                done(keychainError(outcome));
            else
                done({});
        });
}

FileCredentialStore::FileCredentialStore(QString path, QObject *parent)
    : CredentialStore(parent)
    , m_path(std::move(path))
{ }

FileCredentialStore::FileCredentialStore(const QString &path, const QString &entry, QObject *parent)
    : CredentialStore(parent)
{
    if (entry.isEmpty()) {
        m_path = path;
        return;
    }
    const QFileInfo info(path);
    m_path = info.path() + QLatin1Char('/') + info.completeBaseName() + QLatin1Char('.') + entry
        + (info.suffix().isEmpty() ? QString() : QLatin1Char('.') + info.suffix());
}

QString FileCredentialStore::describe() const
{
    return QStringLiteral("file %1").arg(m_path);
}

void FileCredentialStore::load(LoadDone done)
{
    later(this, [this, done = std::move(done)] {
        QFile file(m_path);
        if (!file.exists()) {
            done(std::optional<SecureBytes>());
            return;
        }
        if ((file.permissions()
                & (QFileDevice::ReadGroup | QFileDevice::WriteGroup | QFileDevice::ReadOther
                    | QFileDevice::WriteOther))) {
            done(CredentialError {CredentialError::Code::Failed,
                QStringLiteral("%1 is readable by others; refusing to use it (chmod 600 it, or "
                               "unpair and pair again)")
                    .arg(m_path)});
            return;
        }
        if (!file.open(QIODevice::ReadOnly)) {
            done(CredentialError {
                CredentialError::Code::Failed, QStringLiteral("cannot read %1: %2").arg(m_path, file.errorString())});
            return;
        }
        QByteArray data = file.readAll();
        std::optional<SecureBytes> blob {SecureBytes(data)};
        data.fill('\0');
        done(std::move(blob));
    });
}

void FileCredentialStore::save(const SecureBytes &blob, Done done)
{
    SecureBytes copy = blob;
    later(this, [this, copy = std::move(copy), done = std::move(done)] {
        QSaveFile file(m_path);
        if (!file.open(QIODevice::WriteOnly)) {
            done(CredentialError {
                CredentialError::Code::Failed, QStringLiteral("cannot write %1: %2").arg(m_path, file.errorString())});
            return;
        }
        // Restrict the temporary file before a byte of the secret is in it.
        file.setPermissions(QFileDevice::ReadOwner | QFileDevice::WriteOwner);
        file.write(copy.constData(), copy.size());
        if (!file.commit()) {
            done(CredentialError {
                CredentialError::Code::Failed, QStringLiteral("cannot write %1: %2").arg(m_path, file.errorString())});
            return;
        }
        qCInfo(lcCredentials) << "credentials stored in" << m_path;
        done({});
    });
}

void FileCredentialStore::remove(Done done)
{
    later(this, [this, done = std::move(done)] {
        if (QFileInfo::exists(m_path) && !QFile::remove(m_path)) {
            done(CredentialError {CredentialError::Code::Failed, QStringLiteral("cannot remove %1").arg(m_path)});
            return;
        }
        done({});
    });
}

AutoCredentialStore::AutoCredentialStore(
    std::unique_ptr<CredentialStore> keychain, std::unique_ptr<CredentialStore> file, QObject *parent)
    : CredentialStore(parent)
    , m_keychain(std::move(keychain))
    , m_file(std::move(file))
{ }

AutoCredentialStore::~AutoCredentialStore() = default;

CredentialStore *AutoCredentialStore::active() const
{
    return m_useFile ? m_file.get() : m_keychain.get();
}

void AutoCredentialStore::load(LoadDone done)
{
    active()->load([this, done = std::move(done)](Result<std::optional<SecureBytes>, CredentialError> r) mutable {
        if (r || m_useFile || r.error().code != CredentialError::Code::Unavailable) {
            done(std::move(r));
            return;
        }
        qCInfo(lcCredentials).noquote() << "no desktop keychain here (" << r.error().message
                                        << "); the credentials live in" << m_file->describe();
        m_useFile = true;
        m_file->load(std::move(done));
    });
}

void AutoCredentialStore::save(const SecureBytes &blob, Done done)
{
    active()->save(blob, std::move(done));
}

void AutoCredentialStore::remove(Done done)
{
    active()->remove(std::move(done));
}

QString AutoCredentialStore::describe() const
{
    return active()->describe();
}

CredentialStoreKind AutoCredentialStore::kind() const
{
    return active()->kind();
}

} // namespace isolation
