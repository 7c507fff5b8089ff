// Stand-in only: execd's bash sessions (/session, /session/{id}/run, DELETE /session/{id}):
// one long-lived shell process per session, so its working directory and environment carry
// over from one run to the next; each run's output streams back as SSE.
#pragma once

#include "http/httpserver.h"

#include <QHash>
#include <QObject>

class QProcess;

namespace isolation::standin {

class StandinShell final : public QObject
{
    Q_OBJECT
public:
    explicit StandinShell(QObject *parent = nullptr);
    ~StandinShell() override;
    void create(const HttpRequest &request, HttpReply reply);
    void run(const HttpRequest &request, HttpReply reply);
    void remove(const HttpRequest &request, HttpReply reply);

private:
    struct Session
    {
        QProcess *shell = nullptr;
        bool busy = false;
    };
    QHash<QString, Session> m_sessions;
    int m_next = 0;
};

} // namespace isolation::standin
