#!/usr/bin/env bash
# Quake 2 interop: no Quake 2 server in Debian runs without the commercial data, so the
# simulator (examples/sim_serve quake2) is read by qstat (-q2s) and gamedig 5.3.3 (type
# quake2), which must show the same name, map, counts and player names as
# `gameserver-exporter query quake2 ADDR --json --players`. A few seconds.
set -euo pipefail
cd "$(dirname "$0")/../.."
NAME=quake2.sh
. .ci/interop/lib.sh
. .ci/interop/thirdparty.sh
qstat_require

sim_serve_build "$@"
interop_work
sim_start quake2
port=${sim_addr##*:}

json=$("$bin" query quake2 "$sim_addr" --json --players --timeout 2s) || interop_fail "query quake2 failed"
ours=$(ours_summary "$json")
raw=$("$QSTAT" -raw , -P -R -q2s "$sim_addr") || interop_fail "qstat -q2s failed"
theirs=$(qstat_summary <<<"$raw")
echo "$NAME: ours:  $ours"
echo "$NAME: qstat: $theirs"
[[ $theirs == "$ours" ]] || interop_fail "qstat -q2s read '$theirs', our CLI '$ours'"

need_gamedig
if [[ -n $gamedig_dir ]]; then
    gamedig_query quake2 "$port" >"$work/gamedig.json" 2>"$work/gamedig.log" || interop_fail "gamedig"
    echo "$NAME: gamedig: $(cat "$work/gamedig.json")"
    python3 - "$json" "$work/gamedig.json" <<'PY' || interop_fail "gamedig disagrees"
import json, sys
ours, g = json.loads(sys.argv[1]), json.load(open(sys.argv[2]))
names = sorted(p["name"] for p in g["players"] + g["bots"])
assert g["name"] == ours["name"], (g["name"], ours["name"])
assert g["map"] == ours["map"], (g["map"], ours["map"])
assert int(g["maxplayers"]) == ours["max"], (g["maxplayers"], ours["max"])
assert len(names) == ours["online"], (names, ours["online"])
assert names == sorted(p["name"] for p in ours["players"]), names
PY
fi
echo "$NAME: passed"
