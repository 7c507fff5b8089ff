// Limits on every door (issue 20, point 5): the doorman's local door (here, on this thread's
// event loop), the LocalAPI of a real isolation-server process and a real isolation-hub process
// each bound the time to a complete head (slowloris), the connections of one peer, the header
// size, and what a peer that sends more than the server takes can make it hold in memory.
// Clients are raw sockets, off the event loop, so 500 of them cost the server under test only
// what they make it do.
#include "doormanfixture.h"
#include "http/httpserver.h"
#include "hubprocess.h"
#include "views/viewtoken.h"

#include <QElapsedTimer>
#include <QJsonObject>
#include <QFileInfo>
#include <QProcess>
#include <QScopeGuard>
#include <QTemporaryDir>
#include <QTest>
#include <QThread>

#include <atomic>
#include <functional>
#include <thread>

#include <arpa/inet.h>
#include <fcntl.h>
#include <malloc.h>
#include <netinet/in.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#if defined(__SANITIZE_ADDRESS__)
extern "C" size_t __sanitizer_get_current_allocated_bytes(); // sanitizer/allocator_interface.h
#endif

using namespace isolation;
using namespace isolation::test;

namespace {

constexpr int kSlowClients = 500; // the number
constexpr int kPerPeer = 64; // HttpLimits::maxConnectionsPerPeer
constexpr int kHeadTimeoutMs = 10000; // HttpLimits::headTimeoutMs

// Where a door listens: a TCP port on 127.0.0.1 or a unix socket.
struct Address
{
    quint16 port = 0;
    QString path;
};

int connectTo(const Address &a)
{
    int fd = -1;
    int r = -1;
    if (a.path.isEmpty()) {
        fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        sockaddr_in sa {};
        sa.sin_family = AF_INET;
        sa.sin_port = htons(a.port);
        sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        r = ::connect(fd, reinterpret_cast<sockaddr *>(&sa), sizeof sa);
    } else {
        fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
        sockaddr_un sa {};
        sa.sun_family = AF_UNIX;
        const QByteArray p = a.path.toLocal8Bit();
        std::memcpy(sa.sun_path, p.constData(), std::min<size_t>(p.size(), sizeof sa.sun_path - 1));
        r = ::connect(fd, reinterpret_cast<sockaddr *>(&sa), sizeof sa);
    }
    if (r != 0) {
        ::close(fd);
        return -1;
    }
    return fd;
}

void setNonBlocking(int fd)
{
    ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) | O_NONBLOCK);
}

void setTimeouts(int fd, int ms)
{
    const timeval tv {ms / 1000, (ms % 1000) * 1000};
    ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    ::setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
}

// Without waiting: whether the server closed `fd` (end of stream or reset); what it sent is
// appended to *got.
bool closedNow(int fd, QByteArray *got)
{
    char buf[4096];
    for (;;) {
        const ssize_t n = ::recv(fd, buf, sizeof buf, MSG_DONTWAIT);
        if (n > 0) {
            got->append(buf, n);
            continue;
        }
        if (n == 0)
            return true;
        return errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR;
    }
}

// Runs `f` on a thread of its own while this thread's event loop runs (the local door is served
// here; for a server in another process it only waits).
void runBeside(const std::function<void()> &f)
{
    std::atomic_bool done = false;
    std::thread worker([&] {
        f();
        done = true;
    });
    while (!done)
        QCoreApplication::processEvents(QEventLoop::AllEvents, 5);
    worker.join();
}

struct Timed
{
    QByteArray answer;
    qint64 ms = -1;
};

// One request on a fresh connection, read to the end (the request says Connection: close).
Timed timedExchange(const Address &a, const QByteArray &request)
{
    Timed t;
    runBeside([&] {
        QElapsedTimer timer;
        timer.start();
        const int fd = connectTo(a);
        if (fd < 0)
            return;
        setTimeouts(fd, 5000);
        ::send(fd, request.constData(), size_t(request.size()), MSG_NOSIGNAL);
        char buf[16384];
        ssize_t n;
        while ((n = ::recv(fd, buf, sizeof buf, 0)) > 0)
            t.answer.append(buf, n);
        t.ms = timer.elapsed();
        ::close(fd);
    });
    return t;
}

