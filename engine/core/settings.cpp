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
