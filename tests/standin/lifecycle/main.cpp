// isolation-standin-lifecycle: the OFFLINE STAND-IN for OpenSandbox's lifecycle server (tests,
// and `./dev run` without registry access). Reads the TOML named by SANDBOX_CONFIG_PATH.
#include "standinlifecycle.h"

#include "core/signalwatcher.h"

#include <QCoreApplication>
#include <QProcessEnvironment>

#include <cstdio>

int main(int argc, char *argv[])
{
    QCoreApplication app(argc, argv);
    using namespace isolation;
    const QString path = qEnvironmentVariable("SANDBOX_CONFIG_PATH", QStringLiteral("/etc/opensandbox/config.toml"));
    auto config = standin::StandinConfig::fromToml(path);
    if (!config) {
        std::fprintf(stderr, "isolation-standin-lifecycle: %s\n", qPrintable(config.error().message));
        return 1;
    }
    auto docker = DockerClient::fromEnvironment();
    if (!docker) {
        std::fprintf(stderr, "isolation-standin-lifecycle: %s\n", qPrintable(docker.error().message));
        return 1;
    }
    standin::StandinLifecycle server(config.value(), docker.value());
    if (auto s = server.start(); !s) {
        std::fprintf(stderr, "isolation-standin-lifecycle: %s\n", qPrintable(s.error().message));
        return 1;
    }
    SignalWatcher signals; // PID 1 in its container: SIGTERM must be handled to stop promptly
    QObject::connect(&signals, &SignalWatcher::terminationRequested, &app, &QCoreApplication::quit);
    std::printf("isolation-standin-lifecycle (offline stand-in, not OpenSandbox) listening on %s:%u\n",
        qPrintable(config.value().host), config.value().port);
    std::fflush(stdout);
    return QCoreApplication::exec();
}
