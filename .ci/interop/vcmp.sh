#!/usr/bin/env bash
# Vice City Multiplayer interop: the VC:MP server is closed source and not packaged, so the
# simulator (examples/sim_serve vcmp: SA:MP's query with VCMP/MP04 headers, a version in `i`,
# names alone in `c` as the VC:MP wiki documents) is read by opengsq 3.7.0 (Vcmp), which must
# show exactly what `gameserver-exporter query vcmp ADDR --json --players` shows, and by
# gamedig 5.3.3 (vcm), which must agree on everything but the player list (it reads a score
# after each name, which VC:MP does not send: docs/protocols/vcmp.md). A few seconds.
set -euo pipefail
cd "$(dirname "$0")/../.."
NAME=vcmp.sh
. .ci/interop/lib.sh
. .ci/interop/thirdparty.sh

bin=${1:-target/debug/gameserver-exporter}
[[ -x $bin ]] || cargo build --locked --bin gameserver-exporter
cargo build --locked --quiet --example sim_serve
interop_work
sim_start vcmp
port=${sim_addr##*:}

json=$("$bin" query vcmp "$sim_addr" --json --players --timeout 2s) || interop_fail "query vcmp failed"
echo "$NAME: ours:  $(ours_summary "$json")"

need_opengsq
if [[ -n $opengsq_py ]]; then
    "$opengsq_py" - "$port" "$json" <<'PY' || interop_fail "opengsq disagrees"
import asyncio, json, sys
from opengsq.protocols.vcmp import Vcmp
port, ours = int(sys.argv[1]), json.loads(sys.argv[2])
async def main():
    v = Vcmp(host="127.0.0.1", port=port, timeout=2.0)
    return await v.get_status(), await v.get_players()
s, players = asyncio.run(main())
print("vcmp.sh: opengsq:", s, players)
assert s.server_name == ours["name"], (s.server_name, ours["name"])
assert s.version == ours["version"], (s.version, ours["version"])
assert s.game_type == ours["game"], (s.game_type, ours["game"])
assert s.language == ours["map"], (s.language, ours["map"])  # opengsq calls the map language
assert (s.num_players, s.max_players) == (ours["online"], ours["max"])
assert bool(s.password) == ours["password"], (s.password, ours["password"])
assert [p.name for p in players] == [p["name"] for p in ours["players"]], players
print("vcmp.sh: opengsq agrees")
PY
fi

need_gamedig
if [[ -n $gamedig_dir ]]; then
    gamedig_query vcm "$port" >"$work/gamedig.json" 2>"$work/gamedig.log" || interop_fail "gamedig"
    echo "$NAME: gamedig: $(cat "$work/gamedig.json")"
    python3 - "$json" "$work/gamedig.json" <<'PY' || interop_fail "gamedig disagrees"
import json, sys
ours, g = json.loads(sys.argv[1]), json.load(open(sys.argv[2]))
assert g["name"] == ours["name"], (g["name"], ours["name"])
assert g["version"] == ours["version"], (g["version"], ours["version"])
assert g["raw"]["gamemode"] == ours["game"] and g["raw"]["map"] == ours["map"], g["raw"]
assert (g["numplayers"], g["maxplayers"]) == (ours["online"], ours["max"])
# gamedig reads a 4-byte score after each name: with more than one player only the first
# name survives (docs/protocols/vcmp.md).
assert len(g["players"]) == len(ours["players"]), g["players"]
assert g["players"][0]["name"] == ours["players"][0]["name"], g["players"]
print("vcmp.sh: gamedig agrees on the status and the first name; its list after that is",
      [p["name"] for p in g["players"]])
PY
fi
[[ -n ${opengsq_py}${gamedig_dir} ]] || echo "$NAME: SKIPPING: neither opengsq nor gamedig could be installed" >&2
echo "$NAME: passed"
