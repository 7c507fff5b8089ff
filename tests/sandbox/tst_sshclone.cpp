// Clones over ssh from a real OpenSSH server the test starts (`/usr/sbin/sshd` on 127.0.0.1, with
// a host key and authorized keys of its own in a temporary directory) serving a bare repository
// made with the git CLI. The client's private key goes from memory to libssh2 (its file is deleted
// once read): it appears in no command line (every /proc/*/cmdline read while the clone runs) and no
// file. The server's host key is checked against the known-hosts lines of the request: another key
// for the host, or no line for it, is refused before anything is sent; the explicit override takes
// any key. Also the known-hosts matching itself (KnownHosts), without a server.
#include "canaryscan.h"
#include "core/clock.h"
#include "crypto/random.h"
#include "gitcli.h"
#include "sandbox/knownhosts.h"
#include "sandbox/repocloner.h"
#include "testsession.h"

#include <QElapsedTimer>
#include <QProcess>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QTest>

#include <netinet/in.h>
#include <pwd.h>
#include <sys/socket.h>
#include <unistd.h>

using namespace isolation;
using namespace isolation::test;

namespace {

// A port free on 127.0.0.1 a moment ago (the kernel's pick).
quint16 freePort()
{
    const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in address {};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t length = sizeof address;
    quint16 port = 0;
    if (::bind(fd, reinterpret_cast<sockaddr *>(&address), sizeof address) == 0
        && ::getsockname(fd, reinterpret_cast<sockaddr *>(&address), &length) == 0)
        port = ntohs(address.sin_port);
    ::close(fd);
    return port;
}

bool keygen(const QStringList &args)
{
    QProcess p;
    p.start(QStringLiteral("ssh-keygen"), args);
    if (!p.waitForFinished(60000) || p.exitStatus() != QProcess::NormalExit || p.exitCode() != 0) {
        qWarning().noquote() << "ssh-keygen" << args.join(QLatin1Char(' ')) << "failed:" << p.readAllStandardError();
        return false;
    }
    return true;
}

// The parts of an OpenSSH private key that only it holds: the base64 lines after the first two
// (those carry the public key, which authorized_keys holds too), and the raw 32-byte ed25519 seed.
QList<QByteArray> privateParts(const QByteArray &pem, const QByteArray &publicBlob)
{
    QList<QByteArray> parts;
    QList<QByteArray> lines = pem.split('\n');
    lines.removeIf([](const QByteArray &l) { return l.isEmpty() || l.startsWith("-----"); });
    for (qsizetype i = 2; i < lines.size(); ++i) {
        if (lines.at(i).size() >= 16)
            parts << lines.at(i);
    }
    const QByteArray decoded = QByteArray::fromBase64(lines.join());
    const QByteArray pub = publicBlob.right(32);
    const QByteArray length64("\0\0\0\x40", 4); // the private key's string: 64 bytes, seed and public key
    for (qsizetype i = decoded.indexOf(length64); i >= 0; i = decoded.indexOf(length64, i + 1)) {
        if (decoded.mid(i + 4 + 32, 32) == pub) {
            parts << decoded.mid(i + 4, 32);
            break;
        }
    }
    return parts;
}

} // namespace

class tst_SshClone final : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void cleanupTestCase();
    void knownHostsMatchAsOpenSshDoes();
    void knownHostsRefuseWhatIsNotALine_data();
    void knownHostsRefuseWhatIsNotALine();
    void refusedBeforeStarting_data();
    void refusedBeforeStarting();
    void clonesWithTheKeyInNoCommandLineAndNoFile();
    void clonesScpLikeWithAHashedEntryAndABranch();
    void clonesWithAnEncryptedKey();
    void anotherHostKeyIsRefused();
    void missingKnownHostsEntryIsRefused();
    void insecureOverrideTakesAnyHostKey();
    void refusedKeyFailsAtOnce();
    void rsaKeyFailureIsExplained();

private:
    QString url(const QString &repo = QStringLiteral("tools.git")) const;
    QByteArray hostLine(const QByteArray &publicKeyLine) const;
    CloneRequest request(const QString &directory) const;
    Result<CloneResult, SandboxError> cloneAndWatch(
        CloneRequest request, const QList<QByteArray> &canaries, QStringList *cmdlineHits, int *scans);
    int accepted();
    QByteArray readKey(const QString &path);

    QTemporaryDir m_tmp;
    QString m_root;
    QString m_sshDir;
    QProcess m_sshd;
    QByteArray m_sshdLog;
    quint16 m_port = 0;
    QString m_user;
    QByteArray m_hostPublic; // "ssh-ed25519 AAAA... comment"
    QByteArray m_otherHostPublic;
    SecureBytes m_key;
    QList<QByteArray> m_keyCanaries;
    SecureBytes m_encryptedKey;
    QByteArray m_passphrase;
    SecureBytes m_strangerKey; // not authorized
    SecureBytes m_rsaKey; // authorized, but an RSA key
    QByteArray m_mainHead;
    QByteArray m_featureHead;
    ManualClock m_clock;
    TestSession m_session;
    QDateTime m_started;
};

