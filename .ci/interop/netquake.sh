#!/usr/bin/env bash
# NetQuake interop against a real server: Debian's quakespasm (-dedicated) in a network
# namespace of its own (`unshare -n`, only `lo` up: it binds 0.0.0.0 whatever -ip says), on
# game data written here in a temp dir (netquake_data.py: a one-plane map and a one-triangle
# player model in quakespasm.pak; progs.dat compiled by Debian's fteqcc from
# netquake_progs.qc; no id data needed). One scripted client (netquake_bot.py) joins as
# "Ranger". Our `query netquake --json --players --rules` and qstat -qs must read the same
# name, map, counts, maximum, player and rules, matching the server's settings. A few seconds.
#
# Usage: .ci/interop/netquake.sh [BIN]
set -euo pipefail
cd "$(dirname "$0")/../.."
NAME=netquake.sh
. .ci/interop/lib.sh

bin=${1:-target/debug/gameserver-exporter}
if [[ ${GSE_NETQUAKE_NETNS:-} != 1 ]]; then
    interop_install quakespasm fteqcc qstat iproute2
    [[ -x $bin ]] || cargo build --locked --bin gameserver-exporter
    for ns in "unshare -n" "unshare -rn"; do
        if $ns true 2>/dev/null; then
            exec $ns env GSE_NETQUAKE_NETNS=1 bash "$0" "$bin"
        fi
    done
    echo "$NAME: SKIPPED: cannot make a network namespace (unshare -n / -rn); quakespasm binds 0.0.0.0" >&2
    exit 0
fi

# Inside the namespace from here on: a fixed port cannot clash with anything.
ip link set lo up
qstat_require
interop_work
python3 .ci/interop/netquake_data.py "$work"
mkdir -p "$work/qc"
cp .ci/interop/netquake_progs.qc "$work/qc/progs.qc"
printf '../id1/progs.dat\nprogs.qc\n' >"$work/qc/progs.src"
(cd "$work/qc" && fteqcc) >"$work/fteqcc.log" 2>&1 || interop_fail "fteqcc could not compile netquake_progs.qc"
# Command-line +cvars are not applied by this build when dedicated; autoexec.cfg is.
printf 'hostname InteropNQ\nmaxplayers 6\nmap start\n' >"$work/id1/autoexec.cfg"
port=26000
/usr/games/quakespasm -dedicated 6 -basedir "$work" -ip 127.0.0.1 -port "$port" \
    >"$work/quakespasm.log" 2>&1 &
pids+=($!)
addr=127.0.0.1:$port
for _ in $(seq 50); do
    "$bin" query netquake "$addr" --json --timeout 1s >/dev/null 2>&1 && break
    sleep 0.2
done
python3 .ci/interop/netquake_bot.py "$port" Ranger 30 >"$work/bot.log" 2>&1 &
pids+=($!)
json=
for _ in $(seq 50); do
    json=$("$bin" query netquake "$addr" --json --players --rules --timeout 1s 2>/dev/null) || json=
    [[ $json == *'"Ranger"'* ]] && break
    sleep 0.2
done
[[ -n $json ]] || interop_fail "quakespasm never answered query netquake on $addr"
echo "$NAME: ours: $json"
ours=$(ours_summary "$json")
raw=$("$QSTAT" -raw , -P -R -qs "$addr") || interop_fail "qstat -qs failed"
echo "$NAME: qstat raw: $raw"
# qstat -qs: TYPE,ADDRESS,NAME,HOSTADDRESS,PROTOCOL,MAP,MAX,ONLINE,...; rules; players
# NUMBER,NAME,ADDRESS,FRAGS,...
theirs=$(python3 -c 'import sys
lines = sys.stdin.read().splitlines()
head = lines[0].split(",")
names = "|".join(sorted(l.split(",")[1] for l in lines[2:] if l.count(",") >= 2))
print("name=%s map=%s online=%s max=%s players=%s" % (head[2], head[5], head[7], head[6], names))' <<<"$raw")
echo "$NAME: ours:  $ours"
echo "$NAME: qstat: $theirs"
[[ $theirs == "$ours" ]] || interop_fail "qstat -qs read '$theirs', our CLI '$ours'"
[[ $ours == "name=InteropNQ map=start online=1 max=6 players=Ranger" ]] ||
    interop_fail "quakespasm's settings not read back: $ours"
# The rule chain: ours in the server's order, as qstat's second line lists them.
our_rules=$(python3 -c 'import json, sys
print(",".join("%s=%s" % tuple(r) for r in json.loads(sys.argv[1])["rules"] or []))' "$json")
their_rules=$(sed -n 2p <<<"$raw")
echo "$NAME: rules ours:  $our_rules"
echo "$NAME: rules qstat: $their_rules"
[[ -n $our_rules && $our_rules == "$their_rules" ]] || interop_fail "rules differ: '$our_rules' vs '$their_rules'"
echo "$NAME: passed"
