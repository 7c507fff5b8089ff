// The hub's workspace store over its HTTP API, against the real isolation-hub process: the
// compare-and-swap preconditions (the canary comes first), bearers, content-addressed segments,
// concurrent writers, large streamed segments, and a crash in the middle of an upload.
#include "hubprocess.h"
#include "pairedserver.h"

#include "crypto/random.h"
#include "store/sessiondeclaration.h"

#include <QCryptographicHash>
#include <QDateTime>
#include <QDir>
#include <QElapsedTimer>
#include <QEventLoop>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QTcpSocket>
#include <QTemporaryDir>
#include <QTest>

#include <csignal>

using namespace isolation;
using namespace isolation::test;

namespace {

struct Reply
{
    int status = 0;
    QByteArray body;
    QByteArray etag;
    QList<QNetworkReply::RawHeaderPair> headers;

    QString code() const
    {
        return QJsonDocument::fromJson(body)
            .object()
            .value(QStringLiteral("error"))
            .toObject()
            .value(QStringLiteral("code"))
            .toString();
    }
    QByteArray header(const QByteArray &name) const
    {
        for (const auto &h : headers) {
            if (h.first.compare(name, Qt::CaseInsensitive) == 0)
                return h.second;
        }
        return {};
    }
};

using Headers = QList<QPair<QByteArray, QByteArray>>;

Reply wait(QNetworkReply *reply)
{
    if (!reply->isFinished()) {
        QEventLoop loop;
        QObject::connect(reply, &QNetworkReply::finished, &loop, &QEventLoop::quit);
        loop.exec();
    }
    Reply r {reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt(), reply->readAll(),
        reply->rawHeader("ETag"), reply->rawHeaderPairs()};
    reply->deleteLater();
    return r;
}

QByteArray sha256Hex(QByteArrayView bytes)
{
    return QCryptographicHash::hash(bytes, QCryptographicHash::Sha256).toHex();
}

qint64 peakRssKiB(qint64 pid)
{
    QFile status(QStringLiteral("/proc/%1/status").arg(pid));
    if (!status.open(QIODevice::ReadOnly))
        return -1;
    for (const QByteArray &line : status.readAll().split('\n')) {
        if (line.startsWith("VmHWM:"))
            return line.mid(6).trimmed().split(' ').first().toLongLong();
    }
    return -1;
}

} // namespace

class tst_HubStore final : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void preconditionCanary();
    void putNeedsAPrecondition();
    void adminVerbs();
    void serversListTheirMembersWorkspaces();
    void bearers();
    void bearerExpires();
    void anotherMembersWorkspace();
    void segments();
    void concurrentWritersOneWins();
    void largeSegmentStreamsThroughTheHub();
    void crashMidUploadLeavesNoPartialSegment();
    void revokedServerLosesItsBearers();

private:
    Reply call(const QByteArray &method, const QString &path, const Headers &headers = {}, const QByteArray &body = {});
    QNetworkReply *start(const QByteArray &method, const QString &path, const Headers &headers, const QByteArray &body);
    QString createWorkspace(const QString &name);
    QByteArray declaration(const QString &workspaceId, const QString &session) const;
    QByteArray token(const QString &workspaceId, const QByteArray &credential = {});
    Headers bearer(const QString &workspaceId) { return {{"Authorization", "Bearer " + token(workspaceId)}}; }

    QTemporaryDir m_home;
    HubProcess m_hub;
    std::optional<ServerIdentity> m_server;
    QNetworkAccessManager m_nam;
};

void tst_HubStore::initTestCase()
{
    // ASan keeps freed memory in quarantine (256 MB by default), which would blur the measure of
    // the hub's peak memory while it streams a large segment.
    qputenv("ASAN_OPTIONS", qgetenv("ASAN_OPTIONS") + ":quarantine_size_mb=16");
    QVERIFY2(m_hub.start({},
                 {QStringLiteral("--poll-interval"), QStringLiteral("1"), QStringLiteral("--workspace-token-lifetime"),
                     QStringLiteral("2")}),
        qPrintable(m_hub.output()));
    m_server = pairServer(m_hub.appUrl(), m_home.path(), QStringLiteral("store-test"));
    QVERIFY(m_server);
}

