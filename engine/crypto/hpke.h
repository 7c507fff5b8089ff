// HPKE (RFC 9180) base mode: KEM DHKEM(X25519, HKDF-SHA256) (0x0020), KDF HKDF-SHA256 (0x0001),
// AEAD AES-128-GCM (0x0001), AES-256-GCM (0x0002) or ChaCha20Poly1305 (0x0003). Built from
// x25519.h, hkdf.h and aeadcipher.h, since OpenSSL 3.0 has no HPKE API.
#pragma once

#include "aead.h"
#include "aeadcipher.h"
#include "cryptoerror.h"
#include "securebytes.h"
#include "x25519.h"

#include <QByteArray>
#include <QByteArrayView>

#include <optional>

namespace isolation {

constexpr qsizetype kHpkeEncSize = 32; // Nenc of DHKEM(X25519)

// The secrets of RFC 9180's KeySchedule (section 5.1).
struct HpkeKeySchedule
{
    SecureBytes key; // Nk bytes
    SecureBytes baseNonce; // Nn = 12 bytes
    SecureBytes exporterSecret; // Nh = 32 bytes
};

// An encryption context (section 5.2): a key, a base nonce and a sequence number, for one direction.
// The nonce of message i is base_nonce XOR i; seal and open count messages on their own, so the two
// ends must seal and open the same messages in the same order. Move-only: a copy would reuse nonces.
// A default-constructed (or moved-from) context refuses everything with InvalidInput.
class HpkeContext
{
public:
    HpkeContext();
    static CryptoResult<HpkeContext> create(AeadAlgorithm algorithm, HpkeKeySchedule schedule);

    HpkeContext(HpkeContext &&other) noexcept;
    HpkeContext &operator=(HpkeContext &&other) noexcept; // leaves other empty

    // Ciphertext || tag of the next message.
    CryptoResult<QByteArray> seal(QByteArrayView aad, QByteArrayView plaintext);
    // The plaintext of the next message; VerificationFailed (and the count does not move) on a bad tag.
    CryptoResult<QByteArray> open(QByteArrayView aad, QByteArrayView ciphertext);
    // Export(exporter_context, L) of section 5.3; the same on both ends. L at most 8160 bytes,
    // exporterContext at most 1002 bytes (OpenSSL 3.0's HKDF info limit).
    CryptoResult<SecureBytes> exportSecret(QByteArrayView exporterContext, qsizetype length) const;

    // How many messages this context has sealed or opened.
    quint64 sequenceNumber() const { return m_sequence; }

private:
    CryptoResult<void> nonce(char *out) const;

    std::optional<AeadCipher> m_cipher;
    SecureBytes m_baseNonce;
    SecureBytes m_exporterSecret;
    quint64 m_sequence = 0;
};

struct HpkeSender
{
    QByteArray enc; // the encapsulated key to send along: 32 bytes
    HpkeContext context;
};

// SetupBaseS(pkR, info). ikmE is for tests only: with it the ephemeral key is DeriveKeyPair(ikmE)
// instead of fresh randomness. InvalidInput for a recipient key that is not 32 bytes or of low order.
CryptoResult<HpkeSender> hpkeSetupBaseSender(
    AeadAlgorithm algorithm, QByteArrayView recipientPublic, QByteArrayView info, QByteArrayView ikmE = {});

// SetupBaseR(enc, skR, info).
CryptoResult<HpkeContext> hpkeSetupBaseRecipient(
    AeadAlgorithm algorithm, QByteArrayView enc, QByteArrayView recipientPrivate, QByteArrayView info);

// Single-shot: enc || ciphertext, for one message to one recipient. The default AEAD is AES-256-GCM.
CryptoResult<QByteArray> hpkeSeal(QByteArrayView recipientPublic, QByteArrayView info, QByteArrayView aad,
    QByteArrayView plaintext, AeadAlgorithm algorithm = AeadAlgorithm::Aes256Gcm);
// Opens what hpkeSeal made. VerificationFailed for anything tampered, truncated or sealed to another key.
CryptoResult<SecureBytes> hpkeOpen(QByteArrayView recipientPrivate, QByteArrayView info, QByteArrayView aad,
    QByteArrayView sealed, AeadAlgorithm algorithm = AeadAlgorithm::Aes256Gcm);

// The steps of RFC 9180, exposed so the test vectors of Appendix A can check each one.
// DeriveKeyPair(ikm) for DHKEM(X25519): InvalidInput when ikm is shorter than 32 bytes.
CryptoResult<X25519KeyPair> hpkeDeriveKeyPair(QByteArrayView ikm);
struct HpkeEncapsulation
{
    QByteArray enc;
    SecureBytes sharedSecret;
};
// Encap(pkR), with DeriveKeyPair(ikmE) as the ephemeral key when ikmE is given.
CryptoResult<HpkeEncapsulation> hpkeEncap(QByteArrayView recipientPublic, QByteArrayView ikmE = {});
// Decap(enc, skR).
CryptoResult<SecureBytes> hpkeDecap(QByteArrayView enc, QByteArrayView recipientPrivate);
// KeySchedule(mode_base, shared_secret, info, "", "").
CryptoResult<HpkeKeySchedule> hpkeKeyScheduleBase(
    AeadAlgorithm algorithm, QByteArrayView sharedSecret, QByteArrayView info);

} // namespace isolation
