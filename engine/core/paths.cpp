#include "paths.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>

#include <sys/stat.h>
#include <unistd.h>

namespace isolation {

namespace {

const QString kApp = QStringLiteral("isolation");

QString xdg(const QProcessEnvironment &env, const char *name, const QString &home, const char *fallback)
{
    const QString value = env.value(QString::fromLatin1(name));
    // The XDG spec says relative paths are invalid and must be ignored.
    if (!value.isEmpty() && QDir::isAbsolutePath(value))
        return QDir::cleanPath(value);
    return QDir::cleanPath(home + QLatin1Char('/') + QLatin1String(fallback));
}

Status makePrivateDir(const QString &path)
{
    if (!QDir().mkpath(path))
        return Error::failed(QStringLiteral("cannot create directory %1").arg(path));
    const QByteArray native = QFile::encodeName(path);
    struct stat st
    {
    };
    if (::stat(native.constData(), &st) != 0)
        return Error::failed(QStringLiteral("cannot inspect directory %1").arg(path));
    if (st.st_uid != ::getuid())
        return Error::failed(QStringLiteral("directory %1 belongs to another user").arg(path));
    if ((st.st_mode & 0777) != 0700 && ::chmod(native.constData(), 0700) != 0)
        return Error::failed(QStringLiteral("cannot make directory %1 private").arg(path));
    return {};
}

} // namespace

Result<Paths> Paths::resolve(const QProcessEnvironment &env)
{
    Paths p;
    const QString override = env.value(QStringLiteral("ISOLATION_HOME"));
    if (!override.isEmpty()) {
        const QString home = QDir::cleanPath(QDir(override).absolutePath());
        p.m_overridden = true;
        p.m_home = home;
        p.m_config = home + QStringLiteral("/config");
        p.m_data = home + QStringLiteral("/data");
        p.m_cache = home + QStringLiteral("/cache");
        p.m_state = home + QStringLiteral("/state");
        p.m_runtime = home + QStringLiteral("/run");
        return p;
    }

    const QString home = env.value(QStringLiteral("HOME"));
    if (home.isEmpty() || !QDir::isAbsolutePath(home))
        return Error::invalidInput(QStringLiteral("HOME is not set; set HOME or ISOLATION_HOME"));

    p.m_config = xdg(env, "XDG_CONFIG_HOME", home, ".config") + QLatin1Char('/') + kApp;
    p.m_data = xdg(env, "XDG_DATA_HOME", home, ".local/share") + QLatin1Char('/') + kApp;
    p.m_cache = xdg(env, "XDG_CACHE_HOME", home, ".cache") + QLatin1Char('/') + kApp;
    p.m_state = xdg(env, "XDG_STATE_HOME", home, ".local/state") + QLatin1Char('/') + kApp;

    const QString runtime = env.value(QStringLiteral("XDG_RUNTIME_DIR"));
    if (!runtime.isEmpty() && QDir::isAbsolutePath(runtime) && QFileInfo(runtime).isDir())
        p.m_runtime = QDir::cleanPath(runtime) + QLatin1Char('/') + kApp;
    else // no session runtime directory (cron, ssh without logind): a private one in /tmp
        p.m_runtime = QStringLiteral("/tmp/isolation-runtime-%1").arg(::getuid());
    return p;
}

Status Paths::ensure() const
{
    if (m_overridden) {
        if (auto s = makePrivateDir(m_home); !s)
            return s;
    }
    for (const QString &dir : {m_config, m_data, m_cache, m_state, m_runtime}) {
        if (auto s = makePrivateDir(dir); !s)
            return s;
    }
    return {};
}

QString Paths::settingsFile() const
{
    return m_config + QStringLiteral("/settings.ini");
}

QString Paths::socketPath() const
{
    return m_runtime + QStringLiteral("/engine.sock");
}

QString Paths::lockFile() const
{
    return m_data + QStringLiteral("/engine.lock");
}

QString Paths::logFile() const
{
    return m_state + QStringLiteral("/engine.log");
}

} // namespace isolation