QNetworkReply *tst_HubStore::start(
    const QByteArray &method, const QString &path, const Headers &headers, const QByteArray &body)
{
    QUrl url = m_hub.appUrl();
    url.setPath(path);
    QNetworkRequest request(url);
    for (const auto &h : headers)
        request.setRawHeader(h.first, h.second);
    if (method == "PUT" || method == "POST")
        request.setHeader(QNetworkRequest::ContentTypeHeader, QStringLiteral("application/octet-stream"));
    if (method == "HEAD") // as a custom verb QNAM would wait for a body
        return m_nam.head(request);
    return body.isNull() && method != "PUT" && method != "POST" ? m_nam.sendCustomRequest(request, method)
                                                                : m_nam.sendCustomRequest(request, method, body);
}

Reply tst_HubStore::call(const QByteArray &method, const QString &path, const Headers &headers, const QByteArray &body)
{
    return wait(start(method, path, headers, body));
}

QString tst_HubStore::createWorkspace(const QString &name)
{
    QString out;
    if (m_hub.admin({QStringLiteral("workspace"), QStringLiteral("create"), name}, &out) != 0)
        return {};
    return out.trimmed();
}

QByteArray tst_HubStore::declaration(const QString &workspaceId, const QString &session) const
{
    // The body a server sends for a session the hub does not know yet (docs/protocol.md, "Workspace bearers").
    auto proof = SessionDeclaration::proof(
        m_server->ed25519Private.view(), m_server->serverId, session, workspaceId, QDateTime::currentSecsSinceEpoch());
    return QJsonDocument(QJsonObject {{QStringLiteral("session"), session},
                             {QStringLiteral("proof"), proof ? proof.value() : QJsonObject {}}})
        .toJson(QJsonDocument::Compact);
}

QByteArray tst_HubStore::token(const QString &workspaceId, const QByteArray &credential)
{
    const QByteArray bearer = credential.isEmpty() ? m_server->credential.toByteArray() : credential;
    // Each bearer for a session of its own (the hub binds a session to one workspace).
    const QString session = QStringLiteral("s") + QString::fromLatin1(randomBytes(6).toHex());
    const Reply r = call("POST", QStringLiteral("/v1/workspaces/%1/token").arg(workspaceId),
        {{"Authorization", "Bearer " + bearer}}, declaration(workspaceId, session));
    return QJsonDocument::fromJson(r.body).object().value(QStringLiteral("token")).toString().toLatin1();
}

void tst_HubStore::preconditionCanary()
{
    const QString ws = createWorkspace(QStringLiteral("canary"));
    QVERIFY(ws.startsWith(QStringLiteral("ws_")));
    const QString manifest = QStringLiteral("/v1/workspaces/%1/manifest").arg(ws);

    const Reply created = call("PUT", manifest, bearer(ws) + Headers {{"If-None-Match", "*"}}, "first");
    QCOMPARE(created.status, 201);
    QCOMPARE(created.etag, '"' + sha256Hex("first") + '"');

    // The three preconditions the whole store rests on.
    const Reply wrongIfMatch
        = call("PUT", manifest, bearer(ws) + Headers {{"If-Match", "\"" + sha256Hex("other") + "\""}}, "second");
    QCOMPARE(wrongIfMatch.status, 412);
    QCOMPARE(wrongIfMatch.code(), QStringLiteral("precondition_failed"));
    const Reply createAgain = call("PUT", manifest, bearer(ws) + Headers {{"If-None-Match", "*"}}, "second");
    QCOMPARE(createAgain.status, 412);
    const Reply unchanged = call("GET", manifest, bearer(ws) + Headers {{"If-None-Match", created.etag}});
    QCOMPARE(unchanged.status, 304);
    QVERIFY(unchanged.body.isEmpty());
    QCOMPARE(unchanged.etag, created.etag);

    // Nothing the refused writes sent was stored.
    const Reply read = call("GET", manifest, bearer(ws));
    QCOMPARE(read.status, 200);
    QCOMPARE(read.body, QByteArray("first"));
    QCOMPARE(read.etag, created.etag);

    const Reply replaced = call("PUT", manifest, bearer(ws) + Headers {{"If-Match", created.etag}}, "second");
    QCOMPARE(replaced.status, 200);
    QCOMPARE(replaced.etag, '"' + sha256Hex("second") + '"');
    QCOMPARE(call("GET", manifest, bearer(ws) + Headers {{"If-None-Match", created.etag}}).status, 200);
    // A weak tag never matches a strong one.
    QCOMPARE(call("PUT", manifest, bearer(ws) + Headers {{"If-Match", "W/" + replaced.etag}}, "third").status, 412);
}