// Live heap bytes of this process (not what the allocator keeps for reuse or ASan quarantines).
qint64 liveHeapBytes()
{
#if defined(__SANITIZE_ADDRESS__)
    return qint64(__sanitizer_get_current_allocated_bytes());
#else
    const struct mallinfo2 m = ::mallinfo2();
    return qint64(m.uordblks + m.hblkhd);
#endif
}

qint64 rssBytes(qint64 pid)
{
    QFile f(QStringLiteral("/proc/%1/status").arg(pid));
    if (!f.open(QIODevice::ReadOnly))
        return -1;
    for (const QByteArray &line : f.readAll().split('\n')) {
        if (line.startsWith("VmRSS:"))
            return line.mid(6).trimmed().split(' ').value(0).toLongLong() * 1024;
    }
    return -1;
}

} // namespace

class tst_DoorLimits final : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void localDoor();
    void localDoorBodyBackpressure();
    void localApi();
    void hub();
    void idleAndStalledBody();

private:
    // What every door must do. `normal` is a whole request the door answers; `bodyRequestHead` a
    // request line and fields (without Content-Length) whose body the server reads before answering;
    // `host` a Host the door serves.
    void slowClientsDoNotStopOthers(const Address &a, const QByteArray &normal);
    void capPerPeer(const Address &a, const QByteArray &bodyRequestHead);
    void hugeHeader(const Address &a, const QByteArray &host);
    // A peer that pipelines requests and reads none of the answers: the server's memory (the
    // process `pid`) grows by far less than it was sent.
    void unreadAnswersStayBounded(const Address &a, const QByteArray &host, qint64 pid);
};

void tst_DoorLimits::initTestCase()
{
    // 500 clients and their servers in this process: room for the descriptors.
    rlimit l {};
    ::getrlimit(RLIMIT_NOFILE, &l);
    l.rlim_cur = l.rlim_max;
    ::setrlimit(RLIMIT_NOFILE, &l);
    ::getrlimit(RLIMIT_NOFILE, &l);
    QVERIFY2(l.rlim_cur >= 2 * kSlowClients + 256, "the descriptor limit is too low for this test");
    // The engine and hub processes started here measure their memory by RSS. Under
    // AddressSanitizer freed memory waits in a quarantine (256 MiB by default) before it is used
    // again, which RSS counts as if the server still held it; keep that small for them. (A build
    // without ASan has no quarantine; this only matters where ASAN_OPTIONS is read at all.)
    const QByteArray asan = qgetenv("ASAN_OPTIONS");
    qputenv("ASAN_OPTIONS", asan + (asan.isEmpty() ? "" : ":") + "quarantine_size_mb=1");
}

