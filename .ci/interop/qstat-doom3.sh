#!/usr/bin/env bash
# Cross-reads the id Tech 4 simulator with qstat (Debian's `qstat` package, binary
# `quakestat`), once per layout: examples/sim_doom3 DIALECT prints its address; our CLI
# (`gameserver-exporter query doom3 ADDR --json`, which reads the layout from the reply) and
# qstat (-dm3s, -q4s, -etqws, -wolfs) must read the same name, map, player count and
# maximum. Stops every simulator it started by PID.
set -euo pipefail
cd "$(dirname "$0")/../.."
NAME="qstat doom3"
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
cargo build --locked -q --example sim_doom3

for pair in doom3:dm3s quake4:q4s etqw:etqws wolfenstein:wolfs; do
    dialect=${pair%%:*}
    kind=${pair##*:}
    log="$work/sim-$dialect.log"
    target/debug/examples/sim_doom3 "$dialect" >"$log" 2>&1 &
    pids+=($!)
    for _ in $(seq 50); do grep -q '^addr=' "$log" && break; sleep 0.1; done
    grep -q '^addr=' "$log" || interop_fail "the $dialect simulator did not start"
    addr=$(sed -n 's/^addr=//p' "$log")
    json=$("$bin" query doom3 "$addr" --json --players --timeout 3s) ||
        interop_fail "query doom3 $addr ($dialect) failed: $json"
    echo "$NAME: $dialect our query --json: $(tr -s ' \n' ' ' <<<"$json" | cut -c1-400)"
    ours=$(python3 -c 'import json, sys
s = json.loads(sys.argv[1])
print("name=%s map=%s players=%d max=%d" % (s["name"], s.get("map") or "", s["online"], s["max"]))' "$json")
    raw=$("$QSTAT" -raw , -P -R "-$kind" "$addr")
    echo "$NAME: qstat -$kind raw output:"
    printf '%s\n' "$raw" | sed 's/^/    /'
    # Server line: TYPE,ADDRESS,NAME,MAP,MAX,PLAYERS,PING,RETRIES
    IFS=, read -r _ _ name map max players _ <<<"$(head -n1 <<<"$raw")"
    theirs="name=$name map=$map players=$players max=$max"
    echo "$NAME: $dialect ours:  $ours"
    echo "$NAME: $dialect qstat: $theirs"
    [[ $theirs == "$ours" ]] || interop_fail "-$kind read '$theirs', our decoder '$ours'"
done
echo "$NAME: OK"
