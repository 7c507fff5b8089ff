#include "core/paths.h"
#include "engine.h"
#include "localapi/eventfollower.h"
#include "localapi/localapiclient.h"

#include <QElapsedTimer>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QLocalServer>
#include <QLocalSocket>
#include <QProcess>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QSet>
#include <QSignalSpy>
#include <QTest>

#include <atomic>
#include <cstring>
#include <functional>
#include <optional>
#include <thread>
#include <vector>

#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

using namespace isolation;

class tst_LocalApi final : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void roundTrip();
    void permissions();
    void curlCommandLine();
    void errorsUseTheProtocolBody();
    void secondEngineRefused();
    void staleSocketCleanedUp();
    void twoHomesTwoEngines();
    void clientWithoutEngine();
    // The client's transport against a peer that misbehaves (a QLocalServer playing the engine).
    void clientStaleSocket();
    void clientChunkedAnswer();
    void clientContentLengthAnswer();
    void clientCutMidAnswer();
    void clientTimeout();
    // EventFollower (the tray's and `isolation-server events`' stream) on its plain unix socket.
    void followerReadsEventsAndResumes();
    void followerRefused();
    void followerWithoutEngine();
    void followerNeverWaitsOnAFullBacklog();

private:
    static Paths pathsFor(const QString &home);
    // The client blocks, so it runs on another thread while this one serves the engine.
    static Result<QJsonObject, LocalApiError> call(
        const QString &socket, const QByteArray &method, const QString &path);
};

namespace {
// These tests are about the LocalAPI, not credentials: keep them off the desktop keychain.
EngineOptions fileStore()
{
    EngineOptions o;
    o.credentialStore = CredentialStoreKind::File;
    return o;
}

// Runs a blocking call on a thread of its own while this thread serves the peer.
template<typename F>
auto onThread(F f) -> decltype(f())
{
    std::optional<decltype(f())> result;
    std::atomic_bool done = false;
    std::thread worker([&] {
        result.emplace(f());
        done = true;
    });
    while (!done)
        QCoreApplication::processEvents(QEventLoop::AllEvents, 10);
    worker.join();
    return std::move(*result);
}

Result<HttpResponse, LocalApiError> requestOnThread(
    const LocalApiClient &client, const QByteArray &method, const QString &path, const QByteArray &body = {})
{
    return onThread([&] { return client.request(method, path, body); });
}

// A peer on a unix socket that reads each request's head (and a body as long as its
// Content-Length) and then does `answer` with the connection.
class FakeEngine
{
public:
    using Answer = std::function<void(QLocalSocket *)>;
    explicit FakeEngine(const QString &path, Answer answer)
        : m_answer(std::move(answer))
    {
        QVERIFY(m_server.listen(path));
        QObject::connect(&m_server, &QLocalServer::newConnection, [this] {
            while (QLocalSocket *s = m_server.nextPendingConnection()) {
                auto *buffer = new QByteArray;
                QObject::connect(s, &QObject::destroyed, [buffer] { delete buffer; });
                QObject::connect(s, &QLocalSocket::readyRead, [this, s, buffer] {
                    *buffer += s->readAll();
                    const qsizetype end = buffer->indexOf("\r\n\r\n");
                    if (end < 0 || m_answered.contains(s))
                        return;
                    const QByteArray head = buffer->first(end);
                    qsizetype length = 0;
                    if (const qsizetype at = head.indexOf("Content-Length: "); at >= 0)
                        length = head.mid(at + 16, head.indexOf('\r', at) - at - 16).toLongLong();
                    if (buffer->size() < end + 4 + length)
                        return;
                    requests.append(*buffer);
                    m_answered.insert(s);
                    m_answer(s);
                });
            }
        });
    }
    QList<QByteArray> requests; // each request as received

private:
    QLocalServer m_server;
    Answer m_answer;
    QSet<QLocalSocket *> m_answered;
};

} // namespace

Paths tst_LocalApi::pathsFor(const QString &home)
{
    QProcessEnvironment env;
    env.insert(QStringLiteral("ISOLATION_HOME"), home);
    return Paths::resolve(env).value();
}

