#include "actionlog.h"

#include <QDateTime>
#include <QFile>
#include <QJsonDocument>
#include <QLoggingCategory>

Q_DECLARE_LOGGING_CATEGORY(lcHub)

namespace isolation::hub {

ActionLog::ActionLog(QString file)
    : m_file(std::move(file))
{ }

void ActionLog::record(const QString &action, const QJsonObject &detail)
{
    QJsonObject entry = detail;
    entry.insert(QStringLiteral("time"), QDateTime::currentDateTimeUtc().toString(Qt::ISODateWithMs));
    entry.insert(QStringLiteral("action"), action);
    QFile file(m_file);
    if (file.open(QIODevice::Append)) {
        file.setPermissions(QFileDevice::ReadOwner | QFileDevice::WriteOwner);
        file.write(QJsonDocument(entry).toJson(QJsonDocument::Compact) + '\n');
    }
    qCInfo(lcHub).noquote() << "action" << action << QJsonDocument(detail).toJson(QJsonDocument::Compact);
}

QJsonArray ActionLog::recent(int limit) const
{
    QFile file(m_file);
    QJsonArray out;
    if (!file.open(QIODevice::ReadOnly))
        return out;
    QList<QByteArray> lines = file.readAll().split('\n');
    for (qsizetype i = std::max<qsizetype>(0, lines.size() - limit - 1); i < lines.size(); ++i) {
        const QJsonDocument doc = QJsonDocument::fromJson(lines.at(i));
        if (doc.isObject())
            out.append(doc.object());
    }
    return out;
}

} // namespace isolation::hub
