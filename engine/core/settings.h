// The engine's settings file (INI, in the config directory). Typed accessors with defaults;
// anything not set falls back to the default compiled in.
#pragma once

#include <QSettings>
#include <QString>
#include <QUrl>
#include <QVariant>

#include <memory>

namespace isolation {

class Settings
{
public:
    explicit Settings(const QString &file);

    // The control plane this engine pairs with: ISOLATION_HUB_URL, else the file, else the local
    // hub that `./dev run` starts.
    QUrl hubUrl() const;
    void setHubUrl(const QUrl &url);

    static QUrl defaultHubUrl();

    QVariant value(const QString &key, const QVariant &fallback = {}) const;
    void setValue(const QString &key, const QVariant &value);
    void sync();
    QString fileName() const;

private:
    std::unique_ptr<QSettings> m_settings;
};

} // namespace isolation