Result<QJsonObject, LocalApiError> tst_LocalApi::call(
    const QString &socket, const QByteArray &method, const QString &path)
{
    // A thread of our own, joined here, so libcurl's per-thread OpenSSL state is freed before
    // the leak checker looks (a pooled thread may still be exiting at that point).
    std::optional<Result<QJsonObject, LocalApiError>> result;
    std::atomic_bool done = false;
    std::thread worker([&] {
        result.emplace(LocalApiClient(socket, 5000).call(method, path));
        done = true;
    });
    while (!done)
        QCoreApplication::processEvents(QEventLoop::AllEvents, 10);
    worker.join();
    return std::move(*result);
}

void tst_LocalApi::roundTrip()
{
    QTemporaryDir home;
    Engine engine(pathsFor(home.path()), fileStore());
    QVERIFY(engine.start().ok());
    QTRY_COMPARE(
        engine.stateReason(), QStringLiteral("Not paired: pair this computer with Isolation to start working"));
    QCOMPARE(engine.state(), EngineState::NotPaired);

    auto status = call(engine.paths().socketPath(), "GET", QStringLiteral("/v1/status"));
    QVERIFY2(status.ok(), qPrintable(status.ok() ? QString() : status.error().message));
    QCOMPARE(status.value().value(QStringLiteral("state")).toString(), QStringLiteral("not_paired"));
    QCOMPARE(status.value().value(QStringLiteral("home")).toString(), home.path());
    QCOMPARE(status.value().value(QStringLiteral("pid")).toInteger(), QCoreApplication::applicationPid());

    engine.stop();
    QVERIFY(!QFileInfo::exists(engine.paths().socketPath()));
}

void tst_LocalApi::permissions()
{
    QTemporaryDir home;
    Engine engine(pathsFor(home.path()), fileStore());
    QVERIFY(engine.start().ok());
    struct stat st
    {
    };
    QCOMPARE(::stat(QFile::encodeName(engine.paths().socketPath()).constData(), &st), 0);
    QVERIFY(S_ISSOCK(st.st_mode));
    QCOMPARE(st.st_mode & 0777, 0600u);
    QCOMPARE(::stat(QFile::encodeName(engine.paths().runtimeDir()).constData(), &st), 0);
    QCOMPARE(st.st_mode & 0777, 0700u);
}

void tst_LocalApi::curlCommandLine()
{
    const QString curl = QStandardPaths::findExecutable(QStringLiteral("curl"));
    if (curl.isEmpty())
        QFAIL("curl is not installed (./dev installs it)");
    QTemporaryDir home;
    Engine engine(pathsFor(home.path()), fileStore());
    QVERIFY(engine.start().ok());
    QTRY_VERIFY(engine.stateReason().startsWith(QStringLiteral("Not paired")));
    QProcess p;
    p.start(curl,
        {QStringLiteral("-sS"), QStringLiteral("--unix-socket"), engine.paths().socketPath(),
            QStringLiteral("http://local/v1/status")});
    QTRY_VERIFY_WITH_TIMEOUT(p.state() == QProcess::NotRunning, 10000);
    QCOMPARE(p.exitCode(), 0);
    const QJsonObject o = QJsonDocument::fromJson(p.readAllStandardOutput()).object();
    QCOMPARE(o.value(QStringLiteral("state")).toString(), QStringLiteral("not_paired"));
}

void tst_LocalApi::errorsUseTheProtocolBody()
{
    QTemporaryDir home;
    Engine engine(pathsFor(home.path()), fileStore());
    QVERIFY(engine.start().ok());
    auto missing = call(engine.paths().socketPath(), "GET", QStringLiteral("/v1/nothing-here"));
    QVERIFY(!missing.ok());
    QCOMPARE(missing.error().code, LocalApiError::Code::Api);
    QCOMPARE(missing.error().status, 404);
    QCOMPARE(missing.error().errorCode, QStringLiteral("not_found"));
    auto wrongMethod = call(engine.paths().socketPath(), "DELETE", QStringLiteral("/v1/status"));
    QVERIFY(!wrongMethod.ok());
    QCOMPARE(wrongMethod.error().status, 405);
}

