#!/usr/bin/env bash
# Interop check of the GameSpy 2 simulator against Debian's qstat (`quakestat -gs2`): a known
# name, map, player count and maximum, read by qstat and by `gameserver-exporter query
# gamespy2 --json --players`, with and without the player table's count byte (America's Army
# omits it; qstat then names every player "?", so there its player names are not compared).
# Stops every process it started by PID. A few seconds.
set -euo pipefail
cd "$(dirname "$0")/../.."
NAME=qstat-gamespy2
# shellcheck source=lib.sh
source .ci/interop/lib.sh
qstat_require

cargo build --locked --quiet --example gamespy2 --bin gameserver-exporter
interop_work
name="Interop GameSpy Two"
map="Hue 1968"
for counts in counts nocounts; do
    target/debug/examples/gamespy2 serve "$name" "$map" 20 64 "$counts" >"$work/sim-$counts.out" 2>"$work/sim-$counts.log" &
    pids+=($!)
    addr=$(await_addr "$work/sim-$counts.out" 1p)
    json=$(target/debug/gameserver-exporter query gamespy2 "$addr" --json --players --timeout 3s) ||
        interop_fail "query gamespy2 ($counts) failed"
    ours=$(ours_summary "$json")
    echo "$NAME: $counts: ours:  $ours"
    [[ ${ours% players=*} == "name=$name map=$map online=20 max=64" ]] ||
        interop_fail "$counts: our CLI read '$ours'"
    players=${ours#* players=}
    [[ $(tr '|' '\n' <<<"$players" | grep -c .) == 20 ]] || interop_fail "$counts: our CLI read players '$players'"
    raw=$("$QSTAT" -gs2 "$addr" -raw , -P -R -timeout 3) || interop_fail "qstat ($counts) failed"
    theirs=$(qstat_summary <<<"$raw")
    echo "$NAME: $counts: qstat: $theirs"
    if [[ $counts == nocounts ]]; then
        theirs=${theirs% players=*}
        ours=${ours% players=*}
    fi
    [[ $theirs == "$ours" ]] || interop_fail "$counts: qstat read '$theirs', our CLI '$ours'"
done
echo "$NAME: passed: qstat and our CLI agree on name, map, online, max and players"
