#!/usr/bin/env bash
# qstat reads our Doom 3 family simulator in each dialect (-dm3s Doom 3, -q4s Quake 4, -etqws
# Enemy Territory: Quake Wars, -wolfs Wolfenstein) as `query doom3 --json` does: same name,
# map, player count and maximum.
set -euo pipefail
cd "$(dirname "$0")/../.."
NAME=qstat-doom3
# shellcheck source=lib.sh
source .ci/interop/lib.sh
qstat_require

cargo build --locked --quiet --example sim_doom3 --bin gameserver-exporter
interop_work
for pair in doom3:dm3s quake4:q4s etqw:etqws wolfenstein:wolfs; do
    dialect=${pair%%:*}
    kind=${pair##*:}
    target/debug/examples/sim_doom3 "$dialect" >"$work/sim-$dialect.log" 2>&1 &
    pids+=($!)
    addr=$(await_addr "$work/sim-$dialect.log" 's/^addr=//p')
    json=$(target/debug/gameserver-exporter query doom3 "$addr" --json --players --timeout 3s) ||
        interop_fail "query doom3 $addr ($dialect) failed"
    ours=$(ours_summary "$json")
    raw=$("$QSTAT" -raw , -P -R "-$kind" "$addr") || interop_fail "qstat -$kind failed"
    theirs=$(qstat_summary <<<"$raw")
    echo "$NAME: $dialect: ours:  $ours"
    echo "$NAME: $dialect: qstat: $theirs"
    [[ $theirs == "$ours" ]] ||
        interop_fail "$dialect: -$kind read '$theirs', our CLI '$ours'"
done
echo "$NAME: passed"