void tst_LocalApi::secondEngineRefused()
{
    QTemporaryDir home;
    Engine first(pathsFor(home.path()), fileStore());
    QVERIFY(first.start().ok());
    Engine second(pathsFor(home.path()), fileStore());
    const Status s = second.start();
    QVERIFY(!s.ok());
    QCOMPARE(s.error().code, Error::Code::Unavailable);
    QVERIFY2(s.error().message.contains(QStringLiteral("already running")), qPrintable(s.error().message));
    QVERIFY(s.error().message.contains(QString::number(QCoreApplication::applicationPid())));
    QCOMPARE(second.state(), EngineState::Stopped);
    // The first engine is untouched by the refusal.
    auto status = call(first.paths().socketPath(), "GET", QStringLiteral("/v1/status"));
    QVERIFY(status.ok());
    first.stop();
    // Once the first has stopped, the state directory is free again.
    QVERIFY(second.start().ok());
}

void tst_LocalApi::staleSocketCleanedUp()
{
    QTemporaryDir home;
    const Paths paths = pathsFor(home.path());
    QVERIFY(paths.ensure().ok());
    // A socket file nobody listens on, as a crashed engine leaves behind.
    const int fd = ::socket(AF_UNIX, SOCK_STREAM, 0);
    QVERIFY(fd >= 0);
    sockaddr_un addr {};
    addr.sun_family = AF_UNIX;
    const QByteArray path = QFile::encodeName(paths.socketPath());
    std::memcpy(addr.sun_path, path.constData(), size_t(path.size()));
    QCOMPARE(::bind(fd, reinterpret_cast<sockaddr *>(&addr), sizeof addr), 0);
    ::close(fd);
    QVERIFY(QFileInfo::exists(paths.socketPath()));

    Engine engine(paths, fileStore());
    const Status s = engine.start();
    QVERIFY2(s.ok(), qPrintable(s.ok() ? QString() : s.error().message));
    QVERIFY(call(paths.socketPath(), "GET", QStringLiteral("/v1/status")).ok());
}

void tst_LocalApi::twoHomesTwoEngines()
{
    QTemporaryDir a, b;
    Engine ea(pathsFor(a.path()), fileStore()), eb(pathsFor(b.path()), fileStore());
    QVERIFY(ea.start().ok());
    QVERIFY(eb.start().ok());
    QCOMPARE(call(ea.paths().socketPath(), "GET", QStringLiteral("/v1/status"))
                 .value()
                 .value(QStringLiteral("home"))
                 .toString(),
        a.path());
    QCOMPARE(call(eb.paths().socketPath(), "GET", QStringLiteral("/v1/status"))
                 .value()
                 .value(QStringLiteral("home"))
                 .toString(),
        b.path());
}

void tst_LocalApi::clientWithoutEngine()
{
    QTemporaryDir home;
    auto r = LocalApiClient(pathsFor(home.path()).socketPath()).call("GET", QStringLiteral("/v1/status"));
    QVERIFY(!r.ok());
    QCOMPARE(r.error().code, LocalApiError::Code::NotRunning);
    QVERIFY(r.error().message.contains(QStringLiteral("isolation-server up")));
}

void tst_LocalApi::clientStaleSocket()
{
    // A socket file nobody listens on (a crashed engine's): not running, as with no file at all.
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("engine.sock"));
    const int fd = ::socket(AF_UNIX, SOCK_STREAM, 0);
    QVERIFY(fd >= 0);
    sockaddr_un address {};
    address.sun_family = AF_UNIX;
    std::strncpy(address.sun_path, QFile::encodeName(path).constData(), sizeof(address.sun_path) - 1);
    QCOMPARE(::bind(fd, reinterpret_cast<sockaddr *>(&address), sizeof address), 0);
    ::close(fd);
    QVERIFY(QFileInfo::exists(path));
    auto r = LocalApiClient(path, 2000).call("GET", QStringLiteral("/v1/status"));
    QVERIFY(!r.ok());
    QCOMPARE(r.error().code, LocalApiError::Code::NotRunning);
    QVERIFY2(r.error().message.contains(QStringLiteral("stale socket")), qPrintable(r.error().message));
}

