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
    // Compaction (nextSegmentAt()): thin segments larger in total than the full one make the next
    // save write one full bundle; a chain this long makes it roll the newer thin segments up.
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
    // The compaction rule: where the next save's segment goes in the chain. It replaces
    // segments[at…]: at == segments.size() appends it (nothing replaced); at == 0 makes it a full
    // bundle naming the whole workspace (no chain yet, or the thin segments together larger than
    // the full one: what the thin ones cost has paid for it); otherwise the chain is kMaxChain long
    // and it is a roll-up, a thin bundle over the tips of segments[at - 1] replacing the thin
    // segments after those: it costs what they hold, never the whole tree. `at` is the first thin
    // segment no larger than all after it together (else the last but one), so segments shrink
    // along the chain and a byte is rewritten a few times, not once per save.
    int nextSegmentAt() const;
    // True when the next save replaces part or all of the chain.
    bool needsCompaction() const { return nextSegmentAt() < segments.size(); }
    // The commits segments[0..at-1] leave the workspace at (their last one's tips): the
    // prerequisites of a roll-up at `at`.
    QStringList tipsBefore(int at) const;
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
