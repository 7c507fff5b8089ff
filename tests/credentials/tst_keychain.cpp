// The credential store through a real Secret Service: a private D-Bus session bus and an
// unlocked gnome-keyring-daemon started by this test, with a fresh HOME. And the clear errors
// an engine gives when no keychain is there, and when the keychain is locked (last: it stays so).
#include "browserapproval.h"
#include "desktopsession.h"
#include "hubprocess.h"

#include "core/paths.h"
#include "core/settings.h"
#include "engine.h"
#include "credentials/credentialstore.h"
#include "credentials/keychainhelper.h"

#include <QDBusConnection>
#include <QDBusMessage>
#include <QDBusObjectPath>
#include <QDirIterator>
#include <QElapsedTimer>
#include <QFile>
#include <QFileInfo>
#include <QJsonDocument>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

#include <csignal>

using namespace isolation;
using namespace isolation::test;

namespace {

// No session bus (so no Secret Service) for this process and what it starts, the keychain helper
// among them, until it goes out of scope.
class WithoutSessionBus
{
public:
    explicit WithoutSessionBus(const QString &dir)
        : m_bus(qgetenv("DBUS_SESSION_BUS_ADDRESS"))
    {
        qputenv("DBUS_SESSION_BUS_ADDRESS", "unix:path=" + dir.toUtf8() + "/no-bus-here");
    }
    ~WithoutSessionBus() { qputenv("DBUS_SESSION_BUS_ADDRESS", m_bus); }
    WithoutSessionBus(const WithoutSessionBus &) = delete;
    WithoutSessionBus &operator=(const WithoutSessionBus &) = delete;

private:
    QByteArray m_bus;
};

} // namespace

class tst_Keychain final : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void cleanupTestCase();
    void roundTrip();
    void entriesAreNamespacedByStateDirectory();
    void operationsRunInTheOrderAsked();
    void missingHelperIsAClearError();
    void silentHelperTimesOut();
    void pairingKeepsEverySecretInTheKeychain();
    void headlessServerReadsTheKeychain();
    void noKeychainIsAClearError();
    void everyStartFindsTheKeychainIdentity();
    void autoKeepsTheKeysInTheFileWithoutAKeychain();
    void lockedKeychainIsNotAnUnpairedComputer();

private:
    template<typename R, typename Call>
    static R wait(Call call);
    // Pairs `engine` (started, not paired) with the hub through its approval page.
    static bool pairWith(Engine &engine, const HubProcess &hub, const QString &name);

    QTemporaryDir m_root;
    DesktopSession m_desktop;
};

template<typename R, typename Call>
R tst_Keychain::wait(Call call)
{
    std::optional<R> result;
    call([&result](R r) { result.emplace(std::move(r)); });
    QDeadlineTimer deadline(20000);
    while (!result && !deadline.hasExpired())
        QCoreApplication::processEvents(QEventLoop::AllEvents, 20);
    if (!result)
        qFatal("keychain call did not finish");
    return std::move(*result);
}

bool tst_Keychain::pairWith(Engine &engine, const HubProcess &hub, const QString &name)
{
    if (!engine.startPairing(hub.appUrl(), name).ok())
        return false;
    QDeadlineTimer deadline(20000);
    while (engine.pairingStatus().value(QStringLiteral("state")).toString() != QLatin1String("waiting_for_approval")) {
        if (deadline.hasExpired())
            return false;
        QTest::qWait(20);
    }
    const QString code = engine.pairingStatus().value(QStringLiteral("userCode")).toString();
    if (submitApprovalPage(hub.appUrl(), code).status != 200)
        return false;
    while (engine.state() != EngineState::Online) {
        if (deadline.hasExpired())
            return false;
        QTest::qWait(20);
    }
    return true;
}

void tst_Keychain::initTestCase()
{
    // This process and everything it starts use the private bus and a fresh, empty keyring.
    QString error;
    QVERIFY2(m_desktop.start(DesktopSession::Keyring, &error), qPrintable(error));
    m_desktop.enterThisProcess();
}

void tst_Keychain::cleanupTestCase()
{
    m_desktop.stop();
}

