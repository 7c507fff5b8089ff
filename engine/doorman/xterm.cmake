# xterm.js for the terminal view (npmpackage.cmake).
include(${CMAKE_CURRENT_LIST_DIR}/npmpackage.cmake)
set(ISOLATION_XTERM_VERSION 5.5.0)
isolation_npm_package(xterm-xterm @xterm/xterm ${ISOLATION_XTERM_VERSION}
  bd954fa721872170188cc5d7e83e88db3c83c9a18a4e8d24c2783d26491f59d2 ISOLATION_XTERM_DIR
  package/lib/xterm.js package/css/xterm.css package/LICENSE)
