#!/usr/bin/env bash
# Sessions in sandboxes beside the bare Docker operation on the same image, measured in the same
# run (medians of --rounds):
#   cold launch   (empty warm cache: the workspace comes from the hub)  vs  docker run -d IMAGE
#   warm launch   (the spare session ready)                             vs  docker run -d IMAGE
#   suspend       (save what changed, snapshot, delete the sandbox)     vs  docker commit + docker rm -f
#   resume        (a sandbox from the snapshot, execd answering)        vs  docker run -d SNAPSHOT
# A launch is `isolation-server launch` end to end: the session restored, the sandbox created
# through the lifecycle API, execd answering and /workspace checked writable; `docker run -d`
# returns once the container started. The runtime is the offline stand-in (tests/standin) unless
# ISOLATION_RUNTIME_LIFECYCLE_IMAGE / ISOLATION_RUNTIME_EXECD_IMAGE / ISOLATION_SANDBOX_IMAGE name
# other images. Needs a running dockerd (./dev test and ./dev run start one).
#
# usage: bench/sandbox/run.sh BUILD_DIR [--files N] [--mb M] [--rounds R] [--json FILE]
set -euo pipefail

BUILD=$(cd "${1:?usage: run.sh BUILD_DIR [--files N] [--mb M] [--rounds R] [--json FILE]}" && pwd)
shift
FILES=2000
MB=20
ROUNDS=3
JSON=
while [ $# -gt 0 ]; do
  case "$1" in
    --files) FILES=$2; shift 2 ;;
    --mb) MB=$2; shift 2 ;;
    --rounds) ROUNDS=$2; shift 2 ;;
    --json) JSON=$2; shift 2 ;;
    *) echo "unknown option $1" >&2; exit 2 ;;
  esac
done
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
# shellcheck source=../common/engine.sh
source "$ROOT/bench/common/engine.sh"
docker info >/dev/null 2>&1 || { echo "no Docker daemon answers: start dockerd first" >&2; exit 2; }

WORK=$(mktemp -d /tmp/isolation-bench-sandbox.XXXXXX)
HUB_PID=
UP_PID=
PEER=
cleanup() {
  [ -n "$PEER" ] && docker rm -f "$PEER" >/dev/null 2>&1 || true
  if [ -n "$UP_PID" ]; then
    for s in $(cli sessions --json 2>/dev/null | python3 -c 'import json,sys; print(" ".join(s["id"] for s in json.load(sys.stdin)["sessions"]))' 2>/dev/null); do
      cli finish "$s" --discard >/dev/null 2>&1 || true
    done
    local container
    container=$(cli runtime status --json 2>/dev/null | python3 -c 'import json,sys; print(json.load(sys.stdin).get("container",""))' 2>/dev/null || true)
    bench_stop_engine
    [ -n "$container" ] && docker rm -f "$container" >/dev/null 2>&1 || true
  fi
  [ -n "$HUB_PID" ] && kill -TERM "$HUB_PID" 2>/dev/null && wait "$HUB_PID" 2>/dev/null || true
  rm -rf "$WORK"
}
trap cleanup EXIT
cli() { "$BUILD/app/isolation-server" "$@"; }
now() { date +%s.%N; }
median() { tr ' ' '\n' | sort -g | awk '{ v[NR] = $1 } END { print (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2) }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", (b > 0 ? a / b : 0) }'; }
json_field() { python3 -c 'import json,sys; d=json.load(sys.stdin)
for k in sys.argv[1].split("."): d=d.get(k, {}) if isinstance(d, dict) else {}
print(d if d != {} else "")' "$1"; }

# --- images: the offline stand-in unless told otherwise
if [ -z "${ISOLATION_RUNTIME_LIFECYCLE_IMAGE:-}" ]; then
  echo "building the offline stand-in runtime images (tests/standin)..." >&2
  "$ROOT/tests/standin/build-images.sh" "$BUILD/tests/isolation-standin-lifecycle" "$BUILD/tests/isolation-standin-execd" bench >&2
  export ISOLATION_RUNTIME_LIFECYCLE_IMAGE=isolation-standin/lifecycle:bench
  export ISOLATION_RUNTIME_EXECD_IMAGE=isolation-standin/execd:bench
  export ISOLATION_SANDBOX_IMAGE=${ISOLATION_SANDBOX_IMAGE:-isolation-standin/sandbox:bench}
fi
IMAGE=${ISOLATION_SANDBOX_IMAGE:?set ISOLATION_SANDBOX_IMAGE with your own runtime images}

# --- the hub, the engine with its runtime, paired
export ISOLATION_HOME=$WORK/engine ISOLATION_RUNTIME=on ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=0}
bench_start_hub "$BUILD" "$WORK"
bench_start_engine "$BUILD" "$WORK/up.log"
bench_pair "$BUILD" "$WORK"
for _ in $(seq 1 600); do
  [ "$(cli runtime status --json | json_field state)" = healthy ] && break
  sleep 0.2
done
[ "$(cli runtime status --json | json_field state)" = healthy ] || { echo "the runtime did not become healthy" >&2; cat "$WORK/up.log" >&2; exit 1; }

