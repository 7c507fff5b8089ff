#include "secretvault.h"

#include "core/logging.h"
#include "launchsecrets.h"

namespace isolation {

namespace {

void redact(const SecureBytes &value, bool on)
{
    const QByteArray copy = value.toByteArray(); // the redactor keeps its own copy while registered
    if (on)
        logging::addRedaction(copy);
    else
        logging::removeRedaction(copy);
}

} // namespace

SecretVault::~SecretVault()
{
    clear();
}

void SecretVault::adopt(LaunchSecrets secrets)
{
    m_sessionId = secrets.sessionId();
    m_expiresAt = secrets.expiresAt();
    for (auto &[name, value] : secrets.takeValues())
        put(name, std::move(value));
    qCInfo(lcSecrets).noquote() << QStringLiteral("session %1: %2 launch secrets held (%3)")
                                       .arg(m_sessionId)
                                       .arg(m_values.size())
                                       .arg(names().join(QStringLiteral(", ")));
}

Result<void, SecretsError> SecretVault::insert(const QString &name, SecureBytes value)
{
    if (!LaunchSecrets::isValidName(name))
        return SecretsError {SecretsError::Code::Malformed, QStringLiteral("%1 is not a valid secret name").arg(name)};
    if (value.size() < LaunchSecrets::kMinValueBytes || value.view().contains('\0')) {
        return SecretsError {SecretsError::Code::Malformed,
            QStringLiteral("the value of %1 is too short to be redacted, or holds a NUL byte").arg(name)};
    }
    put(name, std::move(value));
    return {};
}

void SecretVault::put(const QString &name, SecureBytes value)
{
    redact(value, true);
    auto it = m_values.find(name);
    if (it != m_values.end()) {
        redact(it->second, false);
        it->second = std::move(value);
    } else {
        m_values.emplace(name, std::move(value));
    }
}

bool SecretVault::remove(const QString &name)
{
    auto it = m_values.find(name);
    if (it == m_values.end())
        return false;
    redact(it->second, false);
    m_values.erase(it); // SecureBytes zeroes its buffer
    return true;
}

void SecretVault::clear()
{
    for (const auto &[name, value] : m_values)
        redact(value, false);
    m_values.clear();
}

QStringList SecretVault::names() const
{
    QStringList out;
    for (const auto &[name, value] : m_values)
        out << name;
    return out;
}

const SecureBytes *SecretVault::value(const QString &name) const
{
    auto it = m_values.find(name);
    return it == m_values.end() ? nullptr : &it->second;
}

QHash<QString, QString> SecretVault::environment() const
{
    QHash<QString, QString> env;
    for (const auto &[name, value] : m_values)
        env.insert(name, QString::fromUtf8(value.view()));
    return env;
}

} // namespace isolation
