#!/usr/bin/env bash
# qstat reads our Unreal 2 simulator as `query unreal2 --json` does: same name, map, player
# count and maximum, through both of qstat's readers (-ut2004s and -ut2s). qstat takes the
# game port and asks port + 1, as Unreal 2 servers answer there.
set -euo pipefail
cd "$(dirname "$0")/../.."
NAME=qstat-unreal2
# shellcheck source=lib.sh
source .ci/interop/lib.sh
qstat_require

cargo build --locked --quiet --example sim_unreal2 --bin gameserver-exporter
interop_work
target/debug/examples/sim_unreal2 >"$work/sim.log" 2>&1 &
pids+=($!)
addr=$(await_addr "$work/sim.log" 's/^addr=//p')
port=${addr##*:}
json=$(target/debug/gameserver-exporter query unreal2 "$addr" --json --players --rules --timeout 3s) ||
    interop_fail "query unreal2 $addr failed"
ours=$(ours_summary "$json")
echo "$NAME: ours:  $ours"
for kind in ut2004s ut2s; do
    raw=$("$QSTAT" -raw , -P -R "-$kind" "127.0.0.1:$((port - 1))") || interop_fail "qstat -$kind failed"
    theirs=$(qstat_summary <<<"$raw")
    echo "$NAME: qstat -$kind: $theirs"
    [[ $theirs == "$ours" ]] || interop_fail "-$kind read '$theirs', our CLI '$ours'"
done
echo "$NAME: passed"
