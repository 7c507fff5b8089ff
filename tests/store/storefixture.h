// What the store's hub tests share: a real isolation-hub with one paired server (its identity read
// back from a real engine's credential file), a StoreClient for it, workspaces, and a way to wait
// for the store's callbacks while the event loop runs.
#pragma once

#include "hubprocess.h"

#include "pairing/serveridentity.h"
#include "store/storeclient.h"
#include "store/workspacestore.h"

#include <QCoreApplication>
#include <QDeadlineTimer>
#include <QNetworkAccessManager>
#include <QTemporaryDir>

#include <functional>
#include <memory>
#include <optional>

namespace isolation::test {

// Starts an asynchronous store call and runs the event loop until its callback came (or 120 s).
template<typename R>
R await(const std::function<void(std::function<void(R)>)> &start)
{
    auto out = std::make_shared<std::optional<R>>();
    start([out](R r) { out->emplace(std::move(r)); });
    QDeadlineTimer deadline(120000);
    while (!out->has_value() && !deadline.hasExpired())
        QCoreApplication::processEvents(QEventLoop::AllEvents | QEventLoop::WaitForMoreEvents, 20);
    if (!out->has_value())
        return R(StoreError::unavailable(QStringLiteral("the test gave up waiting")));
    return std::move(**out);
}

class StoreFixture
{
public:
    // Starts the hub (`extraArgs` go to serve) and pairs a server with it.
    bool start(const QStringList &extraArgs = {});

    // Runs `isolation-hub workspace create NAME`; the new id, or empty.
    QString createWorkspace(const QString &name) const;
    // How many actions of this kind the hub logged for this workspace.
    int actions(const QString &action, const QString &workspaceId) const;
    QString workspaceDir(const QString &workspaceId) const;
    QString segmentFile(const QString &workspaceId, const QString &name) const;

    // A store for the workspace as one computer sees it: `computer` names its own state directory.
    std::unique_ptr<WorkspaceStore> store(
        const QString &workspaceId, const QString &computer, StoreClient *client = nullptr);
    QString stateDir(const QString &computer) const;
    // A file of `size` bytes (a counter pattern) under the fixture's directory.
    QString writeFile(const QString &name, qint64 size, char seed) const;
    QString path(const QString &name) const { return m_dir.filePath(name); }

    HubProcess &hub() { return m_hub; }
    const ServerIdentity &server() const { return *m_server; }
    StoreClient &client() { return *m_client; }
    QNetworkAccessManager &network() { return m_network; }

private:
    QTemporaryDir m_dir;
    HubProcess m_hub;
    std::optional<ServerIdentity> m_server;
    QNetworkAccessManager m_network;
    std::unique_ptr<StoreClient> m_client;
};

} // namespace isolation::test
