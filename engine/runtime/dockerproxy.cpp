#include "dockerproxy.h"

#include "http/httprequestparser.h"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLocalSocket>
#include <QLoggingCategory>
#include <QSocketNotifier>

#include <cstring>

#include <fcntl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

Q_DECLARE_LOGGING_CATEGORY(lcRuntime)

namespace isolation {

namespace {

constexpr qint64 kHighWater = 4 * 1024 * 1024; // a side's unwritten bytes before the other waits
constexpr qint64 kMaxCreateBody = 4 * 1024 * 1024;

bool isCreate(const HttpRequest &r)
{
    // "/containers/create" after an optional "/v1.41" version prefix, before any query.
    if (r.method != "POST")
        return false;
    QByteArrayView path(r.target);
    if (const qsizetype q = path.indexOf('?'); q >= 0)
        path = path.first(q);
    return path.endsWith("/containers/create")
        && (path == "/containers/create" || (path.startsWith("/v") && path.count('/') == 3));
}

QByteArray head(const HttpRequest &r, bool dropFraming)
{
    QByteArray out = r.method + ' ' + r.target + " HTTP/1.1\r\n";
    for (const auto &[name, value] : r.headers) {
        if (dropFraming
            && (name.compare("content-length", Qt::CaseInsensitive) == 0
                || name.compare("transfer-encoding", Qt::CaseInsensitive) == 0))
            continue;
        out += name + ": " + value + "\r\n";
    }
    return out;
}

} // namespace

bool publishOnLoopback(QByteArray *createBody)
{
    QJsonParseError error {};
    QJsonDocument doc = QJsonDocument::fromJson(*createBody, &error);
    if (error.error != QJsonParseError::NoError || !doc.isObject())
        return false;
    QJsonObject spec = doc.object();
    QJsonObject host = spec.value(QStringLiteral("HostConfig")).toObject();
    QJsonObject ports = host.value(QStringLiteral("PortBindings")).toObject();
    bool changed = false;
    for (auto it = ports.begin(); it != ports.end(); ++it) {
        QJsonArray bindings = it.value().toArray();
        for (qsizetype i = 0; i < bindings.size(); ++i) {
            QJsonObject binding = bindings.at(i).toObject();
            const QString ip = binding.value(QStringLiteral("HostIp")).toString();
            if (ip != QLatin1String("127.0.0.1") && ip != QLatin1String("::1")) {
                binding.insert(QStringLiteral("HostIp"), QStringLiteral("127.0.0.1"));
                bindings.replace(i, binding);
                changed = true;
            }
        }
        it.value() = bindings;
    }
    if (!changed)
        return false;
    host.insert(QStringLiteral("PortBindings"), ports);
    spec.insert(QStringLiteral("HostConfig"), host);
    *createBody = QJsonDocument(spec).toJson(QJsonDocument::Compact);
    return true;
}

// One side of a proxied connection: a non-blocking unix socket with what is still to be written.
// Raw, not QLocalSocket, because a proxy must carry half-closes: the docker CLI shuts its write side
// after an attach request and goes on reading, which QLocalSocket can only take as a disconnect.
class ProxySide final : public QObject
{
public:
    // `fd` -1: a side that is not there (Docker could not be reached); it reads nothing.
    ProxySide(int fd, QObject *parent)
        : QObject(parent)
        , m_fd(fd)
        , m_read(QSocketNotifier::Read, this)
        , m_write(QSocketNotifier::Write, this)
    {
        if (m_fd < 0) {
            m_atEnd = true;
            return;
        }
        ::fcntl(m_fd, F_SETFL, ::fcntl(m_fd, F_GETFL) | O_NONBLOCK);
        m_read.setSocket(m_fd);
        m_write.setSocket(m_fd);
        m_read.setEnabled(true);
        connect(&m_read, &QSocketNotifier::activated, this, [this] { onReadable(); });
        connect(&m_write, &QSocketNotifier::activated, this, [this] { flush(); });
    }
    ~ProxySide() override
    {
        if (m_fd >= 0)
            ::close(m_fd);
    }

    std::function<void()> onReadable; // bytes (or the end) to read
    std::function<void()> onDrained; // what was written went out: the other side may read again
    std::function<void()> onBroken; // writing failed: the peer is gone

    // Up to `max` bytes; empty with atEnd() once the peer shut its side, or when nothing is there yet.
    QByteArray read(qint64 max)
    {
        QByteArray data(max, Qt::Uninitialized);
        const ssize_t n = ::read(m_fd, data.data(), size_t(max));
        if (n > 0) {
            data.truncate(n);
            return data;
        }
        if (n == 0 || (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)) {
            m_atEnd = true;
            m_read.setEnabled(false);
        }
        return {};
    }
    bool atEnd() const { return m_atEnd; }
    void pauseReading(bool paused)
    {
        if (m_fd >= 0)
            m_read.setEnabled(!paused && !m_atEnd);
    }

