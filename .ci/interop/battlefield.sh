#!/usr/bin/env bash
# Battlefield (Frostbite) interop: the simulator (examples/sim_serve battlefield: a BF4 over
# TCP) read by gamedig 5.3.3 (type battlefield4: serverInfo, version, listPlayers all on one
# connection, no client flag in its sequence words) and opengsq 3.7.0
# (opengsq.protocols.battlefield: one connection per command) must show the same name, map,
# counts, password, game build and player names as
# `gameserver-exporter query battlefield ADDR --json --players`. A few seconds.
set -euo pipefail
cd "$(dirname "$0")/../.."
NAME=battlefield.sh
. .ci/interop/lib.sh
. .ci/interop/thirdparty.sh

sim_serve_build "$@"
interop_work
sim_start battlefield
port=${sim_addr##*:}

"$bin" query battlefield "$sim_addr" --json --players --timeout 2s >"$work/ours.json" 2>"$work/query.log" ||
    interop_fail "query battlefield exited $?"
echo "$NAME: ours: $(cat "$work/ours.json")"

need_gamedig
if [[ -n $gamedig_dir ]]; then
    gamedig_query battlefield4 "$port" >"$work/gamedig.json" 2>"$work/gamedig.log" || interop_fail "gamedig"
    echo "$NAME: gamedig: $(cat "$work/gamedig.json")"
    python3 - "$work/ours.json" "$work/gamedig.json" <<'PY' || interop_fail "gamedig disagrees"
import json, sys
ours, g = (json.load(open(p)) for p in sys.argv[1:3])
want = (ours["name"], ours["map"], ours["online"], ours["max"], ours["password"], ours["version"])
got = (g["name"], g["map"], int(g["numplayers"]), int(g["maxplayers"]), g["password"], g["version"])
assert got == want, (got, want)
theirs = [p["name"] for p in g["players"]]
mine = [p["name"] for p in ours["players"] or []]
assert theirs == mine and len(mine) == ours["online"], (theirs, mine)
print("battlefield.sh: gamedig agrees:", got, theirs)
PY
fi

need_opengsq
if [[ -n $opengsq_py ]]; then
    "$opengsq_py" - "$port" >"$work/opengsq.json" 2>"$work/opengsq.log" <<'PY' || interop_fail "opengsq"
import asyncio, json, sys
from opengsq.protocols.battlefield import Battlefield
async def main():
    b = Battlefield("127.0.0.1", int(sys.argv[1]), 3.0)
    info, version, players = await b.get_info(), await b.get_version(), await b.get_players()
    print(json.dumps({"info": vars(info), "version": vars(version), "players": players}))
asyncio.run(main())
PY
    echo "$NAME: opengsq: $(cat "$work/opengsq.json")"
    python3 - "$work/ours.json" "$work/opengsq.json" <<'PY' || interop_fail "opengsq disagrees"
import json, sys
ours, o = (json.load(open(p)) for p in sys.argv[1:3])
i, v = o["info"], o["version"]
want = (ours["name"], ours["map"], ours["online"], ours["max"], ours["password"], ours["version"])
got = (i["hostname"], i["map"], i["num_players"], i["max_players"], i["password"], v["version"])
assert got == want, (got, want)
theirs = [p["name"] for p in o["players"]]
mine = [p["name"] for p in ours["players"] or []]
assert theirs == mine, (theirs, mine)
print("battlefield.sh: opengsq agrees:", got, theirs)
PY
fi
echo "$NAME: ok"