QString tst_SshClone::url(const QString &repo) const
{
    return QStringLiteral("ssh://%1@127.0.0.1:%2%3/served/%4").arg(m_user).arg(m_port).arg(m_root, repo);
}

QByteArray tst_SshClone::hostLine(const QByteArray &publicKeyLine) const
{
    const QList<QByteArray> fields = publicKeyLine.trimmed().split(' ');
    return "[127.0.0.1]:" + QByteArray::number(m_port) + ' ' + fields.value(0) + ' ' + fields.value(1) + '\n';
}

CloneRequest tst_SshClone::request(const QString &directory) const
{
    CloneRequest r;
    r.url = url();
    r.worktree = m_session.work;
    r.directory = directory;
    r.sshKey = m_key;
    r.knownHosts = "# the test's sshd\n" + hostLine(m_hostPublic);
    return r;
}

// The private key's file read into memory, then deleted: from here on it lives in memory only.
QByteArray tst_SshClone::readKey(const QString &path)
{
    const QByteArray key = GitCli::readFile(path);
    if (!QFile::remove(path))
        qWarning() << "cannot delete" << path;
    return key;
}

int tst_SshClone::accepted()
{
    m_sshdLog += m_sshd.readAllStandardError();
    return int(m_sshdLog.count("Accepted publickey for "));
}

