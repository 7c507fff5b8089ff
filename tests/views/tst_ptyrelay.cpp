// The PTY relay (engine/ptyrelay, docs/protocol.md "The PTY relay") run on this host as a sandbox
// runs it: its secret in the environment, one line saying where it listens, then in the background.
// QWebSocket (an independent peer) and raw sockets talk to it: the door (403, 400, 101), the
// terminal's size from the query and from resize messages, typing and Ctrl-C, how the shell's end
// is told, what a closed WebSocket does to the shell's session, refused frames, backpressure, the
// secret gone from the relay's environment, and the idle exit.
#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QNetworkRequest>
#include <QProcess>
#include <QRandomGenerator>
#include <QRegularExpression>
#include <QSignalSpy>
#include <QTcpSocket>
#include <QTemporaryDir>
#include <QTest>
#include <QWebSocket>

#include <csignal>
#include <memory>

namespace {

const QString kRelay = QStringLiteral(ISOLATION_PTY_RELAY_BIN);
const QByteArray kKey = "dGhlIHNhbXBsZSBub25jZQ==";      // RFC 6455 section 1.3
const QByteArray kAccept = "s3pPLMBiTxaQ9kYGzzhZRbK+xOo="; // its accept value there

QByteArray readProc(qint64 pid, const char *name)
{
    QFile f(QStringLiteral("/proc/%1/%2").arg(pid).arg(QLatin1String(name)));
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

// The fields of /proc/<pid>/stat after "(comm)": state, ppid, pgrp, session, ...
QList<QByteArray> statFields(qint64 pid)
{
    const QByteArray stat = readProc(pid, "stat");
    const qsizetype close = stat.lastIndexOf(')');
    return close < 0 ? QList<QByteArray>() : stat.mid(close + 2).split(' ');
}

// Running, not a zombie (an orphan's reaper may be slow or absent in a container).
bool alive(qint64 pid)
{
    const QList<QByteArray> f = statFields(pid);
    return !f.isEmpty() && f[0] != "Z";
}

QList<qint64> processes()
{
    QList<qint64> out;
    for (const QString &name : QDir(QStringLiteral("/proc")).entryList(QDir::Dirs)) {
        bool number = false;
        const qint64 pid = name.toLongLong(&number);
        if (number)
            out.append(pid);
    }
    return out;
}

QList<qint64> childrenOf(qint64 parent)
{
    QList<qint64> out;
    for (const qint64 pid : processes()) {
        const QList<QByteArray> f = statFields(pid);
        if (f.size() > 1 && f[1].toLongLong() == parent && f[0] != "Z")
            out.append(pid);
    }
    return out;
}

// A child of parent running that program, or 0.
qint64 childNamed(qint64 parent, const QByteArray &comm)
{
    for (const qint64 pid : childrenOf(parent)) {
        if (readProc(pid, "comm").trimmed() == comm)
            return pid;
    }
    return 0;
}

// What the process has written so far (/proc/<pid>/io), or -1.
qint64 bytesWritten(qint64 pid)
{
    static const QRegularExpression wchar(QStringLiteral("wchar: (\\d+)"));
    const QRegularExpressionMatch m = wchar.match(QString::fromLatin1(readProc(pid, "io")));
    return m.hasMatch() ? m.captured(1).toLongLong() : -1;
}

qint64 residentKiB(qint64 pid)
{
    static const QRegularExpression rss(QStringLiteral("VmRSS:\\s+(\\d+) kB"));
    const QRegularExpressionMatch m = rss.match(QString::fromLatin1(readProc(pid, "status")));
    return m.hasMatch() ? m.captured(1).toLongLong() : -1;
}

// A frame as a client sends it: masked.
QByteArray clientFrame(quint8 opcode, const QByteArray &payload, bool fin = true, quint8 rsv = 0)
{
    QByteArray f;
    f.append(char((fin ? 0x80 : 0) | rsv | opcode));
    const qsizetype n = payload.size();
    if (n < 126) {
        f.append(char(0x80 | n));
    } else if (n < 65536) {
        f.append(char(0x80 | 126));
        f.append(char(n >> 8)).append(char(n));
    } else {
        f.append(char(0x80 | 127));
        for (int i = 7; i >= 0; --i)
            f.append(char(quint64(n) >> (8 * i)));
    }
    const char mask[4] = {0x11, 0x22, 0x33, 0x44};
    f.append(mask, 4);
    for (qsizetype i = 0; i < n; ++i)
        f.append(char(payload[i] ^ mask[i % 4]));
    return f;
}

QByteArray input(const QByteArray &typed)
{
    return QByteArray(1, '\0') + typed;
}

QByteArray resize(quint16 cols, quint16 rows)
{
    QByteArray m(1, '\x01');
    m.append(char(cols >> 8)).append(char(cols)).append(char(rows >> 8)).append(char(rows));
    return m;
}

struct Relay
{
    qint64 pid = 0;
    quint16 port = 0;
    QString cwd;
};

// The close frame among what the relay sent (after the 101 and any output), if one came.
struct CloseFrame
{
    bool seen = false;
    quint16 code = 0;
    QByteArray reason;
};

CloseFrame findClose(const QByteArray &frames)
{
    qsizetype i = 0;
    while (i + 2 <= frames.size()) {
        const quint8 opcode = quint8(frames[i]) & 0x0f;
        quint64 length = quint8(frames[i + 1]) & 0x7f;
        qsizetype at = i + 2;
        if (length == 126 || length == 127) {
            const int bytes = length == 126 ? 2 : 8;
            if (at + bytes > frames.size())
                return {};
            length = 0;
            for (int k = 0; k < bytes; ++k)
                length = length << 8 | quint8(frames[at + k]);
            at += bytes;
        }
        if (at + qsizetype(length) > frames.size())
            return {};
        if (opcode == 0x8 && length >= 2)
            return {true, quint16(quint8(frames[at]) << 8 | quint8(frames[at + 1])), frames.mid(at + 2, qsizetype(length) - 2)};
        i = at + qsizetype(length);
    }
    return {};
}

// A WebSocket to the relay through QWebSocket, collecting what the terminal writes.
class Terminal
{
public:
    Terminal()
    {
        QObject::connect(&ws, &QWebSocket::binaryMessageReceived, [this](const QByteArray &m) { output += m; });
    }

    bool open(const Relay &relay, const QByteArray &secret, const QString &query = {})
    {
        QNetworkRequest request(QUrl(QStringLiteral("ws://127.0.0.1:%1/pty%2").arg(relay.port).arg(query)));
        request.setRawHeader("X-Isolation-Relay-Secret", secret);
        QSignalSpy connected(&ws, &QWebSocket::connected);
        QSignalSpy failed(&ws, qOverload<QAbstractSocket::SocketError>(&QWebSocket::error));
        ws.open(request);
        return QTest::qWaitFor([&] { return connected.count() > 0 || failed.count() > 0; }, 10000) && connected.count() > 0
            && ready();
    }

    // Waits for the shell's prompt (a known one): what is typed before it comes is echoed by the
    // terminal before the prompt is written, which would interleave the two.
    bool ready()
    {
        const bool prompted = run("PS1='[relay]> '; echo ready-$((6*7))", "ready-42\r\n[relay]> ");
        output.clear();
        return prompted;
    }

    void type(const QByteArray &bytes) { ws.sendBinaryMessage(input(bytes)); }

    // Types the command and waits for what it prints.
    bool run(const QByteArray &command, const QByteArray &expected, int timeout = 10000)
    {
        type(command + '\n');
        return QTest::qWaitFor([&] { return output.contains(expected); }, timeout);
    }

    // The shell's pid, as `echo $$` prints it.
    qint64 shellPid()
    {
        static const QRegularExpression pid(QStringLiteral("shell-pid-(\\d+)"));
        type("echo shell-pid-$$\n");
        QRegularExpressionMatch m;
        const bool printed = QTest::qWaitFor([&] { return (m = pid.match(QString::fromLatin1(output))).hasMatch(); }, 10000);
        return printed ? m.captured(1).toLongLong() : 0;
    }

    QWebSocket ws;
    QByteArray output;
};

// A raw connection: the request as written, the answer as read.
class RawClient
{
public:
    bool send(const Relay &relay, const QByteArray &request)
    {
        socket.connectToHost(QStringLiteral("127.0.0.1"), relay.port);
        if (!socket.waitForConnected(10000))
            return false;
        socket.write(request);
        return socket.waitForBytesWritten(10000) || socket.bytesToWrite() == 0;
    }

    // From now on, everything the relay sends is collected in received.
    void collect()
    {
        received += socket.readAll();
        QObject::connect(&socket, &QTcpSocket::readyRead, [this] { received += socket.readAll(); });
    }

    // Reads until the answer's head is complete (or the relay closed); returns it.
    QByteArray head()
    {
        const bool complete = QTest::qWaitFor([&] {
            received += socket.readAll();
            return received.contains("\r\n\r\n") || socket.state() != QAbstractSocket::ConnectedState;
        }, 10000);
        const qsizetype end = received.indexOf("\r\n\r\n");
        if (!complete || end < 0)
            return received;
        const QByteArray head = received.first(end + 4);
        received.remove(0, end + 4);
        return head;
    }

    QTcpSocket socket;
    QByteArray received;
};

QByteArray handshake(const QByteArray &secret, const QByteArray &target = "/pty")
{
    return "GET " + target + " HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
           "Sec-WebSocket-Key: " + kKey + "\r\nSec-WebSocket-Version: 13\r\n"
           "X-Isolation-Relay-Secret: " + secret + "\r\n\r\n";
}

} // namespace

class tst_PtyRelay final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void init();
    void cleanup();
    void listensAndGoesToBackground();
    void refusesToStart_data();
    void refusesToStart();
    void forbidden_data();
    void forbidden();
    void badRequest_data();
    void badRequest();
    void acceptsHandshake_data();
    void acceptsHandshake();
    void sizeFromQueryAndResize();
    void defaultSize_data();
    void defaultSize();
    void typedInputComesBack();
    void ctrlCInterrupts();
    void shellEndInClose_data();
    void shellEndInClose();
    void closingKillsSession_data();
    void closingKillsSession();
    void refusedFrames_data();
    void refusedFrames();
    void backpressure();
    void secretScrubbed();
    void idleExit();

private:
    [[nodiscard]] bool start(Relay *relay, const QStringList &extra = {});

