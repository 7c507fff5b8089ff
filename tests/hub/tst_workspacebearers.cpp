// Least privilege for workspace bearers, against the real isolation-hub (docs/protocol.md,
// "Workspace bearers"): a server credential gets a bearer only for a session of that server that
// uses the workspace, and only with a proof by the server's own key (a session the hub does not
// know is declared by it, one it launched needs it too); the bearer reads that workspace only,
// dies when it expires or when its session ended, and an engine's StoreClient asks none for a
// workspace no session of its uses.
#include "hubprocess.h"
#include "pairedserver.h"

#include "store/sessiondeclaration.h"
#include "store/storeclient.h"

#include <QDateTime>
#include <QEventLoop>
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QTemporaryDir>
#include <QTest>

#include <optional>

using namespace isolation;
using namespace isolation::test;

namespace {

struct Reply
{
    int status = 0;
    QByteArray body;

    QString code() const
    {
        return QJsonDocument::fromJson(body).object().value(QStringLiteral("error")).toObject().value(
            QStringLiteral("code")).toString();
    }
    QByteArray token() const
    {
        return QJsonDocument::fromJson(body).object().value(QStringLiteral("token")).toString().toLatin1();
    }
};

} // namespace

class tst_WorkspaceBearers final : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void noSessionNoBearer();
    void aSessionsBearerReadsItsWorkspaceOnly();
    void anotherServersSessionGetsNone();
    void declarationNeedsTheServersKey();
    void staleDeclarationIsRefused();
    void proofCoversSessionAndWorkspace();
    void launchedSessionNeedsTheProofToo();
    void expiredBearerIsRefused();
    void endedSessionLosesItsBearers();
    void sessionsSurviveAHubRestart();
    void engineAsksNoneWithoutASession();

private:
    Reply call(const QByteArray &method, const QString &path, const QByteArray &bearer, const QByteArray &body = {});
    // A bearer request as the engine sends it: with a proof by the server's key, dated now.
    Reply mint(const ServerIdentity &server, const QString &workspace, const QString &session);
    // A bearer request with `proof` as given (an empty one sends none).
    Reply declare(
        const ServerIdentity &server, const QString &workspace, const QString &session, const QJsonObject &proof);
    static QJsonObject proof(const ServerIdentity &signer, const QString &serverId, const QString &workspace,
        const QString &session, qint64 time = QDateTime::currentSecsSinceEpoch());
    bool recorded(const QString &session) const;
    Reply readManifest(const QString &workspace, const QByteArray &bearer)
    {
        return call("GET", QStringLiteral("/v1/workspaces/%1/manifest").arg(workspace), bearer);
    }
    QString createWorkspace(const QString &name);
    int logged(const QString &action, const QString &key, const QString &value) const;

    QTemporaryDir m_home;
    HubProcess m_hub;
    std::optional<ServerIdentity> m_a;
    std::optional<ServerIdentity> m_b;
    QNetworkAccessManager m_nam;
};

void tst_WorkspaceBearers::initTestCase()
{
    QVERIFY2(m_hub.start({},
                 {QStringLiteral("--poll-interval"), QStringLiteral("1"), QStringLiteral("--workspace-token-lifetime"),
                     QStringLiteral("2")}),
        qPrintable(m_hub.output()));
    m_a = pairServer(m_hub.appUrl(), m_home.filePath(QStringLiteral("a")), QStringLiteral("server-a"));
    QVERIFY(m_a);
    m_b = pairServer(m_hub.appUrl(), m_home.filePath(QStringLiteral("b")), QStringLiteral("server-b"));
    QVERIFY(m_b);
    QCOMPARE(m_a->memberId, m_b->memberId); // one member, two of their servers
}

Reply tst_WorkspaceBearers::call(
    const QByteArray &method, const QString &path, const QByteArray &bearer, const QByteArray &body)
{
    QUrl url = m_hub.appUrl();
    url.setPath(path);
    QNetworkRequest request(url);
    if (!bearer.isEmpty())
        request.setRawHeader("Authorization", "Bearer " + bearer);
    request.setHeader(QNetworkRequest::ContentTypeHeader, QStringLiteral("application/json"));
    QNetworkReply *reply = method == "POST" ? m_nam.post(request, body) : m_nam.sendCustomRequest(request, method);
    QEventLoop loop;
    connect(reply, &QNetworkReply::finished, &loop, &QEventLoop::quit);
    if (!reply->isFinished())
        loop.exec();
    Reply r {reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt(), reply->readAll()};
    reply->deleteLater();
    return r;
}