void tst_SshClone::initTestCase()
{
    m_started = QDateTime::currentDateTime().addSecs(-1);
    m_root = QDir(m_tmp.path()).canonicalPath();
    m_sshDir = m_root + QStringLiteral("/sshd");
    QVERIFY2(QFileInfo(QStringLiteral("/usr/sbin/sshd")).isExecutable(),
        "no /usr/sbin/sshd: ./dev setup installs openssh-server");
    // sshd started by root wants its privilege separation directory.
    if (::geteuid() == 0)
        QVERIFY(QDir().mkpath(QStringLiteral("/run/sshd")));
    const passwd *me = ::getpwuid(::geteuid());
    QVERIFY(me);
    m_user = QString::fromLocal8Bit(me->pw_name);

    // Keys, each made by ssh-keygen in this test's directory.
    QVERIFY(QDir().mkpath(m_sshDir));
    const QString keys = m_root + QStringLiteral("/keys/");
    QVERIFY(QDir().mkpath(keys));
    QVERIFY(
        keygen({QStringLiteral("-q"), QStringLiteral("-t"), QStringLiteral("ed25519"), QStringLiteral("-N"), QString(),
            QStringLiteral("-C"), QStringLiteral("host"), QStringLiteral("-f"), m_sshDir + QStringLiteral("/host")}));
    QVERIFY(keygen({QStringLiteral("-q"), QStringLiteral("-t"), QStringLiteral("ed25519"), QStringLiteral("-N"),
        QString(), QStringLiteral("-f"), keys + QStringLiteral("otherhost")}));
    m_hostPublic = GitCli::readFile(m_sshDir + QStringLiteral("/host.pub"));
    m_otherHostPublic = GitCli::readFile(keys + QStringLiteral("otherhost.pub"));
    QVERIFY(m_hostPublic.startsWith("ssh-ed25519 ") && m_otherHostPublic.startsWith("ssh-ed25519 "));

    const QByteArray comment = "canary-" + randomBytes(12).toHex();
    QVERIFY(keygen({QStringLiteral("-q"), QStringLiteral("-t"), QStringLiteral("ed25519"), QStringLiteral("-N"),
        QString(), QStringLiteral("-C"), QString::fromLatin1(comment), QStringLiteral("-f"),
        keys + QStringLiteral("client")}));
    m_passphrase = "passphrase-canary-" + randomBytes(12).toHex();
    QVERIFY(keygen({QStringLiteral("-q"), QStringLiteral("-t"), QStringLiteral("ed25519"), QStringLiteral("-N"),
        QString::fromLatin1(m_passphrase), QStringLiteral("-f"), keys + QStringLiteral("encrypted")}));
    QVERIFY(keygen({QStringLiteral("-q"), QStringLiteral("-t"), QStringLiteral("ed25519"), QStringLiteral("-N"),
        QString(), QStringLiteral("-f"), keys + QStringLiteral("stranger")}));
    QVERIFY(keygen({QStringLiteral("-q"), QStringLiteral("-t"), QStringLiteral("rsa"), QStringLiteral("-b"),
        QStringLiteral("2048"), QStringLiteral("-N"), QString(), QStringLiteral("-f"), keys + QStringLiteral("rsa")}));
    const QByteArray clientPublic = GitCli::readFile(keys + QStringLiteral("client.pub"));
    const QByteArray clientPem = readKey(keys + QStringLiteral("client"));
    QVERIFY(clientPem.contains("BEGIN OPENSSH PRIVATE KEY"));
    m_key = SecureBytes(QByteArrayView(clientPem));
    m_keyCanaries = privateParts(clientPem, QByteArray::fromBase64(clientPublic.split(' ').value(1)));
    m_keyCanaries << clientPem; // (the comment is not one: the public key carries it too)
    QVERIFY2(m_keyCanaries.size() >= 4, "the key's private part was not found");
    QVERIFY(m_keyCanaries.contains(clientPem) && m_keyCanaries.at(m_keyCanaries.size() - 2).size() == 32);
    m_encryptedKey = SecureBytes(QByteArrayView(readKey(keys + QStringLiteral("encrypted"))));
    m_strangerKey = SecureBytes(QByteArrayView(readKey(keys + QStringLiteral("stranger"))));
    m_rsaKey = SecureBytes(QByteArrayView(readKey(keys + QStringLiteral("rsa"))));
    QVERIFY(GitCli::writeFile(m_sshDir + QStringLiteral("/authorized_keys"),
        clientPublic + GitCli::readFile(keys + QStringLiteral("encrypted.pub"))
            + GitCli::readFile(keys + QStringLiteral("rsa.pub"))));

    // The repository served: two branches, made with the real git CLI.
    const QString src = m_root + QStringLiteral("/src");
    QVERIFY(
        GitCli::run({QStringLiteral("init"), QStringLiteral("-q"), QStringLiteral("-b"), QStringLiteral("main"), src})
            .ok());
    QVERIFY(GitCli::writeFile(src + QStringLiteral("/README.md"), "the tools\n"));
    QVERIFY(GitCli::run({QStringLiteral("add"), QStringLiteral(".")}, src).ok());
    QVERIFY(GitCli::run({QStringLiteral("commit"), QStringLiteral("-qm"), QStringLiteral("tools")}, src).ok());
    m_mainHead = GitCli::out({QStringLiteral("rev-parse"), QStringLiteral("HEAD")}, src);
    QVERIFY(GitCli::run({QStringLiteral("checkout"), QStringLiteral("-qb"), QStringLiteral("feature")}, src).ok());
    QVERIFY(GitCli::writeFile(src + QStringLiteral("/feature.txt"), "a feature\n"));
    QVERIFY(GitCli::run({QStringLiteral("add"), QStringLiteral(".")}, src).ok());
    QVERIFY(GitCli::run({QStringLiteral("commit"), QStringLiteral("-qm"), QStringLiteral("feature")}, src).ok());
    m_featureHead = GitCli::out({QStringLiteral("rev-parse"), QStringLiteral("HEAD")}, src);
    QVERIFY(GitCli::run({QStringLiteral("checkout"), QStringLiteral("-q"), QStringLiteral("main")}, src).ok());
    QVERIFY(GitCli::run({QStringLiteral("clone"), QStringLiteral("-q"), QStringLiteral("--bare"), src,
                            m_root + QStringLiteral("/served/tools.git")})
                .ok());

    // The server: its own configuration, host key and authorized keys, on loopback only.
    m_port = freePort();
    QVERIFY(m_port != 0);
    const QByteArray config = "HostKey " + QFile::encodeName(m_sshDir) + "/host\n" + "ListenAddress 127.0.0.1\n"
        + "AuthorizedKeysFile " + QFile::encodeName(m_sshDir) + "/authorized_keys\n" + "StrictModes no\n"
        + "PermitRootLogin prohibit-password\n" + "PubkeyAuthentication yes\n" + "PasswordAuthentication no\n"
        + "KbdInteractiveAuthentication no\n" + "UsePAM no\n" + "PidFile none\n" + "LogLevel VERBOSE\n";
    QVERIFY(GitCli::writeFile(m_sshDir + QStringLiteral("/sshd_config"), config));
    m_sshd.setProgram(QStringLiteral("/usr/sbin/sshd"));
    m_sshd.setArguments({QStringLiteral("-D"), QStringLiteral("-e"), QStringLiteral("-f"),
        m_sshDir + QStringLiteral("/sshd_config"), QStringLiteral("-p"), QString::number(m_port)});
    m_sshd.start();
    QVERIFY(m_sshd.waitForStarted());
    QTRY_VERIFY_WITH_TIMEOUT((m_sshdLog += m_sshd.readAllStandardError()).contains("Server listening on 127.0.0.1 port")
            || m_sshd.state() == QProcess::NotRunning,
        15000);
    QVERIFY2(m_sshd.state() == QProcess::Running, m_sshdLog.constData());

    m_session = TestSession::open(m_root, QStringLiteral("s1"), m_clock);
    QVERIFY(m_session.valid());
}

