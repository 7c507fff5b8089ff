#include "manifest.h"

#include "crypto/objectcipher.h"
#include "crypto/random.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>

namespace isolation {

namespace {

const QLatin1String kFull("full");
const QLatin1String kThin("thin");

bool isHex(const QString &s, int length)
{
    static const QRegularExpression hex(QStringLiteral("^[0-9a-f]+$"));
    return s.size() == length && hex.match(s).hasMatch();
}

bool isObjectId(const QString &s)
{
    return isHex(s, 40) || isHex(s, 64); // SHA-1 or SHA-256 repositories
}

QJsonObject refsToJson(const QMap<QString, QString> &refs)
{
    QJsonObject o;
    for (auto it = refs.cbegin(); it != refs.cend(); ++it)
        o.insert(it.key(), it.value());
    return o;
}

bool refsFromJson(const QJsonValue &v, QMap<QString, QString> *out)
{
    if (!v.isObject())
        return false;
    const QJsonObject o = v.toObject();
    for (auto it = o.constBegin(); it != o.constEnd(); ++it) {
        if (!it.key().startsWith(QLatin1String("refs/")) || !isObjectId(it.value().toString()))
            return false;
        out->insert(it.key(), it.value().toString());
    }
    return true;
}

bool integer(const QJsonValue &v, qint64 min, qint64 *out)
{
    if (!v.isDouble())
        return false;
    const double d = v.toDouble();
    if (d < double(min) || d > 9007199254740991.0 || d != double(qint64(d)))
        return false;
    *out = qint64(d);
    return true;
}

StoreError malformed(const QString &what)
{
    return StoreError::refused(QStringLiteral("the workspace manifest is malformed: %1").arg(what));
}

} // namespace

Manifest Manifest::successor(const QString &newSaveId) const
{
    Manifest next = *this;
    next.generation = generation + 1;
    next.saveId = newSaveId;
    next.savedAt = QDateTime::currentDateTimeUtc();
    next.recentSaves.append(newSaveId);
    while (next.recentSaves.size() > kRecentSaves)
        next.recentSaves.removeFirst();
    return next;
}

int Manifest::nextSegmentAt() const
{
    const int count = int(segments.size());
    if (count == 0 || segments.first().kind != ManifestSegment::Kind::Full)
        return 0;
    qint64 full = 0;
    qint64 thin = 0;
    for (const ManifestSegment &s : segments)
        (s.kind == ManifestSegment::Kind::Full ? full : thin) += s.size;
    if (thin > full)
        return 0;
    if (count < kMaxChain)
        return count;
    qint64 after = 0; // the bytes of segments[i + 1…]
    QList<qint64> tail(count, 0);
    for (int i = count - 1; i >= 1; --i) {
        tail[i] = after;
        after += segments[i].size;
    }
    for (int i = 1; i < count - 1; ++i) {
        if (segments[i].size <= tail[i])
            return i;
    }
    return count - 2;
}

QStringList Manifest::tipsBefore(int at) const
{
    if (at <= 0 || at > segments.size())
        return {};
    QStringList tips;
    for (const QString &id : segments[at - 1].refs) {
        if (!tips.contains(id))
            tips.append(id);
    }
    return tips;
}

QStringList Manifest::segmentsDroppedBy(const Manifest &next) const
{
    QStringList dropped;
    for (const ManifestSegment &s : segments) {
        const bool kept = std::any_of(
            next.segments.cbegin(), next.segments.cend(), [&](const ManifestSegment &n) { return n.name == s.name; });
        if (!kept)
            dropped.append(s.name);
    }
    return dropped;
}

QByteArray Manifest::toJson() const
{
    QJsonArray list;
    for (const ManifestSegment &s : segments) {
        list.append(QJsonObject {{QStringLiteral("id"), s.id}, {QStringLiteral("name"), s.name},
            {QStringLiteral("size"), s.size},
            {QStringLiteral("kind"), s.kind == ManifestSegment::Kind::Full ? kFull : kThin},
            {QStringLiteral("refs"), refsToJson(s.refs)},
            {QStringLiteral("prerequisites"), QJsonArray::fromStringList(s.prerequisites)}});
    }
    const QJsonObject o {{QStringLiteral("format"), kFormat}, {QStringLiteral("workspace"), workspaceId},
        {QStringLiteral("generation"), generation}, {QStringLiteral("saveId"), saveId},
        {QStringLiteral("savedAt"), savedAt.toUTC().toString(Qt::ISODateWithMs)}, {QStringLiteral("segments"), list},
        {QStringLiteral("refs"), refsToJson(refs)},
        {QStringLiteral("recentSaves"), QJsonArray::fromStringList(recentSaves)}};
    return QJsonDocument(o).toJson(QJsonDocument::Compact);
}

StoreResult<Manifest> Manifest::fromJson(QByteArrayView json)
{
    QJsonParseError pe {};
    const QJsonDocument doc = QJsonDocument::fromJson(json.toByteArray(), &pe);
    if (pe.error != QJsonParseError::NoError || !doc.isObject())
        return malformed(QStringLiteral("not a JSON object"));
    const QJsonObject o = doc.object();
    qint64 format = 0;
    if (!integer(o.value(QStringLiteral("format")), 1, &format))
        return malformed(QStringLiteral("no format version"));
    if (format != kFormat)
        return StoreError::refused(QStringLiteral("the workspace manifest has format %1, which this version does not "
                                                  "read (it reads %2): update Isolation")
                                       .arg(format)
                                       .arg(kFormat));
    Manifest m;
    m.workspaceId = o.value(QStringLiteral("workspace")).toString();
    if (m.workspaceId.isEmpty())
        return malformed(QStringLiteral("no workspace id"));
    if (!integer(o.value(QStringLiteral("generation")), 1, &m.generation))
        return malformed(QStringLiteral("no generation"));
    m.saveId = o.value(QStringLiteral("saveId")).toString();
    if (m.saveId.isEmpty() || m.saveId.size() > 100)
        return malformed(QStringLiteral("no save id"));
    m.savedAt = QDateTime::fromString(o.value(QStringLiteral("savedAt")).toString(), Qt::ISODateWithMs);
    const QJsonValue segments = o.value(QStringLiteral("segments"));
    if (!segments.isArray())
        return malformed(QStringLiteral("no segment list"));
    for (const QJsonValue v : segments.toArray()) {
        const QJsonObject so = v.toObject();
        ManifestSegment s;
        s.id = so.value(QStringLiteral("id")).toString();
        s.name = so.value(QStringLiteral("name")).toString();
        const QString kind = so.value(QStringLiteral("kind")).toString();
        if (!isHex(s.id, 32) || !isHex(s.name, 64) || !integer(so.value(QStringLiteral("size")), 0, &s.size)
            || (kind != kFull && kind != kThin) || !refsFromJson(so.value(QStringLiteral("refs")), &s.refs))
            return malformed(QStringLiteral("segment %1 is incomplete").arg(m.segments.size()));
        s.kind = kind == kFull ? ManifestSegment::Kind::Full : ManifestSegment::Kind::Thin;
        for (const QJsonValue p : so.value(QStringLiteral("prerequisites")).toArray()) {
            if (!isObjectId(p.toString()))
                return malformed(QStringLiteral("segment %1 has a bad prerequisite").arg(m.segments.size()));
            s.prerequisites.append(p.toString());
        }
        const bool first = m.segments.isEmpty();
        if (first != (s.kind == ManifestSegment::Kind::Full))
            return malformed(QStringLiteral("the chain must start with one full bundle followed by thin ones"));
        m.segments.append(s);
    }
    if (!refsFromJson(o.value(QStringLiteral("refs")), &m.refs))
        return malformed(QStringLiteral("bad refs"));
    for (const QJsonValue v : o.value(QStringLiteral("recentSaves")).toArray())
        m.recentSaves.append(v.toString());
    if (m.recentSaves.isEmpty() || m.recentSaves.last() != m.saveId || m.recentSaves.size() > kRecentSaves)
        return malformed(QStringLiteral("bad list of recent saves"));
    return m;
}

StoreResult<QByteArray> Manifest::seal(QByteArrayView workspaceKey) const
{
    CryptoResult<QByteArray> sealed = encryptObject(workspaceKey, binding(workspaceId), toJson());
    if (!sealed)
        return StoreError::local(QStringLiteral("cannot encrypt the manifest: %1").arg(sealed.error().message));
    return std::move(sealed).value();
}

StoreResult<Manifest> Manifest::open(QByteArrayView workspaceKey, const QString &workspaceId, QByteArrayView sealed)
{
    CryptoResult<QByteArray> json = decryptObject(workspaceKey, binding(workspaceId), sealed);
    if (!json)
        return StoreError::refused(QStringLiteral("the manifest of workspace %1 does not verify (%2): it was "
                                                  "tampered with, or belongs to another workspace")
                                       .arg(workspaceId, json.error().message));
    StoreResult<Manifest> m = fromJson(json.value());
    if (m && m.value().workspaceId != workspaceId)
        return StoreError::refused(QStringLiteral("the manifest stored for workspace %1 names workspace %2")
                                       .arg(workspaceId, m.value().workspaceId));
    return m;
}

ObjectBinding Manifest::binding(const QString &workspaceId)
{
    return {workspaceId, QStringLiteral("manifest"), ObjectBinding::Kind::Manifest};
}

ObjectBinding Manifest::segmentBinding(const QString &workspaceId, const QString &segmentId)
{
    return {workspaceId, QStringLiteral("segment/") + segmentId, ObjectBinding::Kind::Segment};
}

QString Manifest::newSaveId()
{
    return QStringLiteral("sv_") + QString::fromLatin1(randomBytes(12).toHex());
}

QString Manifest::newSegmentId()
{
    return QString::fromLatin1(randomBytes(16).toHex());
}

} // namespace isolation