void tst_Keychain::roundTrip()
{
    KeychainCredentialStore store(m_root.path() + QStringLiteral("/engine-a"));
    using LoadResult = Result<std::optional<SecureBytes>, CredentialError>;
    using DoneResult = Result<void, CredentialError>;

    LoadResult empty = wait<LoadResult>([&](auto cb) { store.load(cb); });
    QVERIFY2(empty.ok(), qPrintable(empty.ok() ? QString() : empty.error().message));
    QVERIFY(!empty.value().has_value());

    const SecureBytes secret(QByteArrayView("a secret \x01\x02\xff with binary bytes"));
    QVERIFY(wait<DoneResult>([&](auto cb) { store.save(secret, cb); }).ok());
    LoadResult loaded = wait<LoadResult>([&](auto cb) { store.load(cb); });
    QVERIFY(loaded.ok() && loaded.value().has_value());
    QCOMPARE(loaded.value()->view().toByteArray(), secret.view().toByteArray());

    QVERIFY(wait<DoneResult>([&](auto cb) { store.remove(cb); }).ok());
    QVERIFY(!wait<LoadResult>([&](auto cb) { store.load(cb); }).value().has_value());
    // Removing what is not there is fine.
    QVERIFY(wait<DoneResult>([&](auto cb) { store.remove(cb); }).ok());
}

void tst_Keychain::entriesAreNamespacedByStateDirectory()
{
    using LoadResult = Result<std::optional<SecureBytes>, CredentialError>;
    using DoneResult = Result<void, CredentialError>;
    KeychainCredentialStore a(m_root.path() + QStringLiteral("/a")), b(m_root.path() + QStringLiteral("/b"));
    QVERIFY(a.entryKey() != b.entryKey());
    QVERIFY(wait<DoneResult>([&](auto cb) { a.save(SecureBytes(QByteArrayView("secret of a")), cb); }).ok());
    QVERIFY(wait<DoneResult>([&](auto cb) { b.save(SecureBytes(QByteArrayView("secret of b")), cb); }).ok());
    QCOMPARE(wait<LoadResult>([&](auto cb) { a.load(cb); }).value()->view().toByteArray(), QByteArray("secret of a"));
    QCOMPARE(wait<LoadResult>([&](auto cb) { b.load(cb); }).value()->view().toByteArray(), QByteArray("secret of b"));
    QVERIFY(wait<DoneResult>([&](auto cb) { a.remove(cb); }).ok());
    QCOMPARE(wait<LoadResult>([&](auto cb) { b.load(cb); }).value()->view().toByteArray(), QByteArray("secret of b"));
    QVERIFY(wait<DoneResult>([&](auto cb) { b.remove(cb); }).ok());
}

void tst_Keychain::operationsRunInTheOrderAsked()
{
    // Each operation is a helper process of its own; asked at once, they still run one after the
    // other, so the remove lands after the save and the load after both.
    KeychainCredentialStore store(m_root.path() + QStringLiteral("/ordered"));
    QStringList finished;
    bool saved = false, removed = false;
    std::optional<Result<std::optional<SecureBytes>, CredentialError>> loaded;
    store.save(SecureBytes(QByteArrayView("short-lived")), [&](Result<void, CredentialError> r) {
        saved = r.ok();
        finished << QStringLiteral("save");
    });
    store.remove([&](Result<void, CredentialError> r) {
        removed = r.ok();
        finished << QStringLiteral("remove");
    });
    store.load([&](Result<std::optional<SecureBytes>, CredentialError> r) {
        loaded.emplace(std::move(r));
        finished << QStringLiteral("load");
    });
    QVERIFY(finished.isEmpty()); // never inside the call
    QTRY_VERIFY_WITH_TIMEOUT(loaded.has_value(), 20000);
    QCOMPARE(finished, QStringList({QStringLiteral("save"), QStringLiteral("remove"), QStringLiteral("load")}));
    QVERIFY(saved && removed);
    QVERIFY(loaded->ok() && !loaded->value().has_value());
}

void tst_Keychain::missingHelperIsAClearError()
{
    QVERIFY2(QFileInfo(KeychainHelper::program()).isExecutable(), qPrintable(KeychainHelper::program()));
    KeychainHelper missing(m_root.path() + QStringLiteral("/no-such-helper"));
    std::optional<KeychainHelper::Outcome> outcome;
    missing.run(KeychainHelper::Operation::Read, KeychainCredentialStore::serviceName(), QStringLiteral("engine:x"), {},
        [&](KeychainHelper::Outcome o) { outcome.emplace(std::move(o)); });
    QTRY_VERIFY_WITH_TIMEOUT(outcome.has_value(), 20000);
    QCOMPARE(outcome->exit, KeychainExit::Unavailable);
    QVERIFY2(outcome->message.startsWith(QStringLiteral("cannot run the keychain helper ") + m_root.path()),
        qPrintable(outcome->message));
}