void tst_LocalApi::clientChunkedAnswer()
{
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("engine.sock"));
    // The body in three chunks, each written (and flushed) on its own, split inside a chunk's size line.
    FakeEngine engine(path, [](QLocalSocket *s) {
        s->write("HTTP/1.1 201 Created\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n"
                 "9\r\n{\"items\":\r\n");
        s->flush();
        s->write("1");
        s->flush();
        s->write("1\r\n[1,2,3,4,5,6,7,8,\r\n");
        s->flush();
        s->write("3\r\n9]}\r\n0\r\n\r\n");
        s->disconnectFromServer();
    });
    const LocalApiClient client(path, 5000);
    auto r = requestOnThread(client, "POST", QStringLiteral("/v1/things?x=1"), R"({"a":1})");
    QVERIFY2(r.ok(), qPrintable(r.ok() ? QString() : r.error().message));
    QCOMPARE(r.value().status, 201);
    QCOMPARE(r.value().body, QByteArray(R"({"items":[1,2,3,4,5,6,7,8,9]})"));
    QCOMPARE(r.value().header("content-type"), QByteArray("application/json"));
    // What went out is the request the engine's own parser takes.
    QCOMPARE(engine.requests.size(), 1);
    const QByteArray sent = engine.requests.first();
    QVERIFY2(sent.startsWith("POST /v1/things?x=1 HTTP/1.1\r\n"), sent.constData());
    QVERIFY2(sent.contains("\r\nHost: localhost\r\n"), sent.constData());
    QVERIFY2(sent.contains("\r\nContent-Length: 7\r\n"), sent.constData());
    QVERIFY2(sent.contains("\r\nConnection: close\r\n"), sent.constData());
    QVERIFY2(sent.endsWith("\r\n\r\n{\"a\":1}"), sent.constData());
    // call() reads the JSON out of the same kind of answer.
    auto c = onThread([&] { return client.call("GET", QStringLiteral("/v1/things")); });
    QVERIFY2(c.ok(), qPrintable(c.ok() ? QString() : c.error().message));
    QCOMPARE(c.value().value(QStringLiteral("items")).toArray().size(), 9);
}

void tst_LocalApi::clientContentLengthAnswer()
{
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("engine.sock"));
    // An error answer with Content-Length, the connection left open after it: the client must
    // stop at the body's end, not wait for the close.
    FakeEngine engine(path, [](QLocalSocket *s) {
        const QByteArray body = R"({"error":{"code":"not_found","message":"no such thing"}})";
        s->write("HTTP/1.1 404 Not Found\r\nContent-Length: " + QByteArray::number(body.size()) + "\r\n\r\n" + body);
        s->flush();
    });
    QElapsedTimer clock;
    clock.start();
    auto r = onThread([&] { return LocalApiClient(path, 3000).call("GET", QStringLiteral("/v1/nothing")); });
    QVERIFY2(clock.elapsed() < 2000, qPrintable(QString::number(clock.elapsed())));
    QVERIFY(!r.ok());
    QCOMPARE(r.error().code, LocalApiError::Code::Api);
    QCOMPARE(r.error().status, 404);
    QCOMPARE(r.error().errorCode, QStringLiteral("not_found"));
    QCOMPARE(r.error().message, QStringLiteral("no such thing"));
    QVERIFY2(!engine.requests.first().contains("Content-Length"), engine.requests.first().constData());
}

