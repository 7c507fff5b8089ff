#!/usr/bin/env bash
# The tray at rest, beside a reference Qt tray client from Debian (the Nextcloud desktop client),
# both on the same private desktop (Xvfb, trayer, dunst, a session bus with gnome-keyring) in one
# run: time from start to the tray icon, then over IDLE seconds (default 60) paired and idle: RSS,
# CPU time and wake-ups (context switches of all threads) per minute. Writes BUILD/bench-tray.json.
#   bench/tray/run.sh BUILD_DIR [--smoke]      (./dev bench tray installs nextcloud-desktop)
# REFERENCE=0 skips Nextcloud; THREADS=1 also prints our wake-ups per thread (by name) on stderr.
set -euo pipefail
build=$(cd "$1" && pwd)
smoke=$([ "${2:-}" = --smoke ] && echo 1 || echo 0)
idle=${IDLE:-60}
[ "$smoke" = 1 ] && idle=3
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
"$hub" serve --data "$work/hub" --listen 127.0.0.1:0 --preview 127.0.0.1:0 >"$work/hub.out" 2>"$work/hub.log" &
pids+=($!)
for _ in $(seq 100); do grep -q "admin token" "$work/hub.out" 2>/dev/null && break; sleep 0.1; done
export ISOLATION_HUB_URL=$(awk '/app origin:/ {print $3}' "$work/hub.out" | sed 's#/$##')
export ISOLATION_HOME=$work/engine ISOLATION_RUNTIME=off

# start PROGRAM CLASS: starts it, waits for its first X window; prints "PID MS"
start() {
  local t0 pid
  t0=$(now_ms)
  "$1" >/dev/null 2>&1 &
  pid=$!
  for _ in $(seq 600); do xdotool search --classname "$2" >/dev/null 2>&1 && break; sleep 0.01; done
  echo "$pid $(($(now_ms) - t0))"
}
# measure PID: RSS (KiB), CPU seconds and wake-ups per minute over $idle seconds
measure() {
  local c0 s0 c1 s1 hz
  hz=$(getconf CLK_TCK)
  c0=$(cpu_ticks "$1"); s0=$(switches "$1")
  [ "${THREADS:-0}" = 1 ] && thread_switches "$1" | sort >"$work/threads0"
  sleep "$idle"
  c1=$(cpu_ticks "$1"); s1=$(switches "$1")
  if [ "${THREADS:-0}" = 1 ]; then
    thread_switches "$1" | sort >"$work/threads1"
    echo "wake-ups per minute by thread (tid name count; threads that came or went count from 0):" >&2
    join -a 2 -e 0 -o 2.1,2.2,1.3,2.3 "$work/threads0" "$work/threads1" |
      awk -v idle="$idle" '{printf "  %s %s %.0f\n", $1, $2, ($4 - $3) * 60 / idle}' >&2
  fi
  python3 -c "import sys; rss,c,s,idle,hz=map(float,sys.argv[1:]); print('{\"rssMiB\": %.1f, \"cpuSecondsPerMinute\": %.3f, \"wakeupsPerMinute\": %.0f}' % (rss/1024, c/hz*60/idle, s*60/idle))" \
    "$(rss_kib "$1")" "$((c1 - c0))" "$((s1 - s0))" "$idle" "$hz"
}

# --- ours: start, pair through the CLI (keys in the keychain), then idle
read -r tray_pid tray_ms < <(start "$build/app/isolation-tray" isolation-tray)
pids+=("$tray_pid")
timeout 60 "$build/app/isolation-server" pair --no-qr >"$work/pair.out" 2>&1 &
pair=$!
for _ in $(seq 200); do grep -qE '[A-Z]{4}-[A-Z]{4}' "$work/pair.out" 2>/dev/null && break; sleep 0.1; done
"$hub" --data "$work/hub" approve "$(grep -oE '\b[BCDFGHJKLMNPQRSTVWXZ]{4}-[BCDFGHJKLMNPQRSTVWXZ]{4}\b' "$work/pair.out" | head -1)" >/dev/null
wait $pair
for _ in $(seq 200); do "$build/app/isolation-server" status --json | grep '"state": "online"' >/dev/null && break; sleep 0.1; done
"$build/app/isolation-server" status --json | grep '"state": "online"' >/dev/null || { echo "the tray did not come online" >&2; exit 1; }
ours=$(measure "$tray_pid")

# --- the reference: Nextcloud's desktop client (Qt 5), unconfigured, in the same desktop
reference=null
nextcloud_ms=null
if [ "${REFERENCE:-1}" = 0 ]; then
  :
elif command -v nextcloud >/dev/null; then
  read -r nc_pid nextcloud_ms < <(start nextcloud nextcloud)
  pids+=("$nc_pid")
  reference=$(measure "$nc_pid")
elif [ "$smoke" = 0 ]; then
  echo "nextcloud-desktop is not installed (./dev bench tray installs it)" >&2
  exit 1
fi

printf '{"idleSeconds": %s, "tray": {"iconMs": %s, "idle": %s}, "nextcloud": {"iconMs": %s, "idle": %s}}\n' \
  "$idle" "$tray_ms" "$ours" "$nextcloud_ms" "$reference" | tee "$build/bench-tray.json"