void tst_Keychain::silentHelperTimesOut()
{
    // A keychain that never answers: the helper is stopped and the caller hears why, in time.
    const QString silent = m_root.path() + QStringLiteral("/silent-helper");
    {
        QFile script(silent);
        QVERIFY(script.open(QIODevice::WriteOnly));
        script.write("#!/bin/sh\nexec sleep 600\n");
    }
    QVERIFY(QFile::setPermissions(silent, QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner));
    KeychainHelper helper(silent);
    helper.setTimeout(std::chrono::seconds(1));
    QElapsedTimer clock;
    clock.start();
    std::optional<KeychainHelper::Outcome> first, second;
    helper.run(KeychainHelper::Operation::Read, KeychainCredentialStore::serviceName(), QStringLiteral("engine:x"), {},
        [&](KeychainHelper::Outcome o) { first.emplace(std::move(o)); });
    helper.run(KeychainHelper::Operation::Delete, KeychainCredentialStore::serviceName(), QStringLiteral("engine:x"),
        {}, [&](KeychainHelper::Outcome o) { second.emplace(std::move(o)); });
    QTRY_VERIFY_WITH_TIMEOUT(first.has_value(), 10000);
    QVERIFY2(clock.elapsed() >= 900, qPrintable(QString::number(clock.elapsed())));
    QCOMPARE(first->exit, KeychainExit::Unavailable);
    QVERIFY2(first->message.contains(QStringLiteral("did not answer within 1 s")), qPrintable(first->message));
    // The queue goes on: the next operation gets its own helper and its own deadline.
    QTRY_VERIFY_WITH_TIMEOUT(second.has_value(), 10000);
    QCOMPARE(second->exit, KeychainExit::Unavailable);
    QVERIFY(clock.elapsed() >= 1800);
}

void tst_Keychain::pairingKeepsEverySecretInTheKeychain()
{
    HubProcess hub;
    QVERIFY(hub.start({},
        {QStringLiteral("--poll-interval"), QStringLiteral("1"), QStringLiteral("--heartbeat-interval"),
            QStringLiteral("1")}));
    QTemporaryDir home;
    QProcessEnvironment env;
    env.insert(QStringLiteral("ISOLATION_HOME"), home.path());
    const Paths paths = Paths::resolve(env).value();
    {
        Engine engine(paths); // the keychain store is the default
        QVERIFY(engine.start().ok());
        QTRY_COMPARE_WITH_TIMEOUT(engine.state(), EngineState::NotPaired, 10000);
        QVERIFY(engine.startPairing(hub.appUrl(), QStringLiteral("desk")).ok());
        QTRY_COMPARE_WITH_TIMEOUT(engine.pairingStatus().value(QStringLiteral("state")).toString(),
            QStringLiteral("waiting_for_approval"), 10000);
        QCOMPARE(submitApprovalPage(hub.appUrl(), engine.pairingStatus().value(QStringLiteral("userCode")).toString())
                     .status,
            200);
        QTRY_COMPARE_WITH_TIMEOUT(engine.state(), EngineState::Online, 20000);
    }
    // Nothing secret was written to the engine's directories: no credentials file of any name.
    QDirIterator it(home.path(), QDir::Files, QDirIterator::Subdirectories);
    while (it.hasNext()) {
        const QString path = it.next();
        QVERIFY2(!path.endsWith(QStringLiteral("credentials.json")), qPrintable(path));
    }
    // A new engine on the same state directory finds its identity in the keychain.
    Engine again(paths);
    QVERIFY(again.start().ok());
    QTRY_COMPARE_WITH_TIMEOUT(again.state(), EngineState::Online, 20000);
    again.unpair();
    QTRY_COMPARE_WITH_TIMEOUT(again.state(), EngineState::NotPaired, 20000);
}

