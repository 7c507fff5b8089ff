// Owns this server's identity over its life: loads it from the credential store at start, runs
// a pairing flow and stores what it yields, forgets it (store and memory) on unpair or revoke.
#pragma once

#include "credentials/credentialstore.h"
#include "pairingflow.h"
#include "serveridentity.h"

#include <QObject>

#include <memory>
#include <optional>

class QNetworkAccessManager;

namespace isolation {

class PairingController final : public QObject
{
    Q_OBJECT
public:
    PairingController(
        std::unique_ptr<CredentialStore> store, QNetworkAccessManager *network, QObject *parent = nullptr);
    ~PairingController() override;

    // Reads the store; ends with paired(), or loaded() with no identity, or storeFailed().
    void load();
    // Starts a device-code flow with the hub. Fails when already paired or pairing.
    Status startPairing(const QUrl &hub, const QString &name, const QString &hostName, const QString &version);
    void cancelPairing();
    // Deletes the stored secrets and drops the identity; ends with unpaired(reason).
    void forget(const QString &reason);

    const ServerIdentity *identity() const { return m_identity ? &*m_identity : nullptr; }
    const PairingFlow *flow() const { return m_flow.get(); }
    bool pairing() const;
    CredentialStore *store() const { return m_store.get(); }
    QString lastOutcome() const { return m_lastOutcome; }

Q_SIGNALS:
    void loaded(); // the store was read and holds no identity
    void paired(); // identity() is set (loaded or newly approved)
    void unpaired(const QString &reason); // identity() is gone
    void pairingChanged(); // the flow's state or code changed
    // `problem` for a client to act on: "locked" (unlock the keychain), "unavailable" (no keychain:
    // start one, or use the file store), "unusable" (stored but unreadable: pair again), "failed".
    void storeFailed(const QString &message, const QString &problem);

private:
    void onApproved();
    void onFlowFinished(PairingState state, const QString &reason);

    std::unique_ptr<CredentialStore> m_store;
    QNetworkAccessManager *m_network;
    std::unique_ptr<PairingFlow> m_flow;
    std::optional<ServerIdentity> m_identity;
    QString m_lastOutcome;
};

} // namespace isolation
