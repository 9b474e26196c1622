#!/usr/bin/env bash
# HexenWorld interop: no Hexen II server is packaged in Debian, so the simulator
# (examples/sim_serve hexen2: QuakeWorld's status behind a fifth FF) is read by qstat (-hws)
# and gamedig 5.3.3 (type hexen2), which must show the same name, map, counts and player
# names as `gameserver-exporter query hexen2 ADDR --json --players`. A few seconds.
set -euo pipefail
cd "$(dirname "$0")/../.."
NAME=hexen2.sh
. .ci/interop/lib.sh
. .ci/interop/thirdparty.sh
qstat_require

sim_serve_build "$@"
interop_work
sim_start hexen2
port=${sim_addr##*:}

json=$("$bin" query hexen2 "$sim_addr" --json --players --timeout 2s) || interop_fail "query hexen2 failed"
ours=$(ours_summary "$json")
raw=$("$QSTAT" -raw , -P -R -hws "$sim_addr") || interop_fail "qstat -hws failed"
# qstat's HexenWorld player lines start with the user id: the name is the second column.
theirs=$(python3 -c 'import sys
lines = sys.stdin.read().splitlines()
head = lines[0].split(",")
names = "|".join(sorted(l.split(",")[1] for l in lines[2:] if l.count(",") > 1))
print("name=%s map=%s online=%s max=%s players=%s" % (head[2], head[3], head[5], head[4], names))' <<<"$raw")
echo "$NAME: ours:  $ours"
echo "$NAME: qstat raw: $(tr '\n' ' ' <<<"$raw")"
echo "$NAME: qstat: $theirs"
[[ $theirs == "$ours" ]] || interop_fail "qstat -hws read '$theirs', our CLI '$ours'"

need_gamedig
if [[ -n $gamedig_dir ]]; then
    gamedig_query hexen2 "$port" >"$work/gamedig.json" 2>"$work/gamedig.log" || interop_fail "gamedig"
    echo "$NAME: gamedig: $(cat "$work/gamedig.json")"
    python3 - "$json" "$work/gamedig.json" <<'PY' || interop_fail "gamedig disagrees"
import json, sys
ours, g = json.loads(sys.argv[1]), json.load(open(sys.argv[2]))
# gamedig files players with ping 0 under bots, as it does for QuakeWorld.
names = sorted(p["name"] for p in g["players"] + g["bots"])
assert g["name"] == ours["name"], (g["name"], ours["name"])
# gamedig's Quake family takes its map from `mapname` only; QuakeWorld and HexenWorld send
# `map`, so gamedig's top-level map stays empty and the value is in its raw variables.
assert g["map"] == "" and g["raw"]["map"] == ours["map"], (g["map"], g["raw"].get("map"), ours["map"])
assert int(g["maxplayers"]) == ours["max"], (g["maxplayers"], ours["max"])
assert len(names) == ours["online"], (names, ours["online"])
assert names == sorted(p["name"] for p in ours["players"]), names
print("hexen2.sh: gamedig agrees:", g["name"], g["raw"]["map"], g["maxplayers"], names)
PY
fi
echo "$NAME: passed"
