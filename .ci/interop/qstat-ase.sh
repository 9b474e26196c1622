#!/usr/bin/env bash
# qstat, a client written against real servers, reads our All-Seeing Eye (Multi Theft Auto)
# simulator: the same name, map, player count, maximum and player names as our own decoder.
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

cargo build --locked --quiet --example sim_ase
interop_work

log="$work/sim.log"
target/debug/examples/sim_ase --players 6 >"$log" 2>&1 &
pids+=($!)
for ((i = 0; i < 100; i++)); do
    grep -q '^ours ' "$log" && break
    kill -0 "${pids[-1]}" 2>/dev/null || interop_fail "simulator exited"
    sleep 0.1
done
grep -q '^ours ' "$log" || interop_fail "our decoder did not finish"
port=$(awk '/^addr /{ n = split($2, a, ":"); print a[n] }' "$log")
ours=$(grep '^ours ' "$log")
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
but our decoder read
  $ours"
echo "$NAME: passed"
