// The credential store through a real Secret Service: a private D-Bus session bus and an
// unlocked gnome-keyring-daemon started by this test, with a fresh HOME. And the clear error
// an engine gives when no keychain is there.
#include "browserapproval.h"
#include "desktopsession.h"
#include "hubprocess.h"

#include "core/paths.h"
#include "engine.h"
#include "pairing/credentialstore.h"
#include "pairing/keychainhelper.h"

#include <QDirIterator>
#include <QFileInfo>
#include <QJsonDocument>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

#include <csignal>

using namespace isolation;
using namespace isolation::test;

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
    void pairingKeepsEverySecretInTheKeychain();
    void noKeychainIsAClearError();

private:
    template<typename R, typename Call>
    static R wait(Call call);

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
    QString state, reason;
    QTRY_VERIFY_WITH_TIMEOUT(
        [&] {
            QProcess status;
            status.setProcessEnvironment(env);
            status.start(serverBinary(), {QStringLiteral("status"), QStringLiteral("--json")});
            status.waitForFinished();
            const QJsonObject o = QJsonDocument::fromJson(status.readAllStandardOutput()).object();
            state = o.value(QStringLiteral("state")).toString();
            reason = o.value(QStringLiteral("reason")).toString();
            return state == QLatin1String("error");
        }(),
        20000);
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

QTEST_GUILESS_MAIN(tst_Keychain)
#include "tst_keychain.moc"
