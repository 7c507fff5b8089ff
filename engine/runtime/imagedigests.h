// Trust on first use for runtime images: the digest each image had the first time the engine
// obtained it, kept in the data directory (runtime.json). An image whose digest later differs
// (or differs from one the pin names) is refused.
#pragma once

#include "core/result.h"

#include <QHash>
#include <QJsonObject>
#include <QString>

namespace isolation {

class ImageDigests
{
public:
    explicit ImageDigests(QString file);

    Status load();
    QString recorded(const QString &image) const { return m_digests.value(image); }

    // Checks an image's identity: `id` is Docker's image id, `repoDigests` its repository digests.
    // A digest the pin names must be one of them; otherwise the first digest seen is recorded
    // (and saved) and later ones must equal it. Fails with a refusal that says what differs.
    Result<QString> verify(
        const QString &image, const QString &id, const QStringList &repoDigests, const QString &pinned = {});

private:
    Status save() const;

    QString m_file;
    QHash<QString, QString> m_digests;
    QJsonObject m_other; // keys of runtime.json owned by others, kept as they were
};

} // namespace isolation