void tst_HubStore::putNeedsAPrecondition()
{
    const QString ws = createWorkspace(QStringLiteral("needs a precondition"));
    const QString manifest = QStringLiteral("/v1/workspaces/%1/manifest").arg(ws);
    const Reply none = call("PUT", manifest, bearer(ws), "x");
    QCOMPARE(none.status, 428);
    QCOMPARE(none.code(), QStringLiteral("precondition_required"));
    QCOMPARE(call("PUT", manifest, bearer(ws) + Headers {{"If-Match", "*"}}, "x").status, 412); // nothing to match yet
    const Reply missing = call("GET", manifest, bearer(ws));
    QCOMPARE(missing.status, 404);
    QCOMPARE(missing.code(), QStringLiteral("no_manifest"));
}

void tst_HubStore::adminVerbs()
{
    QString out, err;
    QCOMPARE(m_hub.admin({QStringLiteral("workspace"), QStringLiteral("create"), QStringLiteral("My project"),
                             QStringLiteral("--json")},
                 &out, &err),
        0);
    const QJsonObject created = QJsonDocument::fromJson(out.toUtf8()).object();
    const QString id = created.value(QStringLiteral("id")).toString();
    QVERIFY(id.startsWith(QStringLiteral("ws_")));
    QCOMPARE(created.value(QStringLiteral("name")).toString(), QStringLiteral("My project"));
    QVERIFY(created.value(QStringLiteral("member")).toString().startsWith(QStringLiteral("mem_")));

    QCOMPARE(m_hub.admin({QStringLiteral("workspaces"), QStringLiteral("--json")}, &out), 0);
    bool listed = false;
    for (const QJsonValue &v :
        QJsonDocument::fromJson(out.toUtf8()).object().value(QStringLiteral("workspaces")).toArray())
        listed = listed || v.toObject().value(QStringLiteral("id")).toString() == id;
    QVERIFY(listed);
    QCOMPARE(m_hub.admin({QStringLiteral("workspaces")}, &out), 0);
    QVERIFY(out.contains(QStringLiteral("My project")));
    QCOMPARE(m_hub.admin({QStringLiteral("workspace"), QStringLiteral("create")}, &out, &err), 2);
    QCOMPARE(m_hub.admin({QStringLiteral("workspace"), QStringLiteral("create"), QStringLiteral(" ")}, &out, &err), 1);
    QVERIFY(QDir(m_hub.dataDir() + QStringLiteral("/workspaces/") + id).exists());
}

void tst_HubStore::serversListTheirMembersWorkspaces()
{
    const QString ws = createWorkspace(QStringLiteral("listed"));
    const Reply list = call(
        "GET", QStringLiteral("/v1/workspaces"), {{"Authorization", "Bearer " + m_server->credential.toByteArray()}});
    QCOMPARE(list.status, 200);
    QVERIFY(list.body.contains(ws.toLatin1()));
    QCOMPARE(call("GET", QStringLiteral("/v1/workspaces")).status, 401);
}

void tst_HubStore::bearers()
{
    const QString a = createWorkspace(QStringLiteral("a"));
    const QString b = createWorkspace(QStringLiteral("b"));
    const QString manifestB = QStringLiteral("/v1/workspaces/%1/manifest").arg(b);

    const Reply minted = call("POST", QStringLiteral("/v1/workspaces/%1/token").arg(a),
        {{"Authorization", "Bearer " + m_server->credential.toByteArray()}},
        declaration(a, QStringLiteral("s00000000a001")));
    QCOMPARE(minted.status, 200);
    const QJsonObject o = QJsonDocument::fromJson(minted.body).object();
    QVERIFY(o.value(QStringLiteral("token")).toString().startsWith(QStringLiteral("wst_")));
    QCOMPARE(o.value(QStringLiteral("expiresIn")).toInt(), 2);
    QVERIFY(QDateTime::fromString(o.value(QStringLiteral("expiresAt")).toString(), Qt::ISODate).isValid());
    QCOMPARE(minted.header("Cache-Control"), QByteArray("no-store"));

    QCOMPARE(call("GET", manifestB).code(), QStringLiteral("unauthorized"));
    // The server credential is not a workspace bearer, and a bearer is for its own workspace only.
    QCOMPARE(call("GET", manifestB, {{"Authorization", "Bearer " + m_server->credential.toByteArray()}}).status, 401);
    const Reply other = call("GET", manifestB, bearer(a));
    QCOMPARE(other.status, 403);
    QCOMPARE(other.code(), QStringLiteral("forbidden"));
    // Minting needs the server credential and a workspace that exists.
    QCOMPARE(call("POST", QStringLiteral("/v1/workspaces/%1/token").arg(a), {}, "{}").status, 401);
    QCOMPARE(call("POST", QStringLiteral("/v1/workspaces/ws_nope/token"),
                 {{"Authorization", "Bearer " + m_server->credential.toByteArray()}}, "{}")
                 .status,
        404);
    // No log line carries a bearer.
    QFile log(m_hub.dataDir() + QStringLiteral("/actions.log"));
    QVERIFY(log.open(QIODevice::ReadOnly));
    QVERIFY(!log.readAll().contains("wst_"));
}

