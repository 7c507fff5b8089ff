#!/usr/bin/env bash
# The two .debs (isolation-connected-server, and isolation-hub, the local hub it recommends) are
# lintian-clean (no error, no warning), install into a clean Debian 12 system, work there, and
# leave nothing behind; and the product's systemd user unit runs the engine under a real user
# manager (in-systemd.sh).
#   install-test.sh SOURCE_DIR WORK_DIR
# Builds the Release packages in WORK_DIR/package (incrementally), makes a minimal Debian 12 image
# with debootstrap once per machine (clean-image.sh), then runs tests/installer/in-container.sh in it.
set -euo pipefail
src=$1
work=$2

docker info >/dev/null 2>&1 || { echo "install-test: no Docker engine answers (./dev test starts dockerd)" >&2; exit 1; }

echo "== building the Release packages"
# Only what the packages hold (no tests, no benchmark tools), with the Qt headers precompiled as in
# the Debug tree and a unity build: this build runs beside the other tests (270 CPU-seconds
# without unity, 192 with).
cmake -S "$src" -B "$work/package" -G Ninja -DCMAKE_BUILD_TYPE=Release -DISOLATION_BUILD_TESTS=OFF \
  -DISOLATION_BUILD_BENCH=OFF -DISOLATION_PCH=ON -DCMAKE_UNITY_BUILD=ON >/dev/null
cmake --build "$work/package" --parallel "$(nproc)" >/dev/null
rm -f "$work"/package/*.deb
(cd "$work/package" && cpack -G DEB >/dev/null)
deb=$(ls "$work"/package/isolation-connected-server_*_amd64.deb)
hub_deb=$(ls "$work"/package/isolation-hub_*_amd64.deb)
echo "   $deb"
echo "   $hub_deb"

echo "== lintian: no error, no warning"
command -v lintian >/dev/null || { echo "install-test: lintian is not installed (./dev test installs it)" >&2; exit 1; }
lint_rc=0
lint=$(lintian --fail-on error,warning "$deb" "$hub_deb" 2>&1) || lint_rc=$?
printf '%s\n' "$lint" | grep -v 'running with root privileges' || true
[ "$lint_rc" -eq 0 ] || { echo "lintian: errors or warnings (exit $lint_rc)"; exit 1; }
# The overrides (installer/lintian-overrides) listed, so a new one is seen. Apart: lintian 2.116
# counts a shown override towards --fail-on.
lintian --show-overrides "$deb" "$hub_deb" 2>&1 | grep '^O: ' || true

image=$("$src/tests/installer/clean-image.sh" "$work")

echo "== installing, using and removing the package in a fresh container"
docker run --rm \
  -v "$deb:/tmp/isolation.deb:ro" -v "$hub_deb:/tmp/isolation-hub.deb:ro" \
  -v "$src/tests/installer/in-container.sh:/tmp/in-container.sh:ro" \
  "$image" bash /tmp/in-container.sh

# The systemd user unit, where it runs: a container booted with systemd as PID 1. It needs
# CAP_SYS_ADMIN and the host's cgroup tree (not --privileged: this machine's own bounding set lacks
# capabilities --privileged asks for). The image is the one above plus systemd, made once, and
# what the test build's tst_autostartunit needs beside the package's dependencies.
autostart_test=$work/tests/tst_autostartunit
[ -x "$autostart_test" ] || { echo "install-test: $autostart_test is not built (cmake --build $work)" >&2; exit 1; }
systemd_image=isolation-test/debian12-systemd:3
if ! docker image inspect "$systemd_image" >/dev/null 2>&1; then
  echo "== adding systemd to the clean image (once per machine)"
  prep=isolation-test-systemd-prep-$$
  docker rm -f "$prep" >/dev/null 2>&1 || true
  docker run --name "$prep" "$image" bash -c 'export DEBIAN_FRONTEND=noninteractive;
    apt-get update -qq && apt-get install -y -qq --no-install-recommends systemd systemd-sysv dbus dbus-user-session \
      libpam-systemd python3 libqt6test6 libqt6concurrent6 libasan8 libubsan1 >/tmp/systemd-install.log 2>&1 || { tail -20 /tmp/systemd-install.log; exit 1; }'
  docker commit "$prep" "$systemd_image" >/dev/null
  docker rm "$prep" >/dev/null
fi
echo "== the systemd user unit, in a container booted with systemd"
booted=isolation-test-systemd-$$
trap 'docker rm -f "$booted" >/dev/null 2>&1 || true' EXIT
docker run -d --name "$booted" --cap-add SYS_ADMIN --security-opt seccomp=unconfined --cgroupns=host \
  --tmpfs /run --tmpfs /run/lock -v /sys/fs/cgroup:/sys/fs/cgroup:rw \
  -v "$deb:/tmp/isolation.deb:ro" -v "$hub_deb:/tmp/isolation-hub.deb:ro" \
  -v "$src/tests/installer/in-systemd.sh:/tmp/in-systemd.sh:ro" \
  -v "$autostart_test:/tmp/tst_autostartunit:ro" \
  "$systemd_image" /lib/systemd/systemd >/dev/null
for _ in $(seq 150); do
  state=$(docker exec "$booted" systemctl is-system-running 2>/dev/null || true)
  case $state in running | degraded) break ;; esac
  sleep 0.2
done
case $state in running | degraded) ;; *) echo "systemd did not boot in the container: '$state'"; docker logs "$booted" | tail -20; exit 1 ;; esac
docker exec "$booted" bash /tmp/in-systemd.sh
