#!/usr/bin/env bash
# Satisfactory interop: the Lightweight Query simulator (examples/sim_serve satisfactory
# --idle) read by opengsq 3.7.0 (Satisfactory.get_status) must show the same name and server
# state as `gameserver-exporter query satisfactory ADDR --json`. The idle state because
# opengsq asks the HTTPS API for counts when the server is playing. A few seconds.
# Then the HTTPS API: the simulator playing with `--api TOKEN` (the demo's self-signed
# certificate), read by opengsq (which asks QueryServerState in the playing state) and by curl,
# must show the players and limit that a daemon polling it with api_token_file and the pinned
# certificate publishes.
set -euo pipefail
cd "$(dirname "$0")/../.."
NAME=satisfactory.sh
. .ci/interop/lib.sh
. .ci/interop/thirdparty.sh

sim_serve_build "$@"
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

# --- The HTTPS API (QueryServerState with a token) ---
token="interop-$RANDOM-token"
printf '%s' "$token" >"$work/api.token"
chmod 600 "$work/api.token"
sim_start satisfactory --api "$token"
api_addr=$sim_addr
api_port=${api_addr##*:}
pin=$(sed -n 's/^sha256 //p' "$work/sim.log")
[[ -n $pin ]] || interop_fail "no certificate fingerprint from the simulator"
if command -v curl >/dev/null 2>&1; then
    # -k: the certificate is self-signed (the daemon below pins it instead).
    curl -sSk --max-time 5 -X POST "https://$api_addr/api/v1" \
        -H "Authorization: Bearer $token" -H 'Content-Type: application/json' \
        -d '{"function":"QueryServerState"}' >"$work/curl.json" || interop_fail "curl failed"
    echo "$NAME: curl QueryServerState: $(cat "$work/curl.json")"
    python3 - "$work/curl.json" <<'PY' || interop_fail "curl read another state"
import json, sys
s = json.load(open(sys.argv[1]))["data"]["serverGameState"]
got = (s["numConnectedPlayers"], s["playerLimit"], s["averageTickRate"])
assert got == (3, 16, 29.5), got
print("satisfactory.sh: curl reads", got)
PY
    code=$(curl -sk -o /dev/null -w '%{http_code}' --max-time 5 -X POST "https://$api_addr/api/v1" \
        -H "Authorization: Bearer wrong" -d '{"function":"QueryServerState"}')
    [[ $code == 401 ]] || interop_fail "a wrong token got HTTP $code, not 401"
else
    echo "$NAME: SKIPPING curl: not installed" >&2
fi
if [[ -n $opengsq_py ]]; then
    "$opengsq_py" - "$api_port" "$token" >"$work/opengsq-api.json" 2>"$work/opengsq-api.log" <<'PY' || interop_fail "opengsq (API)"
import asyncio, dataclasses, json, sys
from opengsq.protocols.satisfactory import Satisfactory
s = asyncio.run(Satisfactory("127.0.0.1", int(sys.argv[1]), sys.argv[2], 3.0).get_status())
print(json.dumps(dataclasses.asdict(s)))
PY
    echo "$NAME: opengsq (HTTPS API): $(cat "$work/opengsq-api.json")"
    python3 - "$work/opengsq-api.json" <<'PY' || interop_fail "opengsq (API) read another state"
import json, sys
o = json.load(open(sys.argv[1]))
got = (o["name"], o["state"], o["num_players"], o["max_players"])
assert got == ("Interop satisfactory", 3, 3, 16), got
print("satisfactory.sh: opengsq reads", got)
PY
fi
listen=127.0.0.1:$(free_tcp_port)
cat >"$work/exporter.toml" <<TOML
[exporter]
interval = "1s"
timeout = "900ms"

[[target]]
name = "factory"
protocol = "satisfactory"
address = "$api_addr"
api_token_file = "$work/api.token"
tls_fingerprint = "sha256:$pin"
TOML
"$bin" --config "$work/exporter.toml" --listen "$listen" --log-level warn >"$work/exporter.log" 2>&1 &
pids+=($!)
sel='{target="factory",protocol="satisfactory"}'
python3 .ci/interop/await_series.py "$NAME" "$listen" factory satisfactory 15 \
    "gameserver_up$sel 1" \
    "gameserver_players_online$sel 3" \
    "gameserver_players_max$sel 16" \
    "gameserver_tick_rate_hertz$sel 29.5" ||
    interop_fail "the daemon did not publish the API's state (log: $(cat "$work/exporter.log"))"
echo "$NAME: ok"
