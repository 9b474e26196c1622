#!/usr/bin/env bash
# Interop check of the GameSpy 2 simulator against a third-party reader: Debian's qstat
# (`quakestat -gs2`). With and without the tables' count bytes (America's Army leaves them
# out), it starts `examples/gamespy2 serve` with a known name, map, player count and maximum,
# reads it with qstat and with the exporter's CLI (`gameserver-exporter query gamespy2 ADDR
# --json --players`), and asserts both read
# exactly those values (qstat only where the count bytes are there: it needs them). Stops
# every process it started by PID. A few seconds.
#
# Usage: .ci/interop/qstat-gamespy2.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
NAME=qstat-gamespy2.sh
. .ci/interop/lib.sh

interop_install qstat
qstat=$(command -v quakestat || command -v qstat || true)
[[ -n $qstat ]] || { echo "$NAME: SKIP: no quakestat/qstat binary after installing qstat" >&2; exit 0; }

cargo build --locked --quiet --example gamespy2 --bin gameserver-exporter
example=target/debug/examples/gamespy2
cli=target/debug/gameserver-exporter

interop_work
name="Interop GameSpy Two"
map="Hue 1968"
players=20
max=64
expect="$name|$map|$players|$max|$players"
for counts in counts nocounts; do
    "$example" serve "$name" "$map" "$players" "$max" "$counts" >"$work/sim-$counts.out" 2>"$work/sim-$counts.log" &
    pids+=($!)
    addr=
    for _ in $(seq 50); do
        addr=$(head -n1 "$work/sim-$counts.out" 2>/dev/null || true)
        [[ -n $addr ]] && break
        sleep 0.1
    done
    [[ -n $addr ]] || interop_fail "simulator ($counts) printed no address"

    # -raw: GS2,address,name,map,max,online,ping,retries
    raw=$("$qstat" -gs2 "$addr" -raw , -P -R -timeout 3)
    echo "$NAME: qstat ($counts):"
    echo "$raw" | head -n 3
    if [[ $counts == counts ]]; then
        IFS=, read -r kind qaddr qname qmap qmax qonline _ <<<"$(echo "$raw" | head -n1)"
        [[ $kind == GS2 && $qaddr == "$addr" ]] || interop_fail "qstat did not answer for $addr: $raw"
        qplayers=$(echo "$raw" | tail -n +3 | grep -c . || true)
        [[ "$qname|$qmap|$qonline|$qmax|$qplayers" == "$expect" ]] ||
            interop_fail "qstat ($counts) read $qname|$qmap|$qonline|$qmax|$qplayers, expected $expect"
    fi

    json=$("$cli" query gamespy2 "$addr" --json --players)
    echo "$NAME: ours ($counts): $(echo "$json" | tr -d '\n' | cut -c1-300)"
    ours=$(echo "$json" | python3 -c '
import json, sys
s = json.load(sys.stdin)
print(f"name={s['"'"'name'"'"']}\nmap={s['"'"'map'"'"']}\nonline={s['"'"'online'"'"']}\nmax={s['"'"'max'"'"']}")
print("players=" + ",".join(p["name"] for p in s["players"] or []))')
    field() { echo "$ours" | sed -n "s/^$1=//p"; }
    oplayers=$(field players | tr ',' '\n' | grep -c . || true)
    [[ "$(field name)|$(field map)|$(field online)|$(field max)|$oplayers" == "$expect" ]] ||
        interop_fail "our CLI ($counts) read $(field name)|$(field map)|$(field online)|$(field max)|$oplayers, expected $expect"
done
echo "$NAME: ok: qstat and our CLI agree on name, map, online, max and players"
