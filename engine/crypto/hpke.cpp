#include "hpke.h"

#include "hkdf.h"

#include <openssl/crypto.h>

#include <limits>

namespace isolation {

namespace {

constexpr quint16 kKemX25519 = 0x0020;
constexpr quint16 kKdfHkdfSha256 = 0x0001;
constexpr qsizetype kNsecret = 32; // Nsecret of DHKEM(X25519, HKDF-SHA256)
constexpr qsizetype kNh = kHkdfHashSize;
constexpr char kModeBase = 0x00;

quint16 aeadId(AeadAlgorithm algorithm)
{
    switch (algorithm) {
    case AeadAlgorithm::Aes128Gcm:
        return 0x0001;
    case AeadAlgorithm::Aes256Gcm:
        return 0x0002;
    case AeadAlgorithm::ChaCha20Poly1305:
        return 0x0003;
    }
    return 0;
}

void appendU16(QByteArray &out, quint16 value)
{
    out.append(char(value >> 8));
    out.append(char(value & 0xff));
}

QByteArray kemSuiteId()
{
    QByteArray id("KEM");
    appendU16(id, kKemX25519);
    return id;
}

QByteArray hpkeSuiteId(AeadAlgorithm algorithm)
{
    QByteArray id("HPKE");
    appendU16(id, kKemX25519);
    appendU16(id, kKdfHkdfSha256);
    appendU16(id, aeadId(algorithm));
    return id;
}

// Concatenates parts into a buffer that is cleansed when it dies (the parts may be secret).
SecureBytes concat(std::initializer_list<QByteArrayView> parts)
{
    qsizetype size = 0;
    for (QByteArrayView part : parts)
        size += part.size();
    SecureBytes out(size);
    char *at = out.data();
    for (QByteArrayView part : parts) {
        if (!part.isEmpty())
            memcpy(at, part.data(), size_t(part.size()));
        at += part.size();
    }
    return out;
}

// LabeledExtract(salt, label, ikm) = Extract(salt, "HPKE-v1" || suite_id || label || ikm)
SecureBytes labeledExtract(QByteArrayView suiteId, QByteArrayView salt, QByteArrayView label, QByteArrayView ikm)
{
    return hkdfExtract(salt, concat({"HPKE-v1", suiteId, label, ikm}).view());
}

// LabeledExpand(prk, label, info, L) = Expand(prk, I2OSP(L, 2) || "HPKE-v1" || suite_id || label || info, L)
CryptoResult<SecureBytes> labeledExpand(
    QByteArrayView suiteId, QByteArrayView prk, QByteArrayView label, QByteArrayView info, qsizetype length)
{
    if (length < 0 || length > std::numeric_limits<quint16>::max())
        return CryptoError::invalidInput(QStringLiteral("HPKE output length %1 out of range").arg(length));
    QByteArray labeledInfo;
    appendU16(labeledInfo, quint16(length));
    labeledInfo += "HPKE-v1";
    labeledInfo += suiteId;
    labeledInfo += label;
    labeledInfo += info;
    return hkdfExpand(prk, labeledInfo, length);
}

// ExtractAndExpand(dh, kem_context) of DHKEM (section 4.1).
CryptoResult<SecureBytes> extractAndExpand(QByteArrayView dh, QByteArrayView kemContext)
{
    const QByteArray suite = kemSuiteId();
    const SecureBytes eaePrk = labeledExtract(suite, {}, "eae_prk", dh);
    return labeledExpand(suite, eaePrk.view(), "shared_secret", kemContext, kNsecret);
}

} // namespace

// ---- KEM ----

CryptoResult<X25519KeyPair> hpkeDeriveKeyPair(QByteArrayView ikm)
{
    if (ikm.size() < kX25519KeySize)
        return CryptoError::invalidInput(QStringLiteral("HPKE DeriveKeyPair needs at least 32 bytes of ikm"));
    const QByteArray suite = kemSuiteId();
    const SecureBytes dkpPrk = labeledExtract(suite, {}, "dkp_prk", ikm);
    CryptoResult<SecureBytes> sk = labeledExpand(suite, dkpPrk.view(), "sk", {}, kX25519KeySize);
    if (!sk)
        return sk.error();
    CryptoResult<QByteArray> pk = x25519PublicFromPrivate(sk.value().view());
    if (!pk)
        return pk.error();
    return X25519KeyPair {std::move(sk).value(), std::move(pk).value()};
}

CryptoResult<HpkeEncapsulation> hpkeEncap(QByteArrayView recipientPublic, QByteArrayView ikmE)
{
    X25519KeyPair ephemeral;
    if (ikmE.isEmpty()) {
        ephemeral = x25519Generate();
    } else {
        CryptoResult<X25519KeyPair> derived = hpkeDeriveKeyPair(ikmE);
        if (!derived)
            return derived.error();
        ephemeral = std::move(derived).value();
    }
    CryptoResult<SecureBytes> dh = x25519SharedSecret(ephemeral.privateKey.view(), recipientPublic);
    if (!dh)
        return dh.error();
    const QByteArray kemContext = ephemeral.publicKey + recipientPublic.toByteArray();
    CryptoResult<SecureBytes> shared = extractAndExpand(dh.value().view(), kemContext);
    if (!shared)
        return shared.error();
    return HpkeEncapsulation {ephemeral.publicKey, std::move(shared).value()};
}

CryptoResult<SecureBytes> hpkeDecap(QByteArrayView enc, QByteArrayView recipientPrivate)
{
    if (enc.size() != kHpkeEncSize)
        return CryptoError::invalidInput(
            QStringLiteral("HPKE enc must be %1 bytes, not %2").arg(kHpkeEncSize).arg(enc.size()));
    CryptoResult<SecureBytes> dh = x25519SharedSecret(recipientPrivate, enc);
    if (!dh)
        return dh.error();
    CryptoResult<QByteArray> recipientPublic = x25519PublicFromPrivate(recipientPrivate);
    if (!recipientPublic)
        return recipientPublic.error();
    const QByteArray kemContext = enc.toByteArray() + recipientPublic.value();
    return extractAndExpand(dh.value().view(), kemContext);
}

// ---- key schedule ----

CryptoResult<HpkeKeySchedule> hpkeKeyScheduleBase(
    AeadAlgorithm algorithm, QByteArrayView sharedSecret, QByteArrayView info)
{
    const QByteArray suite = hpkeSuiteId(algorithm);
    // Base mode: psk and psk_id are empty.
    const SecureBytes pskIdHash = labeledExtract(suite, {}, "psk_id_hash", {});
    const SecureBytes infoHash = labeledExtract(suite, {}, "info_hash", info);
    QByteArray context(1, kModeBase);
    context += pskIdHash.view();
    context += infoHash.view();
    const SecureBytes secret = labeledExtract(suite, sharedSecret, "secret", {});

    HpkeKeySchedule schedule;
    CryptoResult<SecureBytes> key = labeledExpand(suite, secret.view(), "key", context, aeadKeySize(algorithm));
    CryptoResult<SecureBytes> baseNonce
        = labeledExpand(suite, secret.view(), "base_nonce", context, aeadNonceSize(algorithm));
    CryptoResult<SecureBytes> exporter = labeledExpand(suite, secret.view(), "exp", context, kNh);
    for (const auto *step : {&key, &baseNonce, &exporter}) {
        if (!*step)
            return step->error();
    }
    schedule.key = std::move(key).value();
    schedule.baseNonce = std::move(baseNonce).value();
    schedule.exporterSecret = std::move(exporter).value();
    return schedule;
}

// ---- context ----

HpkeContext::HpkeContext() = default;

HpkeContext::HpkeContext(HpkeContext &&other) noexcept
{
    *this = std::move(other);
}

HpkeContext &HpkeContext::operator=(HpkeContext &&other) noexcept
{
    if (this != &other) {
        m_cipher = std::move(other.m_cipher);
        other.m_cipher.reset(); // a moved-from optional still holds a (moved-from) value
        m_baseNonce = std::move(other.m_baseNonce);
        m_exporterSecret = std::move(other.m_exporterSecret);
        m_sequence = std::exchange(other.m_sequence, 0);
    }
    return *this;
}

CryptoResult<HpkeContext> HpkeContext::create(AeadAlgorithm algorithm, HpkeKeySchedule schedule)
{
    if (schedule.baseNonce.size() != aeadNonceSize(algorithm) || schedule.exporterSecret.size() != kNh)
        return CryptoError::invalidInput(QStringLiteral("HPKE key schedule has the wrong sizes"));
    CryptoResult<AeadCipher> cipher = AeadCipher::create(algorithm, schedule.key.view());
    if (!cipher)
        return cipher.error();
    HpkeContext context;
    context.m_cipher.emplace(std::move(cipher).value());
    context.m_baseNonce = std::move(schedule.baseNonce);
    context.m_exporterSecret = std::move(schedule.exporterSecret);
    return context;
}

CryptoResult<void> HpkeContext::nonce(char *out) const
{
    if (!m_cipher)
        return CryptoError::invalidInput(QStringLiteral("HPKE context is not set up"));
    // RFC 9180 allows 2^96 - 1 messages; our 64-bit counter stops one short of 2^64.
    if (m_sequence == std::numeric_limits<quint64>::max())
        return CryptoError::invalidInput(QStringLiteral("HPKE context reached its message limit"));
    const qsizetype n = m_baseNonce.size();
    memcpy(out, m_baseNonce.constData(), size_t(n));
    for (int i = 0; i < 8; ++i)
        out[n - 1 - i] = char(out[n - 1 - i] ^ char((m_sequence >> (8 * i)) & 0xff));
    return {};
}

CryptoResult<QByteArray> HpkeContext::seal(QByteArrayView aad, QByteArrayView plaintext)
{
    char nonceBytes[12];
    if (CryptoResult<void> ok = nonce(nonceBytes); !ok)
        return ok.error();
    QByteArray out;
    if (CryptoResult<void> sealed = m_cipher->seal(QByteArrayView(nonceBytes, 12), aad, plaintext, out); !sealed)
        return sealed.error();
    ++m_sequence;
    return out;
}

CryptoResult<QByteArray> HpkeContext::open(QByteArrayView aad, QByteArrayView ciphertext)
{
    char nonceBytes[12];
    if (CryptoResult<void> ok = nonce(nonceBytes); !ok)
        return ok.error();
    QByteArray out;
    if (CryptoResult<void> opened = m_cipher->open(QByteArrayView(nonceBytes, 12), aad, ciphertext, out); !opened)
        return opened.error();
    ++m_sequence;
    return out;
}

CryptoResult<SecureBytes> HpkeContext::exportSecret(QByteArrayView exporterContext, qsizetype length) const
{
    if (!m_cipher)
        return CryptoError::invalidInput(QStringLiteral("HPKE context is not set up"));
    return labeledExpand(hpkeSuiteId(m_cipher->algorithm()), m_exporterSecret.view(), "sec", exporterContext, length);
}

// ---- setup and single shot ----

CryptoResult<HpkeSender> hpkeSetupBaseSender(
    AeadAlgorithm algorithm, QByteArrayView recipientPublic, QByteArrayView info, QByteArrayView ikmE)
{
    CryptoResult<HpkeEncapsulation> encap = hpkeEncap(recipientPublic, ikmE);
    if (!encap)
        return encap.error();
    CryptoResult<HpkeKeySchedule> schedule = hpkeKeyScheduleBase(algorithm, encap.value().sharedSecret.view(), info);
    if (!schedule)
        return schedule.error();
    CryptoResult<HpkeContext> context = HpkeContext::create(algorithm, std::move(schedule).value());
    if (!context)
        return context.error();
    return HpkeSender {encap.value().enc, std::move(context).value()};
}

CryptoResult<HpkeContext> hpkeSetupBaseRecipient(
    AeadAlgorithm algorithm, QByteArrayView enc, QByteArrayView recipientPrivate, QByteArrayView info)
{
    CryptoResult<SecureBytes> shared = hpkeDecap(enc, recipientPrivate);
    if (!shared)
        return shared.error();
    CryptoResult<HpkeKeySchedule> schedule = hpkeKeyScheduleBase(algorithm, shared.value().view(), info);
    if (!schedule)
        return schedule.error();
    return HpkeContext::create(algorithm, std::move(schedule).value());
}

CryptoResult<QByteArray> hpkeSeal(QByteArrayView recipientPublic, QByteArrayView info, QByteArrayView aad,
    QByteArrayView plaintext, AeadAlgorithm algorithm)
{
    CryptoResult<HpkeSender> sender = hpkeSetupBaseSender(algorithm, recipientPublic, info);
    if (!sender)
        return sender.error();
    CryptoResult<QByteArray> ciphertext = sender.value().context.seal(aad, plaintext);
    if (!ciphertext)
        return ciphertext.error();
    return sender.value().enc + ciphertext.value();
}

CryptoResult<SecureBytes> hpkeOpen(QByteArrayView recipientPrivate, QByteArrayView info, QByteArrayView aad,
    QByteArrayView sealed, AeadAlgorithm algorithm)
{
    if (sealed.size() < kHpkeEncSize + aeadTagSize(algorithm))
        return CryptoError::verificationFailed(QStringLiteral("HPKE message is shorter than enc and a tag"));
    CryptoResult<HpkeContext> context
        = hpkeSetupBaseRecipient(algorithm, sealed.first(kHpkeEncSize), recipientPrivate, info);
    if (!context)
        return context.error();
    CryptoResult<QByteArray> plaintext = context.value().open(aad, sealed.sliced(kHpkeEncSize));
    if (!plaintext)
        return plaintext.error();
    SecureBytes out(plaintext.value());
    if (!plaintext.value().isEmpty())
        OPENSSL_cleanse(plaintext.value().data(), size_t(plaintext.value().size()));
    return out;
}

} // namespace isolation
