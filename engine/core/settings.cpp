#include "settings.h"

namespace isolation {

Settings::Settings(const QString &file)
    : m_settings(std::make_unique<QSettings>(file, QSettings::IniFormat))
{ }

QUrl Settings::defaultHubUrl()
{
    return QUrl(QStringLiteral("http://127.0.0.1:8470"));
}

QUrl Settings::hubUrl() const
{
    // The environment wins over the file, so a launcher (./dev run, a systemd unit) can point
    // an engine at a hub without touching the user's settings.
    QUrl fromEnv(qEnvironmentVariable("ISOLATION_HUB_URL"));
    if (fromEnv.isValid() && !fromEnv.isEmpty())
        return fromEnv;
    const QUrl url(m_settings->value(QStringLiteral("hub/url")).toString());
    return url.isValid() && !url.isEmpty() ? url : defaultHubUrl();
}

void Settings::setHubUrl(const QUrl &url)
{
    m_settings->setValue(QStringLiteral("hub/url"), url.toString());
}

namespace {
QString envOr(const char *name, const QSettings &file, const QString &key)
{
    const QString env = qEnvironmentVariable(name);
    return env.isEmpty() ? file.value(key).toString() : env;
}
} // namespace

bool Settings::runtimeEnabled() const
{
    if (qEnvironmentVariable("ISOLATION_RUNTIME") == QLatin1String("off"))
        return false;
    return m_settings->value(QStringLiteral("runtime/enabled"), true).toBool();
}

QString Settings::runtimeLifecycleImage() const
{
    return envOr("ISOLATION_RUNTIME_LIFECYCLE_IMAGE", *m_settings, QStringLiteral("runtime/lifecycleImage"));
}

QString Settings::runtimeExecdImage() const
{
    return envOr("ISOLATION_RUNTIME_EXECD_IMAGE", *m_settings, QStringLiteral("runtime/execdImage"));
}

quint16 Settings::runtimePort() const
{
    const uint port = m_settings->value(QStringLiteral("runtime/port"), 0).toUInt();
    return port <= 65535 ? quint16(port) : 0;
}

int Settings::runtimeHealthIntervalMs() const
{
    const int ms = m_settings->value(QStringLiteral("runtime/healthIntervalMs"), 5000).toInt();
    return ms >= 100 ? ms : 5000;
}

int Settings::runtimeIdleHealthIntervalMs() const
{
    const int ms = m_settings->value(QStringLiteral("runtime/idleHealthIntervalMs"), 15000).toInt();
    return ms >= 0 ? ms : 15000;
}

QString Settings::sandboxImage() const
{
    const QString image = envOr("ISOLATION_SANDBOX_IMAGE", *m_settings, QStringLiteral("sandbox/image"));
    return image.isEmpty() ? QStringLiteral("debian:12") : image;
}

QVariant Settings::value(const QString &key, const QVariant &fallback) const
{
    return m_settings->value(key, fallback);
}

void Settings::setValue(const QString &key, const QVariant &value)
{
    m_settings->setValue(key, value);
}

void Settings::sync()
{
    m_settings->sync();
}

QString Settings::fileName() const
{
    return m_settings->fileName();
}

} // namespace isolation
