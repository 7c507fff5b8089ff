#!/usr/bin/env bash
# Instructions per proxied request, the doorman's local door vs nginx proxy_pass, both in front of
# the same backend and both run under callgrind (valgrind) with instrumentation switched on only
# while wrk runs. Unlike requests/s on a shared 2-core machine this does not move with the load
# (within about 1 %), so a change to the per-request work shows even when it is a few per cent.
# It counts user-space instructions only: system calls, cache misses and waiting are not in it.
# usage: bench/views/instructions.sh BUILD_DIR [SECONDS]   (a Release build, as for run.sh)
# Needs nginx, wrk, valgrind (Debian). Prints both counts and their ratio.
set -euo pipefail

BUILD=$(cd "${1:?usage: instructions.sh BUILD_DIR [SECONDS]}" && pwd)
SECONDS_EACH=${2:-8}
RIG=$BUILD/tests/isolation-viewbench-rig
for tool in nginx wrk valgrind callgrind_control python3; do
  command -v "$tool" >/dev/null || [ -x "/usr/sbin/$tool" ] || { echo "instructions.sh: $tool is missing" >&2; exit 2; }
done
[ -x "$RIG" ] || { echo "instructions.sh: $RIG is missing (ninja isolation-viewbench-rig)" >&2; exit 2; }

WORK=$(mktemp -d)
PIDS=()
cleanup() {
  for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
  for pid in "${PIDS[@]}"; do wait "$pid" 2>/dev/null || true; done
  rm -rf "$WORK"
}
trap cleanup EXIT

HERE=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=common.sh
source "$HERE/common.sh"

BACKEND=$(free_port)
dir=$(views_nginx_conf backend "$(views_backend_block "$BACKEND")")
nginx -p "$dir" -c "$dir/nginx.conf" &
PIDS+=($!)
wait_port "$BACKEND"

# count NAME URL PID OUT [host cookie]: instructions per request of PID (running under callgrind,
# started by this shell) -> COUNT="NAME INSTRUCTIONS REQUESTS"
count() {
  local name=$1 url=$2 pid=$3 out=$4 args=()
  [ $# -ge 6 ] && args=(-H "Host: $5" -H "Cookie: $6")
  wrk -t1 -c8 -d3s "${args[@]}" "$url/bytes" >/dev/null # warm up, uncounted
  callgrind_control -i on "$pid" >/dev/null
  local n
  n=$(wrk -t1 -c8 -d"${SECONDS_EACH}s" "${args[@]}" "$url/bytes" | awk '/requests in/ {print $1}')
  callgrind_control -i off "$pid" >/dev/null
  kill "$pid"
  wait "$pid" 2>/dev/null || true # callgrind writes its counts as the process ends
  local ir
  ir=$(awk '/^totals:/ {print $2; exit}' "$out" 2>/dev/null)
  [ -n "$ir" ] && [ "${n:-0}" -gt 0 ] || { echo "instructions.sh: no count for $name (requests: ${n:-none}, instructions: ${ir:-none})" >&2; return 1; }
  COUNT="$name $((ir / n)) $n"
}

PROXY=$(free_port)
dir=$(views_nginx_conf proxy "$(views_proxy_block "$BACKEND" "$PROXY")" "master_process off;") # one process
valgrind --tool=callgrind --instr-atstart=no --callgrind-out-file="$WORK/nginx.out" \
  nginx -p "$dir" -c "$dir/nginx.conf" 2>"$WORK/nginx-valgrind.log" &
NGINX_PID=$!
PIDS+=($NGINX_PID)
wait_port "$PROXY"
count nginx "http://127.0.0.1:$PROXY" "$NGINX_PID" "$WORK/nginx.out"
R_NGINX=$COUNT

export QT_LOGGING_RULES="*=false" ISOLATION_RUNTIME=off QT_QPA_PLATFORM=offscreen
valgrind --tool=callgrind --instr-atstart=no --callgrind-out-file="$WORK/doorman.out" \
  "$RIG" --mode local --backend "127.0.0.1:$BACKEND" >"$WORK/rig.json" 2>"$WORK/rig.log" &
RIG_PID=$!
PIDS+=($RIG_PID)
for _ in $(seq 1 600); do [ -s "$WORK/rig.json" ] && break; sleep 0.1; done
[ -s "$WORK/rig.json" ] || { echo "instructions.sh: the rig did not start:" >&2; cat "$WORK/rig.log" >&2; exit 1; }
field() { python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))[sys.argv[2]])' "$WORK/rig.json" "$1"; }
count doorman "$(field url)" "$RIG_PID" "$WORK/doorman.out" "$(field host)" "$(field cookie)"
R_DOOR=$COUNT

echo "# instructions per proxied request (callgrind, user space), 8 keep-alive connections, 5 KiB answers"
printf '%-8s %14s %10s\n' what 'instructions' requests
for r in "$R_DOOR" "$R_NGINX"; do
  # shellcheck disable=SC2086
  printf '%-8s %14s %10s\n' $r
done
python3 - "$R_DOOR" "$R_NGINX" <<'PY'
import sys
d, n = (l.split() for l in sys.argv[1:])
print(f"doorman / nginx: {int(d[1]) / int(n[1]):.2f}x the instructions per request")
PY
