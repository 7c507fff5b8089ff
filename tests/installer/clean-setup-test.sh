#!/usr/bin/env bash
# ./dev on a plain Debian 12 (issue 26): in a container of the clean image (clean-image.sh), as a new
# user would, `./dev build release TARGETS` installs what building needs, configures the Release
# tree (find_package of every library, the views' components downloaded from the npm registry by
# CMake and checked), and builds one file that uses each library the product builds with, and two
# small programs. Only what building and running need gets installed: none of the test peers, and
# no npm (until 2026-12-05 ./dev installed Debian's npm for two downloads: 369 packages more than
# the 19 that node-llhttp, llhttp's C sources in a Node module, brings with Node.js itself). (The
# whole Release build in such a container took 18 min 41 s on two cores, tried by hand on
# 2026-12-04; this test keeps to the part that the rest of the test run, on a machine that
# has everything, cannot see break: the package lists and what the build fetches.)
#   clean-setup-test.sh SOURCE_DIR WORK_DIR
set -euo pipefail
src=$1
work=$2

docker info >/dev/null 2>&1 || { echo "clean-setup-test: no Docker engine answers (./dev test starts dockerd)" >&2; exit 1; }
image=$("$src/tests/installer/clean-image.sh" "$work")

# One object file per library the product compiles against, named as the Release tree names them
# without a unity build (ISOLATION_UNITY=OFF below; a unity tree names its batches, not files).
objects=(
  engine/CMakeFiles/isolation_engine.dir/workspace/gitrepo.cpp.o          # libgit2
  engine/CMakeFiles/isolation_core.dir/core/libcurl.cpp.o                 # libcurl
  engine/CMakeFiles/isolation_core.dir/core/libarchive.cpp.o              # libarchive
  engine/CMakeFiles/isolation_engine.dir/tunnel/http2session.cpp.o        # nghttp2
  engine/CMakeFiles/isolation_engine.dir/crypto/hpke.cpp.o                # OpenSSL
  engine/CMakeFiles/isolation_engine.dir/runtime/lifecycleconfig.cpp.o    # toml++
  app/CMakeFiles/isolation_app_common.dir/common/qrmatrix.cpp.o           # libqrencode
  app/CMakeFiles/isolation_tray_lib.dir/tray/diffview.cpp.o               # Qt Widgets
)
programs=(llhttp isolation-keychain isolation-pty-relay)                  # llhttp's C sources; QtKeychain + D-Bus; static libcrypto
for o in "${objects[@]}"; do
  [ -f "$src/$(sed -E 's#^(engine|app)/CMakeFiles/[^/]+\.dir/#\1/#; s#\.o$##' <<<"$o")" ] ||
    { echo "clean-setup-test: $o names a source that is not there (update this list)"; exit 1; }
done

# The container trusts what this machine trusts (a TLS-inspecting proxy's CA, as here): the build's
# download of the views' components takes SSL_CERT_FILE (engine/doorman/npmpackage.cmake).
ca=()
host_ca=${SSL_CERT_FILE:-/etc/ssl/certs/ca-certificates.crt}
if [ -r "$host_ca" ]; then
  ca=(-v "$host_ca:/tmp/host-ca.crt:ro" -e SSL_CERT_FILE=/tmp/host-ca.crt)
fi
proxy=()
for v in http_proxy https_proxy no_proxy HTTP_PROXY HTTPS_PROXY NO_PROXY; do
  [ -n "${!v:-}" ] && proxy+=(-e "$v")
done

# The sources as a clone has them (tracked and new files, not the build trees), copied in.
echo "== ./dev build release in a clean Debian 12 container"
name=isolation-test-clean-setup-$$
trap 'docker rm -f "$name" >/dev/null 2>&1 || true' EXIT
(cd "$src" && git ls-files -z --cached --others --exclude-standard | tar --null -T - -c) |
  docker run -i --name "$name" "${ca[@]}" "${proxy[@]}" \
    -v /var/cache/apt/archives:/var/cache/apt/archives \
    -e JOBS="$(nproc)" -e ISOLATION_UNITY=OFF "$image" bash -c '
set -euo pipefail
mkdir -p /root/src && tar -C /root/src -x
cd /root/src
apt-get update -qq
./dev build release '"${programs[*]} ${objects[*]}"' >/tmp/build.log 2>&1 || { tail -40 /tmp/build.log; exit 1; }
grep -E "^==> " /tmp/build.log || true
ls build/release/_deps/xterm-xterm-*/package/lib/xterm.js build/release/_deps/ace-builds-*/package/src-min-noconflict/ace.js >/dev/null
for f in build/release/libexec/isolation/isolation-keychain build/release/libexec/isolation/isolation-pty-relay; do
  [ -x "$f" ] || { echo "not built: $f"; exit 1; }
done
for o in '"${objects[*]}"'; do [ -s "build/release/$o" ] || { echo "not built: $o"; exit 1; }; done
# Only what building and running need: no test peer came with it.
for p in chromium openssh-server xvfb debootstrap lintian gnome-keyring npm; do
  if dpkg-query -W -f="\${db:Status-Abbrev}" "$p" 2>/dev/null | grep "^ii" >/dev/null; then
    echo "./dev build installed a test peer: $p"; exit 1
  fi
done
echo "built: '"${programs[*]}"' and '"${#objects[@]}"' objects; xterm.js and Ace fetched; no test peer, no npm installed"
'