Reply tst_WorkspaceBearers::mint(const ServerIdentity &server, const QString &workspace, const QString &session)
{
    return declare(server, workspace, session,
        session.isNull() ? QJsonObject {} : proof(server, server.serverId, workspace, session));
}

Reply tst_WorkspaceBearers::declare(
    const ServerIdentity &server, const QString &workspace, const QString &session, const QJsonObject &proof)
{
    QJsonObject o;
    if (!session.isNull())
        o.insert(QStringLiteral("session"), session);
    if (!proof.isEmpty())
        o.insert(QStringLiteral("proof"), proof);
    return call("POST", QStringLiteral("/v1/workspaces/%1/token").arg(workspace), server.credential.toByteArray(),
        QJsonDocument(o).toJson(QJsonDocument::Compact));
}

QJsonObject tst_WorkspaceBearers::proof(const ServerIdentity &signer, const QString &serverId, const QString &workspace,
    const QString &session, qint64 time)
{
    auto made = SessionDeclaration::proof(signer.ed25519Private.view(), serverId, session, workspace, time);
    return made ? made.value() : QJsonObject {};
}

bool tst_WorkspaceBearers::recorded(const QString &session) const
{
    QFile f(m_hub.dataDir() + QStringLiteral("/sessions.json"));
    return f.open(QIODevice::ReadOnly) && f.readAll().contains(session.toLatin1());
}

QString tst_WorkspaceBearers::createWorkspace(const QString &name)
{
    QString out;
    if (m_hub.admin({QStringLiteral("workspace"), QStringLiteral("create"), name}, &out) != 0)
        return {};
    return out.trimmed();
}

int tst_WorkspaceBearers::logged(const QString &action, const QString &key, const QString &value) const
{
    QFile log(m_hub.dataDir() + QStringLiteral("/actions.log"));
    if (!log.open(QIODevice::ReadOnly))
        return -1;
    int n = 0;
    for (const QByteArray &line : log.readAll().split('\n')) {
        const QJsonObject o = QJsonDocument::fromJson(line).object();
        n += o.value(QStringLiteral("action")).toString() == action && o.value(key).toString() == value;
    }
    return n;
}

void tst_WorkspaceBearers::noSessionNoBearer()
{
    const QString ws = createWorkspace(QStringLiteral("sessionless"));
    QVERIFY(ws.startsWith(QStringLiteral("ws_")));
    // The server credential alone, as every server could ask before: refused, nothing minted.
    const Reply alone = mint(*m_a, ws, QString());
    QCOMPARE(alone.status, 403);
    QCOMPARE(alone.code(), QStringLiteral("no_session"));
    QVERIFY(alone.token().isEmpty());
    QCOMPARE(logged(QStringLiteral("workspace.token"), QStringLiteral("workspace"), ws), 0);
    QCOMPARE(mint(*m_a, ws, QStringLiteral("not-a-session")).status, 400);
    // Listing the member's workspaces needs no bearer, and gives none.
    const Reply list = call("GET", QStringLiteral("/v1/workspaces"), m_a->credential.toByteArray());
    QCOMPARE(list.status, 200);
    QVERIFY(list.body.contains(ws.toLatin1()));
    QVERIFY(!list.body.contains("wst_"));
}

void tst_WorkspaceBearers::aSessionsBearerReadsItsWorkspaceOnly()
{
    const QString one = createWorkspace(QStringLiteral("one"));
    const QString two = createWorkspace(QStringLiteral("two"));
    const QString session = QStringLiteral("s0000000a0001");
    const Reply granted = mint(*m_a, one, session);
    QCOMPARE(granted.status, 200);
    QVERIFY(granted.token().startsWith("wst_"));
    QCOMPARE(logged(QStringLiteral("session.declared"), QStringLiteral("session"), session), 1);
    QCOMPARE(readManifest(one, granted.token()).code(), QStringLiteral("no_manifest")); // allowed: nothing saved yet
    // The bearer opens its own workspace and no other.
    const Reply other = readManifest(two, granted.token());
    QCOMPARE(other.status, 403);
    QCOMPARE(other.code(), QStringLiteral("forbidden"));
    // The session uses `one`: it gets no bearer for `two`.
    const Reply elsewhere = mint(*m_a, two, session);
    QCOMPARE(elsewhere.status, 403);
    QCOMPARE(elsewhere.code(), QStringLiteral("no_session"));
    // Asked again for its own workspace: granted, and declared once only.
    QCOMPARE(mint(*m_a, one, session).status, 200);
    QCOMPARE(logged(QStringLiteral("session.declared"), QStringLiteral("session"), session), 1);
    // The server credential is no bearer.
    QCOMPARE(readManifest(one, m_a->credential.toByteArray()).status, 401);
}