void tst_DoorLimits::slowClientsDoNotStopOthers(const Address &a, const QByteArray &normal)
{
    QList<int> slow;
    for (int i = 0; i < kSlowClients; ++i) {
        const int fd = connectTo(a);
        QVERIFY2(fd >= 0, "cannot connect");
        setNonBlocking(fd);
        ::send(fd, "GET / HTTP/1.1\r\nHo", 18, MSG_NOSIGNAL);
        slow.append(fd);
        if (i % 50 == 0)
            QCoreApplication::processEvents(); // the local door accepts on this thread
    }
    const auto cleanup = qScopeGuard([&] {
        for (int fd : std::as_const(slow))
            ::close(fd);
    });
    QTest::qWait(300);
    // The deadline of the last slow client accepted runs from about now.
    QElapsedTimer clock;
    clock.start();

    // A normal request is served, and quickly, with 500 slow heads around it.
    const Timed t = timedExchange(a, normal);
    QVERIFY2(t.answer.startsWith("HTTP/1.1 "), t.answer.left(200).constData());
    qInfo("a normal request beside %d slow heads: answered in %lld ms", kSlowClients, t.ms);
    QVERIFY2(t.ms >= 0 && t.ms < 1000, qPrintable(QStringLiteral("the normal request took %1 ms").arg(t.ms)));

    // Those still open drip a byte a second and never finish their heads; by the head deadline
    // (and a sweep of a second after it) every one is closed, the late ones with a 408.
    QList<QByteArray> got(slow.size());
    QList<bool> closed(slow.size(), false);
    int openMidway = -1;
    while (clock.elapsed() < kHeadTimeoutMs + 3000) {
        int open = 0;
        for (int i = 0; i < slow.size(); ++i) {
            if (closed[i])
                continue;
            closed[i] = closedNow(slow[i], &got[i]);
            if (!closed[i]) {
                ++open;
                ::send(slow[i], "s", 1, MSG_NOSIGNAL);
            }
        }
        if (openMidway < 0 && clock.elapsed() > kHeadTimeoutMs / 2)
            openMidway = open;
        if (open == 0)
            break;
        QTest::qWait(1000);
    }
    int stillOpen = 0;
    int timedOut = 0;
    for (int i = 0; i < slow.size(); ++i) {
        stillOpen += closed[i] ? 0 : 1;
        timedOut += got[i].startsWith("HTTP/1.1 408 ") ? 1 : 0;
    }
    qInfo("slow clients: %d open halfway to the head deadline, %d answered 408, %d open after %lld ms", openMidway,
        timedOut, stillOpen, clock.elapsed());
    QCOMPARE(stillOpen, 0);
    QVERIFY2(openMidway > 0 && openMidway <= kPerPeer, "the slow clients one peer keeps open are capped");
    QVERIFY(timedOut > 0);
}

void tst_DoorLimits::capPerPeer(const Address &a, const QByteArray &bodyRequestHead)
{
    // kPerPeer connections inside a request (a body that has not come whole) are not made room
    // for: the next connection of the same peer is refused.
    QList<int> busy;
    const auto cleanup = qScopeGuard([&] {
        for (int fd : std::as_const(busy))
            ::close(fd);
        QTest::qWait(500); // the server sees them go before the next test connects
    });
    const QByteArray head = bodyRequestHead + "Content-Length: 1000\r\n\r\nx";
    for (int i = 0; i < kPerPeer; ++i) {
        const int fd = connectTo(a);
        QVERIFY(fd >= 0);
        setNonBlocking(fd);
        ::send(fd, head.constData(), size_t(head.size()), MSG_NOSIGNAL);
        busy.append(fd);
        QCoreApplication::processEvents();
    }
    QTest::qWait(500);
    for (int fd : std::as_const(busy)) {
        QByteArray got;
        QVERIFY2(!closedNow(fd, &got), got.constData());
    }
    const int over = connectTo(a);
    QVERIFY(over >= 0);
    busy.append(over);
    setNonBlocking(over);
    QByteArray got;
    bool closed = false;
    QElapsedTimer t;
    t.start();
    while (!closed && t.elapsed() < 3000) {
        QTest::qWait(50);
        closed = closedNow(over, &got);
    }
    QVERIFY2(closed, "a connection over the cap stays open");
    QVERIFY2(got.isEmpty() || got.startsWith("HTTP/1.1 503 "), got.constData());
}

void tst_DoorLimits::hugeHeader(const Address &a, const QByteArray &host)
{
    const Timed t = timedExchange(a,
        "GET / HTTP/1.1\r\nHost: " + host + "\r\nX-Big: " + QByteArray(128 * 1024, 'a') + "\r\nConnection: close\r\n\r\n");
    QVERIFY2(t.answer.startsWith("HTTP/1.1 431 "), t.answer.left(200).constData());
}

