#include "objectstore.h"

#include "atomicfile.h"

#include "crypto/random.h"

#include <QCryptographicHash>
#include <QDir>
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>

namespace isolation::hub {

namespace {

const QString kManifest = QStringLiteral("manifest");
const QString kSegments = QStringLiteral("segments");
const QString kRecord = QStringLiteral("workspace.json");

constexpr auto kPrivateDir = QFileDevice::ReadOwner | QFileDevice::WriteOwner | QFileDevice::ExeOwner;

bool makePrivateDir(const QString &path)
{
    return QDir().mkpath(path) && QFile::setPermissions(path, kPrivateDir);
}

} // namespace

ObjectStore::ObjectStore(QString root)
    : m_root(std::move(root))
{ }

QString ObjectStore::workspaceDir(const QString &id) const
{
    return m_root + QLatin1Char('/') + id;
}

QString ObjectStore::segmentDir(const QString &workspaceId) const
{
    return workspaceDir(workspaceId) + QLatin1Char('/') + kSegments;
}

QString ObjectStore::segmentPath(const QString &workspaceId, const QString &name) const
{
    return segmentDir(workspaceId) + QLatin1Char('/') + name;
}

Status ObjectStore::load()
{
    if (!makePrivateDir(m_root))
        return Error::failed(QStringLiteral("cannot create %1").arg(m_root));
    m_workspaces.clear();
    const QStringList ids = QDir(m_root).entryList(QDir::Dirs | QDir::NoDotAndDotDot, QDir::Name);
    for (const QString &id : ids) {
        QFile file(workspaceDir(id) + QLatin1Char('/') + kRecord);
        if (!file.open(QIODevice::ReadOnly))
            continue; // a workspace whose creation did not finish
        const QJsonObject o = QJsonDocument::fromJson(file.readAll()).object();
        WorkspaceRecord r {o.value(QStringLiteral("id")).toString(), o.value(QStringLiteral("name")).toString(),
            o.value(QStringLiteral("member")).toString(),
            QDateTime::fromString(o.value(QStringLiteral("createdAt")).toString(), Qt::ISODate)};
        if (r.id != id || r.memberId.isEmpty())
            return Error::failed(QStringLiteral("%1 is corrupt").arg(file.fileName()));
        AtomicFile::removeLeftovers(workspaceDir(id));
        AtomicFile::removeLeftovers(segmentDir(id));
        m_workspaces.append(r);
    }
    return {};
}

Result<WorkspaceRecord> ObjectStore::createWorkspace(const QString &name, const QString &memberId)
{
    const QString trimmed = name.trimmed();
    static const QRegularExpression control(QStringLiteral("[\\x00-\\x1f\\x7f]"));
    if (trimmed.isEmpty() || trimmed.size() > 100 || trimmed.contains(control))
        return Error::invalidInput(QStringLiteral("a workspace name is 1 to 100 printable characters"));
    WorkspaceRecord r {QStringLiteral("ws_") + QString::fromLatin1(randomBytes(10).toHex()), trimmed, memberId,
        QDateTime::currentDateTimeUtc()};
    if (!makePrivateDir(workspaceDir(r.id)) || !makePrivateDir(segmentDir(r.id)))
        return Error::failed(QStringLiteral("cannot create %1").arg(workspaceDir(r.id)));
    const QJsonObject o {{QStringLiteral("id"), r.id}, {QStringLiteral("name"), r.name},
        {QStringLiteral("member"), r.memberId}, {QStringLiteral("createdAt"), r.createdAt.toString(Qt::ISODate)}};
    // The record last: a crash before it leaves a directory load() ignores.
    if (auto s = AtomicFile::replace(
            workspaceDir(r.id) + QLatin1Char('/') + kRecord, QJsonDocument(o).toJson(QJsonDocument::Indented));
        !s)
        return s.error();
    m_workspaces.append(r);
    return r;
}

const WorkspaceRecord *ObjectStore::workspace(const QString &id) const
{
    for (const WorkspaceRecord &r : m_workspaces) {
        if (r.id == id)
            return &r;
    }
    return nullptr;
}

Result<std::optional<ObjectStore::StoredManifest>> ObjectStore::manifest(const QString &workspaceId) const
{
    QFile file(workspaceDir(workspaceId) + QLatin1Char('/') + kManifest);
    if (!file.exists())
        return std::optional<StoredManifest>();
    if (!file.open(QIODevice::ReadOnly))
        return Error::failed(QStringLiteral("cannot read %1: %2").arg(file.fileName(), file.errorString()));
    StoredManifest m;
    m.bytes = file.readAll();
    m.etag = etagOf(m.bytes);
    return std::optional<StoredManifest>(std::move(m));
}

Result<ObjectStore::CasResult> ObjectStore::putManifest(
    const QString &workspaceId, QByteArrayView bytes, const QByteArray &ifMatch, bool ifNoneMatchAny)
{
    auto current = manifest(workspaceId);
    if (!current)
        return current.error();
    const std::optional<StoredManifest> &now = current.value();
    CasResult result;
    result.etag = now ? now->etag : QByteArray();
    if (ifNoneMatchAny && now)
        return result;
    if (!ifMatch.isEmpty() && (!now || (ifMatch.trimmed() != "*" && !etagListMatches(ifMatch, now->etag))))
        return result;
    // From the check above to the rename below nothing yields to the event loop: two writers with
    // the same precondition cannot both get here with it holding.
    if (auto s = AtomicFile::replace(workspaceDir(workspaceId) + QLatin1Char('/') + kManifest, bytes); !s)
        return s.error();
    result.stored = true;
    result.created = !now;
    result.etag = etagOf(bytes);
    return result;
}

bool ObjectStore::hasSegment(const QString &workspaceId, const QString &name) const
{
    return QFile::exists(segmentPath(workspaceId, name));
}

Status ObjectStore::deleteSegment(const QString &workspaceId, const QString &name)
{
    QFile file(segmentPath(workspaceId, name));
    if (!file.exists())
        return Error::notFound(QStringLiteral("no segment %1").arg(name));
    if (!file.remove())
        return Error::failed(QStringLiteral("cannot delete %1: %2").arg(file.fileName(), file.errorString()));
    return AtomicFile::syncDirectory(segmentDir(workspaceId));
}

ObjectStore::Usage ObjectStore::usage(const QString &workspaceId) const
{
    Usage u;
    const QFileInfoList files = QDir(segmentDir(workspaceId)).entryInfoList(QDir::Files);
    for (const QFileInfo &f : files) {
        if (isSegmentName(f.fileName())) {
            ++u.segments;
            u.bytes += f.size();
        }
    }
    if (auto m = manifest(workspaceId); m && m.value()) {
        u.bytes += m.value()->bytes.size();
        u.manifestEtag = m.value()->etag;
    }
    return u;
}

QByteArray ObjectStore::etagOf(QByteArrayView bytes)
{
    return '"' + QCryptographicHash::hash(bytes, QCryptographicHash::Sha256).toHex() + '"';
}

bool ObjectStore::etagListMatches(const QByteArray &headerValue, const QByteArray &etag)
{
    const QList<QByteArray> tags = headerValue.split(',');
    for (const QByteArray &t : tags) {
        if (t.trimmed() == etag) // a weak "W/..." tag never equals a strong one
            return true;
    }
    return false;
}

bool ObjectStore::isSegmentName(const QString &name)
{
    static const QRegularExpression hex(QStringLiteral("^[0-9a-f]{64}$"));
    return hex.match(name).hasMatch();
}

} // namespace isolation::hub
