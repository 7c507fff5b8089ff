#!/usr/bin/env bash
# Makes the clean Debian 12 image the installer tests start from, once per machine: debootstrap
# --variant=minbase (what a bare Debian 12 has, no more), imported into Docker.
#   clean-image.sh WORK_DIR   prints the image's name
set -euo pipefail
work=$1
image=isolation-test/debian12-minbase:1
# Two tests may ask at once (tst_deb_install, tst_clean_setup): one makes it, the other waits.
exec 9>"$work/.clean-image.lock"
flock 9
if ! docker image inspect "$image" >/dev/null 2>&1; then
  echo "== making a clean Debian 12 image with debootstrap (once per machine)" >&2
  rootfs=$work/debian12-rootfs-$$
  rm -rf "$rootfs"
  debootstrap --variant=minbase bookworm "$rootfs" http://deb.debian.org/debian >"$work/debootstrap.log" 2>&1 ||
    { tail -20 "$work/debootstrap.log" >&2; rm -rf "$rootfs"; exit 1; }
  tar -C "$rootfs" -c . | docker import - "$image" >/dev/null
  rm -rf "$rootfs"
fi
echo "$image"