void tst_DoorLimits::unreadAnswersStayBounded(const Address &a, const QByteArray &host, qint64 pid)
{
    // Requests of 8 KiB whose answers (404, the path echoed) are as large; 64 MiB of them, and not
    // one answer read.
    const QByteArray request = "GET /v1/" + QByteArray(8000, 'p') + " HTTP/1.1\r\nHost: " + host + "\r\n\r\n";
    constexpr qint64 kSend = 64 * 1024 * 1024;
    const qint64 before = rssBytes(pid);
    QVERIFY(before > 0);
    qint64 sent = 0;
    qint64 peak = before;
    std::atomic_bool sending = true;
    std::thread sender([&] {
        const int fd = connectTo(a);
        if (fd < 0) {
            sending = false;
            return;
        }
        setTimeouts(fd, 3000); // the server stopped reading: done
        QByteArray batch;
        while (batch.size() < 256 * 1024)
            batch += request;
        while (sent < kSend) {
            const ssize_t n = ::send(fd, batch.constData(), size_t(batch.size()), MSG_NOSIGNAL);
            if (n <= 0)
                break;
            sent += n;
        }
        sending = false;
        QThread::msleep(2000); // the server works through what it read
        ::close(fd);
    });
    for (int quiet = 0; sending || quiet < 20; quiet += sending ? 0 : 1) {
        QTest::qWait(100);
        peak = std::max(peak, rssBytes(pid));
    }
    sender.join();
    qInfo("unread answers: %lld MiB sent, server RSS %lld -> peak %lld MiB", sent >> 20, before >> 20, peak >> 20);
    QVERIFY2(peak - before < 24 * 1024 * 1024,
        qPrintable(QStringLiteral("the server grew by %1 MiB").arg((peak - before) >> 20)));
}

void tst_DoorLimits::localDoor()
{
    ManualClock clock;
    StaticTargets targets;
    targets.target = ViewTarget {QStringLiteral("127.0.0.1"), 9, "token"};
    Doorman::Options o;
    o.serverId = QStringLiteral("srv_test");
    o.hubPublicKey = ed25519Generate().publicKey;
    Doorman doorman(o, clock, &targets);
    auto port = doorman.listenLocal(QHostAddress::LocalHost, 0);
    QVERIFY(port.ok());
    const Address a {port.value(), {}};
    const QByteArray host = "localhost:" + QByteArray::number(port.value());
    slowClientsDoNotStopOthers(a, "GET / HTTP/1.1\r\nHost: " + host + "\r\nConnection: close\r\n\r\n");
    capPerPeer(a, "POST / HTTP/1.1\r\nHost: " + host + "\r\n");
    hugeHeader(a, host);
}

