#!/usr/bin/env bash
# Interop check of the GameSpy 1 simulator against a third-party reader: Debian's qstat
# (`quakestat -gps`). For each datagram layout the simulator knows (Unreal's numbered parts,
# query id first, netPanzer's single bare datagram) it starts `examples/gamespy1 serve` with a
# known name, map, player count and maximum, reads it with qstat and with the exporter's own
# CLI (`gameserver-exporter query gamespy1 ADDR --json --players`), and asserts both read
# exactly those values. 20 players make the
# numbered layouts several datagrams long. Stops every process it started by PID. A few seconds.
#
# Usage: .ci/interop/qstat-gamespy1.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
NAME=qstat-gamespy1.sh
. .ci/interop/lib.sh

interop_install qstat
qstat=$(command -v quakestat || command -v qstat || true)
[[ -n $qstat ]] || { echo "$NAME: SKIP: no quakestat/qstat binary after installing qstat" >&2; exit 0; }

cargo build --locked --quiet --example gamespy1 --bin gameserver-exporter
example=target/debug/examples/gamespy1
cli=target/debug/gameserver-exporter

interop_work
name="Interop GameSpy One"
map="CTF-Face"
players=20
max=24
for style in unreal first bare; do
    "$example" serve "$name" "$map" "$players" "$max" "$style" >"$work/sim-$style.out" 2>"$work/sim-$style.log" &
    pids+=($!)
    addr=
    for _ in $(seq 50); do
        addr=$(head -n1 "$work/sim-$style.out" 2>/dev/null || true)
        [[ -n $addr ]] && break
        sleep 0.1
    done
    [[ -n $addr ]] || interop_fail "simulator ($style) printed no address"

    # -raw: GPS,address,name,map,max,online,ping,retries
    raw=$("$qstat" -gps "$addr" -raw , -P -R -timeout 3)
    echo "$NAME: qstat ($style):"
    echo "$raw" | head -n 3
    IFS=, read -r kind qaddr qname qmap qmax qonline _ <<<"$(echo "$raw" | head -n1)"
    [[ $kind == GPS && $qaddr == "$addr" ]] || interop_fail "qstat did not answer for $addr: $raw"
    qplayers=$(echo "$raw" | tail -n +3 | grep -c . || true)

    json=$("$cli" query gamespy1 "$addr" --json --players)
    echo "$NAME: ours ($style): $(echo "$json" | tr -d '\n' | cut -c1-300)"
    ours=$(echo "$json" | python3 -c '
import json, sys
s = json.load(sys.stdin)
print(f"name={s['"'"'name'"'"']}\nmap={s['"'"'map'"'"']}\nonline={s['"'"'online'"'"']}\nmax={s['"'"'max'"'"']}")
print("players=" + ",".join(p["name"] for p in s["players"] or []))')
    field() { echo "$ours" | sed -n "s/^$1=//p"; }
    oplayers=$(field players | tr ',' '\n' | grep -c . || true)

    expect="$name|$map|$players|$max|$players"
    [[ "$qname|$qmap|$qonline|$qmax|$qplayers" == "$expect" ]] ||
        interop_fail "qstat ($style) read $qname|$qmap|$qonline|$qmax|$qplayers, expected $expect"
    [[ "$(field name)|$(field map)|$(field online)|$(field max)|$oplayers" == "$expect" ]] ||
        interop_fail "our CLI ($style) read $(field name)|$(field map)|$(field online)|$(field max)|$oplayers, expected $expect"
done
echo "$NAME: ok: qstat and our CLI agree on name, map, online, max and players in 3 layouts"