void tst_HubStore::bearerExpires()
{
    const QString ws = createWorkspace(QStringLiteral("expiry"));
    const Headers auth = bearer(ws);
    const QString manifest = QStringLiteral("/v1/workspaces/%1/manifest").arg(ws);
    QCOMPARE(call("GET", manifest, auth).status, 404); // no manifest yet, but allowed
    QTest::qWait(2300); // the hub runs with 2 s bearers
    const Reply expired = call("GET", manifest, auth);
    QCOMPARE(expired.status, 401);
    QCOMPARE(expired.code(), QStringLiteral("token_expired"));
    QCOMPARE(call("PUT", manifest, auth + Headers {{"If-None-Match", "*"}}, "late").status, 401);
    QCOMPARE(call("GET", manifest, bearer(ws)).status, 404); // a new bearer works
}

void tst_HubStore::anotherMembersWorkspace()
{
    // The local hub has one member; another member's workspace is made on disk, then the hub restarted.
    const QString id = QStringLiteral("ws_00000000000000000000");
    const QString dir = m_hub.dataDir() + QStringLiteral("/workspaces/") + id;
    QVERIFY(QDir().mkpath(dir + QStringLiteral("/segments")));
    QFile record(dir + QStringLiteral("/workspace.json"));
    QVERIFY(record.open(QIODevice::WriteOnly));
    record.write(
        QJsonDocument(QJsonObject {{QStringLiteral("id"), id}, {QStringLiteral("name"), QStringLiteral("not yours")},
                          {QStringLiteral("member"), QStringLiteral("mem_someoneelse")},
                          {QStringLiteral("createdAt"), QStringLiteral("2024-01-01T00:00:00Z")}})
            .toJson());
    record.close();
    QVERIFY(m_hub.restart());
    const Reply refused = call("POST", QStringLiteral("/v1/workspaces/%1/token").arg(id),
        {{"Authorization", "Bearer " + m_server->credential.toByteArray()}}, "{}");
    QCOMPARE(refused.status, 403);
    QCOMPARE(refused.code(), QStringLiteral("forbidden"));
    const Reply list = call(
        "GET", QStringLiteral("/v1/workspaces"), {{"Authorization", "Bearer " + m_server->credential.toByteArray()}});
    QVERIFY(!list.body.contains(id.toLatin1()));
}

void tst_HubStore::segments()
{
    const QString ws = createWorkspace(QStringLiteral("segments"));
    const QByteArray bytes = QByteArray("sealed bytes the hub cannot read ").repeated(1000);
    const QString name = QString::fromLatin1(sha256Hex(bytes));
    const QString path = QStringLiteral("/v1/workspaces/%1/segments/%2").arg(ws, name);
    const QString file = m_hub.dataDir() + QStringLiteral("/workspaces/%1/segments/%2").arg(ws, name);

    QCOMPARE(call("GET", path, bearer(ws)).status, 404);
    QCOMPARE(call("PUT", QStringLiteral("/v1/workspaces/%1/segments/NOT-HEX").arg(ws), bearer(ws), bytes).status, 400);
    QCOMPARE(call("PUT", QStringLiteral("/v1/workspaces/%1/segments/%2").arg(ws, QString(64, QLatin1Char('A'))),
                 bearer(ws), bytes)
                 .status,
        400);
    // Bytes whose digest is not the name are never stored under it.
    const Reply mismatch = call("PUT", path, bearer(ws), bytes + "x");
    QCOMPARE(mismatch.status, 400);
    QCOMPARE(mismatch.code(), QStringLiteral("digest_mismatch"));
    QVERIFY(!QFile::exists(file));
    QCOMPARE(QDir(QFileInfo(file).path()).entryList(QDir::Files | QDir::Hidden).size(), 0); // no temporary left

    QCOMPARE(call("PUT", path, bearer(ws), bytes).status, 201);
    QCOMPARE(call("PUT", path, bearer(ws), bytes).status, 200); // idempotent
    QVERIFY(QFile::exists(file));
    const Reply head = call("HEAD", path, bearer(ws));
    QCOMPARE(head.status, 200);
    QCOMPARE(head.header("Content-Length"), QByteArray::number(bytes.size()));
    QVERIFY(head.body.isEmpty());
    const Reply got = call("GET", path, bearer(ws));
    QCOMPARE(got.status, 200);
    QCOMPARE(got.body, bytes);
    QCOMPARE(got.etag, '"' + name.toLatin1() + '"');
    QCOMPARE(
        call("GET", QStringLiteral("/v1/workspaces/%1/segments/%2").arg(createWorkspace(QStringLiteral("other")), name),
            bearer(ws))
            .status,
        403);
    QCOMPARE(call("DELETE", path, bearer(ws)).status, 204);
    QCOMPARE(call("GET", path, bearer(ws)).status, 404);
    QCOMPARE(call("DELETE", path, bearer(ws)).status, 404);
    QVERIFY(!QFile::exists(file));
}

