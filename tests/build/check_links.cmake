# Fails when BINARY needs a library it must do without, or lacks the one that shows its dynamic
# section was read. Run by CTest:
#   cmake -DBINARY=... -DREQUIRED=libQt6Core -DFORBIDDEN="libgit2|libcrypto" -P check_links.cmake
# tst_tray_link: the tray talks to the engine over plain unix sockets (engine/localapi/unixsocket.h);
# Qt Network would map Kerberos and libproxy into every idle tray (~1.7 MiB, bench/README.md "tray").
# tst_cli_link: every verb of isolation-server but `up` and `bugreport` (handed over to the engine
# program, app/server/handover.h) is a LocalAPI client; the engine's libraries cost each start
# their relocations and initialisation (bench/README.md, "the command line's start").
execute_process(COMMAND readelf -d "${BINARY}" OUTPUT_VARIABLE dynamic RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "readelf failed on ${BINARY}")
endif()
if(NOT dynamic MATCHES "${REQUIRED}")
  message(FATAL_ERROR "could not read the dynamic section of ${BINARY} (no ${REQUIRED})")
endif()
string(REGEX MATCHALL "\\[[^]]+\\]" needed "${dynamic}")
message(STATUS "${BINARY} needs: ${needed}")
string(REPLACE "|" ";" forbidden "${FORBIDDEN}")
foreach(library IN LISTS forbidden)
  if(dynamic MATCHES "\\[${library}[.-]")
    message(FATAL_ERROR "${BINARY} needs ${library}")
  endif()
endforeach()
