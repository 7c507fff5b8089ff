// SecureBytes: an owning byte buffer for keys and secrets, zeroed when it dies or is overwritten.
#pragma once

#include <QByteArray>
#include <QByteArrayView>

#include <memory>

namespace isolation {

// Unlike QByteArray it is never implicitly shared and never reallocates behind our back, so the
// only copies of a secret are the ones the code makes on purpose; every buffer it drops is cleansed
// with OPENSSL_cleanse first. Copies are deep; a moved-from SecureBytes is empty.
class SecureBytes
{
public:
    SecureBytes();
    explicit SecureBytes(qsizetype size); // zero-filled
    explicit SecureBytes(QByteArrayView bytes);
    SecureBytes(const SecureBytes &other);
    SecureBytes(SecureBytes &&other) noexcept;
    SecureBytes &operator=(const SecureBytes &other);
    SecureBytes &operator=(SecureBytes &&other) noexcept;
    ~SecureBytes();

    char *data() { return m_data.get(); }
    const char *constData() const { return m_data.get(); }
    qsizetype size() const { return m_size; }
    bool isEmpty() const { return m_size == 0; }
    QByteArrayView view() const { return QByteArrayView(m_data.get(), m_size); }

    // Copies the secret out into an ordinary QByteArray: the caller owns the risk of that copy.
    QByteArray toByteArray() const;

    // Zeroes and releases the buffer.
    void clear();

private:
    void reset(qsizetype size);

    std::unique_ptr<char[]> m_data;
    qsizetype m_size = 0;
};

} // namespace isolation