void tst_LocalApi::clientCutMidAnswer()
{
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("engine.sock"));
    // Half an answer, then the connection closes: both for a Content-Length body and a chunked one.
    for (const QByteArray &half : {QByteArray("HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n{\"state\":"),
             QByteArray("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n9\r\n{\"state\":\r\n"),
             QByteArray("HTTP/1.1 200 OK\r\nContent-Le")}) {
        QFile::remove(path);
        FakeEngine engine(path, [half](QLocalSocket *s) {
            s->write(half);
            s->disconnectFromServer();
        });
        auto r = requestOnThread(LocalApiClient(path, 5000), "GET", QStringLiteral("/v1/status"));
        QVERIFY2(!r.ok(), half.constData());
        QCOMPARE(r.error().code, LocalApiError::Code::Transport);
        QVERIFY2(r.error().message.contains(QStringLiteral("closed in the middle")), qPrintable(r.error().message));
    }
    // Closed before a byte of an answer: the engine stopped while it worked on the request.
    QFile::remove(path);
    FakeEngine silent(path, [](QLocalSocket *s) { s->disconnectFromServer(); });
    auto r = requestOnThread(LocalApiClient(path, 5000), "GET", QStringLiteral("/v1/status"));
    QVERIFY(!r.ok());
    QCOMPARE(r.error().code, LocalApiError::Code::Stopped);
    QVERIFY2(r.error().message.contains(QStringLiteral("the engine stopped before it answered")), qPrintable(r.error().message));
}

void tst_LocalApi::clientTimeout()
{
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("engine.sock"));
    // Accepts, reads the request, never answers.
    FakeEngine engine(path, [](QLocalSocket *) { });
    QElapsedTimer clock;
    clock.start();
    auto r = requestOnThread(LocalApiClient(path, 400), "GET", QStringLiteral("/v1/status"));
    const qint64 took = clock.elapsed();
    QVERIFY(!r.ok());
    QCOMPARE(r.error().code, LocalApiError::Code::Transport);
    QVERIFY2(r.error().message.contains(QStringLiteral("within 400 ms")), qPrintable(r.error().message));
    QCOMPARE(engine.requests.size(), 1); // it was the answer that did not come, not the connection
    QVERIFY2(took >= 390 && took < 3000, qPrintable(QString::number(took)));
}

namespace {
// One chunk of a chunked body (the engine's event stream is chunked).
QByteArray chunk(const QByteArray &bytes)
{
    return QByteArray::number(bytes.size(), 16) + "\r\n" + bytes + "\r\n";
}
} // namespace

void tst_LocalApi::followerReadsEventsAndResumes()
{
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("engine.sock"));
    // Two events, then the engine goes away; the follower comes back asking for what came after.
    FakeEngine engine(path, [](QLocalSocket *s) {
        s->write("HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n"
            + chunk("id: r1-1\nevent: state\ndata: {\"state\":\"online\"}\n\n")
            + chunk("id: r1-2\nevent: session.progress\ndata: {\"session\":\"s1\",\"done\":5}\n\n"));
        s->flush();
        s->disconnectFromServer();
    });
    EventFollower follower(path);
    follower.setRetryDelay(50);
    QList<LocalApiEvent> events;
    QObject::connect(&follower, &EventFollower::event, [&](const LocalApiEvent &e) { events.append(e); });
    QSignalSpy subscribed(&follower, &EventFollower::subscribed);
    QSignalSpy disconnected(&follower, &EventFollower::disconnected);
    follower.start();
    QTRY_VERIFY_WITH_TIMEOUT(engine.requests.size() >= 2, 10000);
    follower.stop();
    QVERIFY(events.size() >= 2);
    QCOMPARE(events.at(0).id, QStringLiteral("r1-1"));
    QCOMPARE(events.at(0).kind, QStringLiteral("state"));
    QCOMPARE(events.at(0).data.value(QStringLiteral("state")).toString(), QStringLiteral("online"));
    QCOMPARE(events.at(1).kind, QStringLiteral("session.progress"));
    QCOMPARE(events.at(1).data.value(QStringLiteral("done")).toInt(), 5);
    QVERIFY(subscribed.size() >= 1);
    QVERIFY(!disconnected.isEmpty());
    QCOMPARE(disconnected.first().first().toString(), QStringLiteral("the engine closed the event stream"));
    // The first request asked for what comes from now on; the second for what came after r1-2.
    QVERIFY2(engine.requests.at(0).startsWith("GET /v1/events HTTP/1.1\r\n"), engine.requests.at(0).constData());
    QVERIFY2(!engine.requests.at(0).contains("Last-Event-ID"), engine.requests.at(0).constData());
    QVERIFY2(engine.requests.at(1).contains("\r\nLast-Event-ID: r1-2\r\n"), engine.requests.at(1).constData());
}

