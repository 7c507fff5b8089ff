#include "lifecycleconfig.h"

#include <QSaveFile>

#include <toml++/toml.h>

#include <sstream>

namespace isolation {

namespace {

toml::array stringArray(const QStringList &items)
{
    toml::array array;
    for (const QString &item : items)
        array.push_back(item.toStdString());
    return array;
}

} // namespace

QByteArray LifecycleConfig::toToml() const
{
    // toml++ writes the file (quoting and escaping included); we only fill the tables.
    const toml::table root {
        {"server",
            toml::table {
                {"host", "0.0.0.0"}, // inside the container; published on 127.0.0.1 only
                {"port", int64_t(ContainerPort)},
                {"api_key", apiKey.toStdString()},
            }},
        {"runtime", toml::table {{"type", "docker"}, {"execd_image", execdImage.toStdString()}}},
        {"storage", toml::table {{"allowed_host_paths", stringArray(allowedHostPaths)}}},
        {"docker",
            toml::table {
                {"network_mode", network.isEmpty() ? std::string("bridge") : network.toStdString()},
                {"drop_capabilities", stringArray(dropCapabilities)},
                {"no_new_privileges", noNewPrivileges},
                {"pids_limit", int64_t(pidsLimit)},
            }},
    };
    std::ostringstream out;
    out << "# Written by the Isolation engine; rewritten at every start. Holds the API key: keep it 0600.\n";
    // Basic "strings", as the lifecycle server's documentation writes them (toml++ would pick
    // 'literal' ones where nothing needs escaping: valid TOML, but not what people read there).
    out << toml::toml_formatter(root, toml::toml_formatter::default_flags & ~toml::format_flags::allow_literal_strings)
        << '\n';
    return QByteArray::fromStdString(out.str());
}

Status LifecycleConfig::write(const QString &path) const
{
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly))
        return Error::failed(QStringLiteral("cannot write %1: %2").arg(path, file.errorString()));
    file.setPermissions(QFileDevice::ReadOwner | QFileDevice::WriteOwner);
    QByteArray toml = toToml();
    file.write(toml);
    toml.fill('\0');
    if (!file.commit())
        return Error::failed(QStringLiteral("cannot write %1: %2").arg(path, file.errorString()));
    return {};
}

} // namespace isolation
