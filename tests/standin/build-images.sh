#!/usr/bin/env bash
# Builds the OFFLINE STAND-IN images (not OpenSandbox) from this machine's files, with no network:
#   isolation-standin/lifecycle:TAG  the lifecycle server stand-in (binary + its shared libraries)
#   isolation-standin/execd:TAG      the execd stand-in under /opt/isolation-standin (bin/ + lib/, run
#                                    through its own dynamic loader inside any sandbox image)
#   isolation-standin/sandbox:TAG    a small sandbox base image: busybox (Debian's busybox-static)
# Usage: build-images.sh LIFECYCLE_BINARY EXECD_BINARY [TAG]   (TAG defaults to "dev")
set -euo pipefail

lifecycle_bin=${1:?usage: build-images.sh LIFECYCLE_BINARY EXECD_BINARY [TAG]}
execd_bin=${2:?usage: build-images.sh LIFECYCLE_BINARY EXECD_BINARY [TAG]}
tag=${3:-dev}
docker=${DOCKER:-docker}
busybox=$(command -v busybox || true)
[ -x "$busybox" ] || { echo "build-images.sh: busybox is missing (apt-get install busybox-static)" >&2; exit 1; }
ldd "$busybox" >/dev/null 2>&1 &&
  { echo "build-images.sh: $busybox is not static (apt-get install busybox-static)" >&2; exit 1; }

# Unchanged inputs (this script, the binaries, busybox, the libraries they load) keep the images
# as they are: `docker import` gives every build a new digest, which an engine that recorded the
# previous one refuses (and a rebuild costs time).
inputs=$( { sha256sum "$0" "$lifecycle_bin" "$execd_bin" "$busybox";
            for lib in $( { ldd "$lifecycle_bin"; ldd "$execd_bin"; } | awk '/=> \//{print $3}' | sort -u); do sha256sum "$lib"; done;
          } | sha256sum | cut -c1-32)
up_to_date=1
for image in lifecycle execd sandbox; do
  label=$("$docker" image inspect -f '{{ index .Config.Labels "io.isolation.standin.inputs" }}' "isolation-standin/$image:$tag" 2>/dev/null || true)
  [ "$label" = "$inputs" ] || up_to_date=
done
if [ -n "$up_to_date" ]; then
  echo "isolation-standin/lifecycle:$tag isolation-standin/execd:$tag isolation-standin/sandbox:$tag are up to date (offline stand-ins, not OpenSandbox)"
  exit 0
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# Shared libraries of a binary, as ldd resolves them on this machine (the loader included).
libs_of() { ldd "$1" | awk '/=> \//{print $3} /^\t\/[^ ]+ \(/{print $1}' | sort -u; }
# A library a binary opens itself (dlopen, by soname), with its own: libcurl, which the engine's
# code loads on first use (engine/core/libcurl.cpp), is no link-time dependency ldd would list.
dlopened() {
  local so
  so=$(ldconfig -p | awk -v name="$1" '$1 == name && /x86-64/ { print $NF; exit }')
  [ -n "$so" ] || { echo "build-images.sh: $1 is not installed" >&2; exit 1; }
  echo "$so"
  libs_of "$so"
}

base_fs() {
  mkdir -p "$1"/{tmp,etc,proc,sys,dev}
  chmod 1777 "$1/tmp"
  echo 'root:x:0:0:root:/:/bin/sh' >"$1/etc/passwd"
  echo 'root:x:0:' >"$1/etc/group"
}

# lifecycle: the binary at /usr/local/bin, its libraries where the loader looks for them.
root=$work/lifecycle
base_fs "$root"
install -D -m 0755 "$lifecycle_bin" "$root/usr/local/bin/isolation-standin-lifecycle"
for lib in $( { libs_of "$lifecycle_bin"; dlopened libcurl.so.4; } | sort -u); do
  install -D -m 0755 "$(readlink -f "$lib")" "$root$lib"
done
tar -C "$root" -c . | "$docker" import \
  --change 'ENTRYPOINT ["/usr/local/bin/isolation-standin-lifecycle"]' \
  --change 'ENV ASAN_OPTIONS=detect_leaks=0' \
  --change 'LABEL io.isolation.standin=lifecycle' \
  --change "LABEL io.isolation.standin.inputs=$inputs" \
  - "isolation-standin/lifecycle:$tag" >/dev/null

# execd: self-contained under /opt/isolation-standin, so it runs in any sandbox image.
root=$work/execd
base_fs "$root"
opt=$root/opt/isolation-standin
install -D -m 0755 "$execd_bin" "$opt/bin/isolation-standin-execd"
mkdir -p "$opt/lib"
for lib in $(libs_of "$execd_bin"); do
  install -m 0755 "$(readlink -f "$lib")" "$opt/lib/$(basename "$lib")"
done
tar -C "$root" -c . | "$docker" import \
  --change 'ENTRYPOINT ["/opt/isolation-standin/lib/ld-linux-x86-64.so.2", "--library-path", "/opt/isolation-standin/lib", "/opt/isolation-standin/bin/isolation-standin-execd"]' \
  --change 'ENV ASAN_OPTIONS=detect_leaks=0' \
  --change 'LABEL io.isolation.standin=execd' \
  --change "LABEL io.isolation.standin.inputs=$inputs" \
  - "isolation-standin/execd:$tag" >/dev/null

# sandbox: busybox and its applets.
root=$work/sandbox
base_fs "$root"
mkdir -p "$root/bin" "$root/workspace"
install -m 0755 "$busybox" "$root/bin/busybox"
for applet in $("$busybox" --list); do
  [ -e "$root/bin/$applet" ] || ln -s busybox "$root/bin/$applet"
done
tar -C "$root" -c . | "$docker" import \
  --change 'ENV PATH=/bin' \
  --change 'LABEL io.isolation.standin=sandbox' \
  --change "LABEL io.isolation.standin.inputs=$inputs" \
  - "isolation-standin/sandbox:$tag" >/dev/null

# Earlier builds' leftovers: untagged stand-in images and execd volumes no sandbox uses any more.
"$docker" image prune -f --filter label=io.isolation.standin >/dev/null 2>&1 || true
# Snapshots a killed test left (an engine deletes its own when a session resumes or finishes); only
# old ones, since another test run may be suspending a session right now.
"$docker" image prune -af --filter label=io.isolation.standin=snapshot --filter until=2h >/dev/null 2>&1 || true
for volume in $("$docker" volume ls -q --filter name=isolation-standin-execd- 2>/dev/null); do
  "$docker" volume rm "$volume" >/dev/null 2>&1 || true
done

echo "built isolation-standin/lifecycle:$tag isolation-standin/execd:$tag isolation-standin/sandbox:$tag (offline stand-ins, not OpenSandbox)"
