// The doorman: every view request passes its one rule set, whichever front door it came through
// (tunnel streams from the hub, or HTTP/1.1 on 127.0.0.1:8090 for a browser on this machine).
// It verifies view tokens and exchanges them for a cookie, refuses what is ambiguous or out of
// scope, strips credentials and hop-by-hop headers, and forwards to the sandbox's execd.
#pragma once

#include "views/agentviews.h"
#include "core/clock.h"
#include "core/result.h"
#include "headerpolicy.h"
#include "http/httprequest.h"
#include "viewpath.h"
#include "views/viewtoken.h"
#include "viewsessions.h"
#include "viewtargets.h"

#include <QHostAddress>
#include <QObject>
#include <QTimer>

#include <functional>
#include <optional>

namespace isolation {

class HttpDoor;
class TunnelClient;
class TunnelDoor;
class TerminalRelays;
class TunnelStream;
class UpstreamPool;

// A request as a front door hands it over, before any rule ran.
struct DoorRequest
{
    QByteArray method;
    QByteArray target; // origin-form, relative to the view
    HttpHeaders headers;
    QString viewId; // from the scope (host name or tunnel path); empty when none
    QByteArray proto; // "http" or "https", as the browser sees the view
    QByteArray host; // the view's host as the browser wrote it
    QByteArray clientAddress;
    bool websocket = false;
};

// What the rules decided: answer now, or forward (upstream request towards execd).
struct Admission
{
    std::optional<HttpResponse> answer;
    ViewClaims claims;
    QByteArray method;
    QByteArray upstreamTarget; // path and query on execd; "{session}" is the terminal's session id
    HttpHeaders headers; // towards execd, less Host and the access token (added per target)
    bool needsTerminalSession = false;
    // The terminal view's PTY relay: "{relay}" in upstreamTarget is its port in the sandbox, and
    // its secret goes with the request (docs/protocol.md, "The PTY relay").
    bool needsTerminalRelay = false;
    // The editor's save: the file (a download target on execd) must still have this SHA-256.
    QByteArray unchangedFile;
    QByteArray unchangedSha256;
    // ... and it keeps its mode: the directory listing (on execd) that says it, and its path there.
    QByteArray modeListing;
    QString modePath;
    // The agent view's calls, answered from the engine (Doorman::agents()), not by execd.
    enum class AgentCall { None, Events, Input };
    AgentCall agentCall = AgentCall::None;
    quint64 agentAfter = 0; // Events: the last entry the page has
    QByteArray bodyPrefix; // the files view's upload: the multipart framing around the body
    QByteArray bodySuffix;
    bool dropBody = false; // the request body is not forwarded
};

class Doorman final : public QObject
{
    Q_OBJECT
public:
    struct Options
    {
        QString serverId;
        QByteArray hubPublicKey; // Ed25519, learned at pairing
        // The local door's host names: "<viewId>.<localSuffix>" (Chromium resolves *.localhost).
        QString localSuffix = QStringLiteral("localhost");
        QString filesRoot = QStringLiteral("/workspace");
        // isolation-pty-relay, copied into sandboxes for the terminal views; empty: line mode only.
        QString ptyRelayProgram;
    };

    Doorman(Options options, const Clock &clock, ViewTargetResolver *targets, QObject *parent = nullptr);
    ~Doorman() override;

    // The local front door; port 0 lets the system choose. Returns the bound port.
    Result<quint16> listenLocal(const QHostAddress &address = QHostAddress::LocalHost, quint16 port = 8090);
    // The tunnel front door: serves `/v/<viewId>/...` streams of this tunnel.
    void attach(TunnelClient *tunnel);
    void serveStream(TunnelStream *stream);
    void close();

    // The rules. Public so both doors and the fuzz target run exactly this.
    Admission admit(const DoorRequest &request);

    // The view id of a local host name ("<viewId>.<suffix>[:port]"), or empty.
    QString viewIdFromHost(QByteArrayView host) const;

    const Options &options() const { return m_options; }
    const Clock &clock() const { return m_clock; }
    ViewTargetResolver *targets() const { return m_targets; }
    // Where the agent views' transcripts come from; null: agent views get 503.
    AgentViewSource *agents() const { return m_agents; }
    void setAgents(AgentViewSource *agents) { m_agents = agents; }
    UpstreamPool *pool() const { return m_pool; }
    ViewSessions &sessions() { return m_sessions; }

    // The terminal view's shell session in the sandbox (execd /session), made on first use.
    void terminalSession(
        const ViewClaims &claims, const ViewTarget &target, std::function<void(Result<QByteArray>)> done);

    // The terminal view's PTY relay in the sandbox, started at its first WebSocket.
    TerminalRelays *terminalRelays() const { return m_relays; }

    // What became of the requests (the engine's metrics): forwarded to a sandbox, answered by the
    // doorman itself (a token exchanged for a cookie, its own pages), refused (4xx, 5xx).
    quint64 forwarded() const { return m_forwarded; }
    quint64 answered() const { return m_answered; }
    quint64 refused() const { return m_refused; }
    void countForwarded() { ++m_forwarded; }

    static HttpResponse refusal(int status, const QString &code, const QString &message, bool close = false);

private:
    QString parseViewIdFromHost(QByteArrayView host) const;
    Admission decide(const DoorRequest &request);
    Admission plan(
        const DoorRequest &request, const ViewClaims &claims, const ViewPath &path, const QByteArray &viewCookie);
    // A files view's request (/_view/files/...) planned into `out`: false when it names no page.
    bool planFiles(const DoorRequest &request, const ViewPath &path, Admission &out) const;
    // The agent view's calls (/_view/agent/...): false when it names none.
    bool planAgent(const DoorRequest &request, const ViewPath &path, Admission &out) const;
    Admission exchangePage(const ViewPath &path, const QByteArray &cookie, const ViewClaims &claims);

    Options m_options;
    QByteArray m_hostSuffix; // "." + localSuffix, lower case
    mutable QByteArray m_lastHost; // viewIdFromHost()'s last question and answer
    mutable QString m_lastViewId;
    const Clock &m_clock;
    ViewTargetResolver *m_targets;
    AgentViewSource *m_agents = nullptr;
    UpstreamPool *m_pool;
    TerminalRelays *m_relays;
    ViewSessions m_sessions;
    HttpDoor *m_http = nullptr;
    TunnelDoor *m_tunnel = nullptr;
    QTimer m_purge;
    quint64 m_forwarded = 0;
    quint64 m_answered = 0;
    quint64 m_refused = 0;

    struct Terminal
    {
        QByteArray sessionId;
        ViewTarget target;
        qint64 expiresAt = 0;
        QList<std::function<void(Result<QByteArray>)>> waiting;
    };
    QHash<QString, Terminal> m_terminals; // by view id
};

} // namespace isolation
