#include "pairingflow.h"

#include "core/base64url.h"
#include "core/huburl.h"
#include "crypto/ed25519.h"
#include "crypto/hpke.h"
#include "crypto/x25519.h"

#include <QJsonObject>
#include <QLoggingCategory>

Q_LOGGING_CATEGORY(lcPairing, "isolation.pairing")

namespace isolation {

namespace {

QByteArray decode(const QJsonObject &o, const char *key)
{
    const auto r = QByteArray::fromBase64Encoding(
        o.value(QLatin1String(key)).toString().toLatin1(), kBase64Url | QByteArray::AbortOnBase64DecodingErrors);
    return r ? *r : QByteArray();
}

} // namespace

// The HPKE `info` for the member key sealed at approval (docs/protocol.md).
const QByteArray kMemberKeyInfo = QByteArrayLiteral("isolation/member-key/v1");

QString pairingStateName(PairingState state)
{
    switch (state) {
    case PairingState::Idle:
        return QStringLiteral("idle");
    case PairingState::Starting:
        return QStringLiteral("starting");
    case PairingState::WaitingForApproval:
        return QStringLiteral("waiting_for_approval");
    case PairingState::Storing:
        return QStringLiteral("storing");
    case PairingState::Approved:
        return QStringLiteral("approved");
    case PairingState::Denied:
        return QStringLiteral("denied");
    case PairingState::Expired:
        return QStringLiteral("expired");
    case PairingState::Failed:
        return QStringLiteral("failed");
    }
    return QStringLiteral("failed");
}

PairingFlow::PairingFlow(QNetworkAccessManager *network, QUrl hubUrl, QObject *parent)
    : QObject(parent)
    , m_hub(network)
{
    m_hub.setBaseUrl(hubUrl);
    m_hub.setTimeout(20000);
    m_timer.setSingleShot(true);
    connect(&m_timer, &QTimer::timeout, this, &PairingFlow::poll);
}

void PairingFlow::start(const QString &name, const QString &hostName, const QString &version)
{
    m_state = PairingState::Starting;
    X25519KeyPair box = x25519Generate();
    Ed25519KeyPair sign = ed25519Generate();
    m_identity = {};
    m_identity.hubUrl = m_hub.baseUrl();
    m_identity.name = name;
    m_identity.x25519Private = box.privateKey;
    m_identity.x25519Public = box.publicKey;
    m_identity.ed25519Private = sign.privateKey;
    m_identity.ed25519Public = sign.publicKey;

    const QJsonObject body {
        {QStringLiteral("name"), name},
        {QStringLiteral("hostName"), hostName},
        {QStringLiteral("version"), version},
        {QStringLiteral("x25519Public"), QString::fromLatin1(box.publicKey.toBase64(kBase64Url))},
        {QStringLiteral("ed25519Public"), QString::fromLatin1(sign.publicKey.toBase64(kBase64Url))},
    };
    qCInfo(lcPairing) << "asking" << m_hub.baseUrl().toString() << "for a pairing code";
    m_hub.call("POST", QStringLiteral("/v1/pair/start"), body, [this](Result<QJsonObject, HubError> r) {
        if (m_state != PairingState::Starting)
            return;
        if (!r) {
            fail(PairingState::Failed, QStringLiteral("cannot start pairing: %1").arg(r.error().message));
            return;
        }
        const QJsonObject o = r.value();
        m_deviceCode = o.value(QStringLiteral("device_code")).toString().toLatin1();
        m_code.userCode = o.value(QStringLiteral("user_code")).toString();
        m_code.verificationUri = QUrl(o.value(QStringLiteral("verification_uri")).toString());
        m_code.verificationUriComplete = QUrl(o.value(QStringLiteral("verification_uri_complete")).toString());
        const int expiresIn = o.value(QStringLiteral("expires_in")).toInt();
        m_interval = std::max(1, o.value(QStringLiteral("interval")).toInt(5));
        if (m_deviceCode.isEmpty() || m_code.userCode.isEmpty() || !m_code.verificationUri.isValid()
            || expiresIn <= 0) {
            fail(PairingState::Failed, QStringLiteral("the hub's pairing answer is incomplete"));
            return;
        }
        // The member opens these to approve: the same rule as the hub's own URL (core/huburl.h).
        for (const QUrl &page : {m_code.verificationUri, m_code.verificationUriComplete}) {
            if (auto checked = HubUrl::check(page); !checked && !page.isEmpty()) {
                fail(PairingState::Failed,
                    QStringLiteral("the hub's approval page is not safe to open: %1").arg(checked.error().message));
                return;
            }
        }
        m_code.expiresAt = QDateTime::currentDateTimeUtc().addSecs(expiresIn);
        m_state = PairingState::WaitingForApproval;
        qCInfo(lcPairing) << "pairing code issued; expires in" << expiresIn << "s, polling every" << m_interval << "s";
        Q_EMIT codeReady(m_code);
        schedulePoll();
    });
}

void PairingFlow::cancel()
{
    if (m_state == PairingState::Starting || m_state == PairingState::WaitingForApproval)
        fail(PairingState::Failed, tr("Pairing was cancelled"));
}

void PairingFlow::stored(bool ok, const QString &reason)
{
    if (m_state != PairingState::Storing)
        return;
    if (!ok) {
        fail(PairingState::Failed, reason);
        return;
    }
    m_state = PairingState::Approved;
    m_identity = {}; // the owner keeps its copy; the flow holds no secrets once done
}

void PairingFlow::schedulePoll()
{
    m_timer.start(m_interval * 1000);
}

void PairingFlow::poll()
{
    if (m_state != PairingState::WaitingForApproval)
        return;
    if (QDateTime::currentDateTimeUtc() > m_code.expiresAt.addSecs(5)) {
        fail(PairingState::Expired, tr("The pairing code expired before it was approved"));
        return;
    }
    m_hub.call("POST", QStringLiteral("/v1/pair/token"),
        QJsonObject {{QStringLiteral("device_code"), QString::fromLatin1(m_deviceCode)}},
        [this](Result<QJsonObject, HubError> r) { onToken(std::move(r)); });
}

void PairingFlow::onToken(Result<QJsonObject, HubError> r)
{
    if (m_state != PairingState::WaitingForApproval)
        return;
    if (!r) {
        const HubError &e = r.error();
        if (e.errorCode == QLatin1String("authorization_pending")) {
            schedulePoll();
        } else if (e.errorCode == QLatin1String("slow_down")) {
            m_interval += 5; // RFC 8628 §3.5: for this and every later request
            qCInfo(lcPairing) << "hub asked to slow down; polling every" << m_interval << "s";
            schedulePoll();
        } else if (e.errorCode == QLatin1String("expired_token")) {
            fail(PairingState::Expired, tr("The pairing code expired before it was approved"));
        } else if (e.errorCode == QLatin1String("access_denied")) {
            fail(PairingState::Denied,
                e.message.isEmpty() ? tr("Pairing was denied") : tr("Pairing was denied: %1").arg(e.message));
        } else if (e.retryable()) {
            qCInfo(lcPairing) << "hub unreachable while polling; will retry:" << e.message;
            schedulePoll();
        } else {
            fail(PairingState::Failed, tr("Pairing failed: %1").arg(e.message));
        }
        return;
    }
    const QJsonObject o = r.value();
    m_identity.serverId = o.value(QStringLiteral("server_id")).toString();
    m_identity.memberId = o.value(QStringLiteral("member_id")).toString();
    m_identity.credential = SecureBytes(o.value(QStringLiteral("credential")).toString().toLatin1());
    m_identity.hubPublicKey = decode(o, "hub_public_key");
    const QByteArray sealed = decode(o, "sealed_member_key");
    auto memberKey = hpkeOpen(m_identity.x25519Private.view(), kMemberKeyInfo, m_identity.serverId.toUtf8(), sealed);
    if (!memberKey) {
        fail(PairingState::Failed,
            tr("The member key from the hub could not be opened: %1").arg(memberKey.error().message));
        return;
    }
    m_identity.memberKey = std::move(memberKey).value();
    if (!m_identity.isComplete()) {
        fail(PairingState::Failed, tr("The hub's approval is incomplete"));
        return;
    }
    m_state = PairingState::Storing;
    qCInfo(lcPairing) << "pairing approved; server id" << m_identity.serverId;
    Q_EMIT approved();
}

void PairingFlow::fail(PairingState state, const QString &reason)
{
    m_timer.stop();
    m_state = state;
    m_reason = reason;
    m_identity = {};
    qCInfo(lcPairing) << "pairing ended:" << pairingStateName(state) << reason;
    Q_EMIT finished(state, reason);
}

} // namespace isolation
