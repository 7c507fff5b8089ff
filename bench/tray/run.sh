#!/usr/bin/env bash
# The tray at rest, as a client of a separate engine process (`isolation-server up --credential-store
# file`, paired to a local hub), beside a reference Qt tray client from Debian (the Nextcloud desktop
# client), all on the same private desktop (Xvfb, trayer, dunst, a session bus with gnome-keyring) in
# one run: time from start to the tray icon; then over IDLE seconds (default 60) attached and idle,
# for the tray and the engine side by side: RSS, CPU time and wake-ups (context switches of all
# threads) per minute; then the latency from an engine event to the tray icon's change: CYCLES
# (default 10) times the hub is killed and started again on its port, and each engine state change
# ("state:" in the engine's log, its own stamp) is paired with the tray's next "icon set" line for
# that state (category isolation.tray.icon, at debug; same wall clock, ms). Writes BUILD/bench-tray.json.
#   bench/tray/run.sh BUILD_DIR [--smoke]      (./dev bench tray installs nextcloud-desktop)
# REFERENCE=0 skips Nextcloud; THREADS=1 also prints wake-ups per thread (by name) on stderr.
set -euo pipefail
build=$(cd "$1" && pwd)
smoke=$([ "${2:-}" = --smoke ] && echo 1 || echo 0)
idle=${IDLE:-60}
cycles=${CYCLES:-10}
[ "$smoke" = 1 ] && idle=3 && cycles=1
work=$(mktemp -d /tmp/isolation-bench-tray.XXXXXX)
pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  wait 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT

now_ms() { date +%s%3N; }
# Every thread's CPU ticks (utime+stime) and context switches.
cpu_ticks() { awk '{s += $14 + $15} END {print s}' /proc/"$1"/task/*/stat; }
switches() { cat /proc/"$1"/task/*/status | awk '/ctxt_switches/ {s += $2} END {print s}'; }
rss_kib() { awk '/VmRSS/ {print $2}' /proc/"$1"/status; }
# "tid name switches" per thread
thread_switches() {
  local t
  for t in /proc/"$1"/task/*; do
    echo "${t##*/} $(tr ' ' _ <"$t/comm") $(awk '/ctxt_switches/ {s += $2} END {print s}' "$t/status")"
  done
}

# --- the desktop
mkdir -p "$work/home" "$work/run"
chmod 700 "$work/run"
export HOME=$work/home XDG_RUNTIME_DIR=$work/run XDG_CONFIG_HOME=$work/home/.config XDG_DATA_HOME=$work/home/.local/share
exec 3>"$work/display"
Xvfb -displayfd 3 -screen 0 1280x800x24 -nolisten tcp >/dev/null 2>&1 &
pids+=($!)
for _ in $(seq 100); do [ -s "$work/display" ] && break; sleep 0.05; done
export DISPLAY=:$(cat "$work/display") QT_QPA_PLATFORM=xcb
dbus-daemon --session --nofork --print-address=1 --address="unix:path=$work/run/bus" >"$work/bus" &
pids+=($!)
for _ in $(seq 100); do [ -s "$work/bus" ] && break; sleep 0.05; done
export DBUS_SESSION_BUS_ADDRESS=$(head -1 "$work/bus")
echo -n bench | gnome-keyring-daemon --foreground --unlock --components=secrets >/dev/null 2>&1 &
pids+=($!)
trayer --edge top --align right --widthtype request --height 24 >/dev/null 2>&1 &
pids+=($!)
dunst >/dev/null 2>&1 &
pids+=($!)
for _ in $(seq 100); do xdotool search --classname trayer >/dev/null 2>&1 && break; sleep 0.05; done
sleep 1 # the keyring and dunst take their bus names

