#!/usr/bin/env bash
# rFactor interop: no rFactor server runs here (a Windows game, not in Debian) and gamedig
# 5.3.3 is the only third-party reader of its query (opengsq 3.7.0 and qstat 2.17 have
# none), so gamedig (types rfactor and asr08) must read the simulator (examples/sim_serve
# rfactor) with the same name, track, counts, bots, version and password as
# `gameserver-exporter query rfactor ADDR --json`. The codec's byte-exact fixture is in
# src/protocol/rfactor/tests.rs. A few seconds.
set -euo pipefail
cd "$(dirname "$0")/../.."
NAME=rfactor.sh
. .ci/interop/lib.sh
. .ci/interop/thirdparty.sh

bin=${1:-target/debug/gameserver-exporter}
[[ -x $bin ]] || cargo build --locked --bin gameserver-exporter
cargo build --locked --quiet --example sim_serve
interop_work
sim_start rfactor
port=${sim_addr##*:}

"$bin" query rfactor "$sim_addr" --json --timeout 2s >"$work/ours.json" 2>"$work/query.log" ||
    interop_fail "query rfactor exited $?"
echo "$NAME: ours: $(tr -s ' \n' ' ' <"$work/ours.json")"

need_gamedig
if [[ -z $gamedig_dir ]]; then
    echo "$NAME: SKIPPED: gamedig, the one reader, could not be installed" >&2
    exit 0
fi
for type in rfactor asr08; do
    gamedig_query "$type" "$port" >"$work/gamedig-$type.json" 2>"$work/gamedig.log" ||
        interop_fail "gamedig $type"
    echo "$NAME: gamedig $type: $(cat "$work/gamedig-$type.json")"
    python3 - "$work/ours.json" "$work/gamedig-$type.json" "$type" <<'PY' || interop_fail "gamedig $type disagrees"
import json, sys
ours, g = (json.load(open(p)) for p in sys.argv[1:3])
want = (ours["name"], ours["map"], ours["online"], ours["max"], ours["bots"], ours["version"],
        ours["password"], ours["game"], ours["extras"]["vehicles"], ours["extras"]["laps"])
got = (g["name"], g["map"], g["numplayers"], g["maxplayers"], g["raw"]["bots"], g["version"],
       g["password"], g["raw"]["game"], g["raw"]["vehicles"], g["raw"]["laps"])
assert got == want, (got, want)
print("rfactor.sh: gamedig %s agrees:" % sys.argv[3], got)
PY
done
echo "$NAME: ok"
