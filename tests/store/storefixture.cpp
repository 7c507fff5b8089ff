#include "storefixture.h"

#include "pairedserver.h"

#include "crypto/random.h"

#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>

namespace isolation::test {

bool StoreFixture::start(const QStringList &extraArgs)
{
    if (!m_hub.start({}, QStringList {QStringLiteral("--poll-interval"), QStringLiteral("1")} + extraArgs))
        return false;
    m_server = pairServer(m_hub.appUrl(), m_dir.filePath(QStringLiteral("engine")), QStringLiteral("store-test"));
    if (!m_server)
        return false;
    m_client = std::make_unique<StoreClient>(&m_network, m_server->hubUrl, *m_server);
    return true;
}

QString StoreFixture::createWorkspace(const QString &name) const
{
    QString out;
    if (m_hub.admin({QStringLiteral("workspace"), QStringLiteral("create"), name}, &out) != 0)
        return {};
    return out.trimmed();
}

int StoreFixture::actions(const QString &action, const QString &workspaceId) const
{
    QFile log(m_hub.dataDir() + QStringLiteral("/actions.log"));
    if (!log.open(QIODevice::ReadOnly))
        return -1;
    int n = 0;
    for (const QByteArray &line : log.readAll().split('\n')) {
        const QJsonObject o = QJsonDocument::fromJson(line).object();
        if (o.value(QStringLiteral("action")).toString() == action
            && o.value(QStringLiteral("workspace")).toString() == workspaceId)
            ++n;
    }
    return n;
}

QString StoreFixture::workspaceDir(const QString &workspaceId) const
{
    return m_hub.dataDir() + QStringLiteral("/workspaces/") + workspaceId;
}

QString StoreFixture::segmentFile(const QString &workspaceId, const QString &name) const
{
    return workspaceDir(workspaceId) + QStringLiteral("/segments/") + name;
}

QString StoreFixture::stateDir(const QString &computer) const
{
    return m_dir.filePath(computer + QStringLiteral("/data/store"));
}

std::unique_ptr<WorkspaceStore> StoreFixture::store(
    const QString &workspaceId, const QString &computer, StoreClient *client)
{
    // Each store works for a session of its own, as an engine's sessions do (the hub binds it to the workspace).
    const QString session = QStringLiteral("s") + QString::fromLatin1(randomBytes(6).toHex());
    return std::make_unique<WorkspaceStore>(client ? client : m_client.get(), workspaceId, session,
        m_server->memberKey.view(), stateDir(computer), m_dir.filePath(computer + QStringLiteral("/cache")));
}

QString StoreFixture::writeFile(const QString &name, qint64 size, char seed) const
{
    QString file = m_dir.filePath(name);
    QFile f(file);
    if (!f.open(QIODevice::WriteOnly))
        return {};
    QByteArray block(1024 * 1024, seed);
    for (qint64 done = 0, i = 0; done < size; ++i) {
        block[0] = char(i);
        block[1] = char(i >> 8);
        const qint64 n = std::min<qint64>(block.size(), size - done);
        f.write(block.constData(), n);
        done += n;
    }
    return file;
}

} // namespace isolation::test
