# Shared by the benchmarks' runners (bash; `source` it): a local hub, an engine (`isolation-server
# up`, file credential store, ISOLATION_HOME set by the caller) and pairing them.
#   bench_start_hub BUILD WORKDIR     -> HUB_PID, HUB_URL
#   bench_start_engine BUILD LOGFILE  -> UP_PID (waits until its LocalAPI answers)
#   bench_stop_engine
#   bench_pair BUILD WORKDIR          (pairs the engine with the hub and waits until it is online)

bench_start_hub() {
  local build=$1 work=$2
  # The log exists before the hub does: the background job opens it only when it gets to run, and
  # a sed of a missing file fails the assignment below, which ends the script under `set -e`.
  : >"$work/hub.log"
  "$build/tests/hub/isolation-hub" serve --data "$work/hub" --listen 127.0.0.1:0 --preview 127.0.0.1:0 \
    --poll-interval 1 >"$work/hub.log" 2>&1 &
  HUB_PID=$!
  HUB_URL=
  for _ in $(seq 1 300); do
    HUB_URL=$(sed -n 's/^app origin:[[:space:]]*\(http[^ ]*\)\/$/\1/p' "$work/hub.log" || true)
    [ -n "$HUB_URL" ] && return 0
    sleep 0.1
  done
  echo "the hub did not start" >&2; cat "$work/hub.log" >&2; return 1
}

bench_start_engine() {
  local build=$1 log=$2
  "$build/app/isolation-server" up --credential-store file >>"$log" 2>&1 &
  UP_PID=$!
  for _ in $(seq 1 300); do
    "$build/app/isolation-server" status >/dev/null 2>&1 && return 0
    sleep 0.1
  done
  echo "the engine did not start" >&2; cat "$log" >&2; return 1
}

bench_stop_engine() {
  [ -n "${UP_PID:-}" ] || return 0
  kill -TERM "$UP_PID" 2>/dev/null || true
  wait "$UP_PID" 2>/dev/null || true
  UP_PID=
}

bench_pair() {
  local build=$1 work=$2 code=
  "$build/app/isolation-server" pair --hub "$HUB_URL" --no-qr >"$work/pair.log" 2>&1 &
  local pair=$!
  for _ in $(seq 1 300); do
    code=$(grep -oE '\b[BCDFGHJKLMNPQRSTVWXZ]{4}-[BCDFGHJKLMNPQRSTVWXZ]{4}\b' "$work/pair.log" | head -1 || true)
    [ -n "$code" ] && grep -q "Waiting for approval" "$work/pair.log" && break
    sleep 0.1
  done
  "$build/tests/hub/isolation-hub" --data "$work/hub" approve "$code" >/dev/null
  wait "$pair"
  for _ in $(seq 1 300); do
    "$build/app/isolation-server" status --json 2>/dev/null | grep -q '"state": "online"' && return 0
    sleep 0.1
  done
  echo "the engine did not come online" >&2; return 1
}
