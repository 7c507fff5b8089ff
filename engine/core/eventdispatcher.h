// The event loop of the headless processes (isolation-server, isolation-hub): Qt's own UNIX
// dispatcher rather than GLib's. Under load the difference is the wake-ups: GLib's writes its
// eventfd for every posted event (a queued call, a deleteLater), Qt's once per turn of the loop.
// bench/views measured 7-20 % less CPU per proxied request. The tray keeps GLib's, which desktop
// integration (platform themes) expects.
#pragma once

namespace isolation {

// Call before the QCoreApplication exists. A QT_NO_GLIB the user set wins.
void preferUnixEventDispatcher();

} // namespace isolation