void tst_HubStore::concurrentWritersOneWins()
{
    // Two writers read the same ETag and both try to replace the manifest: exactly one wins, the
    // other hears 412, in every round (libgit2's refs/races, over HTTP).
    const QString ws = createWorkspace(QStringLiteral("race"));
    const QString manifest = QStringLiteral("/v1/workspaces/%1/manifest").arg(ws);
    QByteArray etag = call("PUT", manifest, bearer(ws) + Headers {{"If-None-Match", "*"}}, "round 0").etag;
    QVERIFY(!etag.isEmpty());
    for (int round = 1; round <= 20; ++round) {
        const Headers auth = bearer(ws);
        const QByteArray one = "round " + QByteArray::number(round) + " writer one";
        const QByteArray two = "round " + QByteArray::number(round) + " writer two";
        QNetworkReply *a = start("PUT", manifest, auth + Headers {{"If-Match", etag}}, one);
        QNetworkReply *b = start("PUT", manifest, auth + Headers {{"If-Match", etag}}, two);
        const Reply ra = wait(a);
        const Reply rb = wait(b);
        QList<int> statuses {ra.status, rb.status};
        std::sort(statuses.begin(), statuses.end());
        QCOMPARE(statuses, (QList<int> {200, 412}));
        const QByteArray winner = ra.status == 200 ? one : two;
        const Reply now = call("GET", manifest, auth);
        QCOMPARE(now.body, winner);
        etag = now.etag;
    }
}

void tst_HubStore::largeSegmentStreamsThroughTheHub()
{
    const qint64 size = qint64(160) * 1024 * 1024; // ten times the hub's buffered-body limit
    QTemporaryDir dir;
    QFile source(dir.filePath(QStringLiteral("segment")));
    QVERIFY(source.open(QIODevice::WriteOnly));
    QCryptographicHash sha(QCryptographicHash::Sha256);
    QByteArray block(1024 * 1024, Qt::Uninitialized);
    for (qint64 i = 0; i < size / block.size(); ++i) {
        std::fill(block.begin(), block.end(), char(i * 31 + 7));
        block[0] = char(i);
        sha.addData(block);
        source.write(block);
    }
    source.close();
    const QString name = QString::fromLatin1(sha.result().toHex());
    const QString ws = createWorkspace(QStringLiteral("large"));
    const QString path = QStringLiteral("/v1/workspaces/%1/segments/%2").arg(ws, name);

    const qint64 before = peakRssKiB(m_hub.process().processId());
    QVERIFY(source.open(QIODevice::ReadOnly));
    QUrl url = m_hub.appUrl();
    url.setPath(path);
    QNetworkRequest request(url);
    request.setRawHeader("Authorization", "Bearer " + token(ws));
    request.setHeader(QNetworkRequest::ContentLengthHeader, size);
    QElapsedTimer timer;
    timer.start();
    const Reply put = wait(m_nam.put(request, &source));
    const qint64 upMs = timer.elapsed();
    QCOMPARE(put.status, 201);
    const qint64 after = peakRssKiB(m_hub.process().processId());
    qInfo("uploaded %lld MiB in %lld ms; the hub's peak RSS grew by %lld KiB", size >> 20, upMs, after - before);
    QVERIFY2(after - before < 48 * 1024, "the hub held the segment in memory");

    QFile copy(dir.filePath(QStringLiteral("copy")));
    QVERIFY(copy.open(QIODevice::WriteOnly));
    QNetworkRequest download(url);
    download.setRawHeader("Authorization", "Bearer " + token(ws));
    QNetworkReply *reply = m_nam.get(download);
    reply->setReadBufferSize(1024 * 1024);
    connect(reply, &QNetworkReply::readyRead, this, [&] { copy.write(reply->readAll()); });
    timer.restart();
    const Reply got = wait(reply);
    copy.write(got.body);
    copy.close();
    qInfo("downloaded it in %lld ms", timer.elapsed());
    QCOMPARE(got.status, 200);
    QCOMPARE(copy.size(), size);
    QVERIFY(copy.open(QIODevice::ReadOnly));
    QCryptographicHash back(QCryptographicHash::Sha256);
    QVERIFY(back.addData(&copy));
    QCOMPARE(QString::fromLatin1(back.result().toHex()), name);
    QCOMPARE(call("DELETE", path, bearer(ws)).status, 204);
}

