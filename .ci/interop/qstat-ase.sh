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
qstat_require

cargo build --locked --quiet --example sim_ase --bin gameserver-exporter
interop_work
target/debug/examples/sim_ase --players 6 >"$work/sim.log" 2>&1 &
pids+=($!)
addr=$(await_addr "$work/sim.log" 's/^addr //p')
port=${addr##*:}
# Ours is given the ASE port itself; qstat's -eye takes the game port and adds 123.
json=$(target/debug/gameserver-exporter query ase "127.0.0.1:$port" --json --players --timeout 3s) ||
    interop_fail "query ase failed"
ours=$(ours_summary "$json")
raw=$("$QSTAT" -eye "127.0.0.1:$((port - 123))" -P -R -raw , -timeout 5) || interop_fail "qstat failed"
theirs=$(qstat_summary <<<"$raw")
echo "$NAME: ours:  $ours"
echo "$NAME: qstat: $theirs"
[[ $theirs == "$ours" ]] || interop_fail "qstat read '$theirs', our CLI '$ours'"
echo "$NAME: passed"
