#!/usr/bin/env bash
# Mafia II Multiplayer interop: no M2-MP server runs here (closed source, Windows, gone) and
# gamedig 5.3.3 is the only third-party reader of its query (opengsq 3.7.0 and qstat 2.17
# have none), so gamedig (type m2m) must read the simulator (examples/sim_serve mafia2mp)
# with the same name, counts, game mode, password and player names as
# `gameserver-exporter query mafia2mp ADDR --json --players`. The codec's byte-exact fixture
# is in src/protocol/mafia2mp/tests.rs. `mafia2online.sh` runs this script for Mafia II
# Online's dialect (protocol mafia2online, gamedig type m2o, pings too). A few seconds.
#
# Usage: mafia2mp.sh [BIN] [PROTOCOL GAMEDIG_TYPE]
set -euo pipefail
cd "$(dirname "$0")/../.."
protocol=${2:-mafia2mp}
type=${3:-m2m}
NAME=$protocol.sh
. .ci/interop/lib.sh
. .ci/interop/thirdparty.sh

bin=${1:-target/debug/gameserver-exporter}
[[ -x $bin ]] || cargo build --locked --bin gameserver-exporter
cargo build --locked --quiet --example sim_serve
interop_work
sim_start "$protocol"
port=${sim_addr##*:}

"$bin" query "$protocol" "$sim_addr" --json --players --timeout 2s >"$work/ours.json" 2>"$work/query.log" ||
    interop_fail "query $protocol exited $?"
echo "$NAME: ours: $(tr -s ' \n' ' ' <"$work/ours.json")"

need_gamedig
if [[ -z $gamedig_dir ]]; then
    echo "$NAME: SKIPPED: gamedig, the one reader, could not be installed" >&2
    exit 0
fi
gamedig_query "$type" "$port" >"$work/gamedig.json" 2>"$work/gamedig.log" || interop_fail "gamedig $type"
echo "$NAME: gamedig $type: $(cat "$work/gamedig.json")"
python3 - "$work/ours.json" "$work/gamedig.json" "$NAME" <<'PY' || interop_fail "gamedig $type disagrees"
import json, sys
ours, g = (json.load(open(p)) for p in sys.argv[1:3])
# gamedig keeps a player's ping under raw (its Player class has no ping field).
want = (ours["name"], ours["online"], ours["max"], ours["game"], ours["password"],
        [(p["name"], p.get("ping")) for p in ours["players"]])
got = (g["name"], g["numplayers"], g["maxplayers"], g["raw"]["gamemode"], g["password"],
       [(p["name"], p.get("raw", {}).get("ping")) for p in g["players"]])
assert got == want, (got, want)
assert g["version"] == ours["game"], (g["version"], ours["game"])
print("%s: gamedig agrees:" % sys.argv[3], got)
PY
echo "$NAME: ok"
