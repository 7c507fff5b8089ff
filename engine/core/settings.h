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

    // The sandbox runtime (docs/runtime.md). Images: ISOLATION_RUNTIME_LIFECYCLE_IMAGE /
    // ISOLATION_RUNTIME_EXECD_IMAGE, else the file (runtime/lifecycleImage, runtime/execdImage),
    // else empty: the pinned images. ISOLATION_RUNTIME=off (or runtime/enabled=false) keeps the
    // engine from touching Docker at all.
    bool runtimeEnabled() const;
    QString runtimeLifecycleImage() const;
    QString runtimeExecdImage() const;
    quint16 runtimePort() const; // runtime/port; 0: the system chooses
    int runtimeHealthIntervalMs() const; // runtime/healthIntervalMs, default 5000
    // runtime/idleHealthIntervalMs, default 15000 (the heartbeat's): a healthy runtime nobody
    // watches is checked this often; 0: always runtime/healthIntervalMs
    int runtimeIdleHealthIntervalMs() const;
    // The image of a session without a devcontainer.json: ISOLATION_SANDBOX_IMAGE, else
    // sandbox/image, else debian:12.
    QString sandboxImage() const;

    QVariant value(const QString &key, const QVariant &fallback = {}) const;
    void setValue(const QString &key, const QVariant &value);
    void sync();
    QString fileName() const;

private:
    std::unique_ptr<QSettings> m_settings;
};

} // namespace isolation
