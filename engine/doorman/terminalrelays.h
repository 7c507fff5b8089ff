// The terminal views' PTY relays (docs/protocol.md, "The PTY relay"): for a view's first
// pseudo-terminal WebSocket, isolation-pty-relay is copied into the sandbox through execd's file API
// (once per sandbox) and started through its command API with a secret of the view's own; the
// relay says which port it listens on, and the doorman forwards the view's WebSockets there with
// that secret. A view keeps its relay until its token expires or a WebSocket to it fails.
#pragma once

#include "core/result.h"
#include "viewtargets.h"
#include "views/viewtoken.h"

#include <QByteArray>
#include <QHash>
#include <QList>
#include <QObject>
#include <QSet>
#include <QString>

#include <functional>
#include <optional>

class QNetworkAccessManager;

namespace isolation {

struct TerminalRelay
{
    quint16 port = 0; // inside the sandbox, on 127.0.0.1
    QByteArray secret; // X-Isolation-Relay-Secret
};

class TerminalRelays final : public QObject
{
    Q_OBJECT
public:
    using Done = std::function<void(Result<TerminalRelay>)>;

    // `program`: isolation-pty-relay on this computer; empty or missing: no relay (line mode).
    explicit TerminalRelays(QString program, QObject *parent = nullptr);
    ~TerminalRelays() override;

    // The view's relay, started at first use; `done` runs exactly once, later.
    void relayFor(const ViewClaims &claims, const ViewTarget &target, Done done);
    // A WebSocket to the view's relay failed (the relay exited): the next one starts a new relay.
    void forget(const QString &viewId);
    // Drops the relays of views whose tokens expired (the relays exit by themselves when idle).
    void purge(qint64 nowUnixSeconds);

    // The view's relay when it runs (tests look at it).
    std::optional<TerminalRelay> running(const QString &viewId) const;

    // Where the relay goes in a sandbox: named after its contents, so a new build is a new file.
    QString sandboxPath() const;

private:
    struct View
    {
        TerminalRelay relay;
        qint64 expiresAt = 0;
        bool started = false;
        QList<Done> waiting;
    };
    Result<QByteArray> binary();
    void start(const QString &viewId, const ViewTarget &target, bool uploaded);
    void finish(const QString &viewId, Result<TerminalRelay> result);

    QString m_program;
    QByteArray m_binary; // read at first use
    QString m_hash; // first 16 hex digits of its SHA-256
    QNetworkAccessManager *m_network = nullptr; // made at first use
    QHash<QString, View> m_views; // by view id
    QSet<QString> m_uploaded; // "host:port" of the execds that have this relay
};

} // namespace isolation
