#include "lifecycleconfig.h"

#include <QSaveFile>

#include <cpptoml.h>

#include <sstream>

namespace isolation {

namespace {

std::shared_ptr<cpptoml::array> stringArray(const QStringList &items)
{
    auto array = cpptoml::make_array();
    for (const QString &item : items)
        array->push_back(item.toStdString());
    return array;
}

} // namespace

QByteArray LifecycleConfig::toToml() const
{
    // cpptoml writes the file (quoting and escaping included); we only fill the tables.
    auto server = cpptoml::make_table();
    server->insert("host", std::string("0.0.0.0")); // inside the container; published on 127.0.0.1 only
    server->insert("port", int64_t(ContainerPort));
    server->insert("api_key", apiKey.toStdString());
    auto runtime = cpptoml::make_table();
    runtime->insert("type", std::string("docker"));
    runtime->insert("execd_image", execdImage.toStdString());
    auto storage = cpptoml::make_table();
    storage->insert("allowed_host_paths", stringArray(allowedHostPaths));
    auto docker = cpptoml::make_table();
    docker->insert("network_mode", network.isEmpty() ? std::string("bridge") : network.toStdString());
    docker->insert("drop_capabilities", stringArray(dropCapabilities));
    docker->insert("no_new_privileges", noNewPrivileges);
    docker->insert("pids_limit", int64_t(pidsLimit));
    auto root = cpptoml::make_table();
    root->insert("server", server);
    root->insert("runtime", runtime);
    root->insert("storage", storage);
    root->insert("docker", docker);
    std::ostringstream out;
    out << "# Written by the Isolation engine; rewritten at every start. Holds the API key: keep it 0600.\n";
    out << *root;
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
