#!/usr/bin/env bash
# Interop check of the GameSpy 1 simulator against a third-party reader: Debian's qstat
# (`quakestat -gps`). For each datagram layout the simulator knows (Unreal's numbered parts,
# query id first, netPanzer's single bare datagram) it starts `examples/gamespy1 serve` with a
# known name, map, player count and maximum, reads it with qstat and with the exporter's own
# CLI (`gameserver-exporter query gamespy1 ADDR --json --players`), and asserts both read
# exactly those values and the same player names. 20 players make the numbered layouts several
# datagrams long. Stops every process it started by PID. A few seconds.
set -euo pipefail
cd "$(dirname "$0")/../.."
NAME=qstat-gamespy1
# shellcheck source=lib.sh
source .ci/interop/lib.sh
qstat_require

cargo build --locked --quiet --example gamespy1 --bin gameserver-exporter
interop_work
name="Interop GameSpy One"
map="CTF-Face"
for style in unreal first bare; do
    target/debug/examples/gamespy1 serve "$name" "$map" 20 24 "$style" >"$work/sim-$style.out" 2>"$work/sim-$style.log" &
    pids+=($!)
    addr=$(await_addr "$work/sim-$style.out" 1p)
    json=$(target/debug/gameserver-exporter query gamespy1 "$addr" --json --players --timeout 3s) ||
        interop_fail "query gamespy1 ($style) failed"
    ours=$(ours_summary "$json")
    raw=$("$QSTAT" -gps "$addr" -raw , -P -R -timeout 3) || interop_fail "qstat ($style) failed"
    theirs=$(qstat_summary <<<"$raw")
    echo "$NAME: $style: ours:  $ours"
    echo "$NAME: $style: qstat: $theirs"
    [[ ${ours% players=*} == "name=$name map=$map online=20 max=24" ]] ||
        interop_fail "$style: our CLI read '$ours'"
    [[ $theirs == "$ours" ]] || interop_fail "$style: qstat read '$theirs', our CLI '$ours'"
done
echo "$NAME: passed: qstat and our CLI agree on name, map, online, max and players in 3 layouts"
