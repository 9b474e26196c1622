#!/usr/bin/env bash
# Farming Simulator interop: no dedicated server runs outside the game's Windows install, so
# the simulator (examples/sim_serve farmingsimulator --code CODE: the stats feed, answering
# only with ?code=CODE) is read by qstat (-farmsim,code=CODE: name, map, counts) and
# gamedig 5.3.3 (type farmingsimulator22, its `token` option carrying the code: name, map,
# version, counts, player names), which must read what
# `gameserver-exporter query farmingsimulator ADDR --code-file F --json --players` does.
# opengsq 3.7.0 has no reader for this feed. A few seconds.
set -euo pipefail
cd "$(dirname "$0")/../.."
NAME=farmingsimulator.sh
. .ci/interop/lib.sh
. .ci/interop/thirdparty.sh
qstat_require

sim_serve_build "$@"
interop_work
code=Xy7feedcode
printf '%s\n' "$code" >"$work/code"
chmod 0600 "$work/code"
sim_start farmingsimulator --code "$code"
port=${sim_addr##*:}

json=$("$bin" query farmingsimulator "$sim_addr" --code-file "$work/code" --json --players --timeout 2s) ||
    interop_fail "query farmingsimulator failed"
echo "$NAME: ours: $json"
[[ $json != *"$code"* ]] || interop_fail "the code shows in our output"
# Without the code the simulator refuses, as a server wanting one does.
if "$bin" query farmingsimulator "$sim_addr" --json --timeout 2s >"$work/nocode.json" 2>&1; then
    interop_fail "a poll without the code was not refused"
fi

ours=$(python3 -c 'import json, sys
s = json.loads(sys.argv[1])
print("name=%s map=%s online=%s max=%s" % (s["name"], s.get("map") or "", s["online"], s["max"]))' "$json")
raw=$("$QSTAT" -raw , -R "-farmsim,code=$code" "$sim_addr") || interop_fail "qstat -farmsim failed"
theirs=$(python3 -c 'import sys
head = sys.stdin.read().splitlines()[0].split(",")
print("name=%s map=%s online=%s max=%s" % (head[2], head[3], head[5], head[4]))' <<<"$raw")
echo "$NAME: qstat: $raw"
[[ $theirs == "$ours" ]] || interop_fail "qstat -farmsim read '$theirs', our CLI '$ours'"
echo "$NAME: qstat agrees: $theirs"

need_gamedig
if [[ -n $gamedig_dir ]]; then
    gamedig_query farmingsimulator22 "$port" "{\"token\": \"$code\"}" >"$work/gamedig.json" 2>"$work/gamedig.log" ||
        interop_fail "gamedig"
    echo "$NAME: gamedig: $(python3 -c 'import json,sys; g=json.load(open(sys.argv[1])); g["raw"].pop("data", None); print(json.dumps(g))' "$work/gamedig.json")"
    python3 - "$json" "$work/gamedig.json" <<'PY' || interop_fail "gamedig disagrees"
import json, sys
ours, g = json.loads(sys.argv[1]), json.load(open(sys.argv[2]))
want = (ours["name"], ours["map"], ours["version"], ours["online"], ours["max"])
got = (g["name"], g["map"], g["version"], int(g["numplayers"]), int(g["maxplayers"]))
assert got == want, (got, want)
theirs = [p["name"] for p in g["players"]]
mine = [p["name"] for p in ours["players"] or []]
assert theirs == mine, (theirs, mine)
# uptime: minutes in the feed, seconds in ours.
assert [p["raw"]["uptime"] * 60 for p in g["players"]] == [p["duration"] for p in ours["players"]], g["players"]
print("farmingsimulator.sh: gamedig agrees:", got, theirs)
PY
fi
echo "$NAME: ok"
