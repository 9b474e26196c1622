#!/usr/bin/env bash
# Starsiege interop: no Starsiege server runs here (a Windows game, not in Debian) and
# gamedig 5.3.3 (type starsiege) is the only third-party reader of its query (qstat 2.17 and
# opengsq 3.7.0 have none), so gamedig must read the simulator (examples/sim_serve starsiege:
# the `r` reply, game type "Starsiege") with the same name, map, counts, version and
# password as `gameserver-exporter query starsiege ADDR --json`. gamedig reads the player
# records but keeps none (its list stays empty), so names are not compared; the codec's
# byte-exact fixture is in src/protocol/tribes1/tests.rs. A few seconds.
set -euo pipefail
cd "$(dirname "$0")/../.."
NAME=starsiege.sh
. .ci/interop/lib.sh
. .ci/interop/thirdparty.sh

bin=${1:-target/debug/gameserver-exporter}
[[ -x $bin ]] || cargo build --locked --bin gameserver-exporter
cargo build --locked --quiet --example sim_serve
interop_work
sim_start starsiege
port=${sim_addr##*:}

"$bin" query starsiege "$sim_addr" --json --timeout 2s >"$work/ours.json" 2>"$work/query.log" ||
    interop_fail "query starsiege exited $?"
echo "$NAME: ours: $(tr -s ' \n' ' ' <"$work/ours.json")"

need_gamedig
if [[ -n $gamedig_dir ]]; then
    gamedig_query starsiege "$port" >"$work/gamedig.json" 2>"$work/gamedig.log" || interop_fail "gamedig"
    echo "$NAME: gamedig: $(cat "$work/gamedig.json")"
    python3 - "$work/ours.json" "$work/gamedig.json" <<'PY' || interop_fail "gamedig disagrees"
import json, sys
ours, g = (json.load(open(p)) for p in sys.argv[1:3])
got = (g["name"], g["map"], g["numplayers"], g["maxplayers"], g["version"], g["raw"]["gametype"],
       g["password"], g["raw"]["timeLimit"])
want = (ours["name"], ours["map"], ours["online"], ours["max"], ours["version"], ours["game"],
        ours["password"], ours["extras"]["time_limit"])
assert got == want, (got, want)
print("starsiege.sh: gamedig agrees:", got)
PY
fi
echo "$NAME: ok"
