# The views' browser components from the npm registry (xterm.js for the terminal, Ace for the
# editor): fetched with `npm pack` when the build is configured, checked against a pinned SHA-256,
# unpacked into the build tree and compiled into the engine's resources. npm's cache makes later
# configurations work offline.
#
# isolation_npm_package(NAME SPEC VERSION SHA256 DIR_VAR FILES...) fetches SPEC@VERSION (the
# tarball npm names NAME-VERSION.tgz) into ${CMAKE_BINARY_DIR}/_deps/NAME-VERSION, extracts FILES
# (paths inside the tarball, "package/..."), and sets DIR_VAR to that directory.
function(isolation_npm_package name spec version sha256 dir_var)
  set(dir ${CMAKE_BINARY_DIR}/_deps/${name}-${version})
  set(tarball ${dir}/${name}-${version}.tgz)
  set(${dir_var} ${dir} PARENT_SCOPE)
  set(missing FALSE)
  foreach(f ${ARGN})
    if(NOT EXISTS ${dir}/${f})
      set(missing TRUE)
    endif()
  endforeach()
  if(NOT missing)
    return()
  endif()
  file(MAKE_DIRECTORY ${dir})
  if(NOT EXISTS ${tarball})
    find_program(ISOLATION_NPM npm)
    if(NOT ISOLATION_NPM)
      message(FATAL_ERROR "${spec} (a view's page) comes from the npm registry, but npm is not installed "
        "(Debian: apt-get install npm)")
    endif()
    execute_process(
      COMMAND ${ISOLATION_NPM} pack ${spec}@${version} --prefer-offline --silent --pack-destination ${dir}
      RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err TIMEOUT 300)
    if(NOT rc EQUAL 0 OR NOT EXISTS ${tarball})
      message(FATAL_ERROR "cannot fetch ${spec} ${version} from the npm registry "
        "(npm pack ${spec}@${version} failed: ${rc} ${err}). The build needs it once; afterwards "
        "npm's cache serves it offline.")
    endif()
  endif()
  file(SHA256 ${tarball} actual)
  if(NOT actual STREQUAL sha256)
    file(REMOVE ${tarball})
    message(FATAL_ERROR "${spec} tarball has SHA-256 ${actual}, expected ${sha256}: refusing it")
  endif()
  file(ARCHIVE_EXTRACT INPUT ${tarball} DESTINATION ${dir} PATTERNS ${ARGN})
endfunction()
