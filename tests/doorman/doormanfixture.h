// What the doorman's tests share: the stand-in execd and its echo application run as real local
// processes (execd requiring an access token), a hub key to mint view tokens with, a resolver
// standing in for the session module (session id -> that execd), and raw HTTP/1.1 exchanges.
#pragma once

#include "core/clock.h"
#include "crypto/ed25519.h"
#include "doorman/doorman.h"

#include <QProcess>
#include <QTcpServer>
#include <QTcpSocket>

#include <memory>

namespace isolation::test {

struct RawAnswer
{
    int status = 0;
    HttpHeaders headers;
    QByteArray body;
    QByteArray raw;
    bool closed = false; // the doorman closed the connection after answering
    QByteArray header(QByteArrayView name) const { return headerValue(headers, name); }
    QList<QByteArray> all(QByteArrayView name) const;
};

// Connects while the event loop runs (the doorman is on this thread).
bool connectSocket(QTcpSocket &socket, quint16 port);
// Reads one answer from `socket` (sent already), with the time it may take.
RawAnswer readAnswer(QTcpSocket &socket, int timeoutMs = 10000, bool headRequest = false);
// A fresh connection to 127.0.0.1:port: send `request`, read one answer, see whether it closes.
RawAnswer exchange(quint16 port, const QByteArray &request, int timeoutMs = 10000);

class StaticTargets final : public ViewTargetResolver
{
public:
    void resolve(const QString &sessionId, Callback done) override { done(*resolveNow(sessionId)); }
    std::optional<Result<ViewTarget>> resolveNow(const QString &sessionId) override
    {
        if (sessionId == session)
            return Result<ViewTarget>(target);
        return Result<ViewTarget>(Error::notFound(QStringLiteral("no such session")));
    }
    QString session = QStringLiteral("s1");
    ViewTarget target;
};

// A process of the stand-in whose stdout lines are kept.
class StandinProcess
{
public:
    ~StandinProcess();
    bool start(const QStringList &args, const QProcessEnvironment &env = QProcessEnvironment::systemEnvironment());
    int linesWith(const QByteArray &marker);
    QList<QByteArray> lines(const QByteArray &marker);
    quint16 port = 0;

private:
    QProcess m_process;
    QByteArray m_out;
};

// The "sandbox" of view tests: the stand-in execd on a free port, requiring a fresh access token,
// the echo application beside it, and `targets` pointing at that execd with that token.
bool startStandinSandbox(StandinProcess &execd, StandinProcess &app, StaticTargets &targets);

class DoormanFixture
{
public:
    DoormanFixture();
    ~DoormanFixture();
    bool start(const QString &filesRoot = {});

    QByteArray token(ViewKind kind, int port, qint64 lifetime = 3600, const QString &viewId = {},
        const QString &serverId = QStringLiteral("srv_test"), const QByteArray &key = {});
    // Host header of a view on the local door.
    QByteArray host(const QString &viewId) const;
    // Opens a view with a fresh token: returns the cookie value ("__Host-isolation_view=...").
    QByteArray open(const QString &viewId, ViewKind kind, int port);
    // Requests that reached the application in the "sandbox".
    int appRequests() { return m_app.linesWith("ISOLATION-STANDIN-APP "); }
    QList<QByteArray> appLines() { return m_app.lines("ISOLATION-STANDIN-APP "); }
    int execdRefused() { return m_execd.linesWith("ISOLATION-STANDIN-REFUSED "); }
    QByteArray execdOutput() { return m_execd.lines("").join('\n'); }

    ManualClock clock {1'700'000'000};
    Ed25519KeyPair hub;
    StaticTargets targets;
    std::unique_ptr<Doorman> doorman;
    QString ptyRelay; // isolation-pty-relay for the terminal views, set before start(); empty: line mode
    quint16 doorPort = 0;
    quint16 appPort = 0;
    QByteArray accessToken;
    QString viewA = QStringLiteral("v00000000000000000000000a");
    QString viewB = QStringLiteral("v00000000000000000000000b");

private:
    StandinProcess m_execd;
    StandinProcess m_app;
};

quint16 freePort();

// A relay on 127.0.0.1 that rewrites the Host line of the first request head on each connection
// (QWebSocket writes its own Host: a view's name does not resolve outside a browser), then
// passes the bytes on both ways unchanged.
class HostRewriter final : public QObject
{
public:
    HostRewriter(quint16 target, QByteArray host);
    quint16 port() const;

private:
    QTcpServer *m_server;
    quint16 m_target;
    QByteArray m_host;
};

} // namespace isolation::test
