// ViewTargetResolver over the OpenSandbox lifecycle API: sessions registered with their sandbox
// id and execd access token; execd's endpoint asked of the lifecycle server once, then cached.
#pragma once

#include "viewtargets.h"

#include <QHash>
#include <QObject>

namespace isolation {

class LifecycleClient;

class LifecycleViewTargets final : public QObject, public ViewTargetResolver
{
    Q_OBJECT
public:
    explicit LifecycleViewTargets(LifecycleClient *lifecycle, QObject *parent = nullptr);

    // A fresh execd access token (32 random bytes, base64url) to give a sandbox in its
    // environment (EXECD_ACCESS_TOKEN) when it is created.
    static QByteArray newAccessToken();

    void add(const QString &sessionId, const QString &sandboxId, const QByteArray &accessToken);
    void remove(const QString &sessionId);
    void resolve(const QString &sessionId, Callback done) override;
    std::optional<Result<ViewTarget>> resolveNow(const QString &sessionId) override;

private:
    struct Entry
    {
        QString sandboxId;
        QByteArray accessToken;
        QString host;
        quint16 port = 0;
        QList<Callback> waiting;
    };
    LifecycleClient *m_lifecycle;
    QHash<QString, Entry> m_sessions;
};

} // namespace isolation
