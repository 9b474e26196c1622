#!/usr/bin/env bash
# Ventrilo interop: no Ventrilo server runs here (closed source, never in Debian), so the
# simulator (examples/sim_serve ventrilo: three clients, two channels; its reply is two
# scrambled parts, and it answers only requests it can unscramble with a good checksum) is
# read by qstat (-vent) and gamedig 5.3.3 (type ventrilo), which must show the same name,
# counts and client names as `gameserver-exporter query ventrilo ADDR --json --players`
# (gamedig also the version, password and pings; qstat's pings are noise, see
# docs/protocols/ventrilo.md). opengsq 3.7.0 has no Ventrilo protocol. A few seconds.
set -euo pipefail
cd "$(dirname "$0")/../.."
NAME=ventrilo.sh
. .ci/interop/lib.sh
. .ci/interop/thirdparty.sh
qstat_require

bin=${1:-target/debug/gameserver-exporter}
[[ -x $bin ]] || cargo build --locked --bin gameserver-exporter
cargo build --locked --quiet --example sim_serve
interop_work
sim_start ventrilo
port=${sim_addr##*:}

"$bin" query ventrilo "$sim_addr" --json --players --timeout 2s >"$work/ours.json" 2>"$work/query.log" ||
    interop_fail "query ventrilo exited $?"
echo "$NAME: ours: $(tr -s ' \n' ' ' <"$work/ours.json")"

"$QSTAT" -raw , -P -vent "$sim_addr" >"$work/qstat.txt" 2>"$work/qstat.log" || interop_fail "qstat -vent failed"
echo "$NAME: qstat raw: $(tr '\n' ' ' <"$work/qstat.txt")"
python3 - "$work/ours.json" "$work/qstat.txt" <<'PY' || interop_fail "qstat disagrees"
import json, sys
ours = json.load(open(sys.argv[1]))
lines = [l for l in open(sys.argv[2]).read().splitlines() if l]
head = lines[0].split(",")  # VENTRILO,ADDRESS,NAME,MAP,MAX,ONLINE,PING,RETRIES
got = (head[0], head[2], int(head[5]), int(head[4]))
want = ("VENTRILO", ours["name"], ours["online"], ours["max"])
assert got == want, (got, want)
# qstat lists the clients last to first; its ping column is not the client's (see the docs).
theirs = sorted(l.split(",")[0] for l in lines[1:])
mine = sorted(p["name"] for p in ours["players"])
assert theirs == mine and len(mine) == 3, (theirs, mine)
print("ventrilo.sh: qstat agrees:", got, theirs)
PY

need_gamedig
if [[ -n $gamedig_dir ]]; then
    gamedig_query ventrilo "$port" >"$work/gamedig.json" 2>"$work/gamedig.log" || interop_fail "gamedig"
    echo "$NAME: gamedig: $(cat "$work/gamedig.json")"
    python3 - "$work/ours.json" "$work/gamedig.json" <<'PY' || interop_fail "gamedig disagrees"
import json, sys
ours, g = (json.load(open(p)) for p in sys.argv[1:3])
got = (g["name"], g["numplayers"], int(g["maxplayers"]), g["version"], g["password"],
       int(g["raw"]["CHANNELCOUNT"]), g["raw"]["PLATFORM"])
want = (ours["name"], ours["online"], ours["max"], ours["version"], ours["password"],
        ours["extras"]["channels"], ours["extras"]["platform"])
assert got == want, (got, want)
theirs = [(p["name"], p["raw"]["ping"], int(p["raw"]["SEC"])) for p in g["players"]]
mine = [(p["name"], p["ping"], int(p["duration"])) for p in ours["players"]]
assert theirs == mine and len(mine) == 3, (theirs, mine)
print("ventrilo.sh: gamedig agrees:", got, theirs)
PY
fi
echo "$NAME: ok"
