#!/usr/bin/env bash
# qstat reads our GameSpy 3 simulator as `query gamespy3 --json` does: a split reply of 40
# players over 300-byte parts (qstat -gs4, the challenge handshake) and a Battlefield 2 style
# server that takes requests without a challenge (-gs3). Same name, map, counts and players.
set -euo pipefail
cd "$(dirname "$0")/../.."
NAME=qstat-gamespy3
# shellcheck source=lib.sh
source .ci/interop/lib.sh
qstat_require

cargo build --locked --quiet --example sim_gamespy3 --bin gameserver-exporter
interop_work

check() {
    local label=$1 flag=$2
    shift 2
    target/debug/examples/sim_gamespy3 "$@" >"$work/$label.log" 2>&1 &
    pids+=($!)
    local addr json ours raw theirs
    addr=$(await_addr "$work/$label.log" 's/^addr //p')
    json=$(target/debug/gameserver-exporter query gamespy3 "$addr" --json --players --timeout 3s) ||
        interop_fail "$label: query gamespy3 failed"
    ours=$(ours_summary "$json")
    raw=$("$QSTAT" "$flag" "$addr" -P -R -raw , -timeout 5) || interop_fail "$label: qstat failed"
    theirs=$(qstat_summary <<<"$raw")
    echo "$NAME: $label: ours:  $ours"
    echo "$NAME: $label: qstat: $theirs"
    [[ $theirs == "$ours" ]] || interop_fail "$label: qstat read '$theirs', our CLI '$ours'"
}

check split -gs4 --players 40 --part-len 300
check no-challenge -gs3 --no-challenge --players 3
echo "$NAME: passed"
