#include "imagedigests.h"

#include <QFile>
#include <QJsonDocument>
#include <QLoggingCategory>
#include <QSaveFile>

Q_DECLARE_LOGGING_CATEGORY(lcRuntime)

namespace isolation {

ImageDigests::ImageDigests(QString file)
    : m_file(std::move(file))
{ }

Status ImageDigests::load()
{
    m_digests.clear();
    QFile file(m_file);
    if (!file.exists())
        return {};
    if (!file.open(QIODevice::ReadOnly))
        return Error::failed(QStringLiteral("cannot read %1: %2").arg(m_file, file.errorString()));
    const QJsonDocument doc = QJsonDocument::fromJson(file.readAll());
    if (!doc.isObject())
        return Error::failed(
            QStringLiteral("%1 is not a JSON object; remove it to record the images again").arg(m_file));
    m_other = doc.object();
    const QJsonObject digests = m_other.take(QStringLiteral("imageDigests")).toObject();
    for (auto it = digests.begin(); it != digests.end(); ++it)
        m_digests.insert(it.key(), it.value().toString());
    return {};
}

Status ImageDigests::save() const
{
    QJsonObject digests;
    for (auto it = m_digests.begin(); it != m_digests.end(); ++it)
        digests.insert(it.key(), it.value());
    QJsonObject root = m_other;
    root.insert(QStringLiteral("imageDigests"), digests);
    QSaveFile file(m_file);
    if (!file.open(QIODevice::WriteOnly))
        return Error::failed(QStringLiteral("cannot write %1: %2").arg(m_file, file.errorString()));
    file.write(QJsonDocument(root).toJson());
    if (!file.commit())
        return Error::failed(QStringLiteral("cannot write %1: %2").arg(m_file, file.errorString()));
    return {};
}

Result<QString> ImageDigests::verify(
    const QString &image, const QString &id, const QStringList &repoDigests, const QString &pinned)
{
    auto matches = [&](const QString &digest) {
        if (digest == id)
            return true;
        for (const QString &rd : repoDigests) {
            if (rd == digest || rd.endsWith(QLatin1Char('@') + digest))
                return true;
        }
        return false;
    };
    if (!pinned.isEmpty() && !matches(pinned))
        return Error::invalidInput(
            QStringLiteral("refusing image %1: its digest %2 is not the pinned %3").arg(image, id, pinned));
    const QString known = m_digests.value(image);
    if (!known.isEmpty()) {
        if (!matches(known))
            return Error::invalidInput(
                QStringLiteral("refusing image %1: its digest %2 differs from %3, recorded when it was first "
                               "obtained. If you replaced it on purpose, remove its entry from %4")
                    .arg(image, id, known, m_file));
        return known;
    }
    const QString digest = pinned.isEmpty() ? id : pinned;
    m_digests.insert(image, digest);
    if (auto s = save(); !s)
        return s.error();
    qCInfo(lcRuntime) << "recorded image" << image << "digest" << digest;
    return digest;
}

} // namespace isolation
