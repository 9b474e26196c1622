#!/usr/bin/env bash
# Satisfactory interop: the Lightweight Query simulator (examples/sim_serve satisfactory
# --idle) read by opengsq 3.7.0 (Satisfactory.get_status) must show the same name and server
# state as `gameserver-exporter query satisfactory ADDR --json`. The idle state because
# opengsq asks the HTTPS API for counts when the server is playing. A few seconds.
set -euo pipefail
cd "$(dirname "$0")/../.."
NAME=satisfactory.sh
. .ci/interop/lib.sh
. .ci/interop/thirdparty.sh

bin=${1:-target/debug/gameserver-exporter}
[[ -x $bin ]] || cargo build --locked --bin gameserver-exporter
cargo build --locked --quiet --example sim_serve
interop_work
sim_start satisfactory --idle
port=${sim_addr##*:}

"$bin" query satisfactory "$sim_addr" --json --timeout 2s >"$work/ours.json" 2>"$work/query.log" ||
    interop_fail "query satisfactory exited $?"
echo "$NAME: ours: $(cat "$work/ours.json")"

need_opengsq
if [[ -n $opengsq_py ]]; then
    "$opengsq_py" - "$port" >"$work/opengsq.json" 2>"$work/opengsq.log" <<'PY' || interop_fail "opengsq"
import asyncio, dataclasses, json, sys
from opengsq.protocols.satisfactory import Satisfactory
s = asyncio.run(Satisfactory("127.0.0.1", int(sys.argv[1]), "unused-token", 3.0).get_status())
print(json.dumps(dataclasses.asdict(s)))
PY
    echo "$NAME: opengsq: $(cat "$work/opengsq.json")"
    python3 - "$work/ours.json" "$work/opengsq.json" <<'PY' || interop_fail "opengsq disagrees"
import json, sys
ours, o = (json.load(open(p)) for p in sys.argv[1:3])
rules = dict(ours["rules"] or [])
want = (ours["name"], int(rules["server_state_code"]), ours["online"], ours["max"])
got = (o["name"], o["state"], o["num_players"], o["max_players"])
assert got == want, (got, want)
assert rules["server_state"] == "idle", rules
print("satisfactory.sh: opengsq agrees:", got)
PY
fi
echo "$NAME: ok"
