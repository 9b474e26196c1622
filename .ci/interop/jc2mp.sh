#!/usr/bin/env bash
# Just Cause 2 Multiplayer interop: the server is closed source and not packaged, and gamedig
# is the only third-party reader of its GameSpy 3 dialect (qstat's -gs3 and opengsq's
# GameSpy3 send FF FF FF 01, not JC2-MP's FF FF FF 02). gamedig 5.3.3 (type jc2m) must read
# the simulator (examples/sim_serve jc2mp) as `gameserver-exporter query jc2mp ADDR --json
# --players` does: name, version, counts, player names, Steam ids and pings. A few seconds.
set -euo pipefail
cd "$(dirname "$0")/../.."
NAME=jc2mp.sh
. .ci/interop/lib.sh
. .ci/interop/thirdparty.sh

bin=${1:-target/debug/gameserver-exporter}
[[ -x $bin ]] || cargo build --locked --bin gameserver-exporter
cargo build --locked --quiet --example sim_serve
interop_work
sim_start jc2mp
port=${sim_addr##*:}

json=$("$bin" query jc2mp "$sim_addr" --json --players --timeout 2s) || interop_fail "query jc2mp failed"
echo "$NAME: ours:  $(ours_summary "$json")"

need_gamedig
if [[ -z $gamedig_dir ]]; then
    echo "$NAME: SKIPPING: gamedig could not be installed (the only JC2-MP reader)" >&2
    exit 0
fi
gamedig_query jc2m "$port" >"$work/gamedig.json" 2>"$work/gamedig.log" || interop_fail "gamedig"
echo "$NAME: gamedig: $(cat "$work/gamedig.json")"
python3 - "$json" "$work/gamedig.json" <<'PY' || interop_fail "gamedig disagrees"
import json, sys
ours, g = json.loads(sys.argv[1]), json.load(open(sys.argv[2]))
assert g["name"] == ours["name"], (g["name"], ours["name"])
assert g["version"] == ours["version"], (g["version"], ours["version"])
assert int(g["maxplayers"]) == ours["max"], (g["maxplayers"], ours["max"])
assert int(g["numplayers"]) == ours["online"], (g["numplayers"], ours["online"])
theirs = [(p["name"], p["raw"]["steamid"], p["raw"]["ping"]) for p in g["players"]]
mine = [(p["name"], p["id"], p["ping"]) for p in ours["players"]]
assert theirs == mine, (theirs, mine)
print("jc2mp.sh: gamedig agrees:", g["name"], g["version"], g["numplayers"], g["maxplayers"], theirs)
PY
echo "$NAME: passed"