# --- a hub to pair with
hub=$build/tests/hub/isolation-hub
# start_hub LISTEN: sets hub_pid once it serves
start_hub() {
  rm -f "$work/hub.out"
  "$hub" serve --data "$work/hub" --listen "$1" --preview 127.0.0.1:0 >"$work/hub.out" 2>>"$work/hub.log" &
  hub_pid=$!
  pids+=("$hub_pid")
  for _ in $(seq 100); do grep -q "admin token" "$work/hub.out" 2>/dev/null && break; sleep 0.1; done
}
start_hub 127.0.0.1:0
export ISOLATION_HUB_URL=$(awk '/app origin:/ {print $3}' "$work/hub.out" | sed 's#/$##')
export ISOLATION_HOME=$work/engine ISOLATION_RUNTIME=off
server=$build/app/isolation-server

# start PROGRAM CLASS: starts it, waits for its first X window; prints "PID MS"
start() {
  local t0 pid
  t0=$(now_ms)
  "$1" >/dev/null 2>&1 &
  pid=$!
  for _ in $(seq 600); do xdotool search --classname "$2" >/dev/null 2>&1 && break; sleep 0.01; done
  echo "$pid $(($(now_ms) - t0))"
}
# measure NAME=PID...: over $idle seconds, side by side, each one's RSS (KiB at the end), CPU seconds
# and wake-ups per minute; prints "NAME {json}" lines
measure() {
  local hz a name pid
  hz=$(getconf CLK_TCK)
  declare -A c0 s0
  for a in "$@"; do
    name=${a%%=*} pid=${a#*=}
    c0[$name]=$(cpu_ticks "$pid"); s0[$name]=$(switches "$pid")
    [ "${THREADS:-0}" = 1 ] && thread_switches "$pid" | sort >"$work/threads0.$name"
  done
  sleep "$idle"
  for a in "$@"; do
    name=${a%%=*} pid=${a#*=}
    if [ "${THREADS:-0}" = 1 ]; then
      thread_switches "$pid" | sort >"$work/threads1.$name"
      echo "$name: wake-ups per minute by thread (tid name count; threads that came or went count from 0):" >&2
      join -a 2 -e 0 -o 2.1,2.2,1.3,2.3 "$work/threads0.$name" "$work/threads1.$name" |
        awk -v idle="$idle" '{printf "  %s %s %.0f\n", $1, $2, ($4 - $3) * 60 / idle}' >&2
    fi
    python3 -c "import sys; n=sys.argv[1]; rss,c,s,idle,hz=map(float,sys.argv[2:]); print(n, '{\"rssMiB\": %.1f, \"cpuSecondsPerMinute\": %.3f, \"wakeupsPerMinute\": %.0f}' % (rss/1024, c/hz*60/idle, s*60/idle))" \
      "$name" "$(rss_kib "$pid")" "$(($(cpu_ticks "$pid") - ${c0[$name]}))" "$(($(switches "$pid") - ${s0[$name]}))" "$idle" "$hz"
  done
}

# --- ours: the engine (file store), paired through the CLI; then the tray attaches; then idle
"$server" up --credential-store file >/dev/null 2>"$work/engine.log" &
engine_pid=$!
pids+=("$engine_pid")
for _ in $(seq 300); do "$server" status >/dev/null 2>&1 && break; sleep 0.1; done
timeout 60 "$server" pair --no-qr >"$work/pair.out" 2>&1 &
pair=$!
for _ in $(seq 200); do grep -qE '[A-Z]{4}-[A-Z]{4}' "$work/pair.out" 2>/dev/null && break; sleep 0.1; done
"$hub" --data "$work/hub" approve "$(grep -oE '\b[BCDFGHJKLMNPQRSTVWXZ]{4}-[BCDFGHJKLMNPQRSTVWXZ]{4}\b' "$work/pair.out" | head -1)" >/dev/null
wait $pair
online() { "$server" status --json 2>/dev/null | grep '"state": "online"' >/dev/null; }
for _ in $(seq 200); do online && break; sleep 0.1; done
online || { echo "the engine did not come online" >&2; exit 1; }
export QT_LOGGING_RULES="isolation.tray.icon.debug=true"
tray_ms=$(
  t0=$(now_ms)
  "$build/app/isolation-tray" >/dev/null 2>"$work/tray.log" &
  echo $! >"$work/tray.pid"
  for _ in $(seq 600); do xdotool search --classname isolation-tray >/dev/null 2>&1 && break; sleep 0.01; done
  echo $(($(now_ms) - t0))
)
tray_pid=$(cat "$work/tray.pid")
pids+=("$tray_pid")
unset QT_LOGGING_RULES
for _ in $(seq 200); do grep -q 'icon set: state online' "$work/tray.log" && break; sleep 0.1; done
grep -q 'icon set: state online' "$work/tray.log" || { echo "the tray did not show the engine online" >&2; exit 1; }
measured=$(measure tray="$tray_pid" engine="$engine_pid")
ours=$(awk '$1 == "tray" {print $2, $3, $4, $5, $6, $7}' <<<"$measured")
engine=$(awk '$1 == "engine" {print $2, $3, $4, $5, $6, $7}' <<<"$measured")

# --- engine event to tray icon: the hub goes away and comes back on its port, CYCLES times
hub_listen=${ISOLATION_HUB_URL#http://}
engine_from=$(wc -l <"$work/engine.log")
tray_from=$(wc -l <"$work/tray.log")
for _ in $(seq "$cycles"); do
  kill -KILL "$hub_pid"; wait "$hub_pid" 2>/dev/null || true
  for _ in $(seq 300); do online || break; sleep 0.1; done
  sleep 1
  start_hub "$hub_listen"
  for _ in $(seq 600); do online && break; sleep 0.1; done
  online || { echo "the engine did not come back online" >&2; exit 1; }
  sleep 1
done
latency=$(python3 - "$work/engine.log" "$engine_from" "$work/tray.log" "$tray_from" <<'PY'
import re, statistics, sys
from datetime import datetime
def lines(path, start, pattern):
    out = []
    for line in open(path, errors="replace").read().splitlines()[int(start):]:
        m = re.match(r"(\S+) \S+ \S+: " + pattern, line)
        if m:
            out.append((datetime.fromisoformat(m.group(1).replace("Z", "+00:00")).timestamp() * 1000, m.group(2)))
    return out
events = lines(sys.argv[1], sys.argv[2], r'state: "?([a-z]+)"?')
icons = lines(sys.argv[3], sys.argv[4], r"icon set: state ([a-z]+)")
# Only changes of state count (the engine logs a new reason in the same state too); each is paired
# with the first icon of that state before the next change (1 ms slack: both stamps are rounded).
changes, previous = [], "online"
for t, state in events:
    if state != previous:
        changes.append((t, state))
    previous = state
samples, missed = [], 0
for i, (t, state) in enumerate(changes):
    until = changes[i + 1][0] if i + 1 < len(changes) else float("inf")
    later = [u for u, s in icons if s == state and t - 1 <= u < until]
    if later:
        samples.append(later[0] - t)
    else:
        missed += 1
if not samples:
    print('{"samples": 0, "missed": %d}' % missed)
else:
    samples.sort()
    print('{"samples": %d, "missed": %d, "medianMs": %.0f, "minMs": %.0f, "maxMs": %.0f}' % (
        len(samples), missed, statistics.median(samples), samples[0], samples[-1]))
PY
)
# --- the reference: Nextcloud's desktop client (Qt 5), unconfigured, in the same desktop
reference=null
nextcloud_ms=null
if [ "${REFERENCE:-1}" = 0 ]; then
  :
elif command -v nextcloud >/dev/null; then
  read -r nc_pid nextcloud_ms < <(start nextcloud nextcloud)
  pids+=("$nc_pid")
  reference=$(measure nextcloud="$nc_pid" | cut -d' ' -f2-)
elif [ "$smoke" = 0 ]; then
  echo "nextcloud-desktop is not installed (./dev bench tray installs it)" >&2
  exit 1
fi

printf '{"idleSeconds": %s, "tray": {"iconMs": %s, "idle": %s}, "engine": {"idle": %s}, "eventToIcon": %s, "nextcloud": {"iconMs": %s, "idle": %s}}\n' \
  "$idle" "$tray_ms" "$ours" "$engine" "$latency" "$nextcloud_ms" "$reference" | tee "$build/bench-tray.json"
