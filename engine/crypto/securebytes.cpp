#include "securebytes.h"

#include <openssl/crypto.h>

#include <cstring>
#include <utility>

namespace isolation {

SecureBytes::SecureBytes() = default;

SecureBytes::SecureBytes(qsizetype size)
{
    reset(size);
}

SecureBytes::SecureBytes(QByteArrayView bytes)
{
    reset(bytes.size());
    if (m_size > 0)
        std::memcpy(m_data.get(), bytes.data(), size_t(m_size));
}

SecureBytes::SecureBytes(const SecureBytes &other)
    : SecureBytes(other.view())
{ }

SecureBytes::SecureBytes(SecureBytes &&other) noexcept
    : m_data(std::move(other.m_data))
    , m_size(std::exchange(other.m_size, 0))
{ }

SecureBytes &SecureBytes::operator=(const SecureBytes &other)
{
    if (this != &other) {
        SecureBytes copy(other);
        *this = std::move(copy);
    }
    return *this;
}

SecureBytes &SecureBytes::operator=(SecureBytes &&other) noexcept
{
    if (this != &other) {
        clear();
        m_data = std::move(other.m_data);
        m_size = std::exchange(other.m_size, 0);
    }
    return *this;
}

SecureBytes::~SecureBytes()
{
    clear();
}

QByteArray SecureBytes::toByteArray() const
{
    return QByteArray(m_data.get(), m_size);
}

void SecureBytes::clear()
{
    if (m_data)
        OPENSSL_cleanse(m_data.get(), size_t(m_size));
    m_data.reset();
    m_size = 0;
}

void SecureBytes::reset(qsizetype size)
{
    clear();
    if (size <= 0)
        return;
    m_data = std::make_unique<char[]>(size_t(size)); // value-initialised: zero-filled
    m_size = size;
}

} // namespace isolation