    std::unique_ptr<QTemporaryDir> m_dir;
    QByteArray m_secret;
    QList<qint64> m_started;
    int m_count = 0;
};

void tst_PtyRelay::init()
{
    m_dir = std::make_unique<QTemporaryDir>();
    QVERIFY(m_dir->isValid());
    QByteArray random(32, '\0');
    QRandomGenerator::global()->fillRange(reinterpret_cast<quint32 *>(random.data()), 8);
    m_secret = random.toHex(); // as the engine makes it: 32 random bytes, hex
}

void tst_PtyRelay::cleanup()
{
    for (const qint64 pid : std::as_const(m_started)) {
        if (alive(pid))
            ::kill(pid_t(pid), SIGTERM);
    }
    for (const qint64 pid : std::as_const(m_started)) {
        if (!QTest::qWaitFor([pid] { return !alive(pid); }, 5000))
            qWarning() << "relay" << pid << "still running after SIGTERM";
    }
    m_started.clear();
}

// Starts a relay with the test's secret and --shell /bin/sh in a directory of its own (which also
// finds it: its command line names that directory).
bool tst_PtyRelay::start(Relay *relay, const QStringList &extra)
{
    relay->cwd = m_dir->filePath(QStringLiteral("relay-%1").arg(++m_count));
    if (!QDir().mkpath(relay->cwd))
        return false;
    QProcess p;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert(QStringLiteral("ISOLATION_PTY_SECRET"), QString::fromLatin1(m_secret));
    p.setProcessEnvironment(env);
    p.start(kRelay, QStringList {QStringLiteral("--cwd"), relay->cwd, QStringLiteral("--shell"), QStringLiteral("/bin/sh")} + extra);
    if (!p.waitForFinished(10000) || p.exitStatus() != QProcess::NormalExit || p.exitCode() != 0) {
        qWarning() << "the relay did not start:" << p.readAllStandardError();
        return false;
    }
    static const QRegularExpression line(QStringLiteral("^isolation-pty-relay listening 127\\.0\\.0\\.1:(\\d+)\\n$"));
    const QByteArray out = p.readAllStandardOutput();
    const QRegularExpressionMatch m = line.match(QString::fromLatin1(out));
    if (!m.hasMatch()) {
        qWarning() << "not the listening line:" << out;
        return false;
    }
    relay->port = quint16(m.captured(1).toUInt());
    for (const qint64 pid : processes()) {
        const QList<QByteArray> args = readProc(pid, "cmdline").split('\0');
        if (args.value(0) == kRelay.toLocal8Bit() && args.contains(relay->cwd.toLocal8Bit()) && alive(pid))
            relay->pid = pid;
    }
    if (relay->pid == 0) {
        qWarning() << "no relay process in the background";
        return false;
    }
    m_started.append(relay->pid);
    return true;
}

