#!/usr/bin/env bash
# QuakeWorld interop against a real server: Debian's mvdsv with the KTX mod (installed when
# missing) on 127.0.0.1, on a map written by qw_minimal_bsp.py (no game data needed). Our
# `query quake1 --json` and qstat -qws must read the same name, map, counts and maximum,
# matching the server's settings. A few seconds.
set -euo pipefail
cd "$(dirname "$0")/../.."
NAME=quake1.sh
. .ci/interop/lib.sh
qstat_require

bin=${1:-target/debug/gameserver-exporter}
[[ -x $bin ]] || cargo build --locked --bin gameserver-exporter
if [[ ! -x /usr/games/mvdsv || ! -e /usr/lib/quakeworld/ktx/qwprogs.so ]]; then
    interop_install mvdsv ktx
fi
interop_work
mkdir -p "$work/id1/maps" "$work/ktx"
ln -s /usr/lib/quakeworld/ktx/qwprogs.so "$work/ktx/qwprogs.so"
python3 .ci/interop/qw_minimal_bsp.py "$work/id1/maps/start.bsp"
port=$(free_udp_port)
(cd "$work" && exec /usr/games/mvdsv -basedir "$work" -game ktx -progtype 1 -ip 127.0.0.1 \
    -port "$port" +hostname InteropQW +maxclients 6 +map start) >"$work/mvdsv.log" 2>&1 &
pids+=($!)
addr=127.0.0.1:$port
json=
for _ in $(seq 50); do
    json=$("$bin" query quake1 "$addr" --json --players --timeout 1s 2>/dev/null) && break
    json=
    sleep 0.2
done
[[ -n $json ]] || interop_fail "mvdsv never answered query quake1 on $addr"
echo "$NAME: ours: $json"
ours=$(ours_summary "$json")
raw=$("$QSTAT" -raw , -P -R -qws "$addr") || interop_fail "qstat -qws failed"
theirs=$(qstat_summary <<<"$raw")
echo "$NAME: ours:  $ours"
echo "$NAME: qstat: $theirs"
[[ $theirs == "$ours" ]] || interop_fail "qstat -qws read '$theirs', our CLI '$ours'"
[[ $ours == "name=InteropQW map=start online=0 max=6 players=" ]] ||
    interop_fail "mvdsv's settings not read back: $ours"
echo "$NAME: passed"