void tst_SshClone::cleanupTestCase()
{
    if (m_sshd.state() != QProcess::NotRunning) {
        m_sshd.terminate();
        if (!m_sshd.waitForFinished(5000)) {
            m_sshd.kill();
            m_sshd.waitForFinished();
        }
    }
    m_sshdLog += m_sshd.readAllStandardError();
    qInfo().noquote() << "sshd log:\n" << m_sshdLog;
}

Result<CloneResult, SandboxError> tst_SshClone::cloneAndWatch(
    CloneRequest request, const QList<QByteArray> &canaries, QStringList *cmdlineHits, int *scans)
{
    RepoCloner cloner;
    std::optional<Result<CloneResult, SandboxError>> result;
    CanaryScan scan(canaries);
    cloner.start(std::move(request), [&result](Result<CloneResult, SandboxError> r) { result.emplace(std::move(r)); });
    QElapsedTimer t;
    t.start();
    while (!result && t.elapsed() < 60000) {
        // Every process's command line, over and over while libgit2, sshd and git-upload-pack run.
        *cmdlineHits << scan.commandLines();
        ++*scans;
        QTest::qWait(2);
    }
    if (!result)
        return SandboxError::failed(QStringLiteral("the clone did not finish within a minute"));
    return *result;
}

void tst_SshClone::knownHostsMatchAsOpenSshDoes()
{
    const QByteArray key = m_hostPublic.split(' ').value(1);
    const QByteArray other = m_otherHostPublic.split(' ').value(1);
    const QByteArray blob = QByteArray::fromBase64(key);
    const QByteArray otherBlob = QByteArray::fromBase64(other);
    QCOMPARE(KnownHosts::keyTypeOf(blob), QStringLiteral("ssh-ed25519"));
    QCOMPARE(KnownHosts::lookupName(QStringLiteral("Git.Example"), 22), QStringLiteral("git.example"));
    QCOMPARE(KnownHosts::lookupName(QStringLiteral("git.example"), -1), QStringLiteral("git.example"));
    QCOMPARE(KnownHosts::lookupName(QStringLiteral("git.example"), 2222), QStringLiteral("[git.example]:2222"));

    // The fingerprint ssh-keygen -l shows.
    QTemporaryDir dir;
    QVERIFY(GitCli::writeFile(dir.filePath(QStringLiteral("k.pub")), m_hostPublic));
    QProcess fp;
    fp.start(QStringLiteral("ssh-keygen"),
        {QStringLiteral("-l"), QStringLiteral("-f"), dir.filePath(QStringLiteral("k.pub"))});
    QVERIFY(fp.waitForFinished());
    QVERIFY2(fp.readAllStandardOutput().contains(KnownHosts::fingerprint(blob).toLatin1()),
        qPrintable(KnownHosts::fingerprint(blob)));

    // A hashed line, written by ssh-keygen -H.
    QVERIFY(GitCli::writeFile(
        dir.filePath(QStringLiteral("known_hosts")), "[hashed.example]:2222 ssh-ed25519 " + key + "\n"));
    QProcess hash;
    hash.start(QStringLiteral("ssh-keygen"),
        {QStringLiteral("-q"), QStringLiteral("-H"), QStringLiteral("-f"),
            dir.filePath(QStringLiteral("known_hosts"))});
    QVERIFY(hash.waitForFinished());
    const QByteArray hashed = GitCli::readFile(dir.filePath(QStringLiteral("known_hosts")));
    QVERIFY2(hashed.startsWith("|1|") && !hashed.contains("hashed.example"), hashed.constData());

    const QByteArray text = "# comment\n\n"
                            "git.example,10.0.0.1 ssh-ed25519 "
        + key
        + " a comment\n"
          "[git.example]:2222 ssh-ed25519 "
        + other
        + "\n"
          "*.wild.example,!no.wild.example ssh-ed25519 "
        + key
        + "\n"
          "@revoked * ssh-ed25519 "
        + other
        + "\n"
          "@cert-authority *.example ssh-ed25519 "
        + key + "\n" + hashed;
    QString error;
    const KnownHosts known = KnownHosts::parse(text, &error);
    QVERIFY2(error.isEmpty(), qPrintable(error));
    using V = KnownHosts::Verdict;
    QCOMPARE(known.check(QStringLiteral("git.example"), 22, blob).verdict, V::Match);
    QCOMPARE(known.check(QStringLiteral("GIT.example"), 22, blob).verdict, V::Match);
    QCOMPARE(known.check(QStringLiteral("10.0.0.1"), 22, blob).verdict, V::Match);
    // Another port is another name: the line for port 22 does not count there.
    QCOMPARE(known.check(QStringLiteral("10.0.0.1"), 2222, blob).verdict, V::Unknown);
    QVERIFY(!known.knows(QStringLiteral("10.0.0.1"), 2222));
    const KnownHosts::Check mismatch = known.check(QStringLiteral("git.example"), 22, QByteArray(otherBlob));
    // The other key is revoked everywhere: a revoked key is refused as such, before any match.
    QCOMPARE(mismatch.verdict, V::Revoked);
    const KnownHosts::Check onPort = known.check(QStringLiteral("git.example"), 2222, blob);
    QCOMPARE(onPort.verdict, V::Mismatch);
    QCOMPARE(onPort.known, QStringList {QStringLiteral("ssh-ed25519 ") + KnownHosts::fingerprint(otherBlob)});
    QCOMPARE(known.check(QStringLiteral("a.wild.example"), 22, blob).verdict, V::Match);
    QCOMPARE(known.check(QStringLiteral("no.wild.example"), 22, blob).verdict, V::Unknown);
    QCOMPARE(known.check(QStringLiteral("hashed.example"), 2222, blob).verdict, V::Match);
    QCOMPARE(known.check(QStringLiteral("hashed.example"), 22, blob).verdict, V::Unknown);
    // A certificate authority's line is no host key.
    QCOMPARE(known.check(QStringLiteral("ca.example"), 22, blob).verdict, V::Unknown);
    QVERIFY(known.knows(QStringLiteral("hashed.example"), 2222));
    QVERIFY(!known.knows(QStringLiteral("ca.example"), 22));
}

