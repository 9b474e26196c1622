#!/usr/bin/env bash
# Soldat interop: no Soldat 1.x server runs here (closed source, not in Debian; OpenSoldat's
# file server speaks HTTP instead) and gamedig 5.3.3 is the only third-party reader of its
# file server (opengsq 3.7.0 and qstat 2.17 have none), so gamedig (type soldat) must read
# the simulator (examples/sim_serve soldat) with the same count, map, game mode and players
# (names, kills, pings) as `gameserver-exporter query soldat ADDR --json --players`. The
# codec's byte-exact fixture is the real reply gamedig's pull request #642 published
# (src/protocol/soldat/tests.rs). A few seconds.
set -euo pipefail
cd "$(dirname "$0")/../.."
NAME=soldat.sh
. .ci/interop/lib.sh
. .ci/interop/thirdparty.sh

bin=${1:-target/debug/gameserver-exporter}
[[ -x $bin ]] || cargo build --locked --bin gameserver-exporter
cargo build --locked --quiet --example sim_serve
interop_work
sim_start soldat
port=${sim_addr##*:}

"$bin" query soldat "$sim_addr" --json --players --timeout 2s >"$work/ours.json" 2>"$work/query.log" ||
    interop_fail "query soldat exited $?"
echo "$NAME: ours: $(tr -s ' \n' ' ' <"$work/ours.json")"

need_gamedig
if [[ -z $gamedig_dir ]]; then
    echo "$NAME: SKIPPED: gamedig, the one reader, could not be installed" >&2
    exit 0
fi
gamedig_query soldat "$port" >"$work/gamedig.json" 2>"$work/gamedig.log" || interop_fail "gamedig soldat"
echo "$NAME: gamedig soldat: $(cat "$work/gamedig.json")"
python3 - "$work/ours.json" "$work/gamedig.json" <<'PY' || interop_fail "gamedig disagrees"
import json, sys
ours, g = (json.load(open(p)) for p in sys.argv[1:3])
want = (ours["online"], ours["map"], ours["game"],
        [(p["name"], p["score"], p["ping"]) for p in ours["players"]])
# gamedig 5.3.3 nests a player's fields one raw deeper (raw.raw.kills).
rec = lambda p: p["raw"].get("raw", p["raw"])
got = (g["numplayers"], g["map"], g["raw"]["gamemode"],
       [(p["name"], rec(p)["kills"], rec(p)["ping"]) for p in g["players"]])
assert got == want, (got, want)
# Its raw response shows our reply's binary size fields as the published capture showed a
# real server's: three NULs and one byte that is not UTF-8.
assert g["raw"]["response"].startswith("STARTFILES\r\n\u0000\u0000\u0000"), g["raw"]["response"][:20]
print("soldat.sh: gamedig agrees:", got)
PY
echo "$NAME: ok"
