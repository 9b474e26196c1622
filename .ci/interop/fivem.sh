#!/usr/bin/env bash
# FiveM interop: the simulator (examples/sim_serve fivem: UDP getinfo plus the HTTP JSON
# endpoints on the same port number) read by gamedig 5.3.3 (type gta5f: UDP getinfo and
# /info.json) and opengsq 3.7.0 (FiveM.get_dynamic: HTTP /dynamic.json) must show the same
# name, map, counts and player names as `gameserver-exporter query fivem ADDR --json --players`
# (which reads /players.json best effort after getinfo). A few seconds.
set -euo pipefail
cd "$(dirname "$0")/../.."
NAME=fivem.sh
. .ci/interop/lib.sh
. .ci/interop/thirdparty.sh

sim_serve_build "$@"
interop_work
sim_start fivem
port=${sim_addr##*:}

"$bin" query fivem "$sim_addr" --json --players --timeout 2s >"$work/ours.json" 2>"$work/query.log" ||
    interop_fail "query fivem exited $?"
echo "$NAME: ours: $(cat "$work/ours.json")"

need_gamedig
if [[ -n $gamedig_dir ]]; then
    gamedig_query gta5f "$port" >"$work/gamedig.json" 2>"$work/gamedig.log" || interop_fail "gamedig"
    echo "$NAME: gamedig: $(cat "$work/gamedig.json")"
    python3 - "$work/ours.json" "$work/gamedig.json" <<'PY' || interop_fail "gamedig disagrees"
import json, sys
ours, g = (json.load(open(p)) for p in sys.argv[1:3])
want = (ours["name"], ours["map"], ours["online"], ours["max"])
got = (g["name"], g["map"], int(g["numplayers"]), int(g["maxplayers"]))
assert got == want, (got, want)
# Both read the player list from /players.json (ours with --players, best effort).
assert len(g["players"]) == ours["online"], g["players"]
theirs = sorted(p["name"] for p in g["players"])
mine = sorted(p["name"] for p in ours["players"] or [])
assert theirs == mine, (theirs, mine)
print("fivem.sh: gamedig agrees:", got)
PY
fi

need_opengsq
if [[ -n $opengsq_py ]]; then
    "$opengsq_py" - "$port" >"$work/opengsq.json" 2>"$work/opengsq.log" <<'PY' || interop_fail "opengsq"
import asyncio, json, sys
from opengsq.protocols.fivem import FiveM
d = asyncio.run(FiveM("127.0.0.1", int(sys.argv[1]), 3.0).get_dynamic())
print(json.dumps(d))
PY
    echo "$NAME: opengsq: $(cat "$work/opengsq.json")"
    python3 - "$work/ours.json" "$work/opengsq.json" <<'PY' || interop_fail "opengsq disagrees"
import json, sys
ours, o = (json.load(open(p)) for p in sys.argv[1:3])
want = (ours["name"], ours["map"], ours["online"], ours["max"])
got = (o["hostname"], o["mapname"], int(o["clients"]), int(o["sv_maxclients"]))
assert got == want, (got, want)
print("fivem.sh: opengsq agrees:", got)
PY
fi
echo "$NAME: ok"
