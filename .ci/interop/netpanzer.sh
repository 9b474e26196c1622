#!/usr/bin/env bash
# Interop check of the GameSpy 1 codec against a real server: Debian's netPanzer 0.8.7, whose
# `\status\` reply is one datagram without `\queryid\` and without the leading backslash.
# netPanzer binds 0.0.0.0 on a fixed port, so everything runs inside a private network
# namespace (`unshare -n`, only `lo` up): nothing listens beyond it and no port can clash.
# Inside, it starts the dedicated server with a known name, map and maximum (its query socket
# exists only with a master server set), joins one real bot client, then reads the server with
# the exporter's CLI (`gameserver-exporter query gamespy1 ADDR --json`) and with qstat
# (`quakestat -gps`, printed for comparison), and asserts our name, map, 1 online and the maximum. Stops every process by PID.
# About 10 s. Needs root (or unprivileged user namespaces) for the namespace; skips loudly
# without.
#
# Usage: .ci/interop/netpanzer.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
NAME=netpanzer.sh
. .ci/interop/lib.sh

if [[ ${1:-} != --inside ]]; then
    interop_install netpanzer qstat iproute2
    cargo build --locked --quiet --bin gameserver-exporter
    for ns in "unshare -n" "unshare -rn"; do
        if $ns true 2>/dev/null; then
            exec $ns bash "$0" --inside
        fi
    done
    echo "$NAME: SKIP: cannot make a network namespace (unshare -n / -rn); netPanzer binds 0.0.0.0" >&2
    exit 0
fi

# Inside the namespace from here on.
ip link set lo up
netpanzer=$(command -v netpanzer || echo /usr/games/netpanzer)
qstat=$(command -v quakestat || command -v qstat || true)
cli=target/debug/gameserver-exporter

interop_work
export HOME=$work/home
port=3065 # private namespace: a fixed port cannot clash with anything
name="CI netPanzer"
map="Bullet Hole"
max=6
mkdir -p "$HOME/.netpanzer/config"
# netPanzer reports player.name as the hostname.
cat >"$HOME/.netpanzer/config/server.cfg" <<CFG
player.name = "$name"
server.port = $port
server.bindaddress = ""
server.public = true
server.masterservers = "127.0.0.1"
server.name = "$name"
game.maxplayers = $max
game.map = "$map"
game.mapcycle = "$map"
CFG

# The dedicated server reads commands from stdin and quits on its end: keep it open.
mkfifo "$work/stdin"
sleep infinity >"$work/stdin" &
pids+=($!)
"$netpanzer" -d -p "$port" --master_server=127.0.0.1 <"$work/stdin" >"$work/server.log" 2>&1 &
pids+=($!)

for _ in $(seq 50); do
    ss -lun 2>/dev/null | grep -q ":$port " && break
    sleep 0.2
done
ss -lun | grep -q ":$port " || interop_fail "netPanzer is not listening on UDP $port"

SDL_VIDEODRIVER=dummy SDL_AUDIODRIVER=dummy "$netpanzer" -b "127.0.0.1:$port" >"$work/bot.log" 2>&1 &
pids+=($!)

ours=
for _ in $(seq 40); do
    json=$("$cli" query gamespy1 "127.0.0.1:$port" --json 2>"$work/query.log" || true)
    ours=$(echo "$json" | python3 -c '
import json, sys
s = json.load(sys.stdin)
print(f"name={s['"'"'name'"'"']}\nmap={s['"'"'map'"'"']}\nonline={s['"'"'online'"'"']}\nmax={s['"'"'max'"'"']}")' 2>/dev/null || true)
    [[ $ours == *$'\nonline=1\n'* ]] && break
    sleep 0.5
done
echo "$NAME: ours (query gamespy1 --json): $(echo "$json" | tr -d '\n')"
if [[ -n $qstat ]]; then
    echo "$NAME: qstat -gps:"
    "$qstat" -gps "127.0.0.1:$port" -raw , -P -R -timeout 3 || true
fi
field() { echo "$ours" | sed -n "s/^$1=//p"; }
got="$(field name)|$(field map)|$(field online)|$(field max)"
expect="$name|$map|1|$max"
[[ $got == "$expect" ]] || interop_fail "our CLI read $got, expected $expect"
echo "$NAME: ok: netPanzer read by our CLI: $got"
