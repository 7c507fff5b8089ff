// One device-code pairing with the hub: makes the server's key pairs, asks for a code, polls
// until the member approves or denies (honouring interval and slow_down), then unseals the
// member key and hands over a complete ServerIdentity.
#pragma once

#include "hubapi/hubclient.h"
#include "pairingstate.h"
#include "serveridentity.h"

#include <QDateTime>
#include <QObject>
#include <QTimer>

namespace isolation {

struct PairingCode
{
    QString userCode; // "BCDF-GHJK"
    QUrl verificationUri; // the approval page
    QUrl verificationUriComplete; // the page with the code filled in
    QDateTime expiresAt;
};

class PairingFlow final : public QObject
{
    Q_OBJECT
public:
    PairingFlow(QNetworkAccessManager *network, QUrl hubUrl, QObject *parent = nullptr);

    // Starts: new key pairs, a code from the hub, then polling. `name` names this server on the hub.
    void start(const QString &name, const QString &hostName, const QString &version);
    void cancel();
    // The owner reports whether the approved identity was stored: Approved, or Failed with why.
    void stored(bool ok, const QString &reason = {});

    PairingState state() const { return m_state; }
    PairingCode code() const { return m_code; }
    QString reason() const { return m_reason; }
    int intervalSeconds() const { return m_interval; }
    // Valid once state() is Storing or Approved.
    const ServerIdentity &identity() const { return m_identity; }

Q_SIGNALS:
    void codeReady(const isolation::PairingCode &code);
    void approved(); // identity() is complete
    void finished(isolation::PairingState state, const QString &reason); // Denied, Expired or Failed

private:
    void poll();
    void schedulePoll();
    void onToken(Result<QJsonObject, HubError> result);
    void fail(PairingState state, const QString &reason);

    HubClient m_hub;
    QTimer m_timer;
    PairingState m_state = PairingState::Idle;
    PairingCode m_code;
    QString m_reason;
    QByteArray m_deviceCode;
    int m_interval = 5;
    ServerIdentity m_identity;
};

} // namespace isolation

Q_DECLARE_METATYPE(isolation::PairingCode)