void tst_WorkspaceBearers::anotherServersSessionGetsNone()
{
    const QString ws = createWorkspace(QStringLiteral("shared"));
    const QString session = QStringLiteral("s0000000a0002");
    QCOMPARE(mint(*m_a, ws, session).status, 200);
    // Server B names A's session: refused, though the workspace is its member's.
    const Reply refused = mint(*m_b, ws, session);
    QCOMPARE(refused.status, 403);
    QCOMPARE(refused.code(), QStringLiteral("no_session"));
    QVERIFY(refused.token().isEmpty());
    // A session of B's own is B's business.
    QCOMPARE(mint(*m_b, ws, QStringLiteral("s0000000b0002")).status, 200);
    // B cannot end A's session either.
    QCOMPARE(call("DELETE", QStringLiteral("/v1/servers/self/sessions/%1").arg(session), m_b->credential.toByteArray())
                 .status,
        404);
}

void tst_WorkspaceBearers::declarationNeedsTheServersKey()
{
    const QString ws = createWorkspace(QStringLiteral("declared"));
    const QString session = QStringLiteral("s0000000a0007");
    // A's credential alone, as a thief of it would ask: refused, nothing recorded or minted.
    const Reply alone = declare(*m_a, ws, session, {});
    QCOMPARE(alone.status, 403);
    QCOMPARE(alone.code(), QStringLiteral("session_proof"));
    QVERIFY(alone.token().isEmpty());
    // A's credential with a proof by another key (B's, naming A), and B's credential with A's proof.
    const Reply otherKey = declare(*m_a, ws, session, proof(*m_b, m_a->serverId, ws, session));
    QCOMPARE(otherKey.status, 403);
    QCOMPARE(otherKey.code(), QStringLiteral("session_proof"));
    QCOMPARE(
        declare(*m_b, ws, session, proof(*m_a, m_a->serverId, ws, session)).code(), QStringLiteral("session_proof"));
    // A signature that is not base64url, or not one at all.
    QCOMPARE(declare(*m_a, ws, session,
                 {{QStringLiteral("timestamp"), QDateTime::currentSecsSinceEpoch()},
                     {QStringLiteral("signature"), QStringLiteral("!!")}})
                 .code(),
        QStringLiteral("session_proof"));
    QVERIFY(!recorded(session));
    QCOMPARE(logged(QStringLiteral("session.declared"), QStringLiteral("session"), session), 0);
    QCOMPARE(logged(QStringLiteral("workspace.token"), QStringLiteral("session"), session), 0);
    QCOMPARE(logged(QStringLiteral("session.proof_refused"), QStringLiteral("session"), session), 4);

    // With A's own proof: granted and declared, once.
    const Reply granted = declare(*m_a, ws, session, proof(*m_a, m_a->serverId, ws, session));
    QCOMPARE(granted.status, 200);
    QCOMPARE(readManifest(ws, granted.token()).code(), QStringLiteral("no_manifest"));
    QVERIFY(recorded(session));
    QCOMPARE(mint(*m_a, ws, session).status, 200);
    QCOMPARE(logged(QStringLiteral("session.declared"), QStringLiteral("session"), session), 1);
    QCOMPARE(logged(QStringLiteral("workspace.token"), QStringLiteral("session"), session), 2);
}

