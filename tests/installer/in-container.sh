#!/usr/bin/env bash
# Runs inside a fresh Debian 12 container (see install-test.sh).
set -euo pipefail
# Under pipefail, `cmd | grep -q` fails when grep exits at its first match and cmd then dies of
# SIGPIPE (ldd did, in CI): these greps read their whole input instead (`grep PATTERN >/dev/null`).
export DEBIAN_FRONTEND=noninteractive
pkg=isolation-connected-server

snapshot() {
  find / -xdev \( -path /proc -o -path /sys -o -path /dev -o -path /tmp -o -path /run -o -path /var/cache \
       -o -path /var/lib/apt -o -path /var/lib/dpkg -o -path /var/log -o -path /root \) -prune -o -print | sort
}

apt-get update -qq
before=$(mktemp)
snapshot >"$before"

echo "-- the product's package holds no hub, and recommends the hub's"
dpkg-deb -c /tmp/isolation.deb >/tmp/product.list
if grep isolation-hub /tmp/product.list; then echo "$pkg holds the hub"; exit 1; fi
dpkg-deb -c /tmp/isolation-hub.deb | grep ' \./usr/bin/isolation-hub$' >/dev/null || { echo "isolation-hub.deb has no isolation-hub"; exit 1; }
dpkg-deb -f /tmp/isolation.deb Recommends | grep '^isolation-hub (= [^)]*),' >/dev/null ||
  { echo "$pkg does not recommend isolation-hub: $(dpkg-deb -f /tmp/isolation.deb Recommends)"; exit 1; }

echo "-- apt-get install ./isolation.deb alone (dependencies from Debian)"
cd /tmp
# Without Recommends (docker.io, systemd, a keyring): their maintainer scripts expect a booted
# system, which a bare container is not, and they are not ours to test.
apt-get install -y -qq --no-install-recommends ./isolation.deb >/tmp/install.log 2>&1 || { tail -30 /tmp/install.log; exit 1; }
dpkg -s "$pkg" | grep '^Status: install ok installed' >/dev/null
if command -v isolation-hub >/dev/null || dpkg -s isolation-hub >/dev/null 2>&1; then echo "the hub came with $pkg"; exit 1; fi

echo "-- apt-get install ./isolation-hub.deb, to try it locally"
apt-get install -y -qq --no-install-recommends ./isolation-hub.deb >/tmp/install-hub.log 2>&1 || { tail -30 /tmp/install-hub.log; exit 1; }
dpkg -s isolation-hub | grep '^Status: install ok installed' >/dev/null

echo "-- the programs run"
isolation-server --version
isolation-hub --help | grep 'serve --data DIR' >/dev/null
isolation-tray --version
{ isolation-tray 2>&1 || true; } | grep 'needs a desktop session' >/dev/null # no display here: a clear message, not a crash
test -x /usr/bin/isolation-tray
test -x /usr/libexec/isolation/isolation-keychain # the engine runs it for the desktop keychain
# the engine copies it into sandboxes for the terminal views: static, it runs in any image
test -x /usr/libexec/isolation/isolation-pty-relay
if ldd /usr/libexec/isolation/isolation-pty-relay >/dev/null 2>&1; then echo "isolation-pty-relay is not static"; exit 1; fi
# `isolation-server up` hands over to the engine program (app/server/handover.h)
test -x /usr/libexec/isolation/isolation-engine
# The engine and the hub allocate with tcmalloc (docs/architecture.md, "The data plane"); its
# library came with the package's dependencies. The command line, a LocalAPI client, starts
# without it and without libgit2.
for prog in /usr/libexec/isolation/isolation-engine /usr/bin/isolation-hub; do
  ldd "$prog" | grep 'libtcmalloc_minimal\.so\.4 => /' >/dev/null || { echo "$prog: not linked with tcmalloc"; exit 1; }
done
if ldd /usr/bin/isolation-server | grep -E 'libtcmalloc|libgit2' >/dev/null; then echo "isolation-server links the engine's libraries"; exit 1; fi

echo "-- files are where the desktop expects them"
for f in \
  /usr/share/applications/io.isolation.Tray.desktop \
  /usr/share/icons/hicolor/scalable/apps/io.isolation.Tray.svg \
  /usr/share/metainfo/io.isolation.Tray.metainfo.xml \
  /usr/lib/systemd/user/isolation-server.service \
  /usr/share/man/man1/isolation-server.1.gz \
  /usr/share/man/man1/isolation-tray.1.gz \
  /usr/share/man/man1/isolation-hub.1.gz \
  /usr/share/doc/$pkg/copyright /usr/share/doc/$pkg/changelog.gz \
  /usr/share/doc/isolation-hub/copyright /usr/share/doc/isolation-hub/changelog.gz; do
  test -s "$f" || { echo "missing: $f"; exit 1; }
done
grep -q '^Exec=isolation-tray' /usr/share/applications/io.isolation.Tray.desktop
grep -q '^ExecStart=isolation-server up' /usr/lib/systemd/user/isolation-server.service
grep -q '^Restart=on-failure' /usr/lib/systemd/user/isolation-server.service

echo "-- the headless engine and the hub start and answer"
export ISOLATION_HOME=/tmp/engine
isolation-hub serve --data /tmp/hub --listen 127.0.0.1:8470 --preview 127.0.0.1:8471 >/tmp/hub.log 2>&1 &
hub=$!
isolation-server up --credential-store file >/tmp/engine.log 2>&1 &
engine=$!
for _ in $(seq 100); do isolation-server status >/dev/null 2>&1 && break; sleep 0.1; done
isolation-server status
isolation-hub --data /tmp/hub status
kill -TERM $engine $hub
wait $engine $hub

files=$(mktemp)
dpkg -L "$pkg" isolation-hub >"$files"
echo "-- apt-get purge"
apt-get purge -y -qq "$pkg" isolation-hub >/dev/null
apt-get autoremove --purge -y -qq >/dev/null
for p in "$pkg" isolation-hub; do
  if dpkg -s "$p" >/dev/null 2>&1; then echo "$p still installed"; exit 1; fi
done
while read -r f; do
  if [ -f "$f" ] || [ -L "$f" ]; then echo "left behind: $f"; exit 1; fi
done <"$files"
after=$(mktemp)
snapshot >"$after"
if ! diff -u "$before" "$after"; then
  echo "the system differs from before the installation"
  exit 1
fi
echo "installed, ran and removed cleanly"