// isolation-server itself (not an Engine in this process) on a desktop with a keychain: its
// helper answers, and the engine gets past reading its credentials. This hung once, when the
// server's choice of event dispatcher leaked into the helper (docs/architecture.md).
void tst_Keychain::headlessServerReadsTheKeychain()
{
    QTemporaryDir home;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert(QStringLiteral("ISOLATION_HOME"), home.path());
    env.insert(QStringLiteral("ISOLATION_HUB_URL"), QStringLiteral("http://127.0.0.1:9"));
    QProcess up;
    up.setProcessEnvironment(env);
    up.start(serverBinary(), {QStringLiteral("up")});
    QVERIFY(up.waitForStarted());
    QString state, reason;
    QTRY_VERIFY_WITH_TIMEOUT(
        [&] {
            QProcess status;
            status.setProcessEnvironment(env);
            status.start(serverBinary(), {QStringLiteral("status"), QStringLiteral("--json")});
            status.waitForFinished(10000);
            const QJsonObject o = QJsonDocument::fromJson(status.readAllStandardOutput()).object();
            state = o.value(QStringLiteral("state")).toString();
            reason = o.value(QStringLiteral("reason")).toString();
            return state == QLatin1String("not_paired") && !reason.startsWith(QStringLiteral("Starting"));
        }(),
        20000);
    ::kill(pid_t(up.processId()), SIGTERM);
    QVERIFY(up.waitForFinished(20000));
    QCOMPARE(up.exitStatus(), QProcess::NormalExit);
}

void tst_Keychain::noKeychainIsAClearError()
{
    QTemporaryDir home;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert(QStringLiteral("ISOLATION_HOME"), home.path());
    env.insert(QStringLiteral("DBUS_SESSION_BUS_ADDRESS"), QStringLiteral("unix:path=%1/no-bus-here").arg(home.path()));
    env.remove(QStringLiteral("DISPLAY"));
    QProcess up;
    up.setProcessEnvironment(env);
    up.start(serverBinary(), {QStringLiteral("up")});
    QVERIFY(up.waitForStarted());
    QString state, reason, problem;
    QTRY_VERIFY_WITH_TIMEOUT(
        [&] {
            QProcess status;
            status.setProcessEnvironment(env);
            status.start(serverBinary(), {QStringLiteral("status"), QStringLiteral("--json")});
            status.waitForFinished();
            const QJsonObject o = QJsonDocument::fromJson(status.readAllStandardOutput()).object();
            state = o.value(QStringLiteral("state")).toString();
            reason = o.value(QStringLiteral("reason")).toString();
            problem = o.value(QStringLiteral("credentialStoreProblem")).toString();
            return state == QLatin1String("error");
        }(),
        20000);
    QCOMPARE(problem, QStringLiteral("unavailable"));
    QVERIFY2(reason.contains(QStringLiteral("keychain")), qPrintable(reason));
    QVERIFY2(reason.contains(QStringLiteral("--credential-store file")), qPrintable(reason));
    // Pairing is refused rather than done with nowhere safe to keep the keys.
    QProcess pair;
    pair.setProcessEnvironment(env);
    pair.start(serverBinary(), {QStringLiteral("pair"), QStringLiteral("--hub"), QStringLiteral("http://127.0.0.1:9")});
    QVERIFY(pair.waitForFinished(20000));
    QVERIFY(pair.exitCode() != 0);
    ::kill(pid_t(up.processId()), SIGTERM);
    QVERIFY(up.waitForFinished(20000));
    QDirIterator it(home.path(), QDir::Files, QDirIterator::Subdirectories);
    while (it.hasNext())
        QVERIFY(!it.next().endsWith(QStringLiteral("credentials.json")));
}

