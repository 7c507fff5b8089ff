// The OFFLINE STAND-IN for the OpenSandbox lifecycle server (tests and `./dev run` without
// registry access; not OpenSandbox). It implements the subset of sandbox-lifecycle.yml the engine
// uses, enforces the API key from its TOML, and makes real sandbox containers through the Docker
// socket, each running the execd stand-in as its entry process.
#pragma once

#include "http/httpserver.h"
#include "runtime/dockerclient.h"

#include <QHash>
#include <QObject>
#include <QStringList>

#include <optional>

namespace isolation::standin {

struct StandinConfig
{
    QString host = QStringLiteral("0.0.0.0");
    quint16 port = 8080;
    QByteArray apiKey;
    QString execdImage;
    QStringList allowedHostPaths;
    QStringList dropCapabilities;
    bool noNewPrivileges = true;
    qint64 pidsLimit = 0;
    QString networkMode = QStringLiteral("host"); // [docker] network_mode, as the real server reads it

    static Result<StandinConfig> fromToml(const QString &path);
};

class StandinLifecycle final : public QObject
{
    Q_OBJECT
public:
    StandinLifecycle(StandinConfig config, DockerClient docker, QObject *parent = nullptr);
    Status start();

private:
    void routes();
    bool authorized(const HttpRequest &request, HttpReply reply) const;
    void create(const HttpRequest &request, HttpReply reply);
    void get(const HttpRequest &request, HttpReply reply);
    void remove(const HttpRequest &request, HttpReply reply);
    void transition(const HttpRequest &request, HttpReply reply, const char *action);
    void endpoint(const HttpRequest &request, HttpReply reply);
    void createSnapshot(const HttpRequest &request, HttpReply reply);
    void getSnapshot(const HttpRequest &request, HttpReply reply);
    void deleteSnapshot(const HttpRequest &request, HttpReply reply);
    // The Snapshot as the API shows it: in the making here, or an image committed earlier.
    std::optional<QJsonObject> snapshot(const QString &id) const;
    Result<QString> execdVolume();
    Result<QJsonObject> sandbox(const QString &id) const;

    StandinConfig m_config;
    DockerClient m_docker;
    HttpServer m_http;
    QString m_volume;
    QHash<QString, QJsonObject> m_snapshots; // made by this run: Creating, Ready or Failed
};

} // namespace isolation::standin
