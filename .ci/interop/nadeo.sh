#!/usr/bin/env bash
# Nadeo (GBXRemote 2) interop: the simulator (examples/sim_serve nadeo --login PW: a Trackmania
# 2 server wanting Authenticate("User", PW) before any read) read by gamedig 5.3.3 (type
# trackmania2: Authenticate, GetServerOptions, GetCurrentChallengeInfo, GetCurrentGameInfo,
# GetVersion, GetPlayerList), by the npm gbxremote client gamedig ships with (our calls one by
# one) and by opengsq 3.7.0 (opengsq.protocols.nadeo) must show the same name, map, counts,
# version and player names as
# `gameserver-exporter query trackmania2 ADDR --json --players --username User --password-file F`.
# A few seconds.
set -euo pipefail
cd "$(dirname "$0")/../.."
NAME=nadeo.sh
. .ci/interop/lib.sh
. .ci/interop/thirdparty.sh

bin=${1:-target/debug/gameserver-exporter}
[[ -x $bin ]] || cargo build --locked --bin gameserver-exporter
cargo build --locked --quiet --example sim_serve
interop_work
password="interop-$RANDOM-gbx"
printf '%s\n' "$password" >"$work/pw"
chmod 600 "$work/pw"
sim_start nadeo --login "$password"
port=${sim_addr##*:}

"$bin" query trackmania2 "$sim_addr" --json --players --timeout 2s --username User \
    --password-file "$work/pw" >"$work/ours.json" 2>"$work/query.log" ||
    interop_fail "query trackmania2 exited $?"
echo "$NAME: ours: $(python3 -c 'import json, sys; print(json.dumps(json.load(open(sys.argv[1]))))' "$work/ours.json")"
# Without the login the server denies the reads: auth_refused, the password in no output.
if "$bin" query trackmania2 "$sim_addr" --json --timeout 2s >"$work/anon.json" 2>"$work/anon.log"; then
    interop_fail "an anonymous query read a server that wants a login"
fi
grep -q auth_refused "$work/anon.log" || interop_fail "anonymous query: not auth_refused"
! grep -q "$password" "$work"/*.json "$work"/*.log || interop_fail "the password is in an output"

need_gamedig
if [[ -n $gamedig_dir ]]; then
    gamedig_query trackmania2 "$port" "{\"login\": \"User\", \"password\": \"$password\"}" \
        >"$work/gamedig.json" 2>"$work/gamedig.log" || interop_fail "gamedig"
    echo "$NAME: gamedig: $(cut -c1-400 "$work/gamedig.json")..."
    python3 - "$work/ours.json" "$work/gamedig.json" <<'PY' || interop_fail "gamedig disagrees"
import json, sys
ours, g = (json.load(open(p)) for p in sys.argv[1:3])
want = (ours["name"], ours["map"], ours["online"], ours["max"], ours["version"])
got = (g["name"], g["map"], int(g["numplayers"]), int(g["maxplayers"]), g["version"])
assert got == want, (got, want)
theirs = [p["name"] for p in g["players"]]
mine = [p["name"] for p in ours["players"] or []]
assert theirs == mine and len(mine) == ours["online"], (theirs, mine)
print("nadeo.sh: gamedig agrees:", got, theirs)
PY
    # The bare gbxremote client: our own calls, one by one, on one connection.
    (cd "$gamedig_dir" && node -e '
const gbx = require("gbxremote");
(async () => {
  const [port, password] = process.argv.slice(1);
  const c = new gbx.Client(Number(port), "127.0.0.1");
  await c.connect();
  const out = { auth: await c.query("Authenticate", ["User", password]) };
  out.name = await c.query("GetServerName", []);
  out.max = (await c.query("GetMaxPlayers", [])).CurrentValue;
  out.players = (await c.query("GetPlayerList", [1000, 0])).map(p => p.NickName);
  out.version = (await c.query("GetVersion", [])).Version;
  out.map = (await c.query("GetCurrentMapInfo", [])).Name;
  console.log(JSON.stringify(out));
  c.terminate();
})().catch(e => { console.error(String(e && e.message || e)); process.exit(1); });' \
        "$port" "$password") >"$work/gbxremote.json" 2>"$work/gbxremote.log" || interop_fail "gbxremote"
    echo "$NAME: gbxremote: $(cat "$work/gbxremote.json")"
    python3 - "$work/ours.json" "$work/gbxremote.json" <<'PY' || interop_fail "gbxremote disagrees"
import json, sys
ours, g = (json.load(open(p)) for p in sys.argv[1:3])
want = (True, ours["name"], ours["map"], ours["online"], ours["max"], ours["version"])
got = (g["auth"], g["name"], g["map"], len(g["players"]), g["max"], g["version"])
assert got == want, (got, want)
assert g["players"] == [p["name"] for p in ours["players"] or []], g["players"]
print("nadeo.sh: gbxremote agrees:", got, g["players"])
PY
fi

need_opengsq
if [[ -n $opengsq_py ]]; then
    "$opengsq_py" - "$port" "$password" >"$work/opengsq.json" 2>"$work/opengsq.log" <<'PY' || interop_fail "opengsq"
import asyncio, dataclasses, json, sys
from opengsq.protocols.nadeo import Nadeo
async def main():
    n = Nadeo("127.0.0.1", int(sys.argv[1]), 3.0)
    auth = await n.authenticate("User", sys.argv[2])
    status = await n.get_status()
    await n.close()
    print(json.dumps({"auth": auth, **dataclasses.asdict(status)}))
asyncio.run(main())
PY
    echo "$NAME: opengsq: $(cut -c1-400 "$work/opengsq.json")..."
    python3 - "$work/ours.json" "$work/opengsq.json" <<'PY' || interop_fail "opengsq disagrees"
import json, sys
ours, o = (json.load(open(p)) for p in sys.argv[1:3])
s, v = o["server_options"], o["version"]
want = (True, ours["name"], ours["map"], ours["online"], ours["max"], ours["version"])
got = (o["auth"], s["name"], o["map_info"]["name"], len(o["players"]), s["max_players"], v["version"])
assert got == want, (got, want)
theirs = [p["nickname"] for p in o["players"]]
assert theirs == [p["name"] for p in ours["players"] or []], theirs
print("nadeo.sh: opengsq agrees:", got, theirs)
PY
fi
echo "$NAME: ok"