void tst_SshClone::knownHostsRefuseWhatIsNotALine_data()
{
    const QByteArray key = m_hostPublic.split(' ').value(1);
    QTest::addColumn<QByteArray>("text");
    QTest::newRow("no key") << QByteArray("git.example ssh-ed25519\n");
    QTest::newRow("not base64") << QByteArray("git.example ssh-ed25519 !!!notbase64\n");
    QTest::newRow("another type than the key's") << QByteArray("git.example ssh-rsa " + key + "\n");
    QTest::newRow("an unknown marker") << QByteArray("@trusted git.example ssh-ed25519 " + key + "\n");
}

void tst_SshClone::knownHostsRefuseWhatIsNotALine()
{
    QFETCH(QByteArray, text);
    QString error;
    const KnownHosts known = KnownHosts::parse(QByteArray("# fine\n" + text), &error);
    QVERIFY(known.isEmpty());
    QVERIFY2(error.startsWith(QStringLiteral("known hosts, line 2:")), qPrintable(error));
}

void tst_SshClone::refusedBeforeStarting_data()
{
    QTest::addColumn<QString>("url");
    QTest::addColumn<QByteArray>("knownHosts");
    QTest::addColumn<bool>("withKey");
    QTest::addColumn<QByteArray>("token");
    QTest::addColumn<QString>("expected");
    const QByteArray hosts = hostLine(m_hostPublic);
    QTest::newRow("no key") << url() << hosts << false << QByteArray() << QStringLiteral("needs a private key");
    QTest::newRow("a token instead") << url() << hosts << false << QByteArray("ghp_token_1234")
                                     << QStringLiteral("needs a private key");
    QTest::newRow("a token too") << url() << hosts << true << QByteArray("ghp_token_1234")
                                 << QStringLiteral("a token is for https");
    QTest::newRow("no known hosts") << url() << QByteArray() << true << QByteArray()
                                    << QStringLiteral("the known hosts have no key for [127.0.0.1]:%1").arg(m_port);
    QTest::newRow("a line for port 22 only") << url() << QByteArray("127.0.0.1 " + m_hostPublic) << true << QByteArray()
                                             << QStringLiteral("ssh-keyscan -p %1 127.0.0.1").arg(m_port);
    QTest::newRow("a scp-like address on port 22") << QStringLiteral("git@127.0.0.1:tools.git") << hosts << true
                                                   << QByteArray() << QStringLiteral("no key for 127.0.0.1:");
    QTest::newRow("unreadable known hosts") << url() << QByteArray("[127.0.0.1]:1 ssh-ed25519 nonsense!\n") << true
                                            << QByteArray() << QStringLiteral("known hosts, line 1");
    QTest::newRow("a password in the URL") << QStringLiteral("ssh://git:pw@127.0.0.1:%1/r.git").arg(m_port) << hosts
                                           << true << QByteArray() << QStringLiteral("carries a password");
    QTest::newRow("a quote in the path") << QStringLiteral("ssh://git@127.0.0.1:%1/r'.git").arg(m_port) << hosts << true
                                         << QByteArray() << QStringLiteral("quote");
    QTest::newRow("a quote in a scp-like path") << QStringLiteral("git@example.invalid:r';rm -rf ~'.git") << hosts
                                                << true << QByteArray() << QStringLiteral("quote");
    QTest::newRow("a key for https") << QStringLiteral("https://example.invalid/r.git") << hosts << true << QByteArray()
                                     << QStringLiteral("a private key is for ssh repositories only");
    QTest::newRow("not an address") << QStringLiteral("a b:c") << hosts << true << QByteArray()
                                    << QStringLiteral("neither a URL nor an ssh address");
}

