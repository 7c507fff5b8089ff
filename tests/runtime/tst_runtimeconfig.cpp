#include "credentials/credentialstore.h"
#include "runtime/imagedigests.h"
#include "runtime/lifecycleconfig.h"
#include "runtime/runtimepin.h"

#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

#include <toml++/toml.h>

#include <sys/stat.h>

using namespace isolation;

class tst_RuntimeConfig final : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void builtInPinIsTheResourceFile();
    void pinRejects_data();
    void pinRejects();
    void digestRecordedOnFirstUse();
    void digestPinned();
    void tomlRoundTrip();
    void tomlFileIsPrivate();
    void credentialEntries();
};

void tst_RuntimeConfig::builtInPinIsTheResourceFile()
{
    const RuntimePin pin = RuntimePin::builtIn();
    auto file = RuntimePin::fromFile(QStringLiteral(ISOLATION_TEST_DATA "/../../resources/runtime-pin.json"));
    QVERIFY(file.ok());
    QCOMPARE(pin.lifecycleImage, file.value().lifecycleImage);
    QCOMPARE(pin.execdImage, file.value().execdImage);
    // The specs in tests/data/opensandbox come from this OpenSandbox commit.
    QVERIFY(pin.opensandbox.startsWith(QStringLiteral("4db3a993")));
    QVERIFY(pin.lifecycleImage.startsWith(QStringLiteral("opensandbox/server:")));
    QVERIFY(pin.execdImage.startsWith(QStringLiteral("opensandbox/execd:")));
}

void tst_RuntimeConfig::pinRejects_data()
{
    QTest::addColumn<QByteArray>("json");
    QTest::newRow("not json") << QByteArray("{nope");
    QTest::newRow("no lifecycle image") << QByteArray(R"({"execdImage":"e:1"})");
    QTest::newRow("no execd image") << QByteArray(R"({"lifecycleImage":"l:1"})");
    QTest::newRow("digest not sha256") << QByteArray(
        R"({"lifecycleImage":"l:1","execdImage":"e:1","digests":{"l:1":"md5:00"}})");
}

void tst_RuntimeConfig::pinRejects()
{
    QFETCH(QByteArray, json);
    auto pin = RuntimePin::fromJson(json);
    QVERIFY(!pin.ok());
    QCOMPARE(pin.error().code, Error::Code::InvalidInput);
}

void tst_RuntimeConfig::digestRecordedOnFirstUse()
{
    QTemporaryDir dir;
    const QString file = dir.filePath(QStringLiteral("runtime.json"));
    {
        // Keys of runtime.json that belong to others survive.
        QFile f(file);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(R"({"other":42})");
    }
    ImageDigests digests(file);
    QVERIFY(digests.load().ok());
    auto first = digests.verify(QStringLiteral("img:1"), QStringLiteral("sha256:aaa"), {});
    QVERIFY(first.ok());
    QCOMPARE(first.value(), QStringLiteral("sha256:aaa"));

    ImageDigests again(file);
    QVERIFY(again.load().ok());
    QCOMPARE(again.recorded(QStringLiteral("img:1")), QStringLiteral("sha256:aaa"));
    QVERIFY(again.verify(QStringLiteral("img:1"), QStringLiteral("sha256:aaa"), {}).ok());
    auto other = again.verify(QStringLiteral("img:1"), QStringLiteral("sha256:bbb"), {});
    QVERIFY(!other.ok());
    QVERIFY2(
        other.error().message.contains(QStringLiteral("differs from sha256:aaa")), qPrintable(other.error().message));
    QCOMPARE(again.recorded(QStringLiteral("img:1")), QStringLiteral("sha256:aaa")); // the refusal changed nothing

    QFile f(file);
    QVERIFY(f.open(QIODevice::ReadOnly));
    const QJsonObject root = QJsonDocument::fromJson(f.readAll()).object();
    QCOMPARE(root.value(QStringLiteral("other")).toInt(), 42);
    QCOMPARE(root.value(QStringLiteral("imageDigests")).toObject().value(QStringLiteral("img:1")).toString(),
        QStringLiteral("sha256:aaa"));
}

