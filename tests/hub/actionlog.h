// The hub's action log: one JSON object per line in DIR/actions.log, for `isolation-hub log`.
#pragma once

#include <QJsonArray>
#include <QJsonObject>
#include <QString>

namespace isolation::hub {

class ActionLog
{
public:
    explicit ActionLog(QString file);
    // Appends {time, action, ...detail}. Never pass a credential or key in `detail`.
    void record(const QString &action, const QJsonObject &detail = {});
    QJsonArray recent(int limit = 200) const;

private:
    QString m_file;
};

} // namespace isolation::hub
