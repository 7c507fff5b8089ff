#include "pairing/credentialstore.h"
#include "runtime/imagedigests.h"
#include "runtime/lifecycleconfig.h"
#include "runtime/runtimepin.h"

#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

#include <cpptoml.h>

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
    std::istringstream in(c.toToml().toStdString());
    cpptoml::parser parser(in);
    std::shared_ptr<cpptoml::table> t;
    try {
        t = parser.parse();
    } catch (const cpptoml::parse_exception &e) {
        QFAIL(e.what());
    }
    QCOMPARE(t->get_qualified_as<std::string>("server.host").value_or(""), std::string("0.0.0.0"));
    QCOMPARE(*t->get_qualified_as<int64_t>("server.port"), int64_t(LifecycleConfig::ContainerPort));
    QCOMPARE(*t->get_qualified_as<std::string>("server.api_key"), c.apiKey.toStdString());
    QCOMPARE(*t->get_qualified_as<std::string>("runtime.type"), std::string("docker"));
    QCOMPARE(*t->get_qualified_as<std::string>("runtime.execd_image"), std::string("opensandbox/execd:v1"));
    const auto paths = *t->get_qualified_array_of<std::string>("storage.allowed_host_paths");
    QCOMPARE(paths.size(), size_t(1));
    QCOMPARE(paths[0], c.allowedHostPaths[0].toStdString());
    QCOMPARE(*t->get_qualified_as<bool>("docker.no_new_privileges"), true);
    QCOMPARE(*t->get_qualified_as<int64_t>("docker.pids_limit"), int64_t(77));
    QCOMPARE(*t->get_qualified_as<std::string>("docker.network_mode"), std::string("isolation-sandboxes-0123456789ab"));
    QCOMPARE((*t->get_qualified_array_of<std::string>("docker.drop_capabilities"))[0], std::string("ALL"));
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
