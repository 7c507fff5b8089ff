// What the docker tests of the runtime share: the stand-in images' names, managers made on
// temporary data directories (and everything they made removed afterwards), and waiting for
// asynchronous answers while the event loop turns. Header only; tests/runtime/ only.
#pragma once

#include "dockertestsupport.h"
#include "credentials/credentialstore.h"
#include "runtime/runtimemanager.h"

#include <QDir>
#include <QElapsedTimer>
#include <QTest>

#include <memory>
#include <optional>

namespace isolation::test {

inline const QString kTag = QStringLiteral(ISOLATION_STANDIN_TAG);
inline const QString kLifecycle = QStringLiteral("isolation-standin/lifecycle:") + kTag;
inline const QString kExecd = QStringLiteral("isolation-standin/execd:") + kTag;
inline const QString kSandbox = QStringLiteral("isolation-standin/sandbox:") + kTag;

// Runs an asynchronous operation to completion while the event loop turns.
template<typename R, typename F>
std::optional<R> await(F start, int timeoutMs = 60000)
{
    std::optional<R> out;
    start([&out](R r) { out.emplace(std::move(r)); });
    QElapsedTimer t;
    t.start();
    while (!out && t.elapsed() < timeoutMs)
        QTest::qWait(20);
    return out;
}

class RuntimeFixture
{
public:
    // Empty when Docker answers and the stand-in images are there; otherwise what is missing.
    static QString missing()
    {
        if (docker({QStringLiteral("info")}).exitCode != 0)
            return QStringLiteral("no Docker daemon answers (./dev test starts dockerd)");
        for (const QString &image : {kLifecycle, kExecd, kSandbox}) {
            if (docker({QStringLiteral("image"), QStringLiteral("inspect"), image}).exitCode != 0)
                return image + QStringLiteral(" is missing: the standin_images fixture builds it");
        }
        return {};
    }

    QString root() const { return QDir(m_tmp.path()).canonicalPath(); }

    std::unique_ptr<RuntimeManager> makeManager(const QString &name, const QString &lifecycleImage)
    {
        const QString dataDir = root() + QLatin1Char('/') + name;
        QDir().mkpath(dataDir);
        RuntimeConfig c;
        c.dataDir = dataDir;
        c.sessionDir = dataDir + QStringLiteral("/sessions");
        c.lifecycleImage = lifecycleImage;
        c.execdImage = kExecd;
        c.healthIntervalMs = 500;
        auto m = std::make_unique<RuntimeManager>(c,
            std::make_unique<FileCredentialStore>(
                dataDir + QStringLiteral("/credentials.json"), QStringLiteral("runtime-api-key")));
        m_engineIds << m->engineId();
        return m;
    }

    static bool waitHealthy(RuntimeManager *m, int timeoutMs = 90000)
    {
        QElapsedTimer t;
        t.start();
        while (m->state() != RuntimeState::Healthy && t.elapsed() < timeoutMs)
            QTest::qWait(50);
        if (m->state() != RuntimeState::Healthy)
            qWarning() << "runtime not healthy:" << m->status();
        return m->state() == RuntimeState::Healthy;
    }

    static QString container(const RuntimeManager *m)
    {
        return m->status().value(QStringLiteral("container")).toString();
    }

    // The stand-in's record of the requests it accepted (its container log), counted by method and path.
    static int recordedRequests(const RuntimeManager *m, const QString &method, const QString &path)
    {
        const Run logs = docker({QStringLiteral("logs"), container(m)});
        int n = 0;
        for (const QByteArray &line : logs.out.split('\n')) {
            const qsizetype at = line.indexOf("ISOLATION-STANDIN-REQUEST ");
            if (at < 0)
                continue;
            const QJsonObject r = QJsonDocument::fromJson(line.mid(at + 26)).object();
            n += r.value(QStringLiteral("method")).toString() == method
                && r.value(QStringLiteral("path")).toString() == path;
        }
        return n;
    }

    void addEngine(const QString &engineId) { m_engineIds << engineId; }
    void addTag(const QString &tag) { m_tags << tag; }

    // Removes every container of the engines made here and every image tag the test made.
    void cleanup()
    {
        for (const QString &id : std::as_const(m_engineIds)) {
            for (const QString &c : containersWithLabel(QStringLiteral("io.isolation.engine=") + id)) {
                // Sandboxes this lifecycle container made (a test that failed half-way leaves some).
                for (const QString &s : containersWithLabel(QStringLiteral("io.isolation.standin.by=") + c.left(12)))
                    docker({QStringLiteral("rm"), QStringLiteral("-f"), s});
                docker({QStringLiteral("rm"), QStringLiteral("-f"), c});
            }
        }
        for (const QString &tag : std::as_const(m_tags))
            docker({QStringLiteral("rmi"), QStringLiteral("-f"), tag});
    }

private:
    QTemporaryDir m_tmp;
    QStringList m_engineIds;
    QStringList m_tags;
};

} // namespace isolation::test
