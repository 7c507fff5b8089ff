#!/usr/bin/env bash
# A real source tree with history for the workspace benchmark (run.sh --real), made once and kept:
# the Linux kernel's fs/, kernel/, net/ and drivers/net/ as Debian ships them in linux-source-6.1
# (about 10,200 files, 200 MB of C sources and headers in deep directories), in a git repository
# whose 31 commits realhistory.py makes the same way every time, packed. Prints the repository's path.
# With --whole: the whole source tree (78,311 files, 1.26 GB in 6.1.192-3), for the 1 GB measures.
#   realtree.sh [--whole] [CACHE_DIR]   (default: ${XDG_CACHE_HOME:-~/.cache}/isolation-bench)
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
WHOLE=0
if [ "${1:-}" = --whole ]; then WHOLE=1; shift; fi
CACHE=${1:-${XDG_CACHE_HOME:-$HOME/.cache}/isolation-bench}
PACKAGE=linux-source-6.1
DIRS=(fs kernel net drivers/net)
mkdir -p "$CACHE"

deb=$(ls "$CACHE"/${PACKAGE}_*_all.deb 2>/dev/null | head -1 || true)
if [ -z "$deb" ]; then
  echo "downloading $PACKAGE (about 140 MB) into $CACHE..." >&2
  (cd "$CACHE" && apt-get download "$PACKAGE" >&2 2>/dev/null) || { echo "realtree: apt-get download $PACKAGE failed" >&2; exit 1; }
  deb=$(ls "$CACHE"/${PACKAGE}_*_all.deb | head -1)
fi
version=$(dpkg-deb -f "$deb" Version)
out=$CACHE/linux-$version
[ "$WHOLE" = 1 ] && out=$CACHE/linux-$version-whole
if [ -f "$out/done" ]; then echo "$out/repo"; exit 0; fi

echo "making the real tree from $PACKAGE $version in $out..." >&2
rm -rf "$out"
mkdir -p "$out/repo"
if [ "$WHOLE" = 1 ]; then
  dpkg-deb --fsys-tarfile "$deb" | tar xf - -O "./usr/src/$PACKAGE.tar.xz" \
    | xz -dc | tar xf - -C "$out/repo" --strip-components=1
  # Debian's packaging ignores the whole top level (`/*` in .gitignore, for its own repository):
  # without it, as in the kernel's repository.
  sed -i '/^\/\*$/d; /^!\/debian\/$/d' "$out/repo/.gitignore"
else
  dpkg-deb --fsys-tarfile "$deb" | tar xf - -O "./usr/src/$PACKAGE.tar.xz" \
    | xz -dc | tar xf - -C "$out/repo" --strip-components=1 "${DIRS[@]/#/$PACKAGE/}"
fi
git -C "$out/repo" init -q -b main
git -C "$out/repo" config gc.auto 0 # packed once at the end, as a repository in use would be
python3 "$HERE/realhistory.py" "$out/repo"
git -C "$out/repo" gc -q --prune=now
touch "$out/done"
echo "$out/repo"
