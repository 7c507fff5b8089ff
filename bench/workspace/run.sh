#!/usr/bin/env bash
# Workspace benchmarks: each result a ratio measured in the same run (docs in bench/README.md).
#   full save          vs  git init, add -A, commit, bundle create --all of the same files (target
#                      < 1.1), and vs git bundle create --all of the repository (git with history)
#   one-file save      vs  git bundle create --all          (target < 0.2: only the change travels),
#                      and vs git's own: add -A, commit, bundle of the new commit, in a clone
#   cold restore       vs  git clone of that bundle         (session new, empty warm cache)
#   warm restore       vs  cold restore                     (target < 0.05): the spare session,
#                      built in the background after the previous session, taken by rename
#   warm, no spare     vs  cold restore                     (the cache's objects linked, every
#                      file checked out: what a start costs before the spare is ready)
#   peak memory (VmHWM of the engine process) of a save and of a cold restore (target < 150 MB
#   for a 1 GB workspace: run with --mb 1024), beside git's for the same work (the largest
#   process of git's first save, and of git clone of the bundle: GNU time's maximum RSS)
# Starts its own isolation-hub and `isolation-server up` (ISOLATION_HOME in a temporary
# directory), pairs them, generates the workspace with generate.py, or with --real takes a real
# source tree (realtree.sh: Linux's fs/, kernel/, net/, drivers/net/ from Debian's linux-source-6.1,
# about 10,200 files, with 31 commits; made once and kept in ~/.cache/isolation-bench). Needs git,
# python3, tar, GNU time (and for --real, apt-get download and xz).
#
# usage: bench/workspace/run.sh BUILD_DIR [--real | --real-whole | --generated [--files N --mb M --commits C]] [--json FILE] [--keep]
#   with neither --real nor --generated: both, the generated workspace first (./dev bench workspace)
#   --real-whole: the whole kernel source (78,311 files, 1.26 GB) instead of four of its directories
#   BUILD_DIR: a build tree with app/isolation-server and tests/hub/isolation-hub (use a Release one)
set -euo pipefail

BUILD=${1:?usage: run.sh BUILD_DIR [--real | --real-whole | --generated [--files N --mb M --commits C]] [--json FILE] [--keep]}
shift
if [ $# -eq 0 ]; then
  "$0" "$BUILD" --generated
  exec "$0" "$BUILD" --real
fi
FILES=10000
MB=100
COMMITS=20
JSON=
KEEP=0
REAL=0
WHOLE=
while [ $# -gt 0 ]; do
  case "$1" in
    --files) FILES=$2; shift 2 ;;
    --mb) MB=$2; shift 2 ;;
    --commits) COMMITS=$2; shift 2 ;;
    --json) JSON=$2; shift 2 ;;
    --keep) KEEP=1; shift ;;
    --real) REAL=1; shift ;;
    --real-whole) REAL=1; WHOLE=--whole; shift ;;
    --generated) REAL=0; shift ;;
    *) echo "unknown option $1" >&2; exit 2 ;;
  esac
done

HERE=$(cd "$(dirname "$0")" && pwd)
BUILD_ABS=$(cd "$BUILD" && pwd)
# shellcheck source=../common/engine.sh
source "$HERE/../common/engine.sh"
SERVER=$(cd "$BUILD" && pwd)/app/isolation-server
HUB=$(cd "$BUILD" && pwd)/tests/hub/isolation-hub
[ -x "$SERVER" ] && [ -x "$HUB" ] || { echo "no isolation-server / isolation-hub in $BUILD" >&2; exit 2; }

WORK=$(mktemp -d /tmp/isolation-bench.XXXXXX)
HUB_PID=
UP_PID=
cleanup() {
  [ -n "$UP_PID" ] && kill -TERM "$UP_PID" 2>/dev/null && wait "$UP_PID" 2>/dev/null || true
  [ -n "$HUB_PID" ] && kill -TERM "$HUB_PID" 2>/dev/null && wait "$HUB_PID" 2>/dev/null || true
  if [ "$KEEP" = 1 ]; then echo "kept $WORK" >&2; else rm -rf "$WORK"; fi
}
trap cleanup EXIT

