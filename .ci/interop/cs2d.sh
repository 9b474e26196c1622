#!/usr/bin/env bash
# CS2D interop: the server is closed source and not packaged, and gamedig is the only reader
# of its query that runs here (qstat 2.17 and opengsq 3.7.0 have none). gamedig 5.3.3 (type
# c2d) must read the simulator (examples/sim_serve cs2d) as `gameserver-exporter query cs2d
# ADDR --json --players` does: name, map, counts, bots, password, player ids, names, scores.
set -euo pipefail
cd "$(dirname "$0")/../.."
NAME=cs2d.sh
. .ci/interop/lib.sh
. .ci/interop/thirdparty.sh

bin=${1:-target/debug/gameserver-exporter}
[[ -x $bin ]] || cargo build --locked --bin gameserver-exporter
cargo build --locked --quiet --example sim_serve
interop_work
sim_start cs2d
port=${sim_addr##*:}

json=$("$bin" query cs2d "$sim_addr" --json --players --timeout 2s) || interop_fail "query cs2d failed"
echo "$NAME: ours:  $(ours_summary "$json")"

need_gamedig
if [[ -z $gamedig_dir ]]; then
    echo "$NAME: SKIPPING: gamedig could not be installed (the only CS2D reader)" >&2
    exit 0
fi
gamedig_query c2d "$port" >"$work/gamedig.json" 2>"$work/gamedig.log" || interop_fail "gamedig"
echo "$NAME: gamedig: $(cat "$work/gamedig.json")"
python3 - "$json" "$work/gamedig.json" <<'PY' || interop_fail "gamedig disagrees"
import json, sys
ours, g = json.loads(sys.argv[1]), json.load(open(sys.argv[2]))
assert g["name"] == ours["name"] and g["map"] == ours["map"], (g["name"], g["map"])
assert (g["numplayers"], g["maxplayers"]) == (ours["online"], ours["max"])
assert g["raw"]["numbots"] == ours["bots"], (g["raw"]["numbots"], ours["bots"])
assert g["password"] == ours["password"], (g["password"], ours["password"])
theirs = [(str(p["raw"]["id"]), p["name"], p["raw"]["score"]) for p in g["players"]]
mine = [(p["id"], p["name"], p["score"]) for p in ours["players"]]
assert theirs == mine, (theirs, mine)
print("cs2d.sh: gamedig agrees:", g["name"], g["map"], g["numplayers"], g["maxplayers"], theirs)
PY
echo "$NAME: passed"
