# The views' browser components from the npm registry (xterm.js for the terminal, Ace for the
# editor): each package's tarball downloaded from the registry when the build is configured,
# checked against a pinned SHA-256, unpacked into the build tree and compiled into the engine's
# resources. No npm is needed (CMake downloads the file; on a plain Debian 12, Debian's npm would
# bring 369 packages for two downloads). A tarball once checked is kept in the user's cache, so
# that a new build tree configures offline.
#
# The registry is https://registry.npmjs.org unless ISOLATION_NPM_REGISTRY (a cache variable) or
# npm's own environment variable, npm_config_registry, names a mirror; proxies are taken from the
# usual https_proxy / no_proxy, and a CA bundle other than the system's is taken from
# CMAKE_TLS_CAINFO, or else from SSL_CERT_FILE or CURL_CA_BUNDLE in the environment (a proxy that
# inspects TLS).
#
# isolation_npm_package(NAME SPEC VERSION SHA256 DIR_VAR FILES...) fetches SPEC@VERSION (the
# registry's tarball SPEC/-/BASENAME-VERSION.tgz, BASENAME being SPEC without its @scope/) into
# ${CMAKE_BINARY_DIR}/_deps/NAME-VERSION, extracts FILES (paths inside the tarball, "package/..."),
# and sets DIR_VAR to that directory.
if(NOT "$ENV{npm_config_registry}" STREQUAL "")
  set(_isolation_npm_registry_default "$ENV{npm_config_registry}")
else()
  set(_isolation_npm_registry_default "https://registry.npmjs.org")
endif()
set(ISOLATION_NPM_REGISTRY "${_isolation_npm_registry_default}" CACHE STRING
  "The npm registry the views' browser components are downloaded from")
if(DEFINED ENV{XDG_CACHE_HOME} AND IS_ABSOLUTE "$ENV{XDG_CACHE_HOME}")
  set(_isolation_npm_cache_default "$ENV{XDG_CACHE_HOME}/isolation-build/npm")
elseif(DEFINED ENV{HOME} AND IS_ABSOLUTE "$ENV{HOME}")
  set(_isolation_npm_cache_default "$ENV{HOME}/.cache/isolation-build/npm")
else()
  set(_isolation_npm_cache_default "${CMAKE_BINARY_DIR}/_deps/npm-cache")
endif()
set(ISOLATION_NPM_CACHE "${_isolation_npm_cache_default}" CACHE PATH
  "Where the checked tarballs of the views' browser components are kept between build trees")

function(isolation_npm_package name spec version sha256 dir_var)
  set(dir ${CMAKE_BINARY_DIR}/_deps/${name}-${version})
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
  set(cached ${ISOLATION_NPM_CACHE}/${name}-${version}.tgz)
  if(EXISTS ${cached})
    file(SHA256 ${cached} actual)
    if(NOT actual STREQUAL sha256)
      message(WARNING "${cached} has SHA-256 ${actual}, expected ${sha256}: downloading it again")
      file(REMOVE ${cached})
    endif()
  endif()
  if(NOT EXISTS ${cached})
    string(REGEX REPLACE "^@[^/]+/" "" basename "${spec}")
    string(REGEX REPLACE "/+$" "" registry "${ISOLATION_NPM_REGISTRY}")
    set(url ${registry}/${spec}/-/${basename}-${version}.tgz)
    # Written beside its final name (a build tree on another file system than the cache, /tmp on a
    # tmpfs say, could not rename it there), under a name of its own (two trees configured at once).
    file(MAKE_DIRECTORY ${ISOLATION_NPM_CACHE})
    string(RANDOM LENGTH 12 suffix)
    set(partial ${cached}.part-${suffix})
    set(cainfo)
    if(NOT CMAKE_TLS_CAINFO)
      foreach(v SSL_CERT_FILE CURL_CA_BUNDLE)
        if(NOT cainfo AND DEFINED ENV{${v}} AND EXISTS "$ENV{${v}}")
          set(cainfo TLS_CAINFO "$ENV{${v}}")
        endif()
      endforeach()
    endif()
    file(DOWNLOAD ${url} ${partial} TLS_VERIFY ON ${cainfo} INACTIVITY_TIMEOUT 60 TIMEOUT 600 STATUS status)
    list(GET status 0 rc)
    if(NOT rc EQUAL 0)
      list(GET status 1 why)
      file(REMOVE ${partial})
      message(FATAL_ERROR "cannot fetch ${spec} ${version} from the npm registry: ${url}: ${why} (${rc}). "
        "The build needs it once; afterwards ${cached} serves it offline. Behind a proxy set https_proxy; "
        "for a mirror, configure with -DISOLATION_NPM_REGISTRY=URL.")
    endif()
    # A tarball that is not the pinned one is an error, and is not kept.
    file(SHA256 ${partial} actual)
    if(NOT actual STREQUAL sha256)
      file(REMOVE ${partial})
      message(FATAL_ERROR "${url} has SHA-256 ${actual}, expected ${sha256}: refusing it")
    endif()
    file(RENAME ${partial} ${cached})
  endif()
  file(ARCHIVE_EXTRACT INPUT ${cached} DESTINATION ${dir} PATTERNS ${ARGN})
endfunction()