export ISOLATION_HOME=$WORK/engine ISOLATION_RUNTIME=off ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=0}
now() { date +%s.%N; }
elapsed() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", b - a }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", (b > 0 ? a / b : 0) }'; }
# The median of its arguments; the one-file saves and their peers are short enough for the page
# cache, a background spare build or a timer to move one run by half: each is the median of
# ONE_ROUNDS (5) runs, and so is `git bundle create --all`, their denominator. That denominator is
# timed again in each one-file round, just before our save: a machine whose speed drifts over
# minutes (a virtual machine beside other work) then moves both sides of the ratio alike.
median() { printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
ONE_ROUNDS=${ONE_ROUNDS:-5}
# A cold restore and `git clone` each create every file of the tree, and how fast a file system
# creates files depends on what was deleted before: on ext4 without a journal (the VMs this
# project is measured on) a new inode skips every inode freed in the last 60 s (300 s while its
# inode table block is dirty), so after a large delete (a cache cleared, sessions removed) the
# same clone took 2.7 to 7.7 s here. So they alternate, COLD_ROUNDS (3) times, clone first, and
# each side is the median of its runs.
COLD_ROUNDS=${COLD_ROUNDS:-3}
cli() { "$SERVER" "$@"; }

start_engine() { bench_start_engine "$BUILD_ABS" "$WORK/up.log"; }
wait_online() {
  for _ in $(seq 1 300); do
    if cli status --json 2>/dev/null | grep '"state": "online"' >/dev/null; then return 0; fi
    sleep 0.1
  done
  echo "the engine did not come online" >&2; exit 1
}
stop_engine() { bench_stop_engine; }
# Switches the spare sessions (settings.ini [cache] spareSessions) for the next start_engine.
spares() { mkdir -p "$ISOLATION_HOME/config"; printf '[cache]\nspareSessions=%s\n' "$1" >"$ISOLATION_HOME/config/settings.ini"; }
# Waits until the spare session of workspace $1 (name) is built at the cache's generation.
wait_spare() {
  for _ in $(seq 1 1200); do
    if cli cache --json | python3 -c '
import json, sys
for w in json.load(sys.stdin)["workspaces"]:
    if w["name"] == sys.argv[1] and w.get("spare", {}).get("generation") == w["generation"]:
        sys.exit(0)
sys.exit(1)' "$1"; then return 0; fi
    sleep 0.25
  done
  echo "no spare session of $1 after 300 s" >&2; cat "$WORK/up.log" >&2; exit 1
}
peak_kib() { awk '/^VmHWM:/ { print $2 }' "/proc/$UP_PID/status"; }
# Runs a command under GNU time; its largest process's peak RSS (KiB) goes to $WORK/peer-kib.
peak_of() { /usr/bin/time -f %M -o "$WORK/peer-kib" "$@"; }
# Runs `session new` and prints its worktree.
new_session() { cli session new --workspace "$1" | sed -n 2p; }
session_id() { basename "$(dirname "$1")"; }
fill() { (cd "$REPO" && tar cf - --exclude=./.git .) | (cd "$1" && tar xf -); }
# Where an operation's time went, phase by phase, as the engine logs it when it ends ("save of S
# took 136 ms: start 2 ms, commit 41 ms, ...").
phases() { grep -o "$1 of $2 took .*" "$ISOLATION_HOME/state/engine.log" | tail -1 | sed 's/^.* took //'; }

# --- the hub, the engine, paired
bench_start_hub "$BUILD_ABS" "$WORK"
start_engine
bench_pair "$BUILD_ABS" "$WORK"

# --- the workspace, and the file the one-file save changes
if [ "$REAL" = 1 ]; then
  REPO=$("$HERE/realtree.sh" $WHOLE)
  FILES=$(git -C "$REPO" ls-files | wc -l)
  COMMITS=$(git -C "$REPO" rev-list --count HEAD)
  ONE=$(git -C "$REPO" ls-files '*.c' | sed -n 1p)
  KIND="real tree ($(basename "$(dirname "$REPO")"))"
else
  echo "generating $FILES files, ~$MB MB, $COMMITS commits..." >&2
  python3 "$HERE/generate.py" "$WORK/gen" --files "$FILES" --mb "$MB" --commits "$COMMITS" >&2
  REPO=$WORK/gen/repo
  ONE=dir00/sub0/file00000.dat
  KIND=generated
fi
TREE_BYTES=$(du -sb --exclude=.git "$REPO" | cut -f1)

# git's own: bundle and clone
RUNS=()
for _ in $(seq "$ONE_ROUNDS"); do
  rm -f "$WORK/base.bundle"
  t0=$(now); git -C "$REPO" bundle create -q "$WORK/base.bundle" --all; t1=$(now)
  RUNS+=("$(elapsed "$t0" "$t1")")
done
T_BUNDLE=$(median "${RUNS[@]}")
BUNDLE_BYTES=$(stat -c %s "$WORK/base.bundle")
git clone -q "$WORK/base.bundle" "$WORK/clone" # git's one-file save works in it (timed below)

# git's own first save: the same files into a new repository, added, committed and bundled
mkdir -p "$WORK/gitfirst"
fill "$WORK/gitfirst"
t0=$(now)
(cd "$WORK/gitfirst" && peak_of bash -c 'git init -q && git add -A && git -c gc.auto=0 -c user.name=bench -c user.email=bench@example.com commit -q -m first \
  && git bundle create -q "$1" --all' _ "$WORK/first.bundle")
t1=$(now)
T_GITFIRST=$(elapsed "$t0" "$t1")
GIT_FIRST_KIB=$(cat "$WORK/peer-kib")
rm -rf "$WORK/gitfirst" "$WORK/first.bundle"

# git's own one-file save: the same change in the clone, added, committed and bundled as the new
# commit alone (what travels). The clone's index is settled first: right after a clone every file
# is as new as the index ("racily clean"), and git would hash them all again.
sleep 1
git -C "$WORK/clone" status --porcelain >/dev/null
RUNS=()
for round in $(seq "$ONE_ROUNDS"); do
  echo "one more line $round" >>"$WORK/clone/$ONE"
  t0=$(now)
  (cd "$WORK/clone" && git add -A && git -c gc.auto=0 -c user.name=bench -c user.email=bench@example.com commit -q -m "one file" \
    && git bundle create -q "$WORK/one.bundle" HEAD~1..HEAD)
  t1=$(now)
  RUNS+=("$(elapsed "$t0" "$t1")")
  rm -f "$WORK/one.bundle"
done
T_GITONE=$(median "${RUNS[@]}")
# How long each command line takes to start, doing nothing (part of every one-file save: the save
# is `isolation-server save`, git's is three git commands).
RUNS=(); GRUNS=()
for _ in $(seq "$ONE_ROUNDS"); do
  t0=$(now); cli --version >/dev/null; t1=$(now); RUNS+=("$(elapsed "$t0" "$t1")")
  t0=$(now); git --version >/dev/null; t1=$(now); GRUNS+=("$(elapsed "$t0" "$t1")")
done
T_CLI_START=$(median "${RUNS[@]}")
T_GIT_START=$(median "${GRUNS[@]}")

# full save, measured with a fresh engine (its peak memory is the save's)
"$HUB" --data "$WORK/hub" workspace create bench >/dev/null
W=$(new_session bench)
S=$(session_id "$W")
fill "$W"
stop_engine; start_engine; wait_online
BASE_KIB=$(peak_kib)
t0=$(now); cli save "$S" -m "full" >/dev/null; t1=$(now)
T_FULL=$(elapsed "$t0" "$t1")
PROFILE_FULL=$(phases save "$S")
SAVE_PEAK_KIB=$(peak_kib)

# one-file saves, each the same change as git's above (its phases: those of the median run)
RUNS=(); PROFILES=(); GRUNS=()
for round in $(seq "$ONE_ROUNDS"); do
  t0=$(now); git -C "$REPO" bundle create -q "$WORK/again.bundle" --all; t1=$(now)
  GRUNS+=("$(elapsed "$t0" "$t1")")
  rm -f "$WORK/again.bundle"
  echo "one more line $round" >>"$W/$ONE"
  t0=$(now); cli save "$S" -m "one file" >/dev/null; t1=$(now)
  RUNS+=("$(elapsed "$t0" "$t1")")
  PROFILES+=("$(phases save "$S")")
done
T_ONE=$(median "${RUNS[@]}")
T_BUNDLE_ONE=$(median "${GRUNS[@]}")
PROFILE_ONE=
for i in "${!RUNS[@]}"; do
  if [ "${RUNS[$i]}" = "$T_ONE" ]; then PROFILE_ONE=${PROFILES[$i]}; fi
done


# cold restore: an empty warm cache (a spare built after the saves goes with it), a fresh engine
# without spare sessions; beside git clone of the bundle, alternating (COLD_ROUNDS above). The
# peak memory of each side is its largest.
wait_spare bench
spares false
RUNS=(); GRUNS=(); RESTORE_PEAK_KIB=0; GIT_CLONE_KIB=0
for round in $(seq "$COLD_ROUNDS"); do
  # the cache's files deleted before either side runs: both create theirs after the same deletes
  cli cache clear >/dev/null
  stop_engine; start_engine; wait_online
  t0=$(now); peak_of git clone -q "$WORK/base.bundle" "$WORK/clone-cold-$round"; t1=$(now)
  GRUNS+=("$(elapsed "$t0" "$t1")")
  GIT_CLONE_KIB=$(( $(cat "$WORK/peer-kib") > GIT_CLONE_KIB ? $(cat "$WORK/peer-kib") : GIT_CLONE_KIB ))
  t0=$(now); COLD=$(new_session bench); t1=$(now)
  RUNS+=("$(elapsed "$t0" "$t1")")
  RESTORE_PEAK_KIB=$(( $(peak_kib) > RESTORE_PEAK_KIB ? $(peak_kib) : RESTORE_PEAK_KIB ))
  cmp -s "$COLD/$ONE" "$W/$ONE" || { echo "cold restore differs" >&2; exit 1; }
done
T_CLONE=$(median "${GRUNS[@]}")
T_COLD=$(median "${RUNS[@]}")
COLD_RUNS="ours ${RUNS[*]}, git clone ${GRUNS[*]}"

# warm restore without a spare: the cache now holds the workspace; its objects are linked, every
# file checked out
t0=$(now); LINKED=$(new_session bench); t1=$(now)
T_LINKED=$(elapsed "$t0" "$t1")
cmp -s "$LINKED/$ONE" "$W/$ONE" || { echo "warm restore differs" >&2; exit 1; }

# warm restore: spare sessions on (the default); a session start leaves a spare behind it, built
# in the background; the next session takes it
stop_engine; spares true; start_engine; wait_online
new_session bench >/dev/null
wait_spare bench
t0=$(now); WARM=$(new_session bench); t1=$(now)
T_WARM=$(elapsed "$t0" "$t1")
cmp -s "$WARM/$ONE" "$W/$ONE" || { echo "warm restore differs" >&2; exit 1; }
[ -z "$(git --git-dir="$(dirname "$WARM")/git" --work-tree="$WARM" status --porcelain)" ] || { echo "the spare session is not clean" >&2; exit 1; }

R_FULL=$(ratio "$T_FULL" "$T_BUNDLE")
R_FIRST=$(ratio "$T_FULL" "$T_GITFIRST")
R_ONE=$(ratio "$T_ONE" "$T_BUNDLE_ONE")
R_ONEGIT=$(ratio "$T_ONE" "$T_GITONE")
R_COLD=$(ratio "$T_COLD" "$T_CLONE")
R_WARM=$(ratio "$T_WARM" "$T_COLD")
R_LINKED=$(ratio "$T_LINKED" "$T_COLD")
SAVE_MB=$(awk -v k="$SAVE_PEAK_KIB" 'BEGIN { printf "%.1f", k / 1024 }')
RESTORE_MB=$(awk -v k="$RESTORE_PEAK_KIB" 'BEGIN { printf "%.1f", k / 1024 }')
IDLE_MB=$(awk -v k="$BASE_KIB" 'BEGIN { printf "%.1f", k / 1024 }')
GIT_FIRST_MB=$(awk -v k="$GIT_FIRST_KIB" 'BEGIN { printf "%.1f", k / 1024 }')
GIT_CLONE_MB=$(awk -v k="$GIT_CLONE_KIB" 'BEGIN { printf "%.1f", k / 1024 }')
R_SAVE_MEM=$(ratio "$SAVE_PEAK_KIB" "$GIT_FIRST_KIB")
R_RESTORE_MEM=$(ratio "$RESTORE_PEAK_KIB" "$GIT_CLONE_KIB")

cat <<TABLE
workspace ($KIND): $FILES files, $((TREE_BYTES / 1048576)) MiB tree, $COMMITS commits (git bundle $((BUNDLE_BYTES / 1048576)) MiB)
git bundle create --all   ${T_BUNDLE}s  (${T_BUNDLE_ONE}s in the one-file rounds, each just before our save)
git clone of the bundle   ${T_CLONE}s
git init/add/commit+bundle ${T_GITFIRST}s  (the same files into a new repository)
git add/commit+bundle, one file ${T_GITONE}s  (the one-file change in the clone, the new commit bundled)
full save                 ${T_FULL}s   ratio ${R_FIRST}  (vs git init/add/commit + bundle create --all; target < 1.1)
                                       ratio ${R_FULL}  (vs git bundle create --all of the repository)
  engine's phases         ${PROFILE_FULL}
one-file save             ${T_ONE}s   ratio ${R_ONE}  (vs git bundle create --all in the same rounds; target < 0.2; medians of ${ONE_ROUNDS})
                                       ratio ${R_ONEGIT}  (vs git's add/commit + bundle of the new commit)
  engine's phases         ${PROFILE_ONE}
  a command's start       isolation-server --version ${T_CLI_START}s, git --version ${T_GIT_START}s
cold restore              ${T_COLD}s   ratio ${R_COLD}  (vs git clone of the bundle; medians of ${COLD_ROUNDS}, alternating)
  each run                ${COLD_RUNS}
warm restore              ${T_WARM}s   ratio ${R_WARM}  (vs cold restore; target < 0.05; the spare session)
warm restore, no spare    ${T_LINKED}s   ratio ${R_LINKED}  (vs cold restore; objects linked, files checked out)
peak memory (engine)      save ${SAVE_MB} MB, cold restore ${RESTORE_MB} MB (idle ${IDLE_MB} MB; target < 150 MB at 1 GB)
  git's, same work        first save ${GIT_FIRST_MB} MB (ratio ${R_SAVE_MEM}), clone ${GIT_CLONE_MB} MB (ratio ${R_RESTORE_MEM}); git's largest process
TABLE

if [ -n "$JSON" ]; then
  cat >"$JSON" <<JSONEOF
{"kind": "$KIND", "files": $FILES, "treeBytes": $TREE_BYTES, "commits": $COMMITS, "bundleBytes": $BUNDLE_BYTES,
 "seconds": {"gitBundle": $T_BUNDLE, "gitBundleInOneFileRounds": $T_BUNDLE_ONE, "gitClone": $T_CLONE, "gitFirstSave": $T_GITFIRST, "gitOneFileSave": $T_GITONE, "fullSave": $T_FULL, "oneFileSave": $T_ONE, "cliStart": $T_CLI_START, "gitStart": $T_GIT_START,
             "coldRestore": $T_COLD, "warmRestore": $T_WARM, "warmRestoreNoSpare": $T_LINKED},
 "ratios": {"fullSaveVsBundle": $R_FULL, "fullSaveVsGitFirstSave": $R_FIRST, "oneFileSaveVsBundle": $R_ONE, "oneFileSaveVsGitOneFileSave": $R_ONEGIT, "coldRestoreVsClone": $R_COLD,
            "warmVsColdRestore": $R_WARM, "warmNoSpareVsColdRestore": $R_LINKED},
 "peakKiB": {"idle": $BASE_KIB, "save": $SAVE_PEAK_KIB, "coldRestore": $RESTORE_PEAK_KIB, "gitFirstSave": $GIT_FIRST_KIB, "gitClone": $GIT_CLONE_KIB},
 "memoryRatios": {"saveVsGitFirstSave": $R_SAVE_MEM, "coldRestoreVsGitClone": $R_RESTORE_MEM}}
JSONEOF
fi
