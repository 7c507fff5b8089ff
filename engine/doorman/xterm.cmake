# xterm.js for the terminal view: fetched from the npm registry with `npm pack` when the build is
# configured, checked against a pinned SHA-256, unpacked into the build tree and compiled into
# the engine's resources. npm's cache makes later configurations work offline.
set(ISOLATION_XTERM_VERSION 5.5.0)
set(ISOLATION_XTERM_SHA256 bd954fa721872170188cc5d7e83e88db3c83c9a18a4e8d24c2783d26491f59d2)
set(ISOLATION_XTERM_DIR ${CMAKE_BINARY_DIR}/_deps/xterm-${ISOLATION_XTERM_VERSION})
set(_tarball ${ISOLATION_XTERM_DIR}/xterm-xterm-${ISOLATION_XTERM_VERSION}.tgz)

if(NOT EXISTS ${ISOLATION_XTERM_DIR}/package/lib/xterm.js)
  file(MAKE_DIRECTORY ${ISOLATION_XTERM_DIR})
  if(NOT EXISTS ${_tarball})
    find_program(ISOLATION_NPM npm)
    if(NOT ISOLATION_NPM)
      message(FATAL_ERROR "xterm.js (terminal view) comes from the npm registry, but npm is not installed "
        "(Debian: apt-get install npm)")
    endif()
    execute_process(
      COMMAND ${ISOLATION_NPM} pack @xterm/xterm@${ISOLATION_XTERM_VERSION} --prefer-offline --silent
        --pack-destination ${ISOLATION_XTERM_DIR}
      RESULT_VARIABLE _rc OUTPUT_VARIABLE _out ERROR_VARIABLE _err TIMEOUT 300)
    if(NOT _rc EQUAL 0 OR NOT EXISTS ${_tarball})
      message(FATAL_ERROR "cannot fetch xterm.js ${ISOLATION_XTERM_VERSION} from the npm registry "
        "(npm pack @xterm/xterm@${ISOLATION_XTERM_VERSION} failed: ${_rc} ${_err}). The terminal view needs it "
        "once; afterwards npm's cache serves it offline.")
    endif()
  endif()
  file(SHA256 ${_tarball} _sha)
  if(NOT _sha STREQUAL ISOLATION_XTERM_SHA256)
    file(REMOVE ${_tarball})
    message(FATAL_ERROR "xterm.js tarball has SHA-256 ${_sha}, expected ${ISOLATION_XTERM_SHA256}: refusing it")
  endif()
  file(ARCHIVE_EXTRACT INPUT ${_tarball} DESTINATION ${ISOLATION_XTERM_DIR}
    PATTERNS package/lib/xterm.js package/css/xterm.css package/LICENSE)
endif()