void tst_PtyRelay::listensAndGoesToBackground()
{
    Relay relay;
    QVERIFY(start(&relay));
    // A session of its own, the standard streams on /dev/null, in /.
    const QList<QByteArray> f = statFields(relay.pid);
    QVERIFY(f.size() > 3);
    QCOMPARE(f[3].toLongLong(), relay.pid);
    for (const char *fd : {"fd/0", "fd/1", "fd/2"})
        QCOMPARE(QFile::symLinkTarget(QStringLiteral("/proc/%1/%2").arg(relay.pid).arg(QLatin1String(fd))), QStringLiteral("/dev/null"));
    QCOMPARE(QFile::symLinkTarget(QStringLiteral("/proc/%1/cwd").arg(relay.pid)), QStringLiteral("/"));
    // No shell before a WebSocket asks for one.
    QVERIFY(childrenOf(relay.pid).isEmpty());
}

void tst_PtyRelay::refusesToStart_data()
{
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<QByteArray>("secret"); // empty: not in the environment
    QTest::addColumn<int>("exitCode");
    QTest::addColumn<QByteArray>("stderrHas");
    QTest::newRow("no secret") << QStringList() << QByteArray() << 2 << QByteArray("ISOLATION_PTY_SECRET");
    QTest::newRow("secret of 31 characters") << QStringList() << QByteArray(31, 'a') << 2 << QByteArray("ISOLATION_PTY_SECRET");
    QTest::newRow("unknown option") << QStringList {QStringLiteral("--port"), QStringLiteral("1")} << QByteArray(64, 'a') << 2
                                    << QByteArray("usage");
    QTest::newRow("idle-exit not a number") << QStringList {QStringLiteral("--idle-exit"), QStringLiteral("soon")}
                                            << QByteArray(64, 'a') << 2 << QByteArray("--idle-exit");
    QTest::newRow("help") << QStringList {QStringLiteral("--help")} << QByteArray() << 0 << QByteArray();
}