void tst_WorkspaceBearers::staleDeclarationIsRefused()
{
    const QString ws = createWorkspace(QStringLiteral("stale"));
    const QString session = QStringLiteral("s0000000a0008");
    // The window is 300 s either way; each proof is stamped just before it is sent, and stays out of
    // (or inside) the window by a minute, so a slow hub (a loaded CI machine) cannot move it across.
    auto now = [] { return QDateTime::currentSecsSinceEpoch(); };
    const Reply stale = declare(*m_a, ws, session, proof(*m_a, m_a->serverId, ws, session, now() - 360));
    QCOMPARE(stale.status, 403);
    QCOMPARE(stale.code(), QStringLiteral("session_proof"));
    QCOMPARE(declare(*m_a, ws, session, proof(*m_a, m_a->serverId, ws, session, now() + 360)).code(),
        QStringLiteral("session_proof"));
    QVERIFY(!recorded(session));
    // Within the window either way: fine (the engine's clock may be a little off the hub's).
    QCOMPARE(declare(*m_a, ws, session, proof(*m_a, m_a->serverId, ws, session, now() - 240)).status, 200);
    QCOMPARE(logged(QStringLiteral("session.declared"), QStringLiteral("session"), session), 1);
}

void tst_WorkspaceBearers::proofCoversSessionAndWorkspace()
{
    const QString one = createWorkspace(QStringLiteral("proof one"));
    const QString two = createWorkspace(QStringLiteral("proof two"));
    const QString session = QStringLiteral("s0000000a0009");
    const QJsonObject valid = proof(*m_a, m_a->serverId, one, session);
    QCOMPARE(declare(*m_a, one, session, valid).status, 200);
    // The same proof, replayed for a new session or for another workspace: refused.
    const QString fresh = QStringLiteral("s0000000a000a");
    const Reply otherSession = declare(*m_a, one, fresh, valid);
    QCOMPARE(otherSession.status, 403);
    QCOMPARE(otherSession.code(), QStringLiteral("session_proof"));
    const Reply otherWorkspace = declare(*m_a, two, fresh, proof(*m_a, m_a->serverId, one, fresh));
    QCOMPARE(otherWorkspace.status, 403);
    QCOMPARE(otherWorkspace.code(), QStringLiteral("session_proof"));
    QVERIFY(!recorded(fresh));
    QCOMPARE(logged(QStringLiteral("session.declared"), QStringLiteral("session"), session), 1);
}

void tst_WorkspaceBearers::launchedSessionNeedsTheProofToo()
{
    const QString ws = createWorkspace(QStringLiteral("launched"));
    // The hub records the session it launches before it asks the server; A has no tunnel up, so the
    // launch itself fails, and what stays is the record.
    QVERIFY(m_hub.admin({QStringLiteral("launch"), QStringLiteral("--server"), m_a->serverId,
                QStringLiteral("--workspace"), ws})
        != 0);
    QString session;
    QFile log(m_hub.dataDir() + QStringLiteral("/actions.log"));
    QVERIFY(log.open(QIODevice::ReadOnly));
    for (const QByteArray &line : log.readAll().split('\n')) {
        const QJsonObject o = QJsonDocument::fromJson(line).object();
        if (o.value(QStringLiteral("action")).toString() == QLatin1String("session.launched")
            && o.value(QStringLiteral("workspace")).toString() == ws)
            session = o.value(QStringLiteral("session")).toString();
    }
    QVERIFY(recorded(session));
    // The credential alone gets no bearer for it, although the hub knows it runs on A.
    QCOMPARE(declare(*m_a, ws, session, {}).code(), QStringLiteral("session_proof"));
    const Reply granted = mint(*m_a, ws, session);
    QCOMPARE(granted.status, 200);
    QCOMPARE(logged(QStringLiteral("session.declared"), QStringLiteral("session"), session), 0);
    QCOMPARE(mint(*m_b, ws, session).code(), QStringLiteral("no_session"));
}

void tst_WorkspaceBearers::expiredBearerIsRefused()
{
    const QString ws = createWorkspace(QStringLiteral("expiring"));
    const Reply granted = mint(*m_a, ws, QStringLiteral("s0000000a0003"));
    QCOMPARE(granted.status, 200);
    QCOMPARE(QJsonDocument::fromJson(granted.body).object().value(QStringLiteral("expiresIn")).toInt(), 2);
    QCOMPARE(readManifest(ws, granted.token()).code(), QStringLiteral("no_manifest"));
    QTest::qWait(2300); // the hub runs with 2 s bearers
    const Reply expired = readManifest(ws, granted.token());
    QCOMPARE(expired.status, 401);
    QCOMPARE(expired.code(), QStringLiteral("token_expired"));
    // The session may get a fresh one.
    QCOMPARE(readManifest(ws, mint(*m_a, ws, QStringLiteral("s0000000a0003")).token()).code(),
        QStringLiteral("no_manifest"));
}

