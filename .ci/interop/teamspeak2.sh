#!/usr/bin/env bash
# TeamSpeak 2 interop: no TeamSpeak 2 server is packaged in Debian (its last release is a
# 2008 binary), so the simulator (examples/sim_serve teamspeak2: the TCP query port, voice
# port 8767) is read by qstat (-ts2,port=8767: `si 8767`, `pl 8767`, `quit` in one write) and
# gamedig 5.3.3 (type teamspeak2: `sel 8767`, `si`, `pl`, `cl`), which must show the same
# name, counts, password and player names (and qstat the pings) as
# `gameserver-exporter query teamspeak2 ADDR --json --players`. opengsq 3.7.0 has no
# TeamSpeak 2 protocol. A few seconds.
set -euo pipefail
cd "$(dirname "$0")/../.."
NAME=teamspeak2.sh
. .ci/interop/lib.sh
. .ci/interop/thirdparty.sh
qstat_require

bin=${1:-target/debug/gameserver-exporter}
[[ -x $bin ]] || cargo build --locked --bin gameserver-exporter
cargo build --locked --quiet --example sim_serve
interop_work
sim_start teamspeak2
port=${sim_addr##*:}

"$bin" query teamspeak2 "$sim_addr" --json --players --timeout 2s >"$work/ours.json" 2>"$work/query.log" ||
    interop_fail "query teamspeak2 exited $?"
echo "$NAME: ours: $(tr -s " \n" " " <"$work/ours.json")"

"$QSTAT" -raw , -P -R -ts2,port=8767 "$sim_addr" >"$work/qstat.txt" 2>"$work/qstat.log" ||
    interop_fail "qstat -ts2 failed"
echo "$NAME: qstat raw: $(tr '\n' ' ' <"$work/qstat.txt")"
python3 - "$work/ours.json" "$work/qstat.txt" <<'PY' || interop_fail "qstat disagrees"
import json, sys
ours = json.load(open(sys.argv[1]))
lines = open(sys.argv[2]).read().splitlines()
# TS2,ADDRESS(voice port),NAME,MAP,MAX,ONLINE,PING,RETRIES; the rules; then name,ping,,time
head = lines[0].split(",")
got = (head[2], int(head[4]), int(head[5]))
want = (ours["name"], ours["max"], ours["online"])
assert got == want, (got, want)
rules = dict(kv.split("=", 1) for kv in lines[1].split(",") if "=" in kv)
assert rules["server_password"] == str(int(ours["password"])), rules
theirs = sorted((l.split(",")[0], int(l.split(",")[1])) for l in lines[2:] if l.count(",") >= 3)
mine = sorted((p["name"], p["ping"]) for p in ours["players"] or [])
assert theirs == mine and len(mine) == ours["online"], (theirs, mine)
print("teamspeak2.sh: qstat agrees:", got, theirs)
PY

need_gamedig
if [[ -n $gamedig_dir ]]; then
    gamedig_query teamspeak2 8767 "{\"teamspeakQueryPort\": $port}" >"$work/gamedig.json" 2>"$work/gamedig.log" ||
        interop_fail "gamedig"
    echo "$NAME: gamedig: $(cat "$work/gamedig.json")"
    python3 - "$work/ours.json" "$work/gamedig.json" <<'PY' || interop_fail "gamedig disagrees"
import json, sys
ours, g = (json.load(open(p)) for p in sys.argv[1:3])
# gamedig leaves maxplayers at 0 (it maps no si key to it): the capacity is in its raw si.
got = (g["name"], int(g["numplayers"]), int(g["raw"]["server_maxusers"]), g["password"])
want = (ours["name"], ours["online"], ours["max"], ours["password"])
assert got == want, (got, want)
theirs = [(p["name"], int(p["raw"]["ping"]), int(p["raw"]["logintime"])) for p in g["players"]]
mine = [(p["name"], p["ping"], int(p["duration"])) for p in ours["players"] or []]
assert theirs == mine, (theirs, mine)
print("teamspeak2.sh: gamedig agrees:", got, theirs)
PY
fi
echo "$NAME: ok"