void tst_RuntimeConfig::digestPinned()
{
    QTemporaryDir dir;
    ImageDigests digests(dir.filePath(QStringLiteral("runtime.json")));
    QVERIFY(digests.load().ok());
    const QString pinned = QStringLiteral("sha256:ccc");
    auto wrong = digests.verify(QStringLiteral("img:2"), QStringLiteral("sha256:ddd"), {}, pinned);
    QVERIFY(!wrong.ok());
    QVERIFY(wrong.error().message.contains(QStringLiteral("not the pinned")));
    QVERIFY(digests.recorded(QStringLiteral("img:2")).isEmpty());
    // A repository digest matches too.
    auto viaRepo = digests.verify(
        QStringLiteral("img:2"), QStringLiteral("sha256:ddd"), {QStringLiteral("img@sha256:ccc")}, pinned);
    QVERIFY(viaRepo.ok());
    QCOMPARE(digests.recorded(QStringLiteral("img:2")), pinned);
}

void tst_RuntimeConfig::tomlRoundTrip()
{
    LifecycleConfig c;
    c.apiKey = "k3y-\"quoted\"\\back";
    c.execdImage = QStringLiteral("opensandbox/execd:v1");
    c.allowedHostPaths = {QStringLiteral("/home/me/.local/share/isolation/sessions")};
    c.pidsLimit = 77;
    QVERIFY(c.toToml().contains("network_mode = \"bridge\"")); // no network of its own: Docker's default
    c.network = QStringLiteral("isolation-sandboxes-0123456789ab");
    toml::table t;
    try {
        t = toml::parse(c.toToml().toStdString());
    } catch (const toml::parse_error &e) {
        QFAIL(e.what());
    }
    QCOMPARE(t.at_path("server.host").value_or(std::string()), std::string("0.0.0.0"));
    QCOMPARE(t.at_path("server.port").value<int64_t>(), std::optional<int64_t>(LifecycleConfig::ContainerPort));
    QCOMPARE(t.at_path("server.api_key").value_or(std::string()), c.apiKey.toStdString());
    QCOMPARE(t.at_path("runtime.type").value_or(std::string()), std::string("docker"));
    QCOMPARE(t.at_path("runtime.execd_image").value_or(std::string()), std::string("opensandbox/execd:v1"));
    const toml::array *paths = t.at_path("storage.allowed_host_paths").as_array();
    QVERIFY(paths);
    QCOMPARE(paths->size(), size_t(1));
    QCOMPARE((*paths)[0].value_or(std::string()), c.allowedHostPaths[0].toStdString());
    QCOMPARE(t.at_path("docker.no_new_privileges").value<bool>(), std::optional<bool>(true));
    QCOMPARE(t.at_path("docker.pids_limit").value<int64_t>(), std::optional<int64_t>(77));
    QCOMPARE(t.at_path("docker.network_mode").value_or(std::string()), std::string("isolation-sandboxes-0123456789ab"));
    QCOMPARE(t.at_path("docker.drop_capabilities[0]").value_or(std::string()), std::string("ALL"));
}

void tst_RuntimeConfig::tomlFileIsPrivate()
{
    QTemporaryDir dir;
    LifecycleConfig c;
    c.apiKey = "secret";
    c.execdImage = QStringLiteral("e:1");
    const QString path = dir.filePath(QStringLiteral("config.toml"));
    QVERIFY(c.write(path).ok());
    struct stat st
    {
    };
    QCOMPARE(::stat(QFile::encodeName(path).constData(), &st), 0);
    QCOMPARE(st.st_mode & 0777, 0600u);
}

void tst_RuntimeConfig::credentialEntries()
{
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("credentials.json"));
    FileCredentialStore identity(path);
    FileCredentialStore runtimeKey(path, QStringLiteral("runtime-api-key"));
    QCOMPARE(identity.describe(), QStringLiteral("file ") + path);
    QCOMPARE(runtimeKey.describe(),
        QStringLiteral("file ") + dir.filePath(QStringLiteral("credentials.runtime-api-key.json")));
    bool saved = false;
    runtimeKey.save(SecureBytes(QByteArrayView("abc")), [&saved](Result<void, CredentialError> r) { saved = r.ok(); });
    QTRY_VERIFY(saved);
    bool loadedNothing = false;
    identity.load([&loadedNothing](
                      Result<std::optional<SecureBytes>, CredentialError> r) { loadedNothing = r.ok() && !r.value(); });
    QTRY_VERIFY(loadedNothing); // the default entry is untouched by the second one
    KeychainCredentialStore a(dir.path()), b(dir.path(), QStringLiteral("runtime-api-key"));
    QCOMPARE(a.entryKey(), QStringLiteral("engine:") + dir.path());
    QVERIFY(b.entryKey() != a.entryKey());
}

QTEST_GUILESS_MAIN(tst_RuntimeConfig)
#include "tst_runtimeconfig.moc"
