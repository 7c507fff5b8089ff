#include "workspacesessions.h"

#include "atomicfile.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>

namespace isolation::hub {

WorkspaceSessions::WorkspaceSessions(QString file)
    : m_file(std::move(file))
{ }

bool WorkspaceSessions::isSessionId(const QString &id)
{
    static const QRegularExpression format(QStringLiteral("^s[0-9a-f]{12}$"));
    return format.match(id).hasMatch();
}

Status WorkspaceSessions::load()
{
    QFile f(m_file);
    if (!f.exists())
        return {};
    if (!f.open(QIODevice::ReadOnly))
        return Error::failed(QStringLiteral("cannot read %1: %2").arg(m_file, f.errorString()));
    QJsonParseError pe {};
    const QJsonDocument doc = QJsonDocument::fromJson(f.readAll(), &pe);
    if (pe.error != QJsonParseError::NoError || !doc.isObject())
        return Error::failed(QStringLiteral("%1 is not the hub's session list: %2").arg(m_file, pe.errorString()));
    for (const QJsonValue v : doc.object().value(QStringLiteral("sessions")).toArray()) {
        const QJsonObject o = v.toObject();
        WorkspaceSession s;
        s.id = o.value(QStringLiteral("session")).toString();
        s.serverId = o.value(QStringLiteral("server")).toString();
        s.workspaceId = o.value(QStringLiteral("workspace")).toString();
        s.launched = o.value(QStringLiteral("launched")).toBool();
        s.since = QDateTime::fromString(o.value(QStringLiteral("since")).toString(), Qt::ISODate);
        s.endedAt = QDateTime::fromString(o.value(QStringLiteral("endedAt")).toString(), Qt::ISODate);
        if (isSessionId(s.id) && !s.serverId.isEmpty() && !s.workspaceId.isEmpty())
            m_sessions.insert(s.id, s);
    }
    return {};
}

Status WorkspaceSessions::save() const
{
    QJsonArray list;
    for (const WorkspaceSession &s : m_sessions) {
        QJsonObject o {{QStringLiteral("session"), s.id}, {QStringLiteral("server"), s.serverId},
            {QStringLiteral("workspace"), s.workspaceId}, {QStringLiteral("launched"), s.launched},
            {QStringLiteral("since"), s.since.toString(Qt::ISODate)}};
        if (s.endedAt.isValid())
            o.insert(QStringLiteral("endedAt"), s.endedAt.toString(Qt::ISODate));
        list.append(o);
    }
    return AtomicFile::replace(m_file, QJsonDocument(QJsonObject {{QStringLiteral("sessions"), list}}).toJson());
}

const WorkspaceSession *WorkspaceSessions::session(const QString &id) const
{
    auto it = m_sessions.constFind(id);
    return it == m_sessions.constEnd() ? nullptr : &*it;
}

Status WorkspaceSessions::launch(const QString &id, const QString &serverId, const QString &workspaceId)
{
    if (!isSessionId(id))
        return Error::invalidInput(QStringLiteral("%1 is not a session id").arg(id));
    auto it = m_sessions.find(id);
    if (it != m_sessions.end()) {
        if (it->workspaceId != workspaceId)
            return Error::invalidInput(QStringLiteral("session %1 uses another workspace").arg(id));
        if (it->endedAt.isValid())
            return Error::invalidInput(QStringLiteral("session %1 ended").arg(id));
        if (it->serverId == serverId && it->launched)
            return {};
        it->serverId = serverId; // resumed on another server: its bearers go there now
        it->launched = true;
    } else {
        m_sessions.insert(id, {id, serverId, workspaceId, true, QDateTime::currentDateTimeUtc(), {}});
    }
    return save();
}

Status WorkspaceSessions::use(const QString &id, const QString &serverId, const QString &workspaceId, bool *declared)
{
    *declared = false;
    const WorkspaceSession *s = session(id);
    if (!s) {
        m_sessions.insert(id, {id, serverId, workspaceId, false, QDateTime::currentDateTimeUtc(), {}});
        if (auto saved = save(); !saved) {
            m_sessions.remove(id);
            return saved;
        }
        *declared = true;
        return {};
    }
    if (s->serverId != serverId)
        return Error::invalidInput(QStringLiteral("session %1 runs on another server").arg(id));
    if (s->workspaceId != workspaceId)
        return Error::invalidInput(QStringLiteral("session %1 uses another workspace").arg(id));
    if (s->endedAt.isValid())
        return Error::invalidInput(QStringLiteral("session %1 ended").arg(id));
    return {};
}

Status WorkspaceSessions::end(const QString &id, const QString &serverId)
{
    auto it = m_sessions.find(id);
    if (it == m_sessions.end() || it->serverId != serverId)
        return Error::notFound(QStringLiteral("this server has no session %1").arg(id));
    if (it->endedAt.isValid())
        return {};
    it->endedAt = QDateTime::currentDateTimeUtc();
    return save();
}

} // namespace isolation::hub
