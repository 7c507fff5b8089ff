#!/usr/bin/env bash
# Views benchmarks, ratios measured in the same run (bench/README.md):
#   1. the doorman's local door vs nginx proxy_pass, both in front of the same backend
#      (HTTP/1.1 keep-alive, 32 connections, 5 KiB answers; requests/s and p99)
#   2. the whole path browser -> hub preview origin -> tunnel -> doorman -> backend vs an
#      `ssh -L` forward to the same backend
# The backend is an nginx answering 5 KiB to any path (it stands in for a sandbox's execd, so
# both sides measure the proxy, not the application). Each nginx has one worker, as the doorman
# and the hub each run one event loop.
# Requests/s on two shared cores moves by 10-30 % between runs of the same thing, so the pairs are
# measured in ROUNDS rounds, each measuring all five in turn, and a pair's ratio is the median of
# its rounds' ratios (each round's ratio compares two measurements taken within seconds).
# With two cores or more each round also measures the first pair pinned: wrk (one thread) on the
# first core, the backend and the proxy under test together on the last, so that the load
# generator takes no CPU from what it measures and the scheduler has no choice to make
# ("doorman-pin", "nginx-pin"; PIN=0 leaves them out).
# usage: bench/views/run.sh BUILD_DIR [SECONDS] [ROUNDS]   (BUILD_DIR: a Release build with the tests,
#        e.g. cmake -S . -B build/release -G Ninja -DCMAKE_BUILD_TYPE=Release &&
#        ninja -C build/release isolation-viewbench-rig isolation-hub)
# Needs nginx, wrk, openssh-server (Debian). Prints a table and the ratios.
set -euo pipefail

BUILD=$(cd "${1:?usage: run.sh BUILD_DIR [SECONDS] [ROUNDS]}" && pwd)
SECONDS_EACH=${2:-10}
ROUNDS=${3:-5}
RIG=$BUILD/tests/isolation-viewbench-rig
CONNECTIONS=32
THREADS=2
CORES=$(nproc)
PIN=${PIN:-1}
[ "$CORES" -ge 2 ] || PIN=0
for tool in nginx wrk sshd ssh ssh-keygen python3; do
  command -v "$tool" >/dev/null || [ -x "/usr/sbin/$tool" ] || { echo "run.sh: $tool is missing" >&2; exit 2; }
done
[ -x "$RIG" ] || { echo "run.sh: $RIG is missing (ninja isolation-viewbench-rig)" >&2; exit 2; }

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

start_nginx() { # name, server block -> its master's pid in NGINX_PID
  local dir
  dir=$(views_nginx_conf "$1" "$2")
  nginx -p "$dir" -c "$dir/nginx.conf" &
  NGINX_PID=$!
  PIDS+=($!)
}

pin() { # CPU-LIST PID...: every thread of each process and of its children on those CPUs
  local pid child
  for pid in "${@:2}"; do
    for child in $pid $(pgrep -P "$pid" || true); do taskset -a -p -c "$1" "$child" >/dev/null; done
  done
}

BACKEND=$(free_port)
start_nginx backend "$(views_backend_block "$BACKEND")"
BACKEND_PID=$NGINX_PID
wait_port "$BACKEND"

NGINX=$(free_port)
start_nginx proxy "$(views_proxy_block "$BACKEND" "$NGINX")"
PROXY_PID=$NGINX_PID
wait_port "$NGINX"

export QT_LOGGING_RULES="*=false" ISOLATION_RUNTIME=off QT_QPA_PLATFORM=offscreen
start_rig() { # mode: started in this shell (so cleanup stops it), its JSON line in rig-MODE.json
  "$RIG" --mode "$1" --backend "127.0.0.1:$BACKEND" >"$WORK/rig-$1.json" 2>"$WORK/rig-$1.log" &
  RIG_PID=$!
  PIDS+=($!)
}
rig() { # mode -> the rig's JSON line once it printed it
  local out=$WORK/rig-$1.json
  for _ in $(seq 1 300); do
    [ -s "$out" ] && { cat "$out"; return 0; }
    sleep 0.1
  done
  echo "run.sh: the $1 rig did not start:" >&2
  cat "$WORK/rig-$1.log" >&2
  return 1
}
field() { python3 -c 'import json,sys; print(json.loads(sys.argv[1])[sys.argv[2]])' "$1" "$2"; }

start_rig local
LOCAL_PID=$RIG_PID
start_rig hub
LOCAL=$(rig local)
HUB=$(rig hub)

# ssh -L to the same backend, through an sshd of our own (temporary keys, this user).
SSHD=$(free_port)
FORWARD=$(free_port)
ssh-keygen -q -t ed25519 -N '' -f "$WORK/host_key"
ssh-keygen -q -t ed25519 -N '' -f "$WORK/client_key"
cp "$WORK/client_key.pub" "$WORK/authorized_keys"
chmod 600 "$WORK/authorized_keys"
mkdir -p /run/sshd 2>/dev/null || true
/usr/sbin/sshd -D -e -p "$SSHD" -h "$WORK/host_key" -o ListenAddress=127.0.0.1 -o UsePAM=no -o StrictModes=no \
  -o AuthorizedKeysFile="$WORK/authorized_keys" -o PidFile="$WORK/sshd.pid" -o PermitRootLogin=prohibit-password \
  2>"$WORK/sshd.log" &
