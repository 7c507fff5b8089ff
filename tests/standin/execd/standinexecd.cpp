#include "standinexecd.h"

#include "../requestlog.h"
#include "crypto/consttime.h"
#include "standinanswers.h"
#include "standinmultipart.h"
#include "standinsplice.h"

#include <QDateTime>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QProcess>
#include <QTcpSocket>

#include <QPointer>
#include <QTimer>

#include <csignal>
#include <sys/stat.h>
#include <unistd.h>

namespace isolation::standin {

namespace {

// "/proxy/{port}/rest" -> port and "/rest"; port 0 when the path is not a proxy path.
quint16 proxyTarget(const QString &path, QString *rest)
{
    if (!path.startsWith(QLatin1String("/proxy/")))
        return 0;
    const QString tail = path.mid(7);
    const qsizetype slash = tail.indexOf(QLatin1Char('/'));
    bool ok = false;
    const uint port = (slash < 0 ? tail : tail.left(slash)).toUInt(&ok);
    if (!ok || port == 0 || port > 65535)
        return 0;
    *rest = slash < 0 ? QStringLiteral("/") : tail.mid(slash);
    return quint16(port);
}

} // namespace

StandinExecd::StandinExecd(QObject *parent)
    : QObject(parent)
    , m_network(new QNetworkAccessManager(this))
    , m_shell(new StandinShell(this))
{
    m_http.route("GET", QStringLiteral("/ping"), guarded([](const HttpRequest &r, HttpReply reply) {
        recordRequest("execd", r);
        reply.send(HttpResponse {200, {}, {}});
    }));
    m_http.route("POST", QStringLiteral("/command"), guarded([this](const HttpRequest &r, HttpReply reply) {
        recordRequest("execd", r);
        command(r, reply);
    }));
    m_http.route("DELETE", QStringLiteral("/command"), guarded([this](const HttpRequest &r, HttpReply reply) {
        recordRequest("execd", r);
        interrupt(r, reply);
    }));
    m_http.route("GET", QStringLiteral("/command/status/{id}"), guarded([this](const HttpRequest &r, HttpReply reply) {
        recordRequest("execd", r);
        status(r, reply);
    }));
    m_http.route("POST", QStringLiteral("/session"), guarded([this](const HttpRequest &r, HttpReply reply) {
        recordRequest("execd", r);
        m_shell->create(r, reply);
    }));
    m_http.route("POST", QStringLiteral("/session/{id}/run"), guarded([this](const HttpRequest &r, HttpReply reply) {
        recordRequest("execd", r);
        m_shell->run(r, reply);
    }));
    m_http.route("DELETE", QStringLiteral("/session/{id}"), guarded([this](const HttpRequest &r, HttpReply reply) {
        recordRequest("execd", r);
        m_shell->remove(r, reply);
    }));
    m_http.route("POST", QStringLiteral("/files/upload"), guarded([this](const HttpRequest &r, HttpReply reply) {
        recordRequest("execd", r);
        upload(r, reply);
    }));
    m_http.route("GET", QStringLiteral("/files/download"), guarded([this](const HttpRequest &r, HttpReply reply) {
        recordRequest("execd", r);
        download(r, reply);
    }));
    m_http.route("GET", QStringLiteral("/directories/list"), guarded([this](const HttpRequest &r, HttpReply reply) {
        recordRequest("execd", r);
        listDirectory(r, reply);
    }));
    m_http.setFallback(guarded([this](const HttpRequest &r, HttpReply reply) { proxy(r, reply); }));
    m_http.setUpgradeHandler([this](const HttpRequest &r, QIODevice *device, const QByteArray &,
                                 const QByteArray &rest) { return proxyUpgrade(r, device, rest); });
    HttpRequestParser::Limits limits = m_http.limits();
    limits.maxBodyBytes = 256 * 1024 * 1024;
    m_http.setLimits(limits);
}

bool StandinExecd::authorised(const HttpRequest &request) const
{
    return m_token.isEmpty() || constantTimeEquals(request.header("x-execd-access-token"), m_token);
}

HttpServer::Handler StandinExecd::guarded(std::function<void(const HttpRequest &, HttpReply)> handler)
{
    return [this, handler = std::move(handler)](const HttpRequest &r, HttpReply reply) {
        if (!authorised(r)) {
            std::printf("ISOLATION-STANDIN-REFUSED %s %s\n", r.method.constData(), qPrintable(r.path));
            std::fflush(stdout);
            return reply.send(apiError(401, "UNAUTHORIZED", QStringLiteral("missing or wrong X-EXECD-ACCESS-TOKEN")));
        }
        handler(r, reply);
    };
}

void StandinExecd::listDirectory(const HttpRequest &request, HttpReply reply)
{
    const QString path = request.query.queryItemValue(QStringLiteral("path"), QUrl::FullyDecoded);
    const QFileInfo dirInfo(path);
    if (!QDir::isAbsolutePath(path) || !dirInfo.exists())
        return reply.send(apiError(404, "FILE_NOT_FOUND", QStringLiteral("no such directory")));
    if (dirInfo.isSymLink() || !dirInfo.isDir())
        return reply.send(apiError(400, "INVALID_PATH", QStringLiteral("not a directory")));
    QJsonArray entries;
    const QFileInfoList list
        = QDir(path).entryInfoList(QDir::AllEntries | QDir::NoDotAndDotDot | QDir::Hidden | QDir::System, QDir::Name);
    for (const QFileInfo &f : list) {
        const QString type = f.isSymLink() ? QStringLiteral("symlink")
            : f.isDir()                    ? QStringLiteral("directory")
            : f.isFile()                   ? QStringLiteral("file")
                                           : QStringLiteral("other");
        const uint perms = uint(f.permissions());
        // Qt's owner/group/other bits into the octal digits FileInfo.mode writes as decimal.
        const int mode = int(((perms >> 12) & 7) * 100 + ((perms >> 4) & 7) * 10 + (perms & 7));
        entries.append(QJsonObject {{QStringLiteral("path"), f.absoluteFilePath()}, {QStringLiteral("type"), type},
            {QStringLiteral("size"), f.isDir() ? 0 : f.size()},
            {QStringLiteral("modified_at"), f.lastModified().toUTC().toString(Qt::ISODate)},
            {QStringLiteral("created_at"),
                f.birthTime().isValid() ? f.birthTime().toUTC().toString(Qt::ISODate)
                                        : f.lastModified().toUTC().toString(Qt::ISODate)},
            {QStringLiteral("owner"), f.owner().isEmpty() ? QString::number(f.ownerId()) : f.owner()},
            {QStringLiteral("group"), f.group().isEmpty() ? QString::number(f.groupId()) : f.group()},
            {QStringLiteral("mode"), mode}});
    }
    reply.send(HttpResponse::json(200, entries));
}

Result<quint16> StandinExecd::listen(quint16 port)
{
    return m_http.listenTcp(QHostAddress::Any, port);
}

void StandinExecd::command(const HttpRequest &request, HttpReply reply)
{
    QJsonObject body;
    QString why;
    if (!request.jsonBody(&body, &why) || !body.value(QStringLiteral("command")).isString())
        return reply.send(
            apiError(400, "INVALID_REQUEST_BODY", why.isEmpty() ? QStringLiteral("command is required") : why));
    auto *process = new QProcess(this);
    process->setProgram(QStringLiteral("/bin/sh"));
    process->setArguments({QStringLiteral("-c"), body.value(QStringLiteral("command")).toString()});
    const QString cwd = body.value(QStringLiteral("cwd")).toString();
    if (!cwd.isEmpty())
        process->setWorkingDirectory(cwd);
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    const QJsonObject envs = body.value(QStringLiteral("envs")).toObject();
    for (auto it = envs.begin(); it != envs.end(); ++it)
        env.insert(it.key(), it.value().toString());
    process->setProcessEnvironment(env);
    // A process group of its own, so an interrupt reaches everything the command started.
    process->setChildProcessModifier([] { ::setsid(); });
    const QString id = QStringLiteral("cmd-%1").arg(++m_commands);
    m_running.insert(id, process);
    const qint64 started = QDateTime::currentMSecsSinceEpoch();
    m_status.insert(id, QJsonObject {{QStringLiteral("id"), id}, {QStringLiteral("content"), process->arguments().last()},
        {QStringLiteral("running"), true}, {QStringLiteral("exit_code"), QJsonValue()},
        {QStringLiteral("started_at"), QDateTime::currentDateTimeUtc().toString(Qt::ISODate)},
        {QStringLiteral("finished_at"), QJsonValue()}});
    m_statusOrder.append(id);
    while (m_statusOrder.size() > 256)
        m_status.remove(m_statusOrder.takeFirst());
    reply.sendHead(200, {{"Content-Type", "text/event-stream"}, {"Cache-Control", "no-cache"}});
    reply.write(sseEvent({{QStringLiteral("type"), QStringLiteral("init")}, {QStringLiteral("text"), id}}));
    auto flush = [process, reply] {
        const QByteArray out = process->readAllStandardOutput();
        if (!out.isEmpty())
            reply.write(sseEvent({{QStringLiteral("type"), QStringLiteral("stdout")},
                {QStringLiteral("text"), QString::fromUtf8(out)}}));
        const QByteArray err = process->readAllStandardError();
        if (!err.isEmpty())
            reply.write(sseEvent({{QStringLiteral("type"), QStringLiteral("stderr")},
                {QStringLiteral("text"), QString::fromUtf8(err)}}));
    };
    connect(process, &QProcess::readyReadStandardOutput, this, flush);
    connect(process, &QProcess::readyReadStandardError, this, flush);
    auto done = [this, id, process, reply, started, flush](int exitCode, bool crashed, const QString &error) {
        m_running.remove(id);
        if (m_status.contains(id)) {
            QJsonObject &s = m_status[id];
            s.insert(QStringLiteral("running"), false);
            s.insert(QStringLiteral("exit_code"), crashed ? 128 : exitCode);
            if (!error.isEmpty())
                s.insert(QStringLiteral("error"), error);
            s.insert(QStringLiteral("finished_at"), QDateTime::currentDateTimeUtc().toString(Qt::ISODate));
        }
        flush(); // whatever is still buffered goes out before the end events
        if (exitCode != 0 || crashed || !error.isEmpty())
            reply.write(sseEvent({{QStringLiteral("type"), QStringLiteral("error")},
                {QStringLiteral("error"),
                    QJsonObject {{QStringLiteral("ename"), QStringLiteral("CommandExecError")},
                        {QStringLiteral("evalue"),
                            error.isEmpty() ? QString::number(crashed ? 128 : exitCode) : error}}}}));
        reply.write(sseEvent({{QStringLiteral("type"), QStringLiteral("execution_complete")},
            {QStringLiteral("execution_time"), QDateTime::currentMSecsSinceEpoch() - started}}));
        reply.finish();
        process->deleteLater();
    };
    connect(process, &QProcess::finished, this,
        [done](int code, QProcess::ExitStatus status) { done(code, status == QProcess::CrashExit, {}); });
    connect(process, &QProcess::errorOccurred, this, [process, done](QProcess::ProcessError e) {
        if (e == QProcess::FailedToStart)
            done(127, false, process->errorString());
    });
    process->start();
}

void StandinExecd::interrupt(const HttpRequest &request, HttpReply reply)
{
    const QString id = request.query.queryItemValue(QStringLiteral("id"));
    if (id.isEmpty())
        return reply.send(apiError(400, "MISSING_QUERY", QStringLiteral("missing query parameter 'id'")));
    QPointer<QProcess> process = m_running.value(id);
    if (!process || process->state() == QProcess::NotRunning)
        return reply.send(apiError(404, "NOT_FOUND", QStringLiteral("no running command %1").arg(id)));
    const pid_t group = pid_t(process->processId());
    ::kill(-group, SIGTERM);
    QTimer::singleShot(3000, process, [process, group] {
        if (process && process->state() != QProcess::NotRunning)
            ::kill(-group, SIGKILL);
    });
    reply.send(HttpResponse {200, {}, {}});
}

void StandinExecd::status(const HttpRequest &request, HttpReply reply)
{
    const QString id = request.params.value(QStringLiteral("id"));
    const auto it = m_status.constFind(id);
    if (it == m_status.constEnd())
        return reply.send(apiError(404, "NOT_FOUND", QStringLiteral("no command %1").arg(id)));
    reply.send(HttpResponse::json(200, *it));
}

void StandinExecd::upload(const HttpRequest &request, HttpReply reply)
{
    auto parts = parseFormData(request.header("content-type"), request.body);
    if (!parts)
        return reply.send(apiError(400, "INVALID_REQUEST_BODY", parts.error().message));
    QJsonObject metadata;
    for (const FormPart &part : parts.value()) {
        if (part.name == QLatin1String("metadata")) {
            metadata = QJsonDocument::fromJson(part.content).object();
            continue;
        }
        if (part.name != QLatin1String("file"))
            continue;
        const QString path = metadata.value(QStringLiteral("path")).toString();
        if (!QDir::isAbsolutePath(path))
            return reply.send(apiError(400, "INVALID_REQUEST_BODY", QStringLiteral("metadata.path must be absolute")));
        QDir().mkpath(QFileInfo(path).path());
        QFile file(path);
        if (!file.open(QIODevice::WriteOnly) || file.write(part.content) != part.content.size())
            return reply.send(
                apiError(500, "RUNTIME_ERROR", QStringLiteral("cannot write %1: %2").arg(path, file.errorString())));
        file.close();
        if (metadata.contains(QStringLiteral("mode"))) {
            // FileMetadata.mode is octal written as decimal digits (755).
            const uint mode = QString::number(metadata.value(QStringLiteral("mode")).toInt()).toUInt(nullptr, 8);
            ::chmod(QFile::encodeName(path).constData(), mode_t(mode & 07777));
        }
        metadata = {};
    }
    reply.send(HttpResponse {200, {}, {}});
}

void StandinExecd::download(const HttpRequest &request, HttpReply reply)
{
    QFile file(request.query.queryItemValue(QStringLiteral("path"), QUrl::FullyDecoded));
    if (!file.open(QIODevice::ReadOnly))
        return reply.send(apiError(404, "FILE_NOT_FOUND", QStringLiteral("file not found")));
    HttpResponse r {200, {{"Content-Type", "application/octet-stream"}}, file.readAll()};
    r.setHeader("Content-Disposition", "attachment; filename=\"" + QFileInfo(file).fileName().toUtf8() + '"');
    reply.send(r);
}

void StandinExecd::proxy(const HttpRequest &request, HttpReply reply)
{
    QString rest;
    const quint16 port = proxyTarget(request.path, &rest);
    if (port == 0)
        return reply.send(apiError(404, "NOT_FOUND", QStringLiteral("no route %1").arg(request.path)));
    // The target as sent, less "/proxy/PORT": never decoded here, so the port sees what was sent.
    const QByteArray prefix = "/proxy/" + QByteArray::number(port);
    QByteArray raw = request.target.mid(prefix.size());
    if (raw.isEmpty() || raw.startsWith('?'))
        raw.prepend('/');
    const QUrl url = QUrl::fromEncoded("http://127.0.0.1:" + QByteArray::number(port) + raw);
    QNetworkRequest forward(url);
    for (const auto &[name, value] : request.headers) {
        const QByteArray lower = name.toLower();
        if (lower != "host" && lower != "connection" && lower != "content-length" && lower != "transfer-encoding"
            && lower != "x-execd-access-token")
            forward.setRawHeader(name, value);
    }
    forward.setAttribute(QNetworkRequest::Http2AllowedAttribute, false);
    // HEAD through head(): as a custom verb QNetworkAccessManager would wait for a body that never comes.
    QNetworkReply *answer = request.method == "HEAD"
        ? m_network->head(forward)
        : m_network->sendCustomRequest(forward, request.method, request.body);
    // The answer streams through as it comes (server-sent events included).
    auto started = std::make_shared<bool>(false);
    auto head = [answer, reply, started] {
        if (*started)
            return;
        const int status = answer->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
        if (status == 0)
            return;
        *started = true;
        HttpHeaders headers;
        for (const auto &[name, value] : answer->rawHeaderPairs()) {
            const QByteArray lower = name.toLower();
            if (lower == "connection" || lower == "content-length" || lower == "transfer-encoding")
                continue;
            for (const QByteArray &v : value.split('\n')) // Qt joins repeated Set-Cookie with LF
                headers.append({name, v});
        }
        reply.sendHead(status, headers);
    };
    connect(answer, &QNetworkReply::metaDataChanged, this, head);
    connect(answer, &QNetworkReply::readyRead, this, [answer, reply, head] {
        head();
        reply.write(answer->readAll());
    });
    connect(answer, &QNetworkReply::finished, this, [answer, reply, head, started] {
        answer->deleteLater();
        head();
        if (!*started)
            return reply.send(apiError(502, "BAD_GATEWAY", answer->errorString()));
        reply.write(answer->readAll());
        reply.finish();
    });
}

bool StandinExecd::proxyUpgrade(const HttpRequest &request, QIODevice *device, const QByteArray &rest)
{
    if (!authorised(request)) {
        device->write("HTTP/1.1 401 Unauthorized\r\nContent-Length: 0\r\nConnection: close\r\n\r\n");
        if (auto *s = qobject_cast<QAbstractSocket *>(device))
            s->disconnectFromHost();
        return true;
    }
    QString path;
    const quint16 port = proxyTarget(request.path, &path);
    if (port == 0)
        return false;
    // The request head again, for the port inside the sandbox: same method and headers, path without /proxy/PORT.
    QByteArray raw = request.target.mid(QByteArray("/proxy/" + QByteArray::number(port)).size());
    if (raw.isEmpty() || raw.startsWith('?'))
        raw.prepend('/');
    QByteArray head = request.method + ' ' + raw + " HTTP/1.1\r\n";
    for (const auto &[name, value] : request.headers) {
        if (name.toLower() == "x-execd-access-token")
            continue;
        head += name.toLower() == "host" ? QByteArray("Host: 127.0.0.1:" + QByteArray::number(port) + "\r\n")
                                         : QByteArray(name + ": " + value + "\r\n");
    }
    head += "\r\n";
    auto *upstream = new QTcpSocket;
    device->setParent(nullptr);
    auto *splice = new StandinSplice(device, upstream, this);
    connect(upstream, &QTcpSocket::connected, splice, [upstream, head, rest] { upstream->write(head + rest); });
    connect(upstream, &QTcpSocket::errorOccurred, splice, [device](QAbstractSocket::SocketError) {
        device->write("HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\nConnection: close\r\n\r\n");
        if (auto *s = qobject_cast<QAbstractSocket *>(device))
            s->disconnectFromHost();
    });
    upstream->connectToHost(QHostAddress::LocalHost, port);
    return true;
}

} // namespace isolation::standin
