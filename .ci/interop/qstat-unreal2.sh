#!/usr/bin/env bash
# Cross-reads the Unreal 2 simulator with qstat (Debian's `qstat` package, binary
# `quakestat`): starts examples/sim_unreal2 (which prints its address), reads it with our
# CLI (`gameserver-exporter query unreal2 ADDR --json`) and with qstat `-ut2004s` and
# `-ut2s`, and asserts that qstat reads the same name, map, player count and maximum. qstat adds 1 to the port it is given (UE2's query port is
# the game port + 1), so it gets the simulator's port - 1. Stops the simulator by PID.
set -euo pipefail
cd "$(dirname "$0")/../.."
NAME="qstat unreal2"
. .ci/interop/lib.sh

qstat_bin() { command -v quakestat || command -v qstat || true; }
if [[ -z $(qstat_bin) ]]; then
    if [[ $(id -u) -eq 0 ]] && apt-cache show qstat >/dev/null 2>&1; then
        interop_install qstat
    fi
fi
QSTAT=$(qstat_bin)
if [[ -z $QSTAT ]]; then
    echo "$NAME: SKIPPED: qstat is not installed and not installable here (apt-get install qstat)" >&2
    exit 0
fi

interop_work
bin=${GSE_BIN:-target/debug/gameserver-exporter}
[[ -x $bin ]] || cargo build --locked -q --bin gameserver-exporter
cargo build --locked -q --example sim_unreal2
target/debug/examples/sim_unreal2 >"$work/sim.log" 2>&1 &
pids+=($!)
for _ in $(seq 50); do grep -q '^addr=' "$work/sim.log" && break; sleep 0.1; done
grep -q '^addr=' "$work/sim.log" || interop_fail "the simulator did not start"
addr=$(sed -n 's/^addr=//p' "$work/sim.log")
port=${addr##*:}
json=$("$bin" query unreal2 "$addr" --json --players --rules --timeout 3s) ||
    interop_fail "query unreal2 $addr failed: $json"
echo "$NAME: our query --json:"
printf '%s\n' "$json" | sed 's/^/    /'
ours=$(python3 -c 'import json, sys
s = json.loads(sys.argv[1])
print("name=%s map=%s players=%d max=%d" % (s["name"], s.get("map") or "", s["online"], s["max"]))' "$json")
echo "$NAME: ours:  $ours"

for kind in ut2004s ut2s; do
    raw=$("$QSTAT" -raw , -P -R "-$kind" "127.0.0.1:$((port - 1))")
    echo "$NAME: qstat -$kind raw output:"
    printf '%s\n' "$raw" | sed 's/^/    /'
    # Server line: TYPE,ADDRESS,NAME,MAP,MAX,PLAYERS,PING,RETRIES
    IFS=, read -r _ _ name map max players _ <<<"$(head -n1 <<<"$raw")"
    theirs="name=$name map=$map players=$players max=$max"
    echo "$NAME: qstat -$kind: $theirs"
    [[ $theirs == "$ours" ]] || interop_fail "-$kind read '$theirs', our decoder '$ours'"
done
echo "$NAME: OK"
