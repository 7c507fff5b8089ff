#!/usr/bin/env bash
# The .deb installs into a clean Debian 12 system, works there, and leaves nothing behind.
#   install-test.sh SOURCE_DIR WORK_DIR
# Builds a Release package in WORK_DIR/package (incrementally), makes a minimal Debian 12 image
# with debootstrap once per machine (docker import), then runs tests/installer/in-container.sh in it.
set -euo pipefail
src=$1
work=$2
image=isolation-test/debian12-minbase:1

docker info >/dev/null 2>&1 || { echo "install-test: no Docker engine answers (./dev test starts dockerd)" >&2; exit 1; }

echo "== building the Release package"
cmake -S "$src" -B "$work/package" -G Ninja -DCMAKE_BUILD_TYPE=Release -DISOLATION_BUILD_TESTS=OFF >/dev/null
cmake --build "$work/package" --parallel "$(nproc)" >/dev/null
rm -f "$work"/package/*.deb
(cd "$work/package" && cpack -G DEB >/dev/null)
deb=$(ls "$work"/package/*.deb)
echo "   $deb"

if ! docker image inspect "$image" >/dev/null 2>&1; then
  echo "== making a clean Debian 12 image with debootstrap (once per machine)"
  rootfs=$work/debian12-rootfs
  rm -rf "$rootfs"
  debootstrap --variant=minbase bookworm "$rootfs" http://deb.debian.org/debian >"$work/debootstrap.log" 2>&1 ||
    { tail -20 "$work/debootstrap.log" >&2; exit 1; }
  tar -C "$rootfs" -c . | docker import - "$image" >/dev/null
  rm -rf "$rootfs"
fi

echo "== installing, using and removing the package in a fresh container"
docker run --rm \
  -v "$deb:/tmp/isolation.deb:ro" \
  -v "$src/tests/installer/in-container.sh:/tmp/in-container.sh:ro" \
  "$image" bash /tmp/in-container.sh
