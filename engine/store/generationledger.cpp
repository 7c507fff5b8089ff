#include "generationledger.h"

#include "core/storagefault.h"

#include <QCryptographicHash>
#include <QDir>
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>
#include <QSaveFile>

namespace isolation {

GenerationLedger::GenerationLedger(QString dir)
    : m_dir(std::move(dir))
{ }

QString GenerationLedger::fileFor(const QString &workspaceId) const
{
    static const QRegularExpression plain(QStringLiteral("^[A-Za-z0-9_-]{1,100}$"));
    const QString base = plain.match(workspaceId).hasMatch()
        ? workspaceId
        : QString::fromLatin1(QCryptographicHash::hash(workspaceId.toUtf8(), QCryptographicHash::Sha256).toHex());
    return m_dir + QLatin1Char('/') + base + QStringLiteral(".generation.json");
}

GenerationLedger::Seen GenerationLedger::seen(const QString &workspaceId) const
{
    QFile file(fileFor(workspaceId));
    if (!file.open(QIODevice::ReadOnly))
        return {};
    const QJsonObject o = QJsonDocument::fromJson(file.readAll()).object();
    if (o.value(QStringLiteral("workspace")).toString() != workspaceId)
        return {};
    return {qint64(o.value(QStringLiteral("generation")).toDouble()), o.value(QStringLiteral("saveId")).toString()};
}

StoreResult<void> GenerationLedger::admit(const Manifest &manifest) const
{
    const Seen before = seen(manifest.workspaceId);
    if (manifest.generation < before.generation)
        return StoreError::refused(QStringLiteral("the hub served generation %1 of workspace %2, older than generation "
                                                  "%3 this computer has already seen: refusing a rolled-back manifest")
                                       .arg(manifest.generation)
                                       .arg(manifest.workspaceId)
                                       .arg(before.generation));
    if (manifest.generation == before.generation && manifest.saveId != before.saveId)
        return StoreError::refused(QStringLiteral("the hub served another manifest under generation %1 of workspace %2 "
                                                  "than the one this computer has seen: refusing it")
                                       .arg(manifest.generation)
                                       .arg(manifest.workspaceId));
    return {};
}

StoreResult<void> GenerationLedger::record(const Manifest &manifest)
{
    if (manifest.generation <= seen(manifest.workspaceId).generation)
        return {};
    if (!QDir().mkpath(m_dir)
        || !QFile::setPermissions(m_dir, QFileDevice::ReadOwner | QFileDevice::WriteOwner | QFileDevice::ExeOwner))
        return StoreError::local(QStringLiteral("cannot create %1").arg(m_dir));
    QSaveFile file(fileFor(manifest.workspaceId));
    if (!file.open(QIODevice::WriteOnly))
        return StoreError::local(writeFailureText(file.fileName(), file.errorString()));
    file.write(QJsonDocument(
        QJsonObject {{QStringLiteral("workspace"), manifest.workspaceId},
            {QStringLiteral("generation"), manifest.generation}, {QStringLiteral("saveId"), manifest.saveId}})
                   .toJson(QJsonDocument::Compact));
    if (!file.commit())
        return StoreError::local(writeFailureText(file.fileName(), file.errorString()));
    return {};
}

} // namespace isolation