void tst_SshClone::refusedBeforeStarting()
{
    QFETCH(QString, url);
    QFETCH(QByteArray, knownHosts);
    QFETCH(bool, withKey);
    QFETCH(QByteArray, token);
    QFETCH(QString, expected);
    CloneRequest r = request(QStringLiteral("repos/refused"));
    r.url = url;
    r.knownHosts = knownHosts;
    if (!withKey)
        r.sshKey.clear();
    r.token = SecureBytes(QByteArrayView(token));
    auto checked = RepoCloner::check(r);
    QVERIFY(!checked.ok());
    QCOMPARE(checked.error().code, SandboxError::Code::Refused);
    QVERIFY2(checked.error().message.contains(expected), qPrintable(checked.error().message));
    QVERIFY(!checked.error().message.contains(QLatin1String(":pw@")));
    const int before = accepted();
    RepoCloner cloner;
    std::optional<Result<CloneResult, SandboxError>> result;
    cloner.start(std::move(r), [&result](Result<CloneResult, SandboxError> x) { result.emplace(std::move(x)); });
    QTRY_VERIFY(result.has_value());
    QCOMPARE(result->error().code, SandboxError::Code::Refused);
    QCOMPARE(accepted(), before);
    QVERIFY(!QFileInfo::exists(m_session.work + QStringLiteral("/repos/refused")));
}

void tst_SshClone::clonesWithTheKeyInNoCommandLineAndNoFile()
{
    const int before = accepted();
    QStringList hits;
    int scans = 0;
    auto result = cloneAndWatch(request(QStringLiteral("repos/tools")), m_keyCanaries, &hits, &scans);
    QVERIFY2(result.ok(), result.ok() ? "" : qPrintable(result.error().message));
    qInfo() << "command lines of every process read" << scans << "times during the clone";
    QVERIFY(scans >= 3);
    QVERIFY2(hits.isEmpty(), qPrintable(hits.join(QLatin1Char('\n'))));

    const QString clone = m_session.work + QStringLiteral("/repos/tools");
    QCOMPARE(result.value().path, clone);
    QCOMPARE(result.value().head.toLatin1(), m_mainHead);
    QCOMPARE(GitCli::readFile(clone + QStringLiteral("/README.md")), QByteArray("the tools\n"));
    QCOMPARE(GitCli::out({QStringLiteral("rev-parse"), QStringLiteral("HEAD")}, clone), m_mainHead);
    QCOMPARE(GitCli::out({QStringLiteral("remote"), QStringLiteral("get-url"), QStringLiteral("origin")}, clone),
        url().toUtf8());
    // sshd took this key.
    QTRY_VERIFY(accepted() == before + 1);

    // No file anywhere the engine or the test wrote holds the key (its file was deleted when read;
    // the server's directory is searched too), nor a temporary file of this run.
    CanaryScan scan(m_keyCanaries);
    int files = 0;
    QStringList found = scan.files(m_root, &files);
    found << scan.temporaryFiles(m_started, &files);
    found << scan.gitObjects(clone + QStringLiteral("/.git"));
    QVERIFY2(found.isEmpty(), qPrintable(found.join(QLatin1Char('\n'))));
    qInfo() << files << "files searched for the key";
    QVERIFY(files > 20);
    // The canaries are the key: the scan would have seen it.
    QVERIFY(scan.holds(m_key.view().toByteArray()));
    QVERIFY(!scan.holds(m_hostPublic + GitCli::readFile(m_sshDir + QStringLiteral("/authorized_keys"))));

    // The clone is a nested repository: the workspace's commits leave it out.
    QVERIFY(m_session.write(QStringLiteral("notes.txt"), "my notes\n"));
    auto committed = m_session.ws->commit();
    QVERIFY2(committed.ok(), committed.ok() ? "" : qPrintable(committed.error().message));
    const QStringList tracked
        = m_session.files(QStringLiteral("session/s1")).split(QLatin1Char('\n'), Qt::SkipEmptyParts);
    QVERIFY(tracked.contains(QStringLiteral("notes.txt")));
    for (const QString &path : tracked)
        QVERIFY2(!path.startsWith(QLatin1String("repos/")), qPrintable(path));
}

