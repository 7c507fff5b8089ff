// The event loop of the headless processes (isolation-server, isolation-hub): Qt's own UNIX
// dispatcher rather than GLib's. Under load the difference is the wake-ups: GLib's writes its
// eventfd for every posted event (a queued call, a deleteLater), Qt's once per turn of the loop.
// bench/views measured 7-20 % less CPU per proxied request. The tray keeps GLib's, which desktop
// integration (platform themes) expects.
//
// The choice is this process's only. Qt reads it from QT_NO_GLIB when the application object
// is made; the variable is then taken away again, so that the processes we start do not inherit
// it: isolation-keychain's Secret Service backend (libsecret) answers through GLib's main
// context, and under Qt's UNIX dispatcher nothing runs that context, so every keychain call
// would wait forever (CI, tst_keychain, 2026-12-01).
#pragma once

#include <utility>

namespace isolation {

// Makes the application object (QCoreApplication or a subclass) with Qt's UNIX dispatcher,
// unless the user set QT_NO_GLIB (then theirs wins, and stays for children too).
template<typename App, typename... Args>
App makeWithUnixEventDispatcher(Args &&...args);

namespace detail {
bool setNoGlib(); // true when this call set QT_NO_GLIB
void unsetNoGlib();
} // namespace detail

template<typename App, typename... Args>
App makeWithUnixEventDispatcher(Args &&...args)
{
    struct Restore
    {
        bool set = detail::setNoGlib();
        ~Restore()
        {
            if (set)
                detail::unsetNoGlib();
        }
    } restore;
    return App(std::forward<Args>(args)...);
}

} // namespace isolation