    void write(const QByteArray &data)
    {
        m_out += data;
        flush();
    }
    qint64 pending() const { return m_out.size(); }
    // Shuts the write side once everything queued went out (the peer reads its end).
    void finishWriting()
    {
        m_finish = true;
        flush();
    }

private:
    void flush()
    {
        if (m_fd < 0)
            m_out.clear();
        while (!m_out.isEmpty()) {
            const ssize_t n = ::send(m_fd, m_out.constData(), size_t(m_out.size()), MSG_NOSIGNAL);
            if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
                m_write.setEnabled(true);
                return;
            }
            if (n < 0 && errno == EINTR)
                continue;
            if (n <= 0) {
                m_out.clear();
                m_write.setEnabled(false);
                if (onBroken)
                    onBroken();
                return;
            }
            m_out.remove(0, n);
        }
        m_write.setEnabled(false);
        if (m_finish && !m_shut && m_fd >= 0) {
            m_shut = true;
            ::shutdown(m_fd, SHUT_WR);
        }
        if (onDrained)
            onDrained();
    }

    int m_fd;
    QSocketNotifier m_read;
    QSocketNotifier m_write;
    QByteArray m_out;
    bool m_atEnd = false;
    bool m_finish = false;
    bool m_shut = false;
};

// One client connection and its own connection to Docker. Requests from the client are parsed
// (llhttp) and forwarded, a create's body rewritten; Docker's answers go back as they come.
class DockerProxyConnection final : public QObject
{
public:
    DockerProxyConnection(DockerProxy *proxy, int clientFd, int upstreamFd)
        : QObject(proxy)
        , m_proxy(proxy)
        , m_client(new ProxySide(clientFd, this))
        , m_upstream(new ProxySide(upstreamFd, this))
        , m_parser(limits())
    {
        m_parser.onHeaders = [this](const HttpRequest &r) { onHeaders(r); };
        m_client->onReadable = [this] { fromClient(); };
        m_upstream->onReadable = [this] { fromUpstream(); };
        m_client->onDrained = [this] {
            m_upstream->pauseReading(false);
            maybeEnd();
        };
        m_upstream->onDrained = [this] { m_client->pauseReading(m_failed); };
        m_client->onBroken = [this] { deleteLater(); };
        m_upstream->onBroken = [this] { refuse(502, QStringLiteral("Docker closed the connection")); };
    }

    // The client when Docker cannot be reached: an answer saying so, then closed.
    static void refuseAtOnce(DockerProxy *proxy, int clientFd, const QString &why)
    {
        auto *c = new DockerProxyConnection(proxy, clientFd, -1);
        c->refuse(502, why);
    }

private:
    static HttpLimits limits()
    {
        HttpLimits l;
        l.decodeTarget = false;
        l.maxBodyBytes = kMaxCreateBody; // bodies other than a create's are streamed, unbounded
        return l;
    }

    void onHeaders(const HttpRequest &r)
    {
        m_chunked = r.header("transfer-encoding").toLower() == "chunked";
        m_buffered = isCreate(r);
        if (m_buffered)
            return; // the whole body first: it is rewritten
        // Streamed as it comes: the head now, the body piece by piece, chunked again if it was.
        m_upstream->write(head(r, false) + "\r\n");
        m_parser.setBodySink([this](QByteArrayView piece) {
            if (piece.isEmpty())
                return true;
            if (m_chunked)
                m_upstream->write(QByteArray::number(piece.size(), 16) + "\r\n" + piece.toByteArray() + "\r\n");
            else
                m_upstream->write(piece.toByteArray());
            return true;
        });
    }

    void complete()
    {
        HttpRequest r = m_parser.takeRequest();
        if (!m_buffered) {
            if (m_chunked)
                m_upstream->write(QByteArrayLiteral("0\r\n\r\n"));
            return;
        }
        QByteArray body = r.body;
        if (publishOnLoopback(&body)) {
            ++m_proxy->m_rewritten;
            qCInfo(lcRuntime) << "docker proxy: a container create published on 127.0.0.1";
        }
        m_upstream->write(head(r, true) + "Content-Length: " + QByteArray::number(body.size()) + "\r\n\r\n" + body);
    }

    void fromClient()
    {
        if (m_failed)
            return m_client->pauseReading(true);
        if (m_upstream->pending() >= kHighWater)
            return m_client->pauseReading(true); // Docker's side drains first
        const QByteArray data = m_client->read(64 * 1024);
        if (m_piping)
            m_upstream->write(data);
        else if (!data.isEmpty()) {
            m_pending += data;
            parsePending();
        }
        if (m_client->atEnd())
            m_upstream->finishWriting(); // Docker sees the end too, and still answers
    }

    void parsePending()
    {
        while (!m_pending.isEmpty() && !m_piping && !m_failed) {
            const qsizetype used = m_parser.feed(m_pending.constData(), m_pending.size());
            m_pending.remove(0, used);
            switch (m_parser.state()) {
            case HttpRequestParser::State::NeedMore:
                if (used == 0)
                    return;
                break;
            case HttpRequestParser::State::Complete:
                complete();
                break;
            case HttpRequestParser::State::Upgrade: {
                // attach, exec start: the head goes on, then both ways are a plain pipe.
                HttpRequest r = m_parser.takeRequest();
                if (m_buffered) // an upgrading create is not a thing; forward it as it came
                    m_upstream->write(head(r, false) + "\r\n");
                m_piping = true;
                m_upstream->write(std::exchange(m_pending, {}));
                return;
            }
            case HttpRequestParser::State::Error:
                return refuse(m_parser.errorStatus(), m_parser.errorMessage());
            }
        }
    }

