#include "sessionrecord.h"

#include "core/storagefault.h"

#include "sessionjson.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QSaveFile>

namespace isolation {

namespace {

QJsonArray refsToJson(const QList<BundleRef> &refs)
{
    QJsonArray a;
    for (const BundleRef &r : refs)
        a.append(QJsonObject {
            {QStringLiteral("name"), QString::fromUtf8(r.name)}, {QStringLiteral("id"), QString::fromLatin1(r.id)}});
    return a;
}

QList<BundleRef> refsFromJson(const QJsonArray &a)
{
    QList<BundleRef> refs;
    for (const QJsonValue v : a) {
        const QJsonObject o = v.toObject();
        refs.append(
            {o.value(QStringLiteral("id")).toString().toLatin1(), o.value(QStringLiteral("name")).toString().toUtf8()});
    }
    return refs;
}

} // namespace

QJsonObject SessionRecord::toJson() const
{
    QJsonObject o {{QStringLiteral("format"), 1}, {QStringLiteral("id"), id},
        {QStringLiteral("workspace"),
            QJsonObject {{QStringLiteral("id"), workspaceId}, {QStringLiteral("name"), workspaceName}}},
        {QStringLiteral("created"), created.toUTC().toString(Qt::ISODateWithMs)}, {QStringLiteral("state"), state},
        {QStringLiteral("etag"), QString::fromLatin1(etag)}, {QStringLiteral("generation"), generation},
        {QStringLiteral("lastSave"), lastSave ? isolation::toJson(*lastSave) : QJsonObject()},
        {QStringLiteral("lastSync"), lastSync ? isolation::toJson(*lastSync) : QJsonObject()}};
    if (sandbox)
        o.insert(QStringLiteral("sandbox"), sandbox->toJson());
    if (pending) {
        o.insert(QStringLiteral("pendingPublish"),
            QJsonObject {{QStringLiteral("saveId"), pending->saveId},
                {QStringLiteral("generation"), pending->generation},
                {QStringLiteral("refs"), refsToJson(pending->refs)}});
    }
    if (interrupted) {
        o.insert(QStringLiteral("interruptedSave"),
            QJsonObject {{QStringLiteral("files"), QJsonArray::fromStringList(interrupted->files)},
                {QStringLiteral("message"), interrupted->message}});
    }
    return o;
}

Result<SessionRecord> SessionRecord::fromJson(const QJsonObject &o)
{
    SessionRecord r;
    r.id = o.value(QStringLiteral("id")).toString();
    const QJsonObject ws = o.value(QStringLiteral("workspace")).toObject();
    r.workspaceId = ws.value(QStringLiteral("id")).toString();
    r.workspaceName = ws.value(QStringLiteral("name")).toString();
    if (o.value(QStringLiteral("format")).toInt() != 1 || r.id.isEmpty() || r.workspaceId.isEmpty())
        return Error::invalidInput(QStringLiteral("not a session record"));
    r.created = QDateTime::fromString(o.value(QStringLiteral("created")).toString(), Qt::ISODateWithMs);
    r.state = o.value(QStringLiteral("state")).toString();
    r.etag = o.value(QStringLiteral("etag")).toString().toLatin1();
    r.generation = o.value(QStringLiteral("generation")).toInteger();
    r.lastSave = lastSaveFromJson(o.value(QStringLiteral("lastSave")).toObject());
    r.lastSync = lastSyncFromJson(o.value(QStringLiteral("lastSync")).toObject());
    r.sandbox = SandboxRecord::fromJson(o.value(QStringLiteral("sandbox")).toObject());
    if (o.contains(QStringLiteral("pendingPublish"))) {
        const QJsonObject p = o.value(QStringLiteral("pendingPublish")).toObject();
        r.pending = PendingPublish {p.value(QStringLiteral("saveId")).toString(),
            p.value(QStringLiteral("generation")).toInteger(), refsFromJson(p.value(QStringLiteral("refs")).toArray())};
    }
    if (o.contains(QStringLiteral("interruptedSave"))) {
        const QJsonObject i = o.value(QStringLiteral("interruptedSave")).toObject();
        QStringList files;
        for (const QJsonValue v : i.value(QStringLiteral("files")).toArray())
            files.append(v.toString());
        r.interrupted = InterruptedSave {files, i.value(QStringLiteral("message")).toString()};
    }
    return r;
}

Result<SessionRecord> SessionRecord::load(const QString &file)
{
    QFile f(file);
    if (!f.open(QIODevice::ReadOnly))
        return Error::notFound(QStringLiteral("cannot read %1: %2").arg(file, f.errorString()));
    QJsonParseError pe {};
    const QJsonDocument doc = QJsonDocument::fromJson(f.readAll(), &pe);
    if (pe.error != QJsonParseError::NoError || !doc.isObject())
        return Error::invalidInput(QStringLiteral("%1 is not JSON: %2").arg(file, pe.errorString()));
    return fromJson(doc.object());
}

Status SessionRecord::save(const QString &file) const
{
    QSaveFile f(file);
    f.setDirectWriteFallback(false);
    if (!f.open(QIODevice::WriteOnly) || f.write(QJsonDocument(toJson()).toJson()) < 0 || !f.commit())
        return Error::failed(writeFailureText(file, f.errorString()));
    return {};
}

} // namespace isolation
