#!/usr/bin/env bash
# Runs inside a Debian 12 container booted with systemd as PID 1 (see install-test.sh): the
# package's systemd user unit as a member's machine runs it. A user with a user manager
# (lingering, as on a headless server, or a desktop login), the tray's login setting enabling and
# disabling the unit (tst_autostartunit), the tray starting the engine through the unit, the engine outliving the tray, pairing with the local hub, systemd restarting a killed
# engine, the unit enabled at login, a plain `up` finding the same identity, `down` staying down.
set -euo pipefail
# As in in-container.sh: greps read their whole input under pipefail.
export DEBIAN_FRONTEND=noninteractive

fail() { echo "FAIL: $*" >&2; for f in /tmp/tray.log /tmp/hub.log; do [ -f "$f" ] && { echo "--- $f"; tail -20 "$f"; }; done; exit 1; }
# until SECONDS COMMAND...: runs COMMAND every 0.2 s until it succeeds, or fails after SECONDS.
until_ok() {
  local limit=$1; shift
  local end=$((SECONDS + limit))
  until "$@" >/dev/null 2>&1; do
    [ $SECONDS -lt $end ] || return 1
    sleep 0.2
  done
}

echo "-- apt-get install ./isolation.deb and ./isolation-hub.deb on a system that runs systemd"
apt-get install -y -qq --no-install-recommends /tmp/isolation.deb /tmp/isolation-hub.deb >/tmp/install.log 2>&1 || { tail -30 /tmp/install.log; exit 1; }

useradd -m alice
uid=$(id -u alice)
loginctl enable-linger alice
until_ok 30 systemctl is-active user@"$uid".service || fail "alice's user manager did not start"
as_alice() {
  runuser -u alice -- env -i HOME=/home/alice USER=alice LOGNAME=alice PATH=/usr/local/bin:/usr/bin:/bin \
    XDG_RUNTIME_DIR=/run/user/"$uid" DBUS_SESSION_BUS_ADDRESS=unix:path=/run/user/"$uid"/bus LC_ALL=C.UTF-8 "$@"
}
unit() { as_alice systemctl --user "$@"; }
field() { as_alice isolation-server status --json | python3 -c "import json,sys; print(json.load(sys.stdin).get('$1', ''))"; }
main_pid() { unit show -p MainPID --value isolation-server.service; }
state_is() { [ "$(field state)" = "$1" ]; }
restarted_from() { local p; p=$(main_pid); [ "$p" != 0 ] && [ "$p" != "$1" ]; }
paired() { [ -n "$(field serverId)" ]; }
# The pid of a program by name (runuser's own pid, which $! gives, is not the program's).
pid_of() { local d; for d in /proc/[0-9]*; do [ "$(cat "$d/comm" 2>/dev/null)" = "$1" ] && echo "${d#/proc/}"; done; return 0; }
unit cat isolation-server.service | grep '^ExecStart=isolation-server up --credential-store auto' >/dev/null ||
  fail "the user manager does not see the package's unit"

echo "-- the tray's \"Start the engine at login\" enables and disables the unit (tst_autostartunit)"
as_alice env ISOLATION_TEST_OWN_USER_MANAGER=1 ASAN_OPTIONS=detect_leaks=0 /tmp/tst_autostartunit >/tmp/autostart.log 2>&1 ||
  { cat /tmp/autostart.log; fail "tst_autostartunit"; }
grep -E '^Totals: [0-9]+ passed, 0 failed, 0 skipped' /tmp/autostart.log >/dev/null || { cat /tmp/autostart.log; fail "tst_autostartunit"; }

as_alice isolation-hub serve --data /home/alice/hub --listen 127.0.0.1:8470 --preview 127.0.0.1:8471 \
  >/tmp/hub.log 2>&1 &
until_ok 20 bash -c 'exec 3<>/dev/tcp/127.0.0.1/8470' || fail "the hub did not listen"

echo "-- no engine runs: the tray starts it through the user unit"
unit is-active -q isolation-server.service && fail "the engine runs before anyone started it"
as_alice env QT_QPA_PLATFORM=offscreen isolation-tray >/tmp/tray.log 2>&1 &
tray=$!
until_ok 30 unit is-active isolation-server.service || fail "the tray did not start the unit"
until_ok 30 as_alice isolation-server status || fail "the unit's engine does not answer"
pid=$(main_pid)
[ "$(field pid)" = "$pid" ] || fail "the engine that answers (pid $(field pid)) is not the unit's ($pid)"
grep 'started the engine through the systemd user unit' /home/alice/.local/state/isolation/tray.log >/dev/null ||
  fail "the tray's log does not say it used the unit"