// The engine has three ways to start (the tray, an autostart entry: plain `up`; the systemd user
// unit: `up --credential-store auto`), and they must all be the same paired computer. An identity
// in the keychain is remembered there: `auto` uses the keychain for it even when no keychain
// answers at that moment (a unit started at boot, before the desktop session), and says so, rather
// than coming up as a new, unpaired computer with its keys in a file.
void tst_Keychain::everyStartFindsTheKeychainIdentity()
{
    HubProcess hub;
    QVERIFY(hub.start({}, {QStringLiteral("--poll-interval"), QStringLiteral("1")}));
    QTemporaryDir home;
    QProcessEnvironment env;
    env.insert(QStringLiteral("ISOLATION_HOME"), home.path());
    const Paths paths = Paths::resolve(env).value();
    {
        Engine engine(paths); // as the tray starts it: no option
        QVERIFY(engine.start().ok());
        QTRY_COMPARE_WITH_TIMEOUT(engine.state(), EngineState::NotPaired, 10000);
        QVERIFY(pairWith(engine, hub, QStringLiteral("desk")));
    }
    QCOMPARE(Settings(paths.settingsFile()).value(QStringLiteral("credentials/store")).toString(),
        QStringLiteral("keychain"));
    EngineOptions unit;
    unit.credentialStore = CredentialStoreKind::Auto;
    {
        Engine engine(paths, unit);
        QVERIFY(engine.start().ok());
        QTRY_COMPARE_WITH_TIMEOUT(engine.state(), EngineState::Online, 20000);
        QCOMPARE(engine.status().value(QStringLiteral("credentialStoreKind")).toString(), QStringLiteral("keychain"));
    }
    // No Secret Service on the bus now: the unit's engine still looks in the keychain, and says it
    // cannot reach it.
    {
        const WithoutSessionBus noBus(home.path());
        Engine engine(paths, unit);
        QVERIFY(engine.start().ok());
        QTRY_COMPARE_WITH_TIMEOUT(engine.state(), EngineState::Error, 20000);
        const QJsonObject status = engine.status();
        QCOMPARE(status.value(QStringLiteral("credentialStoreProblem")).toString(), QStringLiteral("unavailable"));
        QCOMPARE(status.value(QStringLiteral("credentialStoreKind")).toString(), QStringLiteral("keychain"));
    }
    QDirIterator it(home.path(), QDir::Files, QDirIterator::Subdirectories);
    while (it.hasNext())
        QVERIFY2(!it.next().endsWith(QStringLiteral("credentials.json")), qPrintable(it.filePath()));
    // The keychain back: the same computer again.
    Engine again(paths, unit);
    QVERIFY(again.start().ok());
    QTRY_COMPARE_WITH_TIMEOUT(again.state(), EngineState::Online, 20000);
    again.unpair();
    QTRY_COMPARE_WITH_TIMEOUT(again.state(), EngineState::NotPaired, 20000);
}

// The unit on a machine without a keychain (headless, or a desktop without a Secret Service):
// `auto` keeps the keys in the 0600 file, and from then on every start (plain `up` too, with a
// keychain present again) finds them there.
void tst_Keychain::autoKeepsTheKeysInTheFileWithoutAKeychain()
{
    HubProcess hub;
    QVERIFY(hub.start({}, {QStringLiteral("--poll-interval"), QStringLiteral("1")}));
    QTemporaryDir home;
    QProcessEnvironment env;
    env.insert(QStringLiteral("ISOLATION_HOME"), home.path());
    const Paths paths = Paths::resolve(env).value();
    {
        const WithoutSessionBus noBus(home.path());
        EngineOptions unit;
        unit.credentialStore = CredentialStoreKind::Auto;
        Engine engine(paths, unit);
        QVERIFY(engine.start().ok());
        // Until the keychain has answered "unavailable" the store is the keychain.
        QTRY_COMPARE_WITH_TIMEOUT(
            engine.status().value(QStringLiteral("credentialStoreKind")).toString(), QStringLiteral("file"), 20000);
        QCOMPARE(engine.state(), EngineState::NotPaired);
        QVERIFY(engine.status().value(QStringLiteral("credentialStoreError")).toString().isEmpty());
        QVERIFY(pairWith(engine, hub, QStringLiteral("headless")));
    }
    const QFileInfo file(paths.dataDir() + QStringLiteral("/credentials.json"));
    QVERIFY(file.exists());
    QCOMPARE(file.permissions() & ~(QFile::ReadOwner | QFile::WriteOwner | QFile::ReadUser | QFile::WriteUser),
        QFile::Permissions());
    QCOMPARE(Settings(paths.settingsFile()).value(QStringLiteral("credentials/store")).toString(),
        QStringLiteral("file"));
    Engine plain(paths); // the tray's start, with the keychain answering
    QVERIFY(plain.start().ok());
    QTRY_COMPARE_WITH_TIMEOUT(plain.state(), EngineState::Online, 20000);
    QCOMPARE(plain.status().value(QStringLiteral("credentialStoreKind")).toString(), QStringLiteral("file"));
    plain.unpair();
    QTRY_COMPARE_WITH_TIMEOUT(plain.state(), EngineState::NotPaired, 20000);
    QTRY_VERIFY_WITH_TIMEOUT(!QFile::exists(file.filePath()), 10000); // QFileInfo caches
}