PIDS+=($!)
wait_port "$SSHD"
ssh -N -o BatchMode=yes -o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null -o LogLevel=ERROR \
  -i "$WORK/client_key" -p "$SSHD" -L "127.0.0.1:$FORWARD:127.0.0.1:$BACKEND" "$(id -un)@127.0.0.1" &
PIDS+=($!)
wait_port "$FORWARD"

measure() { # name url [host cookie] -> "name rps p99ms"; names ending in -pin: pinned (above)
  local name=$1 url=$2 args=() wrk=(wrk -t"$THREADS")
  [ $# -ge 4 ] && args=(-H "Host: $3" -H "Cookie: $4")
  if [[ $name == *-pin ]]; then
    wrk=(taskset -c 0 wrk -t1)
    pin "$((CORES - 1))" "$BACKEND_PID" "$PROXY_PID" "$LOCAL_PID"
  fi
  # warm up, then measure
  "${wrk[@]}" -c"$CONNECTIONS" -d2s "${args[@]}" "$url/bytes" >/dev/null
  local out
  out=$("${wrk[@]}" -c"$CONNECTIONS" -d"${SECONDS_EACH}s" --latency "${args[@]}" "$url/bytes")
  [[ $name == *-pin ]] && pin "0-$((CORES - 1))" "$BACKEND_PID" "$PROXY_PID" "$LOCAL_PID"
  echo "$out" >"$WORK/wrk-$name.txt"
  if grep "Non-2xx" >/dev/null <<<"$out"; then
    echo "run.sh: $name answered errors:" >&2
    echo "$out" >&2
    return 1
  fi
  local rps p99
  rps=$(echo "$out" | awk '/Requests\/sec/ {print $2}')
  p99=$(echo "$out" | awk '$1 == "99%" {v=$2; if (v ~ /us$/) {sub(/us/,"",v); v=v/1000} else if (v ~ /ms$/) {sub(/ms/,"",v)} else if (v ~ /s$/) {sub(/s/,"",v); v=v*1000}; print v}')
  echo "$name $rps $p99"
}

echo "# views benchmark: $CONNECTIONS connections, keep-alive, 5 KiB answers, ${SECONDS_EACH}s each, $ROUNDS rounds ($(nproc) cores)"
printf '%-6s %-12s %12s %10s\n' round what 'requests/s' 'p99 ms'
RESULTS=()
for round in $(seq 1 "$ROUNDS"); do
  for r in \
    "$(measure backend "http://127.0.0.1:$BACKEND")" \
    "$(measure doorman "$(field "$LOCAL" url)" "$(field "$LOCAL" host)" "$(field "$LOCAL" cookie)")" \
    "$(measure nginx "http://127.0.0.1:$NGINX")" \
    "$(measure hub-path "$(field "$HUB" url)" "$(field "$HUB" host)" "$(field "$HUB" cookie)")" \
    "$(measure ssh-L "http://127.0.0.1:$FORWARD")"; do
    # shellcheck disable=SC2086
    printf '%-6s %-12s %12s %10s\n' "$round" $r
    RESULTS+=("$round $r")
  done
  [ "$PIN" = 1 ] || continue
  for r in \
    "$(measure doorman-pin "$(field "$LOCAL" url)" "$(field "$LOCAL" host)" "$(field "$LOCAL" cookie)")" \
    "$(measure nginx-pin "http://127.0.0.1:$NGINX")"; do
    # shellcheck disable=SC2086
    printf '%-6s %-12s %12s %10s\n' "$round" $r
    RESULTS+=("$round $r")
  done
done
python3 - "${RESULTS[@]}" <<'PY'
import statistics, sys
runs = {}
for line in sys.argv[1:]:
    rnd, name, rps, p99 = line.split()
    runs.setdefault(int(rnd), {})[name] = (float(rps), float(p99))
def pair(a, b, what, p99_too):
    rps = [r[a][0] / r[b][0] for r in runs.values()]
    line = f"{what}: {statistics.median(rps):.2f}x requests/s, median of {len(rps)} rounds ({', '.join(f'{x:.2f}' for x in rps)}; target >= 1.0)"
    if p99_too:
        ours = statistics.median(r[a][1] for r in runs.values())
        peer = statistics.median(r[b][1] for r in runs.values())
        worse = sum(r[a][1] > r[b][1] for r in runs.values())
        line += f", p99 median {ours:.2f} ms vs {peer:.2f} ms (worse in {worse} of {len(rps)} rounds)"
    print(line)
pair("doorman", "nginx", "doorman / nginx  ", True)
if "doorman-pin" in runs[1]:
    pair("doorman-pin", "nginx-pin", "the same, pinned", True)
pair("hub-path", "ssh-L", "hub path / ssh -L", False)
PY
