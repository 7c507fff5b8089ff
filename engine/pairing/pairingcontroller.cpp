#include "pairingcontroller.h"

#include "core/huburl.h"

#include <QLoggingCategory>

Q_DECLARE_LOGGING_CATEGORY(lcPairing)

namespace isolation {

PairingController::PairingController(
    std::unique_ptr<CredentialStore> store, QNetworkAccessManager *network, QObject *parent)
    : QObject(parent)
    , m_store(std::move(store))
    , m_network(network)
{
    m_store->setParent(nullptr); // owned by the unique_ptr
}

namespace {
QString problemName(CredentialError::Code code)
{
    switch (code) {
    case CredentialError::Code::Locked:
        return QStringLiteral("locked");
    case CredentialError::Code::Unavailable:
        return QStringLiteral("unavailable");
    case CredentialError::Code::Failed:
        break;
    }
    return QStringLiteral("failed");
}
} // namespace

PairingController::~PairingController() = default;

bool PairingController::pairing() const
{
    if (!m_flow)
        return false;
    const PairingState s = m_flow->state();
    return s == PairingState::Starting || s == PairingState::WaitingForApproval || s == PairingState::Storing;
}

void PairingController::load()
{
    m_store->load([this](Result<std::optional<SecureBytes>, CredentialError> r) {
        if (!r) {
            Q_EMIT storeFailed(
                tr("Cannot read this computer's credentials from %1: %2").arg(m_store->describe(), r.error().message),
                problemName(r.error().code));
            return;
        }
        if (!r.value()) {
            Q_EMIT loaded();
            return;
        }
        auto identity = ServerIdentity::fromBlob(r.value()->view());
        if (!identity) {
            qCWarning(lcPairing) << "stored credentials unusable:" << identity.error().message;
            Q_EMIT storeFailed(tr("The credentials stored in %1 are unusable (%2); unpair and pair again")
                                   .arg(m_store->describe(), identity.error().message),
                QStringLiteral("unusable"));
            return;
        }
        m_identity = std::move(identity).value();
        qCInfo(lcPairing) << "paired as" << m_identity->serverId << "with" << m_identity->hubUrl.toString();
        Q_EMIT paired();
    });
}

Status PairingController::startPairing(
    const QUrl &hub, const QString &name, const QString &hostName, const QString &version)
{
    if (m_identity)
        return Error::invalidInput(tr("This computer is already paired; unpair it first"));
    if (pairing())
        return Error::invalidInput(tr("A pairing is already under way"));
    // Refused before anything is sent: pairing hands the hub the member key's sealed copy.
    auto checked = HubUrl::check(hub);
    if (!checked)
        return checked.error();
    m_flow = std::make_unique<PairingFlow>(m_network, checked.value());
    connect(m_flow.get(), &PairingFlow::codeReady, this, &PairingController::pairingChanged);
    connect(m_flow.get(), &PairingFlow::approved, this, &PairingController::onApproved);
    connect(m_flow.get(), &PairingFlow::finished, this, &PairingController::onFlowFinished);
    m_flow->start(name, hostName, version);
    Q_EMIT pairingChanged();
    return {};
}

void PairingController::cancelPairing()
{
    if (m_flow)
        m_flow->cancel();
}

void PairingController::onApproved()
{
    Q_EMIT pairingChanged();
    ServerIdentity identity = m_flow->identity();
    m_store->save(identity.toBlob(), [this, identity](Result<void, CredentialError> r) mutable {
        if (!r) {
            // Without stored credentials the pairing would not survive a restart: refuse it whole.
            m_lastOutcome = tr("Paired, but the credentials could not be stored in %1: %2")
                                .arg(m_store->describe(), r.error().message);
            m_flow->stored(false, m_lastOutcome);
            Q_EMIT storeFailed(m_lastOutcome, problemName(r.error().code));
            Q_EMIT pairingChanged();
            return;
        }
        m_identity = std::move(identity);
        m_flow->stored(true);
        m_lastOutcome = tr("Paired with %1").arg(m_identity->hubUrl.toString());
        Q_EMIT pairingChanged();
        Q_EMIT paired();
    });
}

void PairingController::onFlowFinished(PairingState, const QString &reason)
{
    m_lastOutcome = reason;
    Q_EMIT pairingChanged();
}

void PairingController::forget(const QString &reason)
{
    m_identity.reset();
    m_lastOutcome = reason;
    m_store->remove([this, reason](Result<void, CredentialError> r) {
        if (!r)
            qCWarning(lcPairing) << "could not delete the stored credentials:" << r.error().message;
        Q_EMIT unpaired(reason);
    });
}

} // namespace isolation