// A paired computer whose keychain is locked (the login keyring after a screen lock, an unlock
// prompt dismissed, or no prompt possible) is not a new computer: reading its entry then ends
// like reading one never written, and the engine used to say "Not paired" and offer to pair again
// (a second identity at the hub). It must say the keychain is locked.
void tst_Keychain::lockedKeychainIsNotAnUnpairedComputer()
{
    HubProcess hub;
    QVERIFY(hub.start({}, {QStringLiteral("--poll-interval"), QStringLiteral("1")}));
    QTemporaryDir home;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert(QStringLiteral("ISOLATION_HOME"), home.path());
    env.insert(QStringLiteral("LC_ALL"), QStringLiteral("C.UTF-8"));
    env.remove(QStringLiteral("DISPLAY")); // no unlock prompt can be shown
    const Paths paths = Paths::resolve(env).value();
    {
        Engine engine(paths);
        QVERIFY(engine.start().ok());
        QTRY_COMPARE_WITH_TIMEOUT(engine.state(), EngineState::NotPaired, 10000);
        QVERIFY(engine.startPairing(hub.appUrl(), QStringLiteral("locked-desk")).ok());
        QTRY_COMPARE_WITH_TIMEOUT(engine.pairingStatus().value(QStringLiteral("state")).toString(),
            QStringLiteral("waiting_for_approval"), 10000);
        QCOMPARE(submitApprovalPage(hub.appUrl(), engine.pairingStatus().value(QStringLiteral("userCode")).toString())
                     .status,
            200);
        QTRY_COMPARE_WITH_TIMEOUT(engine.state(), EngineState::Online, 20000);
    }

    // Lock the collection the entries are in, as the Secret Service's own Lock does.
    QDBusMessage alias = QDBusMessage::createMethodCall(QStringLiteral("org.freedesktop.secrets"),
        QStringLiteral("/org/freedesktop/secrets"), QStringLiteral("org.freedesktop.Secret.Service"),
        QStringLiteral("ReadAlias"));
    alias << QStringLiteral("default");
    const QDBusMessage collection = QDBusConnection::sessionBus().call(alias);
    QVERIFY2(collection.type() == QDBusMessage::ReplyMessage, qPrintable(collection.errorMessage()));
    const QDBusObjectPath path = collection.arguments().value(0).value<QDBusObjectPath>();
    QVERIFY(path.path().startsWith(QStringLiteral("/org/freedesktop/secrets/collection/")));
    QDBusMessage lock = QDBusMessage::createMethodCall(QStringLiteral("org.freedesktop.secrets"),
        QStringLiteral("/org/freedesktop/secrets"), QStringLiteral("org.freedesktop.Secret.Service"),
        QStringLiteral("Lock"));
    lock << QVariant::fromValue(QList<QDBusObjectPath> {path});
    const QDBusMessage locked = QDBusConnection::sessionBus().call(lock);
    QVERIFY2(locked.type() == QDBusMessage::ReplyMessage, qPrintable(locked.errorMessage()));

    // The store says locked, not "nothing stored".
    KeychainCredentialStore store(paths.overridden() ? paths.home() : paths.dataDir()); // as the engine names it
    using LoadResult = Result<std::optional<SecureBytes>, CredentialError>;
    LoadResult read = wait<LoadResult>([&](auto cb) { store.load(cb); });
    QVERIFY2(!read.ok(), "a locked keychain read as an empty one");
    QCOMPARE(int(read.error().code), int(CredentialError::Code::Locked));

    // isolation-server up: an error that says locked, and the same to a client (credentialStoreProblem).
    QProcess up;
    up.setProcessEnvironment(env);
    up.start(serverBinary(), {QStringLiteral("up")});
    QVERIFY(up.waitForStarted());
    QJsonObject status;
    QTRY_VERIFY_WITH_TIMEOUT(
        [&] {
            QProcess p;
            p.setProcessEnvironment(env);
            p.start(serverBinary(), {QStringLiteral("status"), QStringLiteral("--json")});
            p.waitForFinished(10000);
            status = QJsonDocument::fromJson(p.readAllStandardOutput()).object();
            return !status.value(QStringLiteral("state")).toString().isEmpty()
                && !status.value(QStringLiteral("reason")).toString().startsWith(QStringLiteral("Starting"));
        }(),
        30000);
    const QString reason = status.value(QStringLiteral("reason")).toString();
    QCOMPARE(status.value(QStringLiteral("state")).toString(), QStringLiteral("error"));
    QCOMPARE(status.value(QStringLiteral("credentialStoreProblem")).toString(), QStringLiteral("locked"));
    QVERIFY2(reason.contains(QStringLiteral("locked")), qPrintable(reason));
    QVERIFY(!status.value(QStringLiteral("paired")).toBool());
    ::kill(pid_t(up.processId()), SIGTERM);
    QVERIFY(up.waitForFinished(20000));
    QCOMPARE(up.exitStatus(), QProcess::NormalExit);
}

QTEST_GUILESS_MAIN(tst_Keychain)
#include "tst_keychain.moc"
