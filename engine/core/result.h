// Errors as values: Result<T, E> holds either a value or a module error.
// Every module keeps a small Error of its own (two to four codes) and says which are retryable.
#pragma once

#include <QString>

#include <type_traits>
#include <utility>
#include <variant>

namespace isolation {

// The error shared by modules that need nothing more specific.
struct Error
{
    enum class Code {
        InvalidInput, // the caller asked for something malformed or impossible
        NotFound, // the thing named does not exist
        Unavailable, // a peer or resource is not there now; retrying may help
        Failed, // the operation failed for a reason given in the message
        Cancelled, // stopped on the caller's request (Cancel), what it did undone
    };

    Code code = Code::Failed;
    QString message;

    bool retryable() const { return code == Code::Unavailable; }

    static Error invalidInput(QString m) { return {Code::InvalidInput, std::move(m)}; }
    static Error notFound(QString m) { return {Code::NotFound, std::move(m)}; }
    static Error unavailable(QString m) { return {Code::Unavailable, std::move(m)}; }
    static Error failed(QString m) { return {Code::Failed, std::move(m)}; }
    static Error cancelled(QString m) { return {Code::Cancelled, std::move(m)}; }
};

QString errorCodeName(Error::Code code);

template<typename T, typename E = Error>
class [[nodiscard]] Result
{
public:
    using ValueType = std::conditional_t<std::is_void_v<T>, std::monostate, T>;

    Result() requires std::is_void_v<T> : m_data(std::in_place_index<0>) { }
    template<typename U = ValueType>
    requires(
        !std::is_void_v<
            T> && std::is_constructible_v<ValueType, U &&> && !std::is_same_v<std::remove_cvref_t<U>, E> && !std::is_same_v<std::remove_cvref_t<U>, Result>)
        Result(U &&value)
        : m_data(std::in_place_index<0>, std::forward<U>(value))
    { }
    Result(E error)
        : m_data(std::in_place_index<1>, std::move(error))
    { }

    bool ok() const { return m_data.index() == 0; }
    explicit operator bool() const { return ok(); }

    ValueType &value() & { return std::get<0>(m_data); }
    const ValueType &value() const & { return std::get<0>(m_data); }
    ValueType &&value() && { return std::get<0>(std::move(m_data)); }
    const E &error() const { return std::get<1>(m_data); }

    template<typename U>
    ValueType valueOr(U &&fallback) const
    {
        return ok() ? value() : ValueType(std::forward<U>(fallback));
    }

private:
    std::variant<ValueType, E> m_data;
};

// Result<void>: success carries nothing.
using Status = Result<void>;

} // namespace isolation