void tst_DoorLimits::localDoorBodyBackpressure()
{
    // A sandbox that takes no byte of a large upload: a listening socket nobody accepts on.
    const int sandbox = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in sa {};
    sa.sin_family = AF_INET;
    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    QCOMPARE(::bind(sandbox, reinterpret_cast<sockaddr *>(&sa), sizeof sa), 0);
    QCOMPARE(::listen(sandbox, 8), 0);
    socklen_t len = sizeof sa;
    ::getsockname(sandbox, reinterpret_cast<sockaddr *>(&sa), &len);
    const auto closeSandbox = qScopeGuard([sandbox] { ::close(sandbox); });

    ManualClock clock;
    const Ed25519KeyPair hub = ed25519Generate();
    StaticTargets targets;
    targets.target = ViewTarget {QStringLiteral("127.0.0.1"), ntohs(sa.sin_port), "token"};
    Doorman::Options o;
    o.serverId = QStringLiteral("srv_test");
    o.hubPublicKey = hub.publicKey;
    Doorman doorman(o, clock, &targets);
    auto port = doorman.listenLocal(QHostAddress::LocalHost, 0);
    QVERIFY(port.ok());
    const Address a {port.value(), {}};
    const QString viewId = QStringLiteral("v00000000000000000000000a");
    const QByteArray host = viewId.toLatin1() + ".localhost:" + QByteArray::number(port.value());

    ViewClaims c;
    c.viewId = viewId;
    c.sessionId = targets.session;
    c.serverId = o.serverId;
    c.kind = ViewKind::Preview;
    c.port = 8080;
    c.issuedAt = clock.unixSeconds() - 1;
    c.expiresAt = c.issuedAt + 3600;
    c.nonce = ViewToken::newNonce();
    const QByteArray token = ViewToken::mint(c, hub.privateKey.view()).value();
    const Timed opened
        = timedExchange(a, "GET /?view_token=" + token + " HTTP/1.1\r\nHost: " + host + "\r\nConnection: close\r\n\r\n");
    const qsizetype at = opened.answer.indexOf("__Host-isolation_view=");
    QVERIFY2(at > 0, opened.answer.left(300).constData());
    const QByteArray cookie = opened.answer.mid(at, opened.answer.indexOf(';', at) - at);

    constexpr qint64 kBody = 128 * 1024 * 1024;
    const qint64 before = liveHeapBytes();
    qint64 peak = before;
    qint64 sent = 0;
    std::atomic_bool sending = true;
    std::thread uploader([&] {
        const int fd = connectTo(a);
        if (fd >= 0) {
            setTimeouts(fd, 3000); // the door stopped reading: done
            const QByteArray head = "POST /upload HTTP/1.1\r\nHost: " + host + "\r\nCookie: " + cookie
                + "\r\nContent-Length: " + QByteArray::number(kBody) + "\r\n\r\n";
            ::send(fd, head.constData(), size_t(head.size()), MSG_NOSIGNAL);
            const QByteArray piece(256 * 1024, 'b');
            while (sent < kBody) {
                const ssize_t n = ::send(fd, piece.constData(), size_t(piece.size()), MSG_NOSIGNAL);
                if (n <= 0)
                    break;
                sent += n;
            }
            sending = false;
            QThread::msleep(1000);
            ::close(fd);
        }
        sending = false;
    });
    while (sending) {
        QCoreApplication::processEvents(QEventLoop::AllEvents, 5);
        peak = std::max(peak, liveHeapBytes());
    }
    uploader.join();
    qInfo("upload to a sandbox that reads nothing: %lld MiB sent, live heap %lld -> peak %lld MiB", sent >> 20,
        before >> 20, peak >> 20);
    QVERIFY2(sent < kBody, "the door took the whole body though the sandbox took none of it");
    QVERIFY2(peak - before < 24 * 1024 * 1024,
        qPrintable(QStringLiteral("the door holds %1 MiB of the body").arg((peak - before) >> 20)));
}

void tst_DoorLimits::localApi()
{
    QTemporaryDir home;
    QProcess engine;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert(QStringLiteral("ISOLATION_HOME"), home.path());
    engine.setProcessEnvironment(env);
    engine.setProcessChannelMode(QProcess::ForwardedErrorChannel);
    engine.start(serverBinary(), {QStringLiteral("up"), QStringLiteral("--credential-store"), QStringLiteral("file")});
    QVERIFY(engine.waitForStarted());
    const auto stop = qScopeGuard([&] {
        engine.terminate();
        if (!engine.waitForFinished(20000))
            engine.kill();
    });
    const Address a {0, home.path() + QStringLiteral("/run/engine.sock")};
    QTRY_VERIFY_WITH_TIMEOUT(QFileInfo::exists(a.path), 20000);
    QTRY_VERIFY_WITH_TIMEOUT(
        timedExchange(a, "GET /v1/status HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n")
            .answer.startsWith("HTTP/1.1 200 "),
        10000);

    slowClientsDoNotStopOthers(a, "GET /v1/status HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n");
    capPerPeer(a, "POST /v1/pair HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n");
    hugeHeader(a, "localhost");
    unreadAnswersStayBounded(a, "localhost", engine.processId());
}

