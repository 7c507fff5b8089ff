#include "objectcipher.h"

#include "hkdf.h"
#include "opensslptr.h"

#include <QBuffer>

#include <openssl/crypto.h>

namespace isolation {

SecureBytes workspaceKey(QByteArrayView memberKey, const QString &workspaceId)
{
    // info = label || 0x00 || SHA-256(UTF-8 workspace id): the label keeps this key apart from any other use
    // of the member key, and the digest keeps info within OpenSSL 3.0's limit for ids of any length.
    const QByteArray id = workspaceId.toUtf8();
    QByteArray info("isolation workspace key v1");
    info.append('\0');
    const qsizetype labelSize = info.size();
    info.resize(labelSize + 32);
    size_t digestSize = 0;
    if (EVP_Q_digest(nullptr, "SHA256", nullptr, id.constData(), size_t(id.size()),
            openssl::bytes(info.data() + labelSize), &digestSize)
            != 1
        || digestSize != 32)
        qFatal("%s", qPrintable(CryptoError::fromOpenSsl("EVP_Q_digest(SHA256)").message));
    CryptoResult<SecureBytes> key = hkdfSha256(memberKey, {}, info, objectformat::kKeySize);
    if (!key) // info and length are fixed and valid: only OpenSSL itself failing gets here
        qFatal("%s", qPrintable(key.error().message));
    return std::move(key).value();
}

CryptoResult<QByteArray> encryptObject(
    QByteArrayView workspaceKey, const ObjectBinding &binding, QByteArrayView plaintext)
{
    QByteArray out;
    const qsizetype chunkSize = qsizetype(256) * 1024;
    out.reserve(
        objectformat::kHeaderSize + plaintext.size() + (plaintext.size() / chunkSize + 1) * objectformat::kTagSize);
    QBuffer device(&out);
    device.open(QIODevice::WriteOnly);
    ObjectEncryptor encryptor(workspaceKey, binding, &device, chunkSize);
    if (CryptoResult<void> ok = encryptor.write(plaintext); !ok)
        return ok.error();
    if (CryptoResult<void> ok = encryptor.finish(); !ok)
        return ok.error();
    device.close();
    return out;
}

CryptoResult<QByteArray> decryptObject(
    QByteArrayView workspaceKey, const ObjectBinding &binding, QByteArrayView ciphertext)
{
    QByteArray out;
    out.reserve(ciphertext.size());
    QBuffer device(&out);
    device.open(QIODevice::WriteOnly);
    ObjectDecryptor decryptor(workspaceKey, binding, &device);
    CryptoResult<void> ok = decryptor.write(ciphertext);
    if (ok)
        ok = decryptor.finish();
    device.close();
    if (!ok) {
        // Chunks that verified before the failure were written; do not leave them in freed memory.
        if (!out.isEmpty())
            OPENSSL_cleanse(out.data(), size_t(out.size()));
        return ok.error();
    }
    return out;
}

} // namespace isolation