# --- a workspace with some weight
"$BUILD/tests/hub/isolation-hub" --data "$WORK/hub" workspace create bench >/dev/null
python3 "$ROOT/bench/workspace/generate.py" "$WORK/gen" --files "$FILES" --mb "$MB" --commits 3 >&2
S=$(cli session new --workspace bench | sed -n 1p)
W=$(cli sessions --json | python3 -c 'import json,sys; print([s["worktree"] for s in json.load(sys.stdin)["sessions"] if s["id"] == sys.argv[1]][0])' "$S")
(cd "$WORK/gen/repo" && tar cf - --exclude=./.git .) | (cd "$W" && tar xf -)
cli save "$S" -m "bench workspace" >/dev/null
cli finish "$S" >/dev/null

spare_ready() {
  cli cache --json | python3 -c 'import json,sys
ok = any(w["name"] == "bench" and w.get("spare", {}).get("generation") == w["generation"] for w in json.load(sys.stdin)["workspaces"])
sys.exit(0 if ok else 1)'
}
wait_spare() {
  for _ in $(seq 1 1200); do spare_ready && return 0; sleep 0.25; done
  echo "no spare session after 300 s" >&2; exit 1
}
timed() { local t0 t1; t0=$(now); "$@" >"$WORK/last.out"; t1=$(now); awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", b - a }'; }

COLD=() WARM=() SUSPEND=() RESUME=() RUN=() PAUSE=() UNPAUSE=()
for round in $(seq 1 "$ROUNDS"); do
  echo "round $round of $ROUNDS" >&2
  # cold: nothing cached (a spare built meanwhile goes with the cache)
  wait_spare 2>/dev/null || true
  cli cache clear >/dev/null
  COLD+=("$(timed cli launch --workspace bench --json)")
  id=$(json_field id <"$WORK/last.out")
  cli finish "$id" --discard >/dev/null
  # warm: the spare session ready
  wait_spare
  WARM+=("$(timed cli launch --workspace bench --json)")
  id=$(json_field id <"$WORK/last.out")
  echo "changed in round $round" >"$(cli sessions --json | python3 -c 'import json,sys; print([s["worktree"] for s in json.load(sys.stdin)["sessions"] if s["id"] == sys.argv[1]][0])' "$id")/round.txt"
  SUSPEND+=("$(timed cli suspend "$id")")
  RESUME+=("$(timed cli resume "$id")")
  cli finish "$id" --discard >/dev/null
  # the peer: the bare Docker operations on the same image
  RUN+=("$(timed docker run -d --rm "$IMAGE" tail -f /dev/null)")
  PEER=$(cat "$WORK/last.out")
  PAUSE+=("$(timed sh -c 'docker commit "$1" isolation-bench-snapshot:peer && docker rm -f "$1"' - "$PEER")")
  UNPAUSE+=("$(timed docker run -d --rm isolation-bench-snapshot:peer tail -f /dev/null)")
  PEER=$(cat "$WORK/last.out")
  docker rm -f "$PEER" >/dev/null
  docker rmi -f isolation-bench-snapshot:peer >/dev/null
  PEER=
done

m() { echo "$@" | median; }
T_COLD=$(m "${COLD[@]}"); T_WARM=$(m "${WARM[@]}"); T_SUSPEND=$(m "${SUSPEND[@]}"); T_RESUME=$(m "${RESUME[@]}")
T_RUN=$(m "${RUN[@]}"); T_PAUSE=$(m "${PAUSE[@]}"); T_UNPAUSE=$(m "${UNPAUSE[@]}")
cat <<TABLE
sandbox image $IMAGE; workspace $FILES files, ~$MB MB; medians of $ROUNDS rounds
docker run -d             ${T_RUN}s
docker commit+rm / run    ${T_PAUSE}s / ${T_UNPAUSE}s
cold launch               ${T_COLD}s   ratio $(ratio "$T_COLD" "$T_RUN")  (vs docker run -d)
warm launch               ${T_WARM}s   ratio $(ratio "$T_WARM" "$T_RUN")  (vs docker run -d)
suspend                   ${T_SUSPEND}s   ratio $(ratio "$T_SUSPEND" "$T_PAUSE")  (vs docker commit + rm -f; includes the save)
resume                    ${T_RESUME}s   ratio $(ratio "$T_RESUME" "$T_UNPAUSE")  (vs docker run -d of the commit)
TABLE
if [ -n "$JSON" ]; then
  cat >"$JSON" <<JSONEOF
{"image": "$IMAGE", "files": $FILES, "mb": $MB, "rounds": $ROUNDS,
 "seconds": {"dockerRun": $T_RUN, "dockerCommitRm": $T_PAUSE, "dockerRunCommit": $T_UNPAUSE,
             "coldLaunch": $T_COLD, "warmLaunch": $T_WARM, "suspend": $T_SUSPEND, "resume": $T_RESUME},
 "ratios": {"coldLaunchVsDockerRun": $(ratio "$T_COLD" "$T_RUN"), "warmLaunchVsDockerRun": $(ratio "$T_WARM" "$T_RUN"),
            "suspendVsDockerCommitRm": $(ratio "$T_SUSPEND" "$T_PAUSE"), "resumeVsDockerRunCommit": $(ratio "$T_RESUME" "$T_UNPAUSE")}}
JSONEOF
fi
