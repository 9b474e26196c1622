#!/usr/bin/env bash
# TeamSpeak 3 interop: the ServerQuery simulator (examples/sim_serve teamspeak3) read by
# gamedig 5.3.3 (teamspeak3) and opengsq 3.7.0 (TeamSpeak3.get_info) must agree with
# `gameserver-exporter query teamspeak3 ADDR --json --players` on name, slots, version and
# the people online. Both count virtualserver_clientsonline raw (query clients included):
# the check subtracts virtualserver_queryclientsonline from their value. gamedig leaves `\p`
# (an escaped `|`) in names undecoded: the check decodes it first. A few seconds.
set -euo pipefail
cd "$(dirname "$0")/../.."
NAME=teamspeak3.sh
. .ci/interop/lib.sh
. .ci/interop/thirdparty.sh

sim_serve_build "$@"
interop_work
sim_start teamspeak3
port=${sim_addr##*:}

"$bin" query teamspeak3 "$sim_addr" --json --players --timeout 2s >"$work/ours.json" 2>"$work/query.log" ||
    interop_fail "query teamspeak3 exited $?"
echo "$NAME: ours: $(cat "$work/ours.json")"

need_gamedig
if [[ -n $gamedig_dir ]]; then
    # gamedig: `port` is the voice port, teamspeakQueryPort the ServerQuery port.
    gamedig_query teamspeak3 9987 "{\"teamspeakQueryPort\": $port}" >"$work/gamedig.json" 2>"$work/gamedig.log" ||
        interop_fail "gamedig"
    echo "$NAME: gamedig: $(cat "$work/gamedig.json")"
    python3 - "$work/ours.json" "$work/gamedig.json" <<'PY' || interop_fail "gamedig disagrees"
import json, sys
ours, g = (json.load(open(p)) for p in sys.argv[1:3])
query_clients = int(g["raw"]["virtualserver_queryclientsonline"])
# gamedig 5.3.3 unescapes only \s and \/: a "|" in a name stays "\p" there (the
# ServerQuery manual escapes | as \p; opengsq and we decode it).
name = g["name"].replace("\\p", "|")
got = (name, int(g["maxplayers"]), g["version"], int(g["numplayers"]) - query_clients)
want = (ours["name"], ours["max"], ours["version"], ours["online"])
assert got == want, (got, want)
names = sorted(p["name"] for p in g["players"])
assert names == sorted(p["name"] for p in ours["players"]), (names, ours["players"])
print("teamspeak3.sh: gamedig agrees:", got, names)
PY
fi

need_opengsq
if [[ -n $opengsq_py ]]; then
    "$opengsq_py" - "$port" >"$work/opengsq.json" 2>"$work/opengsq.log" <<'PY' || interop_fail "opengsq"
import asyncio, json, sys
from opengsq.protocols.teamspeak3 import TeamSpeak3
print(json.dumps(asyncio.run(TeamSpeak3("127.0.0.1", int(sys.argv[1]), 9987, 3.0).get_info())))
PY
    echo "$NAME: opengsq: $(cat "$work/opengsq.json")"
    python3 - "$work/ours.json" "$work/opengsq.json" <<'PY' || interop_fail "opengsq disagrees"
import json, sys
ours, o = (json.load(open(p)) for p in sys.argv[1:3])
online = int(o["virtualserver_clientsonline"]) - int(o["virtualserver_queryclientsonline"])
got = (o["virtualserver_name"], int(o["virtualserver_maxclients"]), o["virtualserver_version"], online)
want = (ours["name"], ours["max"], ours["version"], ours["online"])
assert got == want, (got, want)
print("teamspeak3.sh: opengsq agrees:", got)
PY
fi
echo "$NAME: ok"
