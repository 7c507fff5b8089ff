#include "doormanfixture.h"

#include "doorman/lifecycleviewtargets.h"

#include <QElapsedTimer>
#include <QSignalSpy>
#include <QTcpServer>
#include <QTest>

namespace isolation::test {

QList<QByteArray> RawAnswer::all(QByteArrayView name) const
{
    QList<QByteArray> out;
    for (const auto &h : headers) {
        if (name.compare(h.first, Qt::CaseInsensitive) == 0)
            out.append(h.second);
    }
    return out;
}

quint16 freePort()
{
    QTcpServer s;
    s.listen(QHostAddress::LocalHost, 0);
    return s.serverPort();
}

bool connectSocket(QTcpSocket &socket, quint16 port)
{
    QSignalSpy connected(&socket, &QAbstractSocket::connected);
    socket.connectToHost(QHostAddress::LocalHost, port);
    return socket.state() == QAbstractSocket::ConnectedState || connected.wait(5000);
}

HostRewriter::HostRewriter(quint16 target, QByteArray host)
    : m_server(new QTcpServer(this))
    , m_target(target)
    , m_host(std::move(host))
{
    m_server->listen(QHostAddress::LocalHost, 0);
    connect(m_server, &QTcpServer::newConnection, this, [this] {
        while (QTcpSocket *in = m_server->nextPendingConnection()) {
            auto *out = new QTcpSocket(in);
            auto head = std::make_shared<QByteArray>();
            auto rewritten = std::make_shared<bool>(false);
            connect(in, &QTcpSocket::readyRead, in, [this, in, out, head, rewritten] {
                if (*rewritten) {
                    out->write(in->readAll());
                    return;
                }
                *head += in->readAll();
                const qsizetype end = head->indexOf("\r\n\r\n");
                if (end < 0)
                    return;
                QList<QByteArray> lines = head->left(end).split('\n');
                for (QByteArray &l : lines) {
                    if (l.toLower().startsWith("host:"))
                        l = "Host: " + m_host + '\r';
                }
                *rewritten = true;
                out->write(lines.join('\n') + head->mid(end));
            });
            connect(out, &QTcpSocket::readyRead, in, [in, out] { in->write(out->readAll()); });
            connect(out, &QTcpSocket::disconnected, in, [in] { in->disconnectFromHost(); });
            connect(in, &QTcpSocket::disconnected, in, [in, out] {
                out->disconnectFromHost();
                in->deleteLater();
            });
            out->connectToHost(QHostAddress::LocalHost, m_target);
        }
    });
}

quint16 HostRewriter::port() const
{
    return m_server->serverPort();
}

RawAnswer readAnswer(QTcpSocket &socket, int timeoutMs, bool headRequest)
{
    RawAnswer a;
    QElapsedTimer t;
    t.start();
    QByteArray in;
    qsizetype headEnd = -1;
    // Once the head is in: how the body ends, and how far a chunked body has been taken apart
    // (each read parses only what is new: a body of megabytes arrives in hundreds of reads).
    enum class Framing { Length, Chunked, UntilClose, None } framing = Framing::None;
    qint64 length = 0;
    qsizetype chunkAt = 0; // offset in `in` of the next chunk's size line
    // The doorman runs on this thread: wait by running the event loop, never by blocking.
    QSignalSpy readable(&socket, &QIODevice::readyRead);
    while (t.elapsed() < timeoutMs) {
        if (socket.bytesAvailable() == 0 && !readable.wait(50)) {
            if (socket.state() != QAbstractSocket::ConnectedState && socket.bytesAvailable() == 0)
                break;
        }
        in += socket.readAll();
        if (headEnd < 0) {
            headEnd = in.indexOf("\r\n\r\n");
            if (headEnd < 0)
                continue;
            const QList<QByteArray> lines = in.left(headEnd).split('\n');
            for (qsizetype i = 1; i < lines.size(); ++i) {
                const QByteArray l = lines.at(i).trimmed();
                const qsizetype colon = l.indexOf(':');
                if (colon > 0)
                    a.headers.append({l.left(colon), l.mid(colon + 1).trimmed()});
            }
            a.status = lines.first().split(' ').value(1).toInt();
            bool ok = false;
            length = a.header("content-length").toLongLong(&ok);
            if (headRequest || a.status == 204 || a.status == 304 || a.status == 101)
                break;
            if (ok)
                framing = Framing::Length;
            else if (a.header("transfer-encoding").toLower() == "chunked")
                framing = Framing::Chunked;
            else
                framing = Framing::UntilClose;
            chunkAt = headEnd + 4;
        }
        const qsizetype bodyAt = headEnd + 4;
        if (framing == Framing::Length) {
            if (in.size() - bodyAt >= length) {
                a.body = in.mid(bodyAt, length);
                break;
            }
        } else if (framing == Framing::Chunked) {
            bool done = false;
            while (true) {
                const qsizetype eol = in.indexOf("\r\n", chunkAt);
                if (eol < 0)
                    break;
                const qint64 size = in.mid(chunkAt, eol - chunkAt).toLongLong(nullptr, 16);
                if (in.size() < eol + 2 + size + 2)
                    break;
                if (size == 0) {
                    done = true;
                    break;
                }
                a.body += QByteArrayView(in).sliced(eol + 2, size);
                chunkAt = eol + 2 + size + 2;
            }
            if (done)
                break;
        }
    }
    if (framing == Framing::UntilClose)
        a.body = in.mid(headEnd + 4);
    a.raw = in;
    return a;
}

RawAnswer exchange(quint16 port, const QByteArray &request, int timeoutMs)
{
    QTcpSocket s;
    if (!connectSocket(s, port))
        return {};
    s.write(request);
    RawAnswer a = readAnswer(s, timeoutMs, request.startsWith("HEAD "));
    // Closed after answering? The peer closes at once when it does.
    if (s.state() == QAbstractSocket::ConnectedState) {
        QSignalSpy gone(&s, &QAbstractSocket::disconnected);
        gone.wait(a.status >= 400 && a.status != 401 && a.status != 403 && a.status != 404 ? 1500 : 300);
    }
    a.closed = s.state() != QAbstractSocket::ConnectedState;
    return a;
}

StandinProcess::~StandinProcess()
{
    if (m_process.state() != QProcess::NotRunning) {
        m_process.terminate();
        if (!m_process.waitForFinished(3000)) {
            m_process.kill();
            m_process.waitForFinished(3000);
        }
    }
}

bool StandinProcess::start(const QStringList &args, const QProcessEnvironment &env)
{
    m_process.setProcessEnvironment(env);
    m_process.setProcessChannelMode(QProcess::SeparateChannels);
    QObject::connect(&m_process, &QProcess::readyReadStandardOutput, &m_process,
        [this] { m_out += m_process.readAllStandardOutput(); });
    m_process.start(QStringLiteral(ISOLATION_STANDIN_EXECD_BIN), args);
    if (!m_process.waitForStarted(5000))
        return false;
    // Ready when it accepts connections.
    for (int i = 0; i < 100; ++i) {
        QTcpSocket s;
        if (connectSocket(s, port))
            return true;
        QTest::qWait(50);
    }
    return false;
}

int StandinProcess::linesWith(const QByteArray &marker)
{
    return int(lines(marker).size());
}

QList<QByteArray> StandinProcess::lines(const QByteArray &marker)
{
    QCoreApplication::processEvents();
    m_out += m_process.readAllStandardOutput();
    QList<QByteArray> out;
    for (const QByteArray &l : m_out.split('\n')) {
        if (l.startsWith(marker) && !l.isEmpty())
            out.append(l);
    }
    return out;
}

DoormanFixture::DoormanFixture()
    : hub(ed25519Generate())
{ }

DoormanFixture::~DoormanFixture()
{
    if (doorman)
        doorman->close();
}

bool startStandinSandbox(StandinProcess &execd, StandinProcess &app, StaticTargets &targets)
{
    const QByteArray access = LifecycleViewTargets::newAccessToken();
    execd.port = freePort();
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert(QStringLiteral("EXECD_ACCESS_TOKEN"), QString::fromLatin1(access));
    if (!execd.start({QStringLiteral("--port"), QString::number(execd.port)}, env))
        return false;
    app.port = freePort();
    if (!app.start({QStringLiteral("--echo-http"), QString::number(app.port)}))
        return false;
    targets.target = ViewTarget {QStringLiteral("127.0.0.1"), execd.port, access};
    return true;
}

bool DoormanFixture::start(const QString &filesRoot)
{
    if (!startStandinSandbox(m_execd, m_app, targets))
        return false;
    accessToken = targets.target.accessToken;
    appPort = m_app.port;
    Doorman::Options o;
    o.serverId = QStringLiteral("srv_test");
    o.hubPublicKey = hub.publicKey;
    if (!filesRoot.isEmpty())
        o.filesRoot = filesRoot;
    o.ptyRelayProgram = ptyRelay;
    doorman = std::make_unique<Doorman>(o, clock, &targets);
    auto port = doorman->listenLocal(QHostAddress::LocalHost, 0);
    if (!port)
        return false;
    doorPort = port.value();
    return true;
}

QByteArray DoormanFixture::token(
    ViewKind kind, int port, qint64 lifetime, const QString &viewId, const QString &serverId, const QByteArray &key)
{
    ViewClaims c;
    c.viewId = viewId.isEmpty() ? viewA : viewId;
    c.sessionId = QStringLiteral("s1");
    c.serverId = serverId;
    c.kind = kind;
    c.port = kind == ViewKind::Preview ? port : 0;
    c.issuedAt = clock.unixSeconds() - 1;
    c.expiresAt = c.issuedAt + lifetime;
    c.nonce = ViewToken::newNonce();
    return ViewToken::mint(c, key.isEmpty() ? hub.privateKey.view() : QByteArrayView(key)).value();
}

QByteArray DoormanFixture::host(const QString &viewId) const
{
    return viewId.toLatin1() + ".localhost:" + QByteArray::number(doorPort);
}

QByteArray DoormanFixture::open(const QString &viewId, ViewKind kind, int port)
{
    const QByteArray t = token(kind, port, 3600, viewId);
    const RawAnswer a = exchange(doorPort, "GET /?view_token=" + t + " HTTP/1.1\r\nHost: " + host(viewId) + "\r\n\r\n");
    for (const QByteArray &c : a.all("set-cookie")) {
        if (c.startsWith("__Host-isolation_view="))
            return c.left(c.indexOf(';'));
    }
    return {};
}

} // namespace isolation::test