void tst_SshClone::clonesScpLikeWithAHashedEntryAndABranch()
{
    // git's scp-like form with a port, [user@host:port]:path; the login from the request.
    CloneRequest r = request(QStringLiteral("repos/scp"));
    r.url = QStringLiteral("[127.0.0.1:%1]:%2/served/tools.git").arg(m_port).arg(m_root);
    r.username = SecureBytes(m_user.toUtf8());
    r.branch = QStringLiteral("feature");
    QTemporaryDir dir;
    QVERIFY(GitCli::writeFile(dir.filePath(QStringLiteral("known_hosts")), hostLine(m_hostPublic)));
    QProcess hash;
    hash.start(QStringLiteral("ssh-keygen"),
        {QStringLiteral("-q"), QStringLiteral("-H"), QStringLiteral("-f"),
            dir.filePath(QStringLiteral("known_hosts"))});
    QVERIFY(hash.waitForFinished());
    r.knownHosts = GitCli::readFile(dir.filePath(QStringLiteral("known_hosts")));
    QVERIFY2(r.knownHosts.startsWith("|1|") && !r.knownHosts.contains("127.0.0.1"), r.knownHosts.constData());
    QStringList hits;
    int scans = 0;
    auto result = cloneAndWatch(std::move(r), m_keyCanaries, &hits, &scans);
    QVERIFY2(result.ok(), result.ok() ? "" : qPrintable(result.error().message));
    QCOMPARE(result.value().head.toLatin1(), m_featureHead);
    QVERIFY(QFile::exists(m_session.work + QStringLiteral("/repos/scp/feature.txt")));
    QVERIFY(hits.isEmpty());
}

void tst_SshClone::clonesWithAnEncryptedKey()
{
    CloneRequest r = request(QStringLiteral("repos/encrypted"));
    r.sshKey = m_encryptedKey;
    r.sshPassphrase = SecureBytes(QByteArrayView(m_passphrase));
    QStringList hits;
    int scans = 0;
    auto result = cloneAndWatch(std::move(r), {m_passphrase}, &hits, &scans);
    QVERIFY2(result.ok(), result.ok() ? "" : qPrintable(result.error().message));
    QCOMPARE(result.value().head.toLatin1(), m_mainHead);
    QVERIFY2(hits.isEmpty(), qPrintable(hits.join(QLatin1Char('\n'))));
    CanaryScan scan({m_passphrase});
    QStringList found = scan.files(m_root);
    found << scan.temporaryFiles(m_started);
    QVERIFY2(found.isEmpty(), qPrintable(found.join(QLatin1Char('\n'))));

    // The wrong passphrase: the key cannot be opened, nothing stays.
    r = request(QStringLiteral("repos/wrong-passphrase"));
    r.sshKey = m_encryptedKey;
    r.sshPassphrase = SecureBytes(QByteArrayView("not the passphrase"));
    auto wrong = cloneAndWatch(std::move(r), {m_passphrase}, &hits, &scans);
    QVERIFY(!wrong.ok());
    QCOMPARE(wrong.error().code, SandboxError::Code::Failed);
    qInfo().noquote() << wrong.error().message;
    QVERIFY(!wrong.error().message.contains(QString::fromLatin1(m_passphrase)));
    QVERIFY(!QFileInfo::exists(m_session.work + QStringLiteral("/repos/wrong-passphrase")));
}

void tst_SshClone::anotherHostKeyIsRefused()
{
    const int before = accepted();
    const qsizetype publicKeyLines = m_sshdLog.count("publickey");
    CloneRequest r = request(QStringLiteral("repos/mitm"));
    r.knownHosts = hostLine(m_otherHostPublic); // the host's name, another key: as a man in the middle looks
    QStringList hits;
    int scans = 0;
    auto result = cloneAndWatch(std::move(r), m_keyCanaries, &hits, &scans);
    QVERIFY(!result.ok());
    QCOMPARE(result.error().code, SandboxError::Code::Failed);
    const QString shown = KnownHosts::fingerprint(QByteArray::fromBase64(m_hostPublic.split(' ').value(1)));
    const QString expected = KnownHosts::fingerprint(QByteArray::fromBase64(m_otherHostPublic.split(' ').value(1)));
    QVERIFY2(result.error().message.contains(QStringLiteral("stopped before authenticating"))
            && result.error().message.contains(QStringLiteral("is not the one the known hosts give"))
            && result.error().message.contains(shown) && result.error().message.contains(expected),
        qPrintable(result.error().message));
    qInfo().noquote() << result.error().message;
    QVERIFY(!QFileInfo::exists(m_session.work + QStringLiteral("/repos/mitm")));
    // The server saw no attempt to log in: the key was never offered.
    QTest::qWait(200);
    QCOMPARE(accepted(), before);
    QCOMPARE(m_sshdLog.count("publickey"), publicKeyLines);
}

