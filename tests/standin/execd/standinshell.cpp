#include "standinshell.h"

#include "standinanswers.h"

#include <QDateTime>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QRandomGenerator>

namespace isolation::standin {

namespace {

QByteArray shellQuote(const QString &s)
{
    QByteArray out = "'";
    for (char c : s.toUtf8()) {
        if (c == '\'')
            out += "'\\''";
        else
            out += c;
    }
    return out + "'";
}

} // namespace

StandinShell::StandinShell(QObject *parent)
    : QObject(parent)
{ }

StandinShell::~StandinShell()
{
    for (Session &s : m_sessions) {
        s.shell->kill();
        s.shell->waitForFinished(1000);
    }
}

void StandinShell::create(const HttpRequest &request, HttpReply reply)
{
    QJsonObject body;
    QString why;
    if (!request.jsonBody(&body, &why))
        return reply.send(apiError(400, "INVALID_REQUEST_BODY", why));
    const QString id = QStringLiteral("session-%1").arg(++m_next);
    auto *shell = new QProcess(this);
    shell->setProgram(QStringLiteral("/bin/sh"));
    const QString cwd = body.value(QStringLiteral("cwd")).toString();
    if (!cwd.isEmpty())
        shell->setWorkingDirectory(cwd);
    shell->start();
    if (!shell->waitForStarted(5000)) {
        delete shell;
        return reply.send(apiError(500, "RUNTIME_ERROR", QStringLiteral("cannot start a shell")));
    }
    m_sessions.insert(id, Session {shell, false});
    connect(shell, &QProcess::finished, this, [this, id] {
        auto it = m_sessions.find(id);
        if (it != m_sessions.end()) {
            it->shell->deleteLater();
            m_sessions.erase(it);
        }
    });
    reply.send(HttpResponse::json(200, QJsonObject {{QStringLiteral("session_id"), id}}));
}

void StandinShell::run(const HttpRequest &request, HttpReply reply)
{
    const QString id = request.params.value(QStringLiteral("id"));
    auto it = m_sessions.find(id);
    if (it == m_sessions.end())
        return reply.send(apiError(404, "SESSION_NOT_FOUND", QStringLiteral("no session %1").arg(id)));
    QJsonObject body;
    QString why;
    if (!request.jsonBody(&body, &why) || !body.value(QStringLiteral("command")).isString())
        return reply.send(
            apiError(400, "INVALID_REQUEST_BODY", why.isEmpty() ? QStringLiteral("command is required") : why));
    if (it->busy)
        return reply.send(apiError(409, "SESSION_BUSY", QStringLiteral("the session runs a command")));
    it->busy = true;
    QProcess *shell = it->shell;
    // The end of this run's output: a line no command prints by chance, with the exit status.
    const QByteArray marker = "__isolation_standin_" + QByteArray::number(QRandomGenerator::global()->generate64(), 16);
    QByteArray script;
    const QString cwd = body.value(QStringLiteral("cwd")).toString();
    if (!cwd.isEmpty())
        script += "cd " + shellQuote(cwd) + " && ";
    script += "{ " + body.value(QStringLiteral("command")).toString().toUtf8() + "\n} </dev/null; printf '\\n" + marker
        + " %d\\n' $? ; printf '" + marker + "\\n' >&2\n";
    const qint64 started = QDateTime::currentMSecsSinceEpoch();
    reply.sendHead(200, {{"Content-Type", "text/event-stream"}, {"Cache-Control", "no-cache"}});
    reply.write(sseEvent({{QStringLiteral("type"), QStringLiteral("init")}, {QStringLiteral("text"), id}}));
    struct State
    {
        QByteArray out;
        QByteArray err;
        bool outDone = false;
        bool errDone = false;
        int exitCode = 0;
    };
    auto state = std::make_shared<State>();
    auto connections = std::make_shared<QList<QMetaObject::Connection>>();
    auto finish = [this, id, reply, state, connections, started] {
        for (const auto &c : *connections)
            disconnect(c);
        if (state->exitCode != 0)
            reply.write(sseEvent({{QStringLiteral("type"), QStringLiteral("error")},
                {QStringLiteral("error"),
                    QJsonObject {{QStringLiteral("ename"), QStringLiteral("CommandExecError")},
                        {QStringLiteral("evalue"), QString::number(state->exitCode)}}}}));
        reply.write(sseEvent({{QStringLiteral("type"), QStringLiteral("execution_complete")},
            {QStringLiteral("execution_time"), QDateTime::currentMSecsSinceEpoch() - started}}));
        reply.finish();
        auto it = m_sessions.find(id);
        if (it != m_sessions.end())
            it->busy = false;
    };
    auto drain = [shell, reply, state, marker, finish] {
        state->out += shell->readAllStandardOutput();
        state->err += shell->readAllStandardError();
        if (!state->outDone) {
            const qsizetype at = state->out.indexOf(QByteArray("\n" + marker + ' '));
            const QByteArray text = at >= 0
                ? state->out.left(at)
                : state->out.left(std::max<qsizetype>(0, state->out.size() - marker.size() - 24));
            if (!text.isEmpty())
                reply.write(sseEvent({{QStringLiteral("type"), QStringLiteral("stdout")},
                    {QStringLiteral("text"), QString::fromUtf8(text)}}));
            state->out.remove(0, text.size());
            if (at >= 0) {
                const qsizetype end = state->out.indexOf('\n', marker.size() + 2);
                if (end >= 0) {
                    state->exitCode = state->out.mid(marker.size() + 2, end - marker.size() - 2).trimmed().toInt();
                    state->outDone = true;
                }
            }
        }
        if (!state->errDone) {
            const qsizetype at = state->err.indexOf(QByteArray(marker + '\n'));
            const QByteArray text = at >= 0 ? state->err.left(at) : state->err;
            if (!text.isEmpty())
                reply.write(sseEvent({{QStringLiteral("type"), QStringLiteral("stderr")},
                    {QStringLiteral("text"), QString::fromUtf8(text)}}));
            state->err.remove(0, text.size());
            if (at >= 0)
                state->errDone = true;
        }
        if (state->outDone && state->errDone)
            finish();
    };
    connections->append(connect(shell, &QProcess::readyReadStandardOutput, this, drain));
    connections->append(connect(shell, &QProcess::readyReadStandardError, this, drain));
    connections->append(connect(shell, &QProcess::finished, this, [state, finish] {
        state->exitCode = state->exitCode ? state->exitCode : 137;
        finish();
    }));
    shell->write(script);
}

void StandinShell::remove(const HttpRequest &request, HttpReply reply)
{
    auto it = m_sessions.find(request.params.value(QStringLiteral("id")));
    if (it == m_sessions.end())
        return reply.send(apiError(404, "SESSION_NOT_FOUND", QStringLiteral("no such session")));
    QProcess *shell = it->shell;
    m_sessions.erase(it);
    disconnect(shell, nullptr, this, nullptr);
    shell->kill();
    shell->waitForFinished(2000);
    shell->deleteLater();
    reply.send(HttpResponse {200, {}, {}});
}

} // namespace isolation::standin
