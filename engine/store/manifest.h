// Manifest: the small object that says what a workspace is on the hub — its generation, the save
// that wrote it, the encrypted segments (git bundles) in the order they apply, and the refs after
// applying them. JSON inside the encrypted object format (docs/formats.md, "Manifest").
#pragma once

#include "crypto/objectformat.h"
#include "storeerror.h"

#include <QByteArray>
#include <QDateTime>
#include <QList>
#include <QMap>
#include <QString>
#include <QStringList>

namespace isolation {

struct ManifestSegment
{
    enum class Kind { Full, Thin };

    QString id; // 32 hex digits, random, chosen before encryption: the segment's object name is "segment/<id>"
    QString name; // 64 hex digits: SHA-256 of the encrypted bytes, the hub's name for it
    qint64 size = 0; // encrypted bytes
    Kind kind = Kind::Full;
    QMap<QString, QString> refs; // ref name -> object id, the tips the bundle carries
    QStringList prerequisites; // object ids the bundle needs (thin bundles only)

    bool operator==(const ManifestSegment &) const = default;
};

class Manifest
{
public:
    static constexpr int kFormat = 1;
    // Compaction: a chain this long, or thin segments larger in total than the full one, makes the
    // next save write one full bundle (needsCompaction()).
    static constexpr int kMaxChain = 16;
    static constexpr int kRecentSaves = 32; // save ids remembered, for settling uncertain saves

    QString workspaceId;
    qint64 generation = 0; // 1 for the first manifest, then strictly increasing
    QString saveId; // the save that wrote this manifest
    QDateTime savedAt;
    QList<ManifestSegment> segments; // the first full, the rest thin, in the order they apply
    QMap<QString, QString> refs; // the workspace after all segments: refs/heads/main, refs/heads/session/*
    QStringList recentSaves; // the last kRecentSaves save ids, oldest first, ending with saveId

    // The manifest a save on top of this one starts from: the next generation, a new save id, the
    // same segments and refs (the caller adds its segment and sets the refs).
    Manifest successor(const QString &newSaveId) const;
    // True when this manifest, or one of the kRecentSaves before it, was written by that save.
    bool carriesSave(const QString &id) const { return recentSaves.contains(id); }
    // The compaction rule: true when the next save should write a full bundle and name only it.
    bool needsCompaction() const;
    // The segment names this manifest has and `next` does not (what a compacting save leaves behind).
    QStringList segmentsDroppedBy(const Manifest &next) const;

    QByteArray toJson() const;
    // Strict: unknown format versions, missing or malformed fields, a chain that does not start
    // with a full bundle are all Refused.
    static StoreResult<Manifest> fromJson(QByteArrayView json);

    // Encrypted as kind Manifest under the object name "manifest" of its workspace.
    StoreResult<QByteArray> seal(QByteArrayView workspaceKey) const;
    // Decrypts and parses; Refused when it does not verify or belongs to another workspace.
    static StoreResult<Manifest> open(QByteArrayView workspaceKey, const QString &workspaceId, QByteArrayView sealed);

    static ObjectBinding binding(const QString &workspaceId);
    static ObjectBinding segmentBinding(const QString &workspaceId, const QString &segmentId);
    static QString newSaveId();
    static QString newSegmentId();
};

} // namespace isolation
