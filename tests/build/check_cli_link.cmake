# Fails when the command line (isolation-server) needs the engine's libraries: every verb but `up`
# and `bugreport` is a LocalAPI client, and those two are handed over to the engine program
# (app/server/handover.h). libgit2, OpenSSL, nghttp2, Qt Network and tcmalloc cost a start of the
# CLI (a one-file save's command line) their relocations and initialisation (bench/README.md,
# "the command line's start"). Run by CTest:
#   cmake -DBINARY=.../isolation-server -P check_cli_link.cmake
execute_process(COMMAND readelf -d "${BINARY}" OUTPUT_VARIABLE dynamic RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "readelf failed on ${BINARY}")
endif()
if(NOT dynamic MATCHES "libQt6Core")
  message(FATAL_ERROR "could not read the dynamic section of ${BINARY} (no libQt6Core)")
endif()
string(REGEX MATCHALL "\\[[^]]+\\]" needed "${dynamic}")
message(STATUS "${BINARY} needs: ${needed}")
foreach(library libgit2 libcrypto libssl libnghttp2 libQt6Network libtcmalloc libcurl)
  if(dynamic MATCHES "\\[${library}[.-]")
    message(FATAL_ERROR "${BINARY} needs ${library}")
  endif()
endforeach()
