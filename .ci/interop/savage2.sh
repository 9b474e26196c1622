#!/usr/bin/env bash
# Savage 2 interop: no Savage 2 server runs here (never packaged in Debian) and gamedig 5.3.3
# (type s2ats) is the only third-party reader of its query (qstat's -sas is Savage 1's
# protocol, opengsq 3.7.0 has none), so gamedig must read the simulator (examples/sim_serve
# savage2) with the same name (colour codes stripped), map, counts, version and game type as
# `gameserver-exporter query savage2 ADDR --json`. The codec's byte-exact fixture is in
# src/protocol/savage2/tests.rs. A few seconds.
set -euo pipefail
cd "$(dirname "$0")/../.."
NAME=savage2.sh
. .ci/interop/lib.sh
. .ci/interop/thirdparty.sh

bin=${1:-target/debug/gameserver-exporter}
[[ -x $bin ]] || cargo build --locked --bin gameserver-exporter
cargo build --locked --quiet --example sim_serve
interop_work
sim_start savage2
port=${sim_addr##*:}

"$bin" query savage2 "$sim_addr" --json --timeout 2s >"$work/ours.json" 2>"$work/query.log" ||
    interop_fail "query savage2 exited $?"
echo "$NAME: ours: $(tr -s ' \n' ' ' <"$work/ours.json")"

need_gamedig
if [[ -n $gamedig_dir ]]; then
    gamedig_query s2ats "$port" >"$work/gamedig.json" 2>"$work/gamedig.log" || interop_fail "gamedig"
    echo "$NAME: gamedig: $(cat "$work/gamedig.json")"
    python3 - "$work/ours.json" "$work/gamedig.json" <<'PY' || interop_fail "gamedig disagrees"
import json, sys
ours, g = (json.load(open(p)) for p in sys.argv[1:3])
got = (g["name"], g["map"], g["numplayers"], g["maxplayers"], g["version"], g["raw"]["gametype"],
       g["raw"]["nextmap"], g["raw"]["location"])
want = (ours["name"], ours["map"], ours["online"], ours["max"], ours["version"], ours["game"],
        ours["extras"]["next_map"], ours["extras"]["location"])
assert got == want, (got, want)
print("savage2.sh: gamedig agrees:", got)
PY
fi
echo "$NAME: ok"