echo "   the unit's engine, pid $pid"

echo "-- Quit the tray: the engine stays"
kill -TERM "$(pid_of isolation-tray)"
wait "$tray" || fail "the tray did not quit cleanly"
sleep 1
unit is-active -q isolation-server.service || fail "the engine went with the tray"
[ "$(main_pid)" = "$pid" ] || fail "the engine was restarted when the tray quit"

echo "-- pair with the hub; no keychain here, so the keys go to one 0600 file"
as_alice isolation-server pair --hub http://127.0.0.1:8470 --name unit-box --no-qr >/tmp/pair.log 2>&1 &
pair=$!
until_ok 20 grep -E '\b[BCDFGHJKLMNPQRSTVWXZ]{4}-[BCDFGHJKLMNPQRSTVWXZ]{4}\b' /tmp/pair.log || fail "no code: $(cat /tmp/pair.log)"
code=$(grep -oE '\b[BCDFGHJKLMNPQRSTVWXZ]{4}-[BCDFGHJKLMNPQRSTVWXZ]{4}\b' /tmp/pair.log | head -1)
as_alice isolation-hub --data /home/alice/hub approve "$code" >/dev/null
wait "$pair" || fail "pair: $(cat /tmp/pair.log)"
until_ok 30 state_is online || fail "not online after pairing: $(field reason)"
server=$(field serverId)
[ "$(field credentialStoreKind)" = file ] || fail "keys in $(field credentialStore), not the file"
creds=/home/alice/.local/share/isolation/credentials.json
[ "$(stat -c '%a %U' "$creds")" = "600 alice" ] || fail "$creds is $(stat -c '%a %U' "$creds")"
echo "   paired as $server"

echo "-- kill -9: systemd starts it again, the same paired computer"
kill -KILL "$pid"
until_ok 20 restarted_from "$pid" || fail "systemd did not restart the killed engine"
until_ok 30 as_alice isolation-server status || fail "the restarted engine does not answer"
until_ok 30 state_is online || fail "the restarted engine is $(field state): $(field reason)"
[ "$(field serverId)" = "$server" ] || fail "the restarted engine is another computer: $(field serverId)"

echo "-- enabled, it starts with the user's session"
unit enable isolation-server.service 2>/dev/null
[ "$(unit is-enabled isolation-server.service)" = enabled ] || fail "not enabled"
systemctl restart user@"$uid".service
until_ok 30 unit is-active isolation-server.service || fail "the engine did not start with the user manager"
until_ok 30 as_alice isolation-server status || fail "the engine started at login does not answer"
[ "$(field serverId)" = "$server" ] || fail "the engine started at login is another computer"

echo "-- a plain \`up\` (how a tray without the unit starts it) is the same computer"
unit stop isolation-server.service
as_alice isolation-server up >/tmp/up.log 2>&1 &
up=$!
until_ok 30 as_alice isolation-server status || fail "plain up does not answer: $(tail -5 /tmp/up.log)"
until_ok 10 paired || fail "plain up is not paired: $(field reason)"
[ "$(field serverId)" = "$server" ] || fail "plain up is another computer"
[ "$(field credentialStoreKind)" = file ] || fail "plain up looked for the keys in $(field credentialStore)"
kill -TERM "$(field pid)"
wait "$up" || fail "plain up did not stop cleanly"

echo "-- \`isolation-server down\` stops the unit's engine, and systemd leaves it stopped"
unit start isolation-server.service
until_ok 30 as_alice isolation-server status || fail "the unit's engine does not answer"
as_alice isolation-server down >/dev/null || fail "down failed"
sleep 7 # longer than RestartSec
unit is-active -q isolation-server.service && fail "systemd started the engine again after down"
[ "$(unit show -p Result --value isolation-server.service)" = success ] || fail "the unit ended as $(unit show -p Result --value isolation-server.service)"

echo "the user unit starts, survives the tray and a kill, and keeps one identity"