void tst_HubStore::crashMidUploadLeavesNoPartialSegment()
{
    const QString ws = createWorkspace(QStringLiteral("crash"));
    const QString manifest = QStringLiteral("/v1/workspaces/%1/manifest").arg(ws);
    const QByteArray etag
        = call("PUT", manifest, bearer(ws) + Headers {{"If-None-Match", "*"}}, "before the crash").etag;
    const QByteArray body(8 * 1024 * 1024, 's');
    const QString name = QString::fromLatin1(sha256Hex(body));
    const QString segments = m_hub.dataDir() + QStringLiteral("/workspaces/%1/segments").arg(ws);

    QTcpSocket socket;
    socket.connectToHost(QHostAddress::LocalHost, quint16(m_hub.appUrl().port()));
    QVERIFY(socket.waitForConnected(5000));
    socket.write("PUT /v1/workspaces/" + ws.toLatin1() + "/segments/" + name.toLatin1() + " HTTP/1.1\r\nHost: 127.0.0.1\r\n"
        + "Authorization: Bearer " + token(ws) + "\r\nContent-Length: " + QByteArray::number(body.size()) + "\r\n\r\n"
        + body.left(3 * 1024 * 1024));
    QVERIFY(socket.waitForBytesWritten(5000));
    // The hub is writing the temporary file: kill it there.
    QTRY_VERIFY(!QDir(segments).entryList({QStringLiteral(".tmp-*")}, QDir::Files | QDir::Hidden).isEmpty());
    QTRY_VERIFY(QFileInfo(segments + QLatin1Char('/')
                    + QDir(segments).entryList({QStringLiteral(".tmp-*")}, QDir::Files | QDir::Hidden).value(0))
                    .size()
        > 0);
    ::kill(pid_t(m_hub.process().processId()), SIGKILL);
    QVERIFY(m_hub.process().waitForFinished(10000));
    socket.abort();
    QVERIFY(!QFile::exists(segments + QLatin1Char('/') + name));

    QVERIFY(m_hub.restart());
    QCOMPARE(QDir(segments).entryList(QDir::Files | QDir::Hidden).size(), 0); // the leftover is gone
    const Reply read = call("GET", manifest, bearer(ws));
    QCOMPARE(read.body, QByteArray("before the crash"));
    QCOMPARE(read.etag, etag);
    QCOMPARE(call("GET", QStringLiteral("/v1/workspaces/%1/segments/%2").arg(ws, name), bearer(ws)).status, 404);
}

void tst_HubStore::revokedServerLosesItsBearers()
{
    // Last: it revokes the shared server.
    const QString ws = createWorkspace(QStringLiteral("revoked"));
    const Headers auth = bearer(ws);
    const QString manifest = QStringLiteral("/v1/workspaces/%1/manifest").arg(ws);
    QCOMPARE(call("GET", manifest, auth).status, 404);
    QCOMPARE(m_hub.admin({QStringLiteral("revoke"), m_server->serverId}), 0);
    const Reply refused = call("GET", manifest, auth);
    QCOMPARE(refused.status, 401);
    QCOMPARE(refused.code(), QStringLiteral("revoked"));
    const Reply mint = call("POST", QStringLiteral("/v1/workspaces/%1/token").arg(ws),
        {{"Authorization", "Bearer " + m_server->credential.toByteArray()}}, "{}");
    QCOMPARE(mint.status, 401);
    QCOMPARE(mint.code(), QStringLiteral("revoked"));
}

QTEST_GUILESS_MAIN(tst_HubStore)
#include "tst_hubstore.moc"
