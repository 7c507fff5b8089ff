#!/usr/bin/env bash
# Calls through hub -> tunnel -> engine, against the same echo over an `ssh -L` forward on loopback,
# measured in the same run. Payloads of 1 KiB and 1 MiB; latency (sequential) and throughput
# (8 connections). Prints a table and writes BUILD/bench-tunnel.json. Run: ./dev bench tunnel
#   bench/tunnel/run.sh BUILD_DIR [--smoke]
# --smoke: a few requests only, to prove the harness works (CTest runs it; its numbers mean nothing).
set -euo pipefail
build=$(cd "$1" && pwd)
smoke=$([ "${2:-}" = --smoke ] && echo 1 || echo 0)
work=$(mktemp -d /tmp/isolation-bench-tunnel.XXXXXX)
pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  wait 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }

hub=$build/tests/hub/isolation-hub
server=$build/app/isolation-server
client=$build/bench/isolation-bench-http

# --- our path: a hub, an engine paired with it
"$hub" serve --data "$work/hub" --listen 127.0.0.1:0 --preview 127.0.0.1:0 --poll-interval 1 >"$work/hub.out" 2>"$work/hub.log" &
pids+=($!)
for _ in $(seq 100); do grep -q "admin token" "$work/hub.out" 2>/dev/null && break; sleep 0.1; done
hub_url=$(awk '/app origin:/ {print $3}' "$work/hub.out" | sed 's#/$##')
export ISOLATION_HOME=$work/engine
"$server" up --credential-store file >"$work/engine.log" 2>&1 &
pids+=($!)
for _ in $(seq 100); do "$server" status >/dev/null 2>&1 && break; sleep 0.1; done
"$server" pair --hub "$hub_url" --name bench --no-qr >"$work/pair.out" 2>&1 &
pair=$!
for _ in $(seq 100); do grep -qE '[A-Z]{4}-[A-Z]{4}' "$work/pair.out" 2>/dev/null && break; sleep 0.1; done
code=$(grep -oE '\b[BCDFGHJKLMNPQRSTVWXZ]{4}-[BCDFGHJKLMNPQRSTVWXZ]{4}\b' "$work/pair.out" | head -1)
"$hub" --data "$work/hub" approve "$code" >/dev/null
wait $pair
for _ in $(seq 200); do "$server" status --json | grep '"state": "online"' >/dev/null && break; sleep 0.1; done
server_id=$("$server" status --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["serverId"])')
token=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["token"])' "$work/hub/admin.json")
ours="$hub_url/v1/admin/servers/$server_id/call"

# --- the peer path: the same echo behind ssh -L
"$build/bench/isolation-bench-echo" 0 >"$work/echo.port" &
pids+=($!)
for _ in $(seq 50); do [ -s "$work/echo.port" ] && break; sleep 0.1; done
echo_port=$(cat "$work/echo.port")
ssh_port=$(free_port)
fwd_port=$(free_port)
mkdir -p "$work/ssh" /run/sshd
ssh-keygen -q -t ed25519 -N '' -f "$work/ssh/host" >/dev/null
ssh-keygen -q -t ed25519 -N '' -f "$work/ssh/user" >/dev/null
cp "$work/ssh/user.pub" "$work/ssh/authorized_keys"
chmod 600 "$work/ssh/authorized_keys"
cat >"$work/ssh/sshd_config" <<CFG
Port $ssh_port
ListenAddress 127.0.0.1
HostKey $work/ssh/host
AuthorizedKeysFile $work/ssh/authorized_keys
PasswordAuthentication no
KbdInteractiveAuthentication no
PermitRootLogin prohibit-password
StrictModes no
AllowTcpForwarding yes
PidFile $work/ssh/sshd.pid
UsePAM no
CFG
/usr/sbin/sshd -D -f "$work/ssh/sshd_config" -E "$work/ssh/sshd.log" &
pids+=($!)
sleep 0.5
ssh -N -o BatchMode=yes -o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null -o LogLevel=ERROR \
    -i "$work/ssh/user" -p "$ssh_port" -L "127.0.0.1:$fwd_port:127.0.0.1:$echo_port" "$(id -un)@127.0.0.1" &
pids+=($!)
for _ in $(seq 100); do curl -fsS -o /dev/null -X POST -d '{}' "http://127.0.0.1:$fwd_port/echo" 2>/dev/null && break; sleep 0.1; done
peer="http://127.0.0.1:$fwd_port/echo"

# --- payloads: the same JSON to both
python3 - "$work" <<'PY'
import json, sys
for name, size in (("1k", 1024), ("1m", 1024 * 1024)):
    json.dump({"method": "ping", "params": {"echo": "x" * size}, "timeoutMs": 30000}, open(f"{sys.argv[1]}/{name}.json", "w"))
PY

run() { "$client" "$1" "$2" --requests "$3" --connections "$4" ${5:+--bearer "$5"}; }
results=$work/results.jsonl
: >"$results"
for payload in 1k 1m; do
  n_lat=$([ $payload = 1k ] && echo 3000 || echo 100)
  n_thr=$([ $payload = 1k ] && echo 12000 || echo 200)
  if [ "$smoke" = 1 ]; then n_lat=20; n_thr=40; fi
  for mode in latency throughput; do
    conns=$([ $mode = latency ] && echo 1 || echo 8)
    n=$([ $mode = latency ] && echo $n_lat || echo $n_thr)
    a=$(run "$ours" "$work/$payload.json" "$n" "$conns" "$token")
    b=$(run "$peer" "$work/$payload.json" "$n" "$conns")
    printf '{"payload": "%s", "mode": "%s", "tunnel": %s, "ssh": %s}\n' "$payload" "$mode" "$a" "$b" >>"$results"
  done
done
python3 - "$results" "$build/bench-tunnel.json" <<'PY'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
json.dump(rows, open(sys.argv[2], "w"), indent=2)
print(f"{'payload':8} {'mode':11} {'tunnel rps':>11} {'ssh -L rps':>11} {'ratio':>6} {'tunnel p50':>11} {'ssh p50':>9} {'tunnel p99':>11} {'ssh p99':>9} {'MiB/s ratio':>12}")
for r in rows:
    t, s = r["tunnel"], r["ssh"]
    print(f"{r['payload']:8} {r['mode']:11} {t['rps']:11.1f} {s['rps']:11.1f} {t['rps']/s['rps']:6.2f} "
          f"{t['p50ms']:9.2f}ms {s['p50ms']:7.2f}ms {t['p99ms']:9.2f}ms {s['p99ms']:7.2f}ms {t['mibPerSecond']/s['mibPerSecond']:12.2f}")
    if t["failed"] or s["failed"]:
        print("  failures:", t["failed"], s["failed"])
PY
