#!/usr/bin/env bash
# StarMade interop: no server runs here (StarMade is not in Debian and not open source), so
# the simulator (examples/sim_serve starmade: the typed-parameter status reply on TCP) is read
# by qstat (-starmade) and gamedig 5.3.3 (type starmade), which must show the same name and
# counts as `gameserver-exporter query starmade ADDR --json`. opengsq 3.7.0 has no StarMade
# protocol. The version is not compared: qstat reads it as a float it does not print, and
# gamedig sets a version only from a string there. A few seconds.
set -euo pipefail
cd "$(dirname "$0")/../.."
NAME=starmade.sh
. .ci/interop/lib.sh
. .ci/interop/thirdparty.sh
qstat_require

bin=${1:-target/debug/gameserver-exporter}
[[ -x $bin ]] || cargo build --locked --bin gameserver-exporter
cargo build --locked --quiet --example sim_serve
interop_work
sim_start starmade
port=${sim_addr##*:}

"$bin" query starmade "$sim_addr" --json --timeout 2s >"$work/ours.json" 2>"$work/query.log" ||
    interop_fail "query starmade exited $?"
echo "$NAME: ours: $(jq -c '{name, online, max, version}' "$work/ours.json")"

"$QSTAT" -json -starmade "$sim_addr" >"$work/qstat.json" 2>"$work/qstat.log" || interop_fail "qstat -starmade failed"
echo "$NAME: qstat: $(jq -c '.[0] | {status, name, numplayers, maxplayers}' "$work/qstat.json")"
python3 - "$work/ours.json" "$work/qstat.json" <<'PY' || interop_fail "qstat disagrees"
import json, sys
ours = json.load(open(sys.argv[1]))
q = json.load(open(sys.argv[2]))[0]
got = (q["status"], q["name"], q["numplayers"], q["maxplayers"])
want = ("online", ours["name"], ours["online"], ours["max"])
assert got == want, (got, want)
print("starmade.sh: qstat agrees:", got)
PY

need_gamedig
if [[ -n $gamedig_dir ]]; then
    gamedig_query starmade "$port" >"$work/gamedig.json" 2>"$work/gamedig.log" || interop_fail "gamedig: $(tail -n 3 "$work/gamedig.log")"
    echo "$NAME: gamedig: $(jq -c '{name, numplayers, maxplayers, version, raw}' "$work/gamedig.json")"
    python3 - "$work/ours.json" "$work/gamedig.json" <<'PY' || interop_fail "gamedig disagrees"
import json, sys
ours, g = (json.load(open(p)) for p in sys.argv[1:3])
got = (g["name"], g["numplayers"], g["maxplayers"], g["raw"]["description"])
want = (ours["name"], ours["online"], ours["max"], "A simulated StarMade universe")
assert got == want, (got, want)
print("starmade.sh: gamedig agrees:", got)
PY
fi
echo "$NAME: ok"