void tst_SshClone::missingKnownHostsEntryIsRefused()
{
    // Lines for the host's name on another port, and for other hosts: no line for [127.0.0.1]:PORT.
    CloneRequest r = request(QStringLiteral("repos/unknown"));
    r.knownHosts = "127.0.0.1 " + m_hostPublic + "[127.0.0.1]:" + QByteArray::number(m_port + 1) + ' ' + m_hostPublic
        + "[localhost]:" + QByteArray::number(m_port) + ' ' + m_hostPublic;
    auto checked = RepoCloner::check(r);
    QVERIFY(!checked.ok());
    QCOMPARE(checked.error().code, SandboxError::Code::Refused);
    QVERIFY2(checked.error().message.contains(QStringLiteral("insecureAcceptAnyHostKey")),
        qPrintable(checked.error().message));

    // A revoked line for the host's own key: refused when the server shows it.
    r.knownHosts = hostLine(m_hostPublic) + "@revoked * " + m_hostPublic;
    QStringList hits;
    int scans = 0;
    auto revoked = cloneAndWatch(std::move(r), m_keyCanaries, &hits, &scans);
    QVERIFY(!revoked.ok());
    QVERIFY2(revoked.error().message.contains(QStringLiteral("is revoked")), qPrintable(revoked.error().message));
    QVERIFY(!QFileInfo::exists(m_session.work + QStringLiteral("/repos/unknown")));
}

void tst_SshClone::insecureOverrideTakesAnyHostKey()
{
    const int before = accepted();
    CloneRequest r = request(QStringLiteral("repos/unchecked"));
    r.knownHosts.clear();
    r.insecureAcceptAnyHostKey = true;
    QVERIFY(RepoCloner::check(r).ok());
    QStringList hits;
    int scans = 0;
    auto result = cloneAndWatch(r, m_keyCanaries, &hits, &scans);
    QVERIFY2(result.ok(), result.ok() ? "" : qPrintable(result.error().message));
    QCOMPARE(result.value().head.toLatin1(), m_mainHead);
    QTRY_VERIFY(accepted() == before + 1);

    // Even a known-hosts line with another key is overridden: the launch said any key.
    r.directory = QStringLiteral("repos/unchecked-too");
    r.knownHosts = hostLine(m_otherHostPublic);
    auto again = cloneAndWatch(std::move(r), m_keyCanaries, &hits, &scans);
    QVERIFY2(again.ok(), again.ok() ? "" : qPrintable(again.error().message));
    QVERIFY(hits.isEmpty());
}

void tst_SshClone::refusedKeyFailsAtOnce()
{
    CloneRequest r = request(QStringLiteral("repos/stranger"));
    r.sshKey = m_strangerKey;
    QStringList hits;
    int scans = 0;
    QElapsedTimer t;
    t.start();
    auto result = cloneAndWatch(std::move(r), m_keyCanaries, &hits, &scans);
    QVERIFY(!result.ok());
    QCOMPARE(result.error().code, SandboxError::Code::Failed);
    QVERIFY2(t.elapsed() < 20000, "a refused key must not be offered in a loop");
    QVERIFY2(result.error().message.contains(QStringLiteral("the server refused the key")),
        qPrintable(result.error().message));
    QVERIFY(!result.error().message.contains(QStringLiteral("RSA")));
    QVERIFY(!QFileInfo::exists(m_session.work + QStringLiteral("/repos/stranger")));
    QVERIFY(hits.isEmpty());
}

void tst_SshClone::rsaKeyFailureIsExplained()
{
    // authorized_keys has it, but libssh2 1.10 signs with ssh-rsa (SHA-1), which OpenSSH 9 refuses.
    CloneRequest r = request(QStringLiteral("repos/rsa"));
    r.sshKey = m_rsaKey;
    QStringList hits;
    int scans = 0;
    auto result = cloneAndWatch(std::move(r), m_keyCanaries, &hits, &scans);
    if (result.ok()) {
        qInfo() << "this sshd takes ssh-rsa signatures: nothing to explain";
        return;
    }
    QCOMPARE(result.error().code, SandboxError::Code::Failed);
    QVERIFY2(result.error().message.contains(QStringLiteral("an RSA key")), qPrintable(result.error().message));
}

QTEST_GUILESS_MAIN(tst_SshClone)
#include "tst_sshclone.moc"