    void fromUpstream()
    {
        if (m_client->pending() >= kHighWater)
            return m_upstream->pauseReading(true); // the client reads first
        const QByteArray data = m_upstream->read(64 * 1024);
        if (!data.isEmpty())
            m_client->write(data);
        if (m_upstream->atEnd())
            m_client->finishWriting();
        maybeEnd();
    }

    void refuse(int status, const QString &why)
    {
        if (m_failed)
            return;
        m_failed = true;
        qCWarning(lcRuntime).noquote() << "docker proxy: refused a request:" << why;
        const QByteArray body = QJsonDocument(
            QJsonObject {{QStringLiteral("message"), QString(QStringLiteral("isolation docker proxy: ") + why)}})
                                    .toJson(QJsonDocument::Compact);
        m_client->write("HTTP/1.1 " + QByteArray::number(status) + " Refused\r\nContent-Type: application/json\r\n"
            + "Connection: close\r\nContent-Length: " + QByteArray::number(body.size()) + "\r\n\r\n" + body);
        m_client->finishWriting();
        m_client->pauseReading(true);
        m_done = true;
        maybeEnd();
    }

    // Over once Docker's side ended (or the request was refused) and the client has it all.
    void maybeEnd()
    {
        if ((m_done || m_upstream->atEnd()) && m_client->pending() == 0)
            deleteLater();
    }

    DockerProxy *m_proxy;
    ProxySide *m_client;
    ProxySide *m_upstream;
    HttpRequestParser m_parser;
    QByteArray m_pending; // from the client, not parsed yet
    bool m_buffered = false; // the current request is a create: body held until complete
    bool m_chunked = false;
    bool m_piping = false;
    bool m_failed = false;
    bool m_done = false;
};

QString DockerProxy::containerDockerHost()
{
    return QStringLiteral("unix://%1/%2").arg(QLatin1String(kContainerDirectory), QLatin1String(kSocketName));
}

DockerProxy::DockerProxy(QString upstreamSocket, QObject *parent)
    : QObject(parent)
    , m_upstream(std::move(upstreamSocket))
{
    connect(&m_server, &QLocalServer::newConnection, this, &DockerProxy::onNewConnection);
}

DockerProxy::~DockerProxy()
{
    close();
}

QString DockerProxy::socketPath() const
{
    return m_directory + QLatin1Char('/') + QLatin1String(kSocketName);
}

Status DockerProxy::listen(const QString &directory)
{
    close();
    m_directory = QDir(directory).absolutePath();
    if (!QDir().mkpath(m_directory))
        return Error::failed(QStringLiteral("cannot create %1").arg(m_directory));
    if (::chmod(QFile::encodeName(m_directory).constData(), 0700) != 0)
        return Error::failed(QStringLiteral("cannot make %1 private: %2").arg(m_directory, qt_error_string(errno)));
    QLocalServer::removeServer(socketPath()); // a dead engine's; this engine holds the instance lock
    m_server.setSocketOptions(QLocalServer::UserAccessOption); // 0600, in a directory no one else enters
    if (!m_server.listen(socketPath()))
        return Error::failed(QStringLiteral("cannot serve %1: %2").arg(socketPath(), m_server.errorString()));
    return {};
}

void DockerProxy::close()
{
    if (m_server.isListening())
        m_server.close();
}

void DockerProxy::onNewConnection()
{
    while (QLocalSocket *client = m_server.nextPendingConnection()) {
        // The descriptor is taken over from Qt's socket (see ProxySide for why).
        const int fd = ::dup(int(client->socketDescriptor()));
        client->abort();
        client->deleteLater();
        if (fd < 0)
            continue;
        const int upstream = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
        sockaddr_un address {};
        address.sun_family = AF_UNIX;
        const QByteArray path = QFile::encodeName(m_upstream);
        if (upstream < 0 || size_t(path.size()) >= sizeof(address.sun_path)) {
            if (upstream >= 0)
                ::close(upstream);
            DockerProxyConnection::refuseAtOnce(this, fd, QStringLiteral("cannot reach Docker at %1").arg(m_upstream));
            continue;
        }
        std::memcpy(address.sun_path, path.constData(), size_t(path.size()));
        // A local connect either succeeds at once or fails (a full backlog is an answer too).
        if (::connect(upstream, reinterpret_cast<sockaddr *>(&address), sizeof(address)) != 0) {
            const QString why = qt_error_string(errno);
            ::close(upstream);
            DockerProxyConnection::refuseAtOnce(
                this, fd, QStringLiteral("cannot reach Docker at %1: %2").arg(m_upstream, why));
            continue;
        }
        new DockerProxyConnection(this, fd, upstream);
    }
}

} // namespace isolation
