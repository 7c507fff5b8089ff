#include "core/paths.h"
#include "engine.h"
#include "localapi/localapiclient.h"

#include <QFileInfo>
#include <QJsonDocument>
#include <QProcess>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

#include <atomic>
#include <optional>
#include <thread>

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

QTEST_GUILESS_MAIN(tst_LocalApi)
#include "tst_localapi.moc"
