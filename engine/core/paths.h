// Where one engine keeps its files. XDG base directories by default; ISOLATION_HOME=DIR puts
// config, data, cache, state and the LocalAPI socket of one engine under DIR.
#pragma once

#include "result.h"

#include <QProcessEnvironment>
#include <QString>

namespace isolation {

class Paths
{
public:
    // Resolves the directories from an environment (XDG_* variables, HOME, ISOLATION_HOME).
    // Fails only when neither HOME nor ISOLATION_HOME says where to live.
    static Result<Paths> resolve(const QProcessEnvironment &env = QProcessEnvironment::systemEnvironment());

    // Creates every directory, private to the user (0700). Fails with the path that could not be made.
    Status ensure() const;

    bool overridden() const { return m_overridden; }
    QString home() const { return m_home; } // ISOLATION_HOME, or empty
    QString configDir() const { return m_config; }
    QString dataDir() const { return m_data; }
    QString cacheDir() const { return m_cache; }
    QString stateDir() const { return m_state; }
    QString runtimeDir() const { return m_runtime; }

    QString settingsFile() const;
    QString socketPath() const;
    QString lockFile() const;
    QString logFile() const;

private:
    bool m_overridden = false;
    QString m_home;
    QString m_config;
    QString m_data;
    QString m_cache;
    QString m_state;
    QString m_runtime;
};

} // namespace isolation