void tst_PtyRelay::refusesToStart()
{
    QFETCH(QStringList, args);
    QFETCH(QByteArray, secret);
    QFETCH(int, exitCode);
    QFETCH(QByteArray, stderrHas);
    QProcess p;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.remove(QStringLiteral("ISOLATION_PTY_SECRET"));
    if (!secret.isEmpty())
        env.insert(QStringLiteral("ISOLATION_PTY_SECRET"), QString::fromLatin1(secret));
    p.setProcessEnvironment(env);
    p.start(kRelay, args);
    QVERIFY(p.waitForFinished(10000));
    QCOMPARE(p.exitCode(), exitCode);
    const QByteArray out = p.readAllStandardOutput();
    if (exitCode == 0) {
        QVERIFY(out.startsWith("usage: isolation-pty-relay"));
    } else {
        QVERIFY(!out.contains("listening"));
        QVERIFY(p.readAllStandardError().contains(stderrHas));
    }
}

void tst_PtyRelay::forbidden_data()
{
    QTest::addColumn<QByteArray>("header"); // the secret header line, or none
    const QByteArray s = QByteArray(64, 'x');
    QTest::newRow("no secret") << QByteArray();
    QTest::newRow("wrong secret") << "X-Isolation-Relay-Secret: " + s + "\r\n";
    QTest::newRow("empty secret") << QByteArray("X-Isolation-Relay-Secret: \r\n");
    // The right secret cut short, or with more: filled in from m_secret below.
    QTest::newRow("secret cut short") << QByteArray("short");
    QTest::newRow("secret and more") << QByteArray("long");
    QTest::newRow("secret twice") << QByteArray("twice");
}

