// A shared library opened on first use (dlopen) rather than linked, and its functions resolved by
// name: libcurl and libarchive, which an idle tray never needs (bench/README.md, "tray"). Opened
// RTLD_LOCAL, so nothing else in the process resolves against it by accident, and never closed,
// since handles and callbacks may outlive any one user.
#pragma once

#include <QString>

#include <type_traits>

namespace isolation {

class SharedLibrary
{
public:
    // `soname` as the loader finds it ("libcurl.so.4"); `name` for messages ("libcurl").
    SharedLibrary(const char *soname, const QString &name);

    // Sets `fn` to the function `symbol`, or leaves it null and records the failure.
    template<typename Fn>
    void resolve(Fn &fn, const char *symbol)
    {
        static_assert(std::is_pointer_v<Fn>);
        fn = reinterpret_cast<Fn>(find(symbol));
    }

    bool ok() const { return m_error.isEmpty(); } // opened, and every symbol asked for found
    QString error() const { return m_error; }

private:
    void *find(const char *symbol);

    void *m_handle = nullptr;
    QString m_name;
    QString m_error;
};

} // namespace isolation