void tst_LocalApi::followerRefused()
{
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("engine.sock"));
    FakeEngine engine(path, [](QLocalSocket *s) {
        const QByteArray body = R"({"error":{"code":"too_many","message":"16 streams are open"}})";
        s->write("HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/json\r\nContent-Length: "
            + QByteArray::number(body.size()) + "\r\n\r\n" + body);
        s->flush();
    });
    EventFollower follower(path);
    follower.setRetryDelay(5000);
    QSignalSpy disconnected(&follower, &EventFollower::disconnected);
    QSignalSpy subscribed(&follower, &EventFollower::subscribed);
    follower.start();
    QTRY_VERIFY_WITH_TIMEOUT(!disconnected.isEmpty(), 10000);
    QCOMPARE(disconnected.first().first().toString(),
        QStringLiteral("the engine refused the event stream (HTTP 503): 16 streams are open"));
    QVERIFY(subscribed.isEmpty());
    QVERIFY(!follower.isConnected());
}

void tst_LocalApi::followerWithoutEngine()
{
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("engine.sock"));
    EventFollower follower(path);
    follower.setRetryDelay(20);
    QSignalSpy disconnected(&follower, &EventFollower::disconnected);
    follower.start();
    // Said at once, and tried again (20, 40, 80 ms ...) while nothing answers.
    QCOMPARE(disconnected.size(), 1);
    QCOMPARE(disconnected.first().first().toString(), QStringLiteral("no engine answers on %1").arg(path));
    QTRY_VERIFY_WITH_TIMEOUT(disconnected.size() >= 3, 5000);
    // An engine that comes up is found by the next try.
    FakeEngine engine(path, [](QLocalSocket *s) {
        s->write("HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n"
            + chunk(": hello\n\n"));
        s->flush();
    });
    QSignalSpy subscribed(&follower, &EventFollower::subscribed);
    QTRY_VERIFY_WITH_TIMEOUT(!subscribed.isEmpty(), 10000);
    QVERIFY(follower.isConnected());
    follower.stop();
}

// An engine that accepts nothing (hung, or swamped) with its backlog full: a blocking connect would
// wait there, on the tray's GUI thread. The follower's connect never waits: it says so and tries
// again later.
void tst_LocalApi::followerNeverWaitsOnAFullBacklog()
{
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("engine.sock"));
    sockaddr_un address {};
    address.sun_family = AF_UNIX;
    std::strncpy(address.sun_path, QFile::encodeName(path).constData(), sizeof address.sun_path - 1);
    const int listener = ::socket(AF_UNIX, SOCK_STREAM, 0);
    QVERIFY(listener >= 0);
    QCOMPARE(::bind(listener, reinterpret_cast<const sockaddr *>(&address), sizeof address), 0);
    QCOMPARE(::listen(listener, 0), 0);
    std::vector<int> waiting; // clients the listener never accepts, until one is refused
    for (int i = 0; i < 64; ++i) {
        const int client = ::socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0);
        if (::connect(client, reinterpret_cast<const sockaddr *>(&address), sizeof address) < 0) {
            QCOMPARE(errno, EAGAIN);
            ::close(client);
            break;
        }
        waiting.push_back(client);
    }
    QVERIFY(!waiting.empty() && waiting.size() < 64);

    EventFollower follower(path);
    follower.setRetryDelay(20);
    QSignalSpy disconnected(&follower, &EventFollower::disconnected);
    follower.start();
    QCOMPARE(disconnected.size(), 1); // said from inside start(), not after a wait
    QCOMPARE(disconnected.first().first().toString(),
        QStringLiteral("the engine on %1 takes no new connection now (busy or hung)").arg(path));
    QTRY_VERIFY_WITH_TIMEOUT(disconnected.size() >= 3, 5000); // and tried again
    follower.stop();
    for (const int client : waiting)
        ::close(client);
    ::close(listener);
}

QTEST_GUILESS_MAIN(tst_LocalApi)
#include "tst_localapi.moc"
