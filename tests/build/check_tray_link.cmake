# Fails when the tray binary needs Qt Network (or libcurl): it talks to the engine over plain unix
# sockets (engine/localapi/unixsocket.h), and Qt Network would map Kerberos and libproxy into every
# idle tray (~1.7 MiB, bench/README.md "tray"). Run by CTest:
#   cmake -DBINARY=.../isolation-tray -P check_tray_link.cmake
execute_process(COMMAND readelf -d "${BINARY}" OUTPUT_VARIABLE dynamic RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "readelf failed on ${BINARY}")
endif()
if(NOT dynamic MATCHES "libQt6Widgets")
  message(FATAL_ERROR "could not read the dynamic section of ${BINARY} (no libQt6Widgets)")
endif()
string(REGEX MATCHALL "\\[[^]]+\\]" needed "${dynamic}")
message(STATUS "${BINARY} needs: ${needed}")
if(dynamic MATCHES "libQt6Network|libcurl")
  message(FATAL_ERROR "${BINARY} needs Qt Network or libcurl")
endif()