void tst_WorkspaceBearers::endedSessionLosesItsBearers()
{
    const QString ws = createWorkspace(QStringLiteral("ending"));
    const QString session = QStringLiteral("s0000000a0004");
    const QByteArray bearer = mint(*m_a, ws, session).token();
    QVERIFY(!bearer.isEmpty());
    QCOMPARE(readManifest(ws, bearer).code(), QStringLiteral("no_manifest"));
    QCOMPARE(call("DELETE", QStringLiteral("/v1/servers/self/sessions/%1").arg(session), m_a->credential.toByteArray())
                 .status,
        204);
    const Reply ended = readManifest(ws, bearer);
    QCOMPARE(ended.status, 401);
    QCOMPARE(ended.code(), QStringLiteral("session_ended"));
    const Reply again = mint(*m_a, ws, session);
    QCOMPARE(again.status, 403);
    QCOMPARE(again.code(), QStringLiteral("no_session"));
    QCOMPARE(call("DELETE", QStringLiteral("/v1/servers/self/sessions/%1").arg(session), QByteArray()).status, 401);
}

void tst_WorkspaceBearers::sessionsSurviveAHubRestart()
{
    const QString one = createWorkspace(QStringLiteral("kept one"));
    const QString two = createWorkspace(QStringLiteral("kept two"));
    QCOMPARE(mint(*m_a, one, QStringLiteral("s0000000a0005")).status, 200);
    QVERIFY(m_hub.restart());
    // What a session uses is kept across a restart: it still gets no bearer for another workspace.
    QCOMPARE(mint(*m_a, two, QStringLiteral("s0000000a0005")).code(), QStringLiteral("no_session"));
    QCOMPARE(mint(*m_b, one, QStringLiteral("s0000000a0005")).code(), QStringLiteral("no_session"));
    QCOMPARE(mint(*m_a, one, QStringLiteral("s0000000a0005")).status, 200);
}

void tst_WorkspaceBearers::engineAsksNoneWithoutASession()
{
    const QString ws = createWorkspace(QStringLiteral("not ours"));
    StoreClient client(&m_nam, m_a->hubUrl, *m_a);
    std::optional<StoreResult<StoreClient::ManifestReply>> refused;
    client.getManifest(ws, {}, [&](StoreResult<StoreClient::ManifestReply> r) { refused = r; });
    QTRY_VERIFY(refused.has_value());
    QVERIFY(!refused->ok());
    QCOMPARE(refused->error().code, StoreError::Code::Local);
    QVERIFY2(refused->error().message.contains(QStringLiteral("no session on this computer uses workspace")),
        qPrintable(refused->error().message));
    QCOMPARE(logged(QStringLiteral("workspace.token"), QStringLiteral("workspace"), ws), 0);

    // With a session of its own it gets one, named for that session; once the session is gone the
    // client holds no bearer for the workspace and asks none.
    client.addSession(ws, QStringLiteral("s0000000a0006"));
    std::optional<StoreResult<StoreClient::ManifestReply>> read;
    client.getManifest(ws, {}, [&](StoreResult<StoreClient::ManifestReply> r) { read = r; });
    QTRY_VERIFY(read.has_value());
    QVERIFY2(read->ok(), qPrintable(read->ok() ? QString() : read->error().message));
    QVERIFY(!read->value().exists);
    QCOMPARE(logged(QStringLiteral("workspace.token"), QStringLiteral("session"), QStringLiteral("s0000000a0006")), 1);
    client.removeSession(ws, QStringLiteral("s0000000a0006"));
    client.endSession(QStringLiteral("s0000000a0006"));
    QTRY_COMPARE(logged(QStringLiteral("session.ended"), QStringLiteral("session"), QStringLiteral("s0000000a0006")), 1);
    read.reset();
    client.getManifest(ws, {}, [&](StoreResult<StoreClient::ManifestReply> r) { read = r; });
    QTRY_VERIFY(read.has_value());
    QVERIFY(!read->ok());
    QCOMPARE(read->error().code, StoreError::Code::Local);
}

QTEST_GUILESS_MAIN(tst_WorkspaceBearers)
#include "tst_workspacebearers.moc"
