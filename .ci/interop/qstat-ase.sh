#!/usr/bin/env bash
# qstat, a client written against real servers, reads our All-Seeing Eye (Multi Theft Auto)
# simulator: the same name, map, player count, maximum and player names as
# `gameserver-exporter query ase --json` (the exporter's real poll path).
# qstat's -eye takes the game port and asks port + 123, as Multi Theft Auto answers there;
# the simulator names ASE port - 123 as its game port. Debian installs qstat as `quakestat`.
set -euo pipefail
cd "$(dirname "$0")/../.."
NAME=qstat-ase
# shellcheck source=lib.sh
source .ci/interop/lib.sh

qstat_bin() { command -v quakestat || command -v qstat || true; }
if [[ -z $(qstat_bin) ]]; then
    (interop_install qstat) || true
fi
QSTAT=$(qstat_bin)
if [[ -z $QSTAT ]]; then
    echo "$NAME: SKIPPED: qstat is not installed and could not be installed (apt-get install qstat)" >&2
    exit 0
fi

cargo build --locked --quiet --example sim_ase --bin gameserver-exporter
interop_work

log="$work/sim.log"
target/debug/examples/sim_ase --players 6 >"$log" 2>&1 &
pids+=($!)
for ((i = 0; i < 100; i++)); do
    grep -q '^addr ' "$log" && break
    kill -0 "${pids[-1]}" 2>/dev/null || interop_fail "simulator exited"
    sleep 0.1
done
grep -q '^addr ' "$log" || interop_fail "the simulator printed no address"
port=$(awk '/^addr /{ n = split($2, a, ":"); print a[n] }' "$log")
# Ours is given the ASE port itself; qstat's -eye takes the game port and adds 123.
json=$(target/debug/gameserver-exporter query ase "127.0.0.1:$port" --json --players --timeout 3s) ||
    interop_fail "query ase failed"
echo "$NAME: query ase --json says: $(printf '%s' "$json" | tr -d '\n' | tr -s ' ' | cut -c1-400)..."
ours=$(printf '%s' "$json" | python3 -c '
import json, sys
s = json.load(sys.stdin)
names = "|".join(p["name"] for p in s.get("players") or [])
print("ours name=%s map=%s online=%s max=%s players=%s" % (s["name"], s.get("map") or "", s["online"], s["max"], names))')
raw=$("$QSTAT" -eye "127.0.0.1:$((port - 123))" -P -R -raw , -timeout 5) || interop_fail "qstat failed"
echo "$NAME: $ours"
echo "$NAME: qstat -eye says:"
printf '%s\n' "$raw" | sed "s/^/    /"
# -raw ,: EYE,addr,name,map,max,online,ping,retries; then the rules; then one line per player
# (name,score,ping,team,skin,time), in the server's order.
theirs=$(printf '%s\n' "$raw" | awk -F, 'NR == 1 { head = sprintf("name=%s map=%s online=%s max=%s", $3, $4, $6, $5) }
    NR > 2 && NF > 1 { s = s (s == "" ? "" : "|") $1 }
    END { print "ours " head " players=" s }')
[[ $theirs == "$ours" ]] || interop_fail "qstat read
  $theirs
but query ase read
  $ours"
echo "$NAME: passed"