void tst_PtyRelay::forbidden()
{
    QFETCH(QByteArray, header);
    if (header == "short")
        header = "X-Isolation-Relay-Secret: " + m_secret.chopped(1) + "\r\n";
    else if (header == "long")
        header = "X-Isolation-Relay-Secret: " + m_secret + "0\r\n";
    else if (header == "twice")
        header = "X-Isolation-Relay-Secret: " + m_secret + "\r\nX-Isolation-Relay-Secret: " + m_secret + "\r\n";
    Relay relay;
    QVERIFY(start(&relay));
    RawClient raw;
    QVERIFY(raw.send(relay, "GET /pty HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                            "Sec-WebSocket-Key: " + kKey + "\r\nSec-WebSocket-Version: 13\r\n" + header + "\r\n"));
    const QByteArray head = raw.head();
    QVERIFY2(head.startsWith("HTTP/1.1 403 "), head.constData());
    QVERIFY(head.contains("Connection: close\r\n"));
    QTRY_COMPARE(raw.socket.state(), QAbstractSocket::UnconnectedState);
    QVERIFY(childrenOf(relay.pid).isEmpty()); // no shell was started

    // The same through QWebSocket: it never connects.
    Terminal t;
    QVERIFY(!t.open(relay, header.isEmpty() ? QByteArray() : QByteArray(64, 'x')));
    QVERIFY(t.ws.state() != QAbstractSocket::ConnectedState);
    QVERIFY(childrenOf(relay.pid).isEmpty());
}

void tst_PtyRelay::badRequest_data()
{
    QTest::addColumn<QByteArray>("request"); // SECRET stands for the relay's secret
    const QByteArray rest = "Host: 127.0.0.1\r\nSec-WebSocket-Key: " + kKey + "\r\nX-Isolation-Relay-Secret: SECRET\r\n";
    const QByteArray upgrade = "Upgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Version: 13\r\n";
    QTest::newRow("another path") << "GET /other HTTP/1.1\r\n" + upgrade + rest + "\r\n";
    QTest::newRow("a longer path") << "GET /pty/x HTTP/1.1\r\n" + upgrade + rest + "\r\n";
    QTest::newRow("the root") << "GET / HTTP/1.1\r\n" + upgrade + rest + "\r\n";
    QTest::newRow("POST") << "POST /pty HTTP/1.1\r\nContent-Length: 0\r\n" + upgrade + rest + "\r\n";
    QTest::newRow("HTTP/1.0") << "GET /pty HTTP/1.0\r\n" + upgrade + rest + "\r\n";
    QTest::newRow("no upgrade") << "GET /pty HTTP/1.1\r\nSec-WebSocket-Version: 13\r\n" + rest + "\r\n";
    QTest::newRow("upgrade to h2c") << "GET /pty HTTP/1.1\r\nUpgrade: h2c\r\nConnection: Upgrade\r\nSec-WebSocket-Version: 13\r\n"
                                           + rest + "\r\n";
    QTest::newRow("connection without upgrade") << "GET /pty HTTP/1.1\r\nUpgrade: websocket\r\nConnection: keep-alive\r\n"
                                                   "Sec-WebSocket-Version: 13\r\n" + rest + "\r\n";
    QTest::newRow("connection upgrades2") << "GET /pty HTTP/1.1\r\nUpgrade: websocket\r\nConnection: upgrades2\r\n"
                                             "Sec-WebSocket-Version: 13\r\n" + rest + "\r\n";
    QTest::newRow("version 8") << "GET /pty HTTP/1.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Version: 8\r\n"
                                      + rest + "\r\n";
    QTest::newRow("no key") << "GET /pty HTTP/1.1\r\n" + upgrade + "X-Isolation-Relay-Secret: SECRET\r\n\r\n";
    QTest::newRow("key not 16 bytes") << "GET /pty HTTP/1.1\r\n" + upgrade
                                             + "Sec-WebSocket-Key: c2hvcnQ=\r\nX-Isolation-Relay-Secret: SECRET\r\n\r\n";
    QTest::newRow("not HTTP") << QByteArray("hello relay\r\n\r\n");
    QTest::newRow("head over 8 KiB") << "GET /pty HTTP/1.1\r\nX-Padding: " + QByteArray(9000, 'p') + "\r\n" + upgrade + rest + "\r\n";
}

void tst_PtyRelay::badRequest()
{
    QFETCH(QByteArray, request);
    request.replace("SECRET", m_secret);
    Relay relay;
    QVERIFY(start(&relay));
    RawClient raw;
    QVERIFY(raw.send(relay, request));
    const QByteArray head = raw.head();
    QVERIFY2(head.startsWith("HTTP/1.1 400 "), head.constData());
    QVERIFY(head.contains("Connection: close\r\n"));
    QTRY_COMPARE(raw.socket.state(), QAbstractSocket::UnconnectedState);
    QVERIFY(childrenOf(relay.pid).isEmpty());
}

void tst_PtyRelay::acceptsHandshake_data()
{
    QTest::addColumn<QByteArray>("headers"); // besides the key and the secret
    QTest::newRow("plain") << QByteArray("Upgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Version: 13\r\n");
    QTest::newRow("connection list, other case") << QByteArray("upgrade: WebSocket\r\nconnection: keep-alive, UPGRADE\r\n"
                                                               "sec-websocket-version: 13\r\n");
    QTest::newRow("connection twice") << QByteArray("Upgrade: websocket\r\nConnection: keep-alive\r\nConnection: upgrade\r\n"
                                                    "Sec-WebSocket-Version: 13\r\n");
}

void tst_PtyRelay::acceptsHandshake()
{
    QFETCH(QByteArray, headers);
    Relay relay;
    QVERIFY(start(&relay));
    RawClient raw;
    QVERIFY(raw.send(relay, "GET /pty?cols=90&rows=30 HTTP/1.1\r\nHost: 127.0.0.1\r\n" + headers + "Sec-WebSocket-Key: " + kKey
                                + "\r\nX-Isolation-Relay-Secret: " + m_secret + "\r\n\r\n"));
    const QByteArray head = raw.head();
    QVERIFY2(head.startsWith("HTTP/1.1 101 "), head.constData());
    QVERIFY(head.contains(QByteArray("\r\nSec-WebSocket-Accept: " + kAccept + "\r\n")));
    QVERIFY(head.contains("\r\nUpgrade: websocket\r\n"));
    QTRY_COMPARE(childrenOf(relay.pid).size(), 1);
}

void tst_PtyRelay::sizeFromQueryAndResize()
{
    Relay relay;
    QVERIFY(start(&relay));
    Terminal t;
    QVERIFY(t.open(relay, m_secret, QStringLiteral("?cols=100&rows=40")));
    QVERIFY(t.run("stty size", "\n40 100"));
    t.ws.sendBinaryMessage(resize(120, 50));
    QVERIFY(t.run("stty size", "\n50 120"));
    // Out of range: ignored, the size stays.
    t.ws.sendBinaryMessage(resize(0, 50));
    t.ws.sendBinaryMessage(resize(120, 1001));
    t.output.clear();
    QVERIFY(t.run("stty size; echo size-$((6*7))", "size-42"));
    QVERIFY2(t.output.contains("\n50 120"), t.output.constData());
    QCOMPARE(t.ws.state(), QAbstractSocket::ConnectedState);
}

void tst_PtyRelay::defaultSize_data()
{
    QTest::addColumn<QString>("query");
    QTest::addColumn<QByteArray>("size");
    QTest::newRow("none") << QString() << QByteArray("24 80");
    QTest::newRow("out of range") << QStringLiteral("?cols=0&rows=1001") << QByteArray("24 80");
    QTest::newRow("not numbers") << QStringLiteral("?cols=wide&rows=-3") << QByteArray("24 80");
    QTest::newRow("rows alone") << QStringLiteral("?rows=30") << QByteArray("30 80");
    QTest::newRow("the limits") << QStringLiteral("?cols=1000&rows=1") << QByteArray("1 1000");
}

void tst_PtyRelay::defaultSize()
{
    QFETCH(QString, query);
    QFETCH(QByteArray, size);
    Relay relay;
    QVERIFY(start(&relay));
    Terminal t;
    QVERIFY(t.open(relay, m_secret, query));
    QVERIFY2(t.run("stty size", '\n' + size + '\r'), t.output.constData());
}

void tst_PtyRelay::typedInputComesBack()
{
    Relay relay;
    QVERIFY(start(&relay));
    Terminal t;
    QVERIFY(t.open(relay, m_secret));
    // The terminal echoes the line, then the shell prints.
    QVERIFY2(t.run("echo hi", "echo hi\r\nhi\r\n"), t.output.constData());
    // In the directory --cwd named, with TERM set.
    QVERIFY(t.run("echo \"cwd=$PWD term=$TERM\"", "cwd=" + relay.cwd.toLocal8Bit() + " term=xterm-256color\r\n"));
    // A message in many frames (reassembled), text frames alike, and a ping.
    t.ws.setOutgoingFrameSize(3);
    QVERIFY(t.run("echo frag-$((6*7))", "frag-42"));
    t.ws.setOutgoingFrameSize(512 * 1024);
    t.ws.sendTextMessage(QStringLiteral("%1echo text-$((6*7))\n").arg(QChar(0)));
    QTRY_VERIFY(t.output.contains("text-42"));
    QSignalSpy pong(&t.ws, &QWebSocket::pong);
    t.ws.ping("are you there");
    QVERIFY(pong.wait(10000));
    QCOMPARE(pong.first().at(1).toByteArray(), QByteArray("are you there"));
}

void tst_PtyRelay::ctrlCInterrupts()
{
    Relay relay;
    QVERIFY(start(&relay));
    Terminal t;
    QVERIFY(t.open(relay, m_secret));
    const qint64 shell = t.shellPid();
    QVERIFY(shell > 0);
    t.type("sleep 100\n");
    QTRY_VERIFY(childNamed(shell, "sleep") != 0);
    const qint64 sleeper = childNamed(shell, "sleep");
    t.type("\x03");
    QTRY_VERIFY_WITH_TIMEOUT(!alive(sleeper), 5000);
    QVERIFY(t.run("echo after-$((6*7))", "after-42", 5000));
    QVERIFY(alive(shell));
}

void tst_PtyRelay::shellEndInClose_data()
{
    QTest::addColumn<QByteArray>("command");
    QTest::addColumn<QString>("reason");
    QTest::newRow("exit 3") << QByteArray("exit 3") << QStringLiteral("exit 3");
    QTest::newRow("exit 0") << QByteArray("exit") << QStringLiteral("exit 0");
    QTest::newRow("killed") << QByteArray("kill -9 $$") << QStringLiteral("signal 9");
}

void tst_PtyRelay::shellEndInClose()
{
    QFETCH(QByteArray, command);
    QFETCH(QString, reason);
    Relay relay;
    QVERIFY(start(&relay));
    Terminal t;
    QVERIFY(t.open(relay, m_secret));
    QSignalSpy disconnected(&t.ws, &QWebSocket::disconnected);
    // What the shell printed last comes before the close.
    t.type("echo last-$((6*7)); " + command + '\n');
    QVERIFY(disconnected.wait(10000));
    QCOMPARE(t.ws.closeCode(), QWebSocketProtocol::CloseCodeNormal);
    QCOMPARE(t.ws.closeReason(), reason);
    QVERIFY(t.output.contains("last-42"));
    QTRY_VERIFY(childrenOf(relay.pid).isEmpty()); // reaped
}

void tst_PtyRelay::closingKillsSession_data()
{
    QTest::addColumn<QByteArray>("command"); // a job that is running when the WebSocket closes
    QTest::addColumn<bool>("ignoresHangup");
    QTest::newRow("a shell") << QByteArray() << false;
    QTest::newRow("a job") << QByteArray("sleep 100") << false;
    // SIGHUP ignored by the shell and the job (in a group of its own): SIGKILL two seconds later.
    QTest::newRow("a job ignoring SIGHUP") << QByteArray("trap '' HUP; sleep 100") << true;
}

void tst_PtyRelay::closingKillsSession()
{
    QFETCH(QByteArray, command);
    QFETCH(bool, ignoresHangup);
    Relay relay;
    QVERIFY(start(&relay));
    Terminal t;
    QVERIFY(t.open(relay, m_secret));
    const qint64 shell = t.shellPid();
    QVERIFY(shell > 0);
    qint64 job = 0;
    if (!command.isEmpty()) {
        t.type(command + '\n');
        QTRY_VERIFY(childNamed(shell, "sleep") != 0);
        job = childNamed(shell, "sleep");
    }
    QElapsedTimer took;
    took.start();
    t.ws.close();
    QTRY_VERIFY_WITH_TIMEOUT(!alive(shell) && (job == 0 || !alive(job)), 8000);
    if (ignoresHangup)
        QVERIFY2(took.elapsed() >= 1500, "gone before the SIGKILL: the job did not ignore SIGHUP");
    QVERIFY(alive(relay.pid));
}

void tst_PtyRelay::refusedFrames_data()
{
    QTest::addColumn<QByteArray>("frames");
    QTest::addColumn<int>("code");
    QByteArray unmasked("\x82\x02\x00\x61", 4);
    QTest::newRow("unmasked") << unmasked << 1002;
    QTest::newRow("garbage") << QByteArray("GET / HTTP/1.1\r\n\r\n") << 1002;
    QTest::newRow("reserved bits") << clientFrame(0x2, input("a"), true, 0x40) << 1002;
    QTest::newRow("unknown opcode") << clientFrame(0x3, input("a")) << 1002;
    QTest::newRow("continuation first") << clientFrame(0x0, input("a")) << 1002;
    QTest::newRow("long ping") << clientFrame(0x9, QByteArray(126, 'p')) << 1002;
    QTest::newRow("unknown message") << clientFrame(0x2, "\x07" "abc") << 1003;
    QTest::newRow("empty message") << clientFrame(0x2, QByteArray()) << 1003;
    QTest::newRow("short resize") << clientFrame(0x2, "\x01\x00") << 1003;
    // Over 1 MiB: refused on the announced length, before the payload.
    QByteArray big = clientFrame(0x2, QByteArray(1024 * 1024 + 1, '\0'));
    QTest::newRow("over 1 MiB") << big.first(14) << 1009;
    QTest::newRow("fragments over 1 MiB") << clientFrame(0x2, input(QByteArray(512 * 1024, 'a')), false)
                                                 + clientFrame(0x0, QByteArray(512 * 1024, 'a'))
                                          << 1009;
}

void tst_PtyRelay::refusedFrames()
{
    QFETCH(QByteArray, frames);
    QFETCH(int, code);
    Relay relay;
    QVERIFY(start(&relay));
    RawClient raw;
    QVERIFY(raw.send(relay, handshake(m_secret)));
    const QByteArray head = raw.head();
    QVERIFY2(head.startsWith("HTTP/1.1 101 "), head.constData());
    QVERIFY(head.contains(QByteArray("\r\nSec-WebSocket-Accept: " + kAccept + "\r\n")));
    QTRY_COMPARE(childrenOf(relay.pid).size(), 1);
    const qint64 shell = childrenOf(relay.pid).first();
    raw.collect();
    raw.socket.write(frames);
    // The relay closes with the code, then the connection; the shell goes.
    QTRY_VERIFY_WITH_TIMEOUT(findClose(raw.received).seen, 10000);
    QCOMPARE(findClose(raw.received).code, quint16(code));
    QTRY_COMPARE(raw.socket.state(), QAbstractSocket::UnconnectedState);
    QTRY_VERIFY_WITH_TIMEOUT(!alive(shell), 8000);
}

void tst_PtyRelay::backpressure()
{
    Relay relay;
    QVERIFY(start(&relay));
    RawClient raw;
    raw.socket.setReadBufferSize(64 * 1024); // else Qt reads everything into memory itself
    QVERIFY(raw.send(relay, handshake(m_secret)));
    QVERIFY(raw.head().startsWith("HTTP/1.1 101 "));
    QTRY_COMPARE(childrenOf(relay.pid).size(), 1);
    const qint64 shell = childrenOf(relay.pid).first();
    raw.socket.write(clientFrame(0x2, input("exec yes flood\n")));
    QTRY_VERIFY(bytesWritten(shell) > 0 && readProc(shell, "comm").trimmed() == "yes");

    // Nothing read here: the relay stops reading the terminal, and `yes` blocks once it is full.
    qint64 last = -1;
    int unchanged = 0;
    const bool stalled = QTest::qWaitFor([&] {
        const qint64 now = bytesWritten(shell);
        unchanged = now == last ? unchanged + 1 : 0;
        last = now;
        return unchanged >= 10;
    }, 30000);
    QVERIFY2(stalled, qPrintable(QStringLiteral("yes wrote on: %1 bytes").arg(last)));
    QVERIFY2(residentKiB(relay.pid) < 32 * 1024, qPrintable(QStringLiteral("%1 KiB").arg(residentKiB(relay.pid))));

    // Reading again, the flood goes on.
    QObject::connect(&raw.socket, &QTcpSocket::readyRead, [&raw] { raw.socket.readAll(); });
    raw.socket.readAll();
    QTRY_VERIFY_WITH_TIMEOUT(bytesWritten(shell) > last + 4 * 1024 * 1024, 20000);
}

void tst_PtyRelay::secretScrubbed()
{
    Relay relay;
    QVERIFY(start(&relay));
    const QByteArray environ = readProc(relay.pid, "environ");
    QVERIFY(!environ.isEmpty());
    QVERIFY(environ.contains("PATH=")); // the rest of it is still there
    QVERIFY(!environ.contains(m_secret));
    QVERIFY(!environ.contains(m_secret.left(16)));
    const QByteArray cmdline = readProc(relay.pid, "cmdline");
    QVERIFY(cmdline.contains(relay.cwd.toLocal8Bit()));
    QVERIFY(!cmdline.contains(m_secret.left(16)));
    // Nor does a shell inherit it.
    Terminal t;
    QVERIFY(t.open(relay, m_secret));
    QVERIFY(t.run("echo \"secret=[${ISOLATION_PTY_SECRET-unset}]\"", "secret=[unset]"));
    const qint64 shell = t.shellPid();
    QVERIFY(shell > 0);
    QVERIFY(!readProc(shell, "environ").contains(m_secret.left(16)));
}

void tst_PtyRelay::idleExit()
{
    Relay relay;
    QVERIFY(start(&relay, {QStringLiteral("--idle-exit"), QStringLiteral("1")}));
    {
        // Not while a WebSocket is open, however long it is quiet.
        Terminal t;
        QVERIFY(t.open(relay, m_secret));
        QVERIFY(t.run("sleep 2; echo quiet-$((6*7))", "quiet-42"));
        QVERIFY(alive(relay.pid));
        t.ws.close();
    }
    QTRY_VERIFY_WITH_TIMEOUT(!alive(relay.pid), 6000);
}

QTEST_GUILESS_MAIN(tst_PtyRelay)
#include "tst_ptyrelay.moc"
