#include "usednonces.h"

#include "core/base64url.h"

#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLoggingCategory>
#include <QSaveFile>

#include <algorithm>

Q_DECLARE_LOGGING_CATEGORY(lcDoorman)

namespace isolation {

namespace {

constexpr int kVersion = 1;
constexpr qsizetype kNonceBytes = 16;

// A JSON number that is a whole number of seconds (QJsonValue::toInteger() would round 1.5).
bool wholeSeconds(const QJsonValue &v, qint64 *out)
{
    if (!v.isDouble())
        return false;
    const double d = v.toDouble();
    if (d < 0 || d > 1e15 || d != double(qint64(d)))
        return false;
    *out = qint64(d);
    return true;
}

} // namespace

Status UsedNonces::keepIn(const QString &file, qint64 nowUnix)
{
    m_file = file;
    auto loaded = load(nowUnix);
    if (loaded)
        return loaded;
    // Lost: whatever was used before now may come again. Refuse every token that could have been.
    m_refuseIssuedBefore = std::max(m_refuseIssuedBefore, nowUnix + ViewToken::AllowedSkewSeconds);
    QString message = loaded.error().message;
    const QString aside = m_file + QStringLiteral(".corrupt"); // for a person to look at; one is enough
    QFile::remove(aside);
    if (QFile::rename(m_file, aside))
        message += QStringLiteral("; moved to %1").arg(aside);
    else
        message += QStringLiteral("; it could not be moved to %1").arg(aside);
    if (auto saved = save(); !saved)
        message += QStringLiteral("; ") + saved.error().message;
    return Error::failed(message
        + QStringLiteral("; view links issued before %1 (Unix time) are refused until they expire")
              .arg(m_refuseIssuedBefore));
}

Status UsedNonces::load(qint64 nowUnix)
{
    QFile f(m_file);
    if (!f.exists())
        return {};
    if (!f.open(QIODevice::ReadOnly))
        return Error::failed(QStringLiteral("cannot read the used view-token nonces %1: %2").arg(m_file, f.errorString()));
    if (f.size() > MaxFileBytes)
        return Error::failed(QStringLiteral("the used view-token nonces %1 are larger than %2 bytes")
                                 .arg(m_file)
                                 .arg(MaxFileBytes));
    const QByteArray bytes = f.readAll();
    QJsonParseError error;
    const QJsonDocument doc = QJsonDocument::fromJson(bytes, &error);
    auto corrupt = [this](const QString &why) {
        return Error::failed(QStringLiteral("the used view-token nonces %1 are unreadable: %2").arg(m_file, why));
    };
    if (error.error != QJsonParseError::NoError)
        return corrupt(QStringLiteral("%1 at byte %2").arg(error.errorString()).arg(error.offset));
    const QJsonObject root = doc.object();
    if (!doc.isObject() || root.value(QStringLiteral("version")) != QJsonValue(kVersion))
        return corrupt(QStringLiteral("not a version %1 object").arg(kVersion));
    qint64 refuse = 0;
    const QJsonValue refuseValue = root.value(QStringLiteral("refuseIssuedBefore"));
    if (!refuseValue.isUndefined() && !wholeSeconds(refuseValue, &refuse))
        return corrupt(QStringLiteral("refuseIssuedBefore is not a time"));
    if (!root.value(QStringLiteral("nonces")).isObject())
        return corrupt(QStringLiteral("no nonces object"));
    QHash<QByteArray, qint64> nonces;
    const QJsonObject entries = root.value(QStringLiteral("nonces")).toObject();
    for (auto it = entries.begin(); it != entries.end(); ++it) {
        auto nonce = QByteArray::fromBase64Encoding(it.key().toLatin1(), kBase64Url | QByteArray::AbortOnBase64DecodingErrors);
        qint64 expiresAt = 0;
        if (!nonce || nonce.decoded.size() != kNonceBytes || nonce.decoded.toBase64(kBase64Url) != it.key().toLatin1())
            return corrupt(QStringLiteral("a nonce is not %1 bytes of base64url").arg(kNonceBytes));
        if (!wholeSeconds(it.value(), &expiresAt))
            return corrupt(QStringLiteral("an expiry is not a time"));
        nonces.insert(nonce.decoded, expiresAt);
    }
    m_nonces.insert(nonces);
    m_refuseIssuedBefore = std::max(m_refuseIssuedBefore, refuse);
    purge(nowUnix); // what expired while the engine was away leaves the file too
    qCInfo(lcDoorman) << "view tokens:" << m_nonces.size() << "used nonces remembered from" << m_file;
    return {};
}

UsedNonces::Use UsedNonces::use(const ViewClaims &claims, qint64 nowUnix)
{
    purge(nowUnix);
    if (m_nonces.contains(claims.nonce))
        return Use::Replayed;
    if (claims.issuedAt < m_refuseIssuedBefore) {
        qCWarning(lcDoorman) << "view token refused: issued before the record of used tokens was lost";
        return Use::BeforeLoss;
    }
    m_nonces.insert(claims.nonce, claims.expiresAt);
    if (auto saved = save(); !saved) {
        // Accepting it now would let it be used again after a restart. It stays recorded in memory.
        qCWarning(lcDoorman).noquote() << "view token refused:" << saved.error().message;
        return Use::Unrecorded;
    }
    return Use::Fresh;
}

void UsedNonces::purge(qint64 nowUnix)
{
    bool changed = false;
    for (auto it = m_nonces.begin(); it != m_nonces.end();) {
        if (nowUnix >= it.value()) {
            it = m_nonces.erase(it);
            changed = true;
        } else {
            ++it;
        }
    }
    // A token issued before the loss expires at most MaxLifetimeSeconds later.
    if (m_refuseIssuedBefore != 0 && nowUnix >= m_refuseIssuedBefore + ViewToken::MaxLifetimeSeconds) {
        m_refuseIssuedBefore = 0;
        changed = true;
    }
    if (changed) {
        if (auto saved = save(); !saved)
            qCWarning(lcDoorman).noquote() << saved.error().message;
    }
}

Status UsedNonces::save() const
{
    if (m_file.isEmpty())
        return {};
    QJsonObject nonces;
    for (auto it = m_nonces.begin(); it != m_nonces.end(); ++it)
        nonces.insert(QString::fromLatin1(it.key().toBase64(kBase64Url)), it.value());
    QJsonObject root {{QStringLiteral("version"), kVersion}, {QStringLiteral("nonces"), nonces}};
    if (m_refuseIssuedBefore != 0)
        root.insert(QStringLiteral("refuseIssuedBefore"), m_refuseIssuedBefore);
    QSaveFile file(m_file);
    if (!file.open(QIODevice::WriteOnly))
        return Error::failed(QStringLiteral("cannot write %1: %2").arg(m_file, file.errorString()));
    file.setPermissions(QFileDevice::ReadOwner | QFileDevice::WriteOwner);
    file.write(QJsonDocument(root).toJson(QJsonDocument::Compact));
    if (!file.commit())
        return Error::failed(QStringLiteral("cannot write %1: %2").arg(m_file, file.errorString()));
    return {};
}

} // namespace isolation
