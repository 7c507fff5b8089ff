// A real Ed25519 key for the tunnel tests (OpenSSL EVP), standing in for the crypto module
// until it lands: signs the tunnel handshake, and verifies signatures for the test hub.
#pragma once

#include <QByteArray>

#include <memory>

struct evp_pkey_st;

namespace isolation::test {

class TestKey
{
public:
    TestKey();
    TestKey(const TestKey &) = delete;
    TestKey &operator=(const TestKey &) = delete;

    QByteArray sign(const QByteArray &message) const;
    QByteArray publicKey() const { return m_public; }
    static bool verify(const QByteArray &publicKey, const QByteArray &message, const QByteArray &signature);

private:
    std::unique_ptr<evp_pkey_st, void (*)(evp_pkey_st *)> m_key;
    QByteArray m_public;
};

} // namespace isolation::test
