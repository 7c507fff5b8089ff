#include "pairedserver.h"

#include "browserapproval.h"

#include "core/paths.h"
#include "engine.h"

#include <QDeadlineTimer>
#include <QFile>
#include <QTest>

namespace isolation::test {

std::optional<ServerIdentity> pairServer(const QUrl &hubUrl, const QString &home, const QString &name)
{
    QProcessEnvironment env;
    env.insert(QStringLiteral("ISOLATION_HOME"), home);
    EngineOptions options;
    options.credentialStore = CredentialStoreKind::File;
    Engine engine(Paths::resolve(env).value(), options);
    if (!engine.start().ok() || !engine.startPairing(hubUrl, name).ok())
        return std::nullopt;
    QString code;
    QDeadlineTimer deadline(20000);
    while (code.isEmpty() && !deadline.hasExpired()) {
        const QJsonObject s = engine.pairingStatus();
        if (s.value(QStringLiteral("state")).toString() == QLatin1String("waiting_for_approval"))
            code = s.value(QStringLiteral("userCode")).toString();
        QTest::qWait(20);
    }
    if (code.isEmpty() || submitApprovalPage(hubUrl, code).status != 200)
        return std::nullopt;
    while (engine.state() != EngineState::Online && !deadline.hasExpired())
        QTest::qWait(20);
    if (engine.state() != EngineState::Online)
        return std::nullopt;
    engine.stop();
    QFile file(home + QStringLiteral("/data/credentials.json"));
    if (!file.open(QIODevice::ReadOnly))
        return std::nullopt;
    auto identity = ServerIdentity::fromBlob(file.readAll());
    if (!identity)
        return std::nullopt;
    return std::move(identity).value();
}

} // namespace isolation::test
