#include "runtimepin.h"

#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>

namespace isolation {

RuntimePin RuntimePin::builtIn()
{
    auto pin = fromFile(QStringLiteral(":/isolation/runtime-pin.json"));
    Q_ASSERT_X(pin.ok(), "RuntimePin", "the compiled-in runtime pin is broken");
    return pin.ok() ? pin.value() : RuntimePin {};
}

Result<RuntimePin> RuntimePin::fromFile(const QString &path)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return Error::notFound(QStringLiteral("cannot read the runtime pin %1: %2").arg(path, file.errorString()));
    auto pin = fromJson(file.readAll());
    if (!pin)
        return Error::invalidInput(QStringLiteral("%1: %2").arg(path, pin.error().message));
    return pin;
}

Result<RuntimePin> RuntimePin::fromJson(const QByteArray &json)
{
    QJsonParseError pe {};
    const QJsonDocument doc = QJsonDocument::fromJson(json, &pe);
    if (pe.error != QJsonParseError::NoError || !doc.isObject())
        return Error::invalidInput(QStringLiteral("the runtime pin is not a JSON object"));
    const QJsonObject o = doc.object();
    RuntimePin pin;
    pin.opensandbox = o.value(QStringLiteral("opensandbox")).toString();
    pin.lifecycleImage = o.value(QStringLiteral("lifecycleImage")).toString();
    pin.execdImage = o.value(QStringLiteral("execdImage")).toString();
    if (pin.lifecycleImage.isEmpty() || pin.execdImage.isEmpty())
        return Error::invalidInput(QStringLiteral("the runtime pin names no lifecycleImage or execdImage"));
    const QJsonObject digests = o.value(QStringLiteral("digests")).toObject();
    for (auto it = digests.begin(); it != digests.end(); ++it) {
        const QString d = it.value().toString();
        if (!d.startsWith(QLatin1String("sha256:")))
            return Error::invalidInput(QStringLiteral("the pinned digest of %1 is not sha256:...").arg(it.key()));
        pin.digests.insert(it.key(), d);
    }
    return pin;
}

} // namespace isolation