void tst_DoorLimits::hub()
{
    HubProcess hub;
    // Its log to a file: a pipe that this thread reads only while its event loop runs could hold
    // the hub up while this test waits on a socket.
    QTemporaryDir logDir;
    hub.process().setStandardErrorFile(logDir.path() + QStringLiteral("/hub.log"));
    QVERIFY2(hub.start(), qPrintable(hub.output()));
    const Address a {quint16(hub.appUrl().port()), {}};
    const QByteArray host = hub.appUrl().authority().toLatin1();
    slowClientsDoNotStopOthers(a, "GET /v1/health HTTP/1.1\r\nHost: " + host + "\r\nConnection: close\r\n\r\n");
    capPerPeer(a, "POST /v1/servers HTTP/1.1\r\nHost: " + host + "\r\nContent-Type: application/json\r\n");
    hugeHeader(a, host);
    unreadAnswersStayBounded(a, host, hub.process().processId());
}

void tst_DoorLimits::idleAndStalledBody()
{
    // The deadlines besides the head's, on an HttpServer with short ones (the defaults, 60 s, are
    // the same code): a kept-alive connection with no next request is closed; a body that stops
    // coming is answered 408; a request inside a slow route is left alone.
    HttpServer server;
    HttpLimits limits;
    limits.idleTimeoutMs = 1500;
    limits.headTimeoutMs = 1500;
    server.setLimits(limits);
    QList<HttpReply> held;
    server.route("GET", QStringLiteral("/now"), [](const HttpRequest &, HttpReply reply) {
        reply.send(HttpResponse::json(200, QJsonObject {}));
    });
    server.route("GET", QStringLiteral("/later"), [&held](const HttpRequest &, HttpReply reply) { held.append(reply); });
    server.route("POST", QStringLiteral("/body"), [](const HttpRequest &, HttpReply reply) {
        reply.send(HttpResponse::json(200, QJsonObject {}));
    });
    auto port = server.listenTcp(QHostAddress::LocalHost, 0);
    QVERIFY(port.ok());
    const Address a {port.value(), {}};

    const auto openWith = [&](const QByteArray &bytes) {
        const int fd = connectTo(a);
        setNonBlocking(fd);
        ::send(fd, bytes.constData(), size_t(bytes.size()), MSG_NOSIGNAL);
        return fd;
    };
    const int idle = openWith("GET /now HTTP/1.1\r\nHost: h\r\n\r\n");
    const int stalled = openWith("POST /body HTTP/1.1\r\nHost: h\r\nContent-Length: 10\r\n\r\nabc");
    const int waiting = openWith("GET /later HTTP/1.1\r\nHost: h\r\n\r\n");
    const auto cleanup = qScopeGuard([&] {
        for (int fd : {idle, stalled, waiting})
            ::close(fd);
    });
    QByteArray idleGot, stalledGot, waitingGot;
    QTest::qWait(500);
    QVERIFY(!closedNow(idle, &idleGot));
    QVERIFY2(idleGot.startsWith("HTTP/1.1 200 "), idleGot.constData());
    QVERIFY(!closedNow(stalled, &stalledGot));
    QVERIFY(stalledGot.isEmpty());
    QTRY_VERIFY_WITH_TIMEOUT(closedNow(idle, &idleGot), 4000);
    QTRY_VERIFY_WITH_TIMEOUT(closedNow(stalled, &stalledGot), 4000);
    QVERIFY2(stalledGot.startsWith("HTTP/1.1 408 "), stalledGot.constData());
    QVERIFY(!closedNow(waiting, &waitingGot)); // the route has it, however long it takes
    QCOMPARE(held.size(), 1);
    held.first().send(HttpResponse::json(200, QJsonObject {}));
    QTRY_VERIFY_WITH_TIMEOUT(closedNow(waiting, &waitingGot) || waitingGot.startsWith("HTTP/1.1 200 "), 4000);
    QVERIFY2(waitingGot.startsWith("HTTP/1.1 200 "), waitingGot.constData());
    QVERIFY(server.counters().timedOut >= 2);
}

QTEST_GUILESS_MAIN(tst_DoorLimits)
#include "tst_doorlimits.moc"
