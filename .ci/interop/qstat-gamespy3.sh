#!/usr/bin/env bash
# qstat, a client written against real servers, reads our GameSpy 3 simulator: the same
# name, map, player count, maximum and player names as `gameserver-exporter query gamespy3
# --json` (the exporter's real poll path) reads.
#   -gs4 (handshake, then the request with the challenge; a reply split into parts)
#   -gs3 (no handshake: the Battlefield 2 style server that takes requests without one)
# Debian's qstat package installs the client as `quakestat`. A few seconds.
set -euo pipefail
cd "$(dirname "$0")/../.."
NAME=qstat-gamespy3
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

cargo build --locked --quiet --example sim_gamespy3 --bin gameserver-exporter
interop_work

# check LABEL QSTAT_FLAG SIM_ARGS...
check() {
    local label=$1 flag=$2
    shift 2
    local log="$work/$label.log"
    target/debug/examples/sim_gamespy3 "$@" >"$log" 2>&1 &
    pids+=($!)
    local i
    for ((i = 0; i < 100; i++)); do
        grep -q '^addr ' "$log" && break
        kill -0 "${pids[-1]}" 2>/dev/null || interop_fail "$label: simulator exited"
        sleep 0.1
    done
    grep -q '^addr ' "$log" || interop_fail "$label: the simulator printed no address"
    local addr ours raw json
    addr=$(awk '/^addr /{print $2}' "$log")
    json=$(target/debug/gameserver-exporter query gamespy3 "$addr" --json --players --timeout 3s) ||
        interop_fail "$label: query gamespy3 failed"
    echo "$NAME: $label: query gamespy3 --json says: $(printf '%s' "$json" | tr -d '\n' | tr -s ' ' | cut -c1-400)..."
    ours=$(printf '%s' "$json" | python3 -c '
import json, sys
s = json.load(sys.stdin)
names = "|".join(p["name"] for p in s.get("players") or [])
print("ours name=%s map=%s online=%s max=%s players=%s" % (s["name"], s.get("map") or "", s["online"], s["max"], names))')
    raw=$("$QSTAT" "$flag" "$addr" -P -R -raw , -timeout 5) || interop_fail "$label: qstat failed"
    echo "$NAME: $label: $ours"
    echo "$NAME: $label: qstat $flag says:"
    printf '%s\n' "$raw" | sed "s/^/    /"
    # -raw ,: TYPE,addr,name,map,max,online,ping,retries; then the rules; then one line per
    # player (name,score,...), newest first.
    local theirs
    theirs=$(printf '%s\n' "$raw" | awk -F, 'NR == 1 { head = sprintf("name=%s map=%s online=%s max=%s", $3, $4, $6, $5) }
        NR > 2 && NF > 1 { names[n++] = $1 }
        END { s = ""; for (i = n - 1; i >= 0; i--) s = s (s == "" ? "" : "|") names[i]; print "ours " head " players=" s }')
    [[ $theirs == "$ours" ]] || interop_fail "$label: qstat read
  $theirs
but query gamespy3 read
  $ours"
    echo "$NAME: $label: OK"
}

check split -gs4 --players 40 --part-len 300
check no-challenge -gs3 --no-challenge --players 3
echo "$NAME: passed"
