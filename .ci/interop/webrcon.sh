#!/usr/bin/env bash
# Rust WebRCON interop: two WebRCON clients nobody here wrote, PyPI `webrcon` 1.1.0
# (RconConnector, over `websockets` 17.4, which it imports but does not declare) and npm
# `ws` 8.23.0 scripted as every WebRCON web console is (ws://host:port/<password>,
# {"Identifier","Message","Name"}; the reply picked by its Identifier, broadcasts skipped),
# read `serverinfo` from our WebRCON simulator (examples/sim_dialects rust). What they read,
# converted as docs/metrics.md says (MB x 1048576), must be the health `gameserver-exporter
# query rust ADDR --json --rcon-port P --rcon-password-file F` publishes (and `queued`).
# A few seconds once built.
set -euo pipefail
cd "$(dirname "$0")/../.."
NAME=webrcon
# shellcheck source=lib.sh
source .ci/interop/lib.sh

BIN=${1:-target/debug/gameserver-exporter}
cargo build --locked --quiet --example sim_dialects --bin gameserver-exporter
interop_work

venv="$work/venv"
if ! python3 -m venv "$venv" >/dev/null 2>&1 ||
    ! "$venv/bin/pip" install -q webrcon==1.1.0 websockets==17.4 >"$work/pip.log" 2>&1; then
    echo "$NAME: SKIPPED: could not install PyPI webrcon 1.1.0 and websockets 17.4 (python3-venv, pip)" >&2
    exit 0
fi
have_ws=
if command -v npm >/dev/null && command -v node >/dev/null &&
    npm install --silent --no-audit --no-fund --prefix "$work/npm" ws@8.23.0 >"$work/npm.log" 2>&1; then
    have_ws=1
else
    echo "$NAME: npm ws 8.23.0 not installable (node, npm): only PyPI webrcon reads" >&2
fi
umask 077
printf 'interop-webrcon-pw\n' >"$work/rcon.pw"

console_sim_start sim_dialects rust

json=$("$BIN" query rust "$addr" --json --rcon-port "$rcon_port" --rcon-password-file "$work/rcon.pw" --timeout 3s) ||
    interop_fail "query rust --rcon-password-file failed"
ours=$(printf '%s' "$json" | python3 -c '
import json, sys
s = json.load(sys.stdin)
h = s["health"]
print("health frame_rate={:.1f} heap={:.1f} resident={:.1f} entities={:.1f} joining={:.1f} in={:.1f} out={:.1f} uptime={:.1f} queued={}".format(
    h["frame_rate_hertz"], h["memory_heap_bytes"], h["memory_resident_bytes"], h["entities"],
    h["players_joining"], h["network_receive_bytes_per_second"],
    h["network_transmit_bytes_per_second"], h["uptime_seconds"], s["queued"]))') ||
    interop_fail "query rust --json has no health: $json"
echo "$NAME: query:  $ours"

theirs=$("$venv/bin/python" - "$rcon_port" "$work/rcon.pw" 2>"$work/webrcon-py.log" <<'PY'
import asyncio, json, sys
from webrcon import RconConnector
port, pw = int(sys.argv[1]), open(sys.argv[2]).read().rstrip("\n")
async def main():
    loop = asyncio.get_running_loop()
    got = loop.create_future()
    c = RconConnector("127.0.0.1", port, pw)
    await c.start(loop)
    await c.command("serverinfo", lambda data: got.done() or got.set_result(data))
    data = await asyncio.wait_for(got, 5)
    await c.close()
    return data
data = asyncio.run(main())
print(json.dumps(data), file=sys.stderr)
i, MB = json.loads(data["Message"]), 1048576
print("health frame_rate={:.1f} heap={:.1f} resident={:.1f} entities={:.1f} joining={:.1f} in={:.1f} out={:.1f} uptime={:.1f} queued={}".format(
    i["Framerate"], i["Memory"] * MB, i["MemoryUsageSystem"] * MB, i["EntityCount"], i["Joining"],
    i["NetworkIn"], i["NetworkOut"], i["Uptime"], i["Queued"]))
PY
) || interop_fail "PyPI webrcon failed"
echo "$NAME: webrcon: $theirs"
[[ $theirs == "$ours" ]] || interop_fail "PyPI webrcon read $theirs but query rust published $ours"

if [[ -n $have_ws ]]; then
    theirs=$(NODE_PATH="$work/npm/node_modules" node - "$rcon_port" "$work/rcon.pw" 2>"$work/ws.log" <<'JS'
const WebSocket = require("ws");
const fs = require("fs");
const [port, pwfile] = process.argv.slice(2);
const pw = fs.readFileSync(pwfile, "utf8").replace(/\n$/, "");
const ws = new WebSocket(`ws://127.0.0.1:${port}/${pw}`, { handshakeTimeout: 5000, maxPayload: 1 << 20 });
const timer = setTimeout(() => { console.error("timeout"); process.exit(1); }, 5000);
ws.on("open", () => ws.send(JSON.stringify({ Identifier: 1001, Message: "serverinfo", Name: "WebRcon" })));
ws.on("message", (raw) => {
  const m = JSON.parse(raw.toString());
  if (m.Identifier !== 1001) { console.error("skipped:", m.Identifier, m.Message); return; }
  const i = JSON.parse(m.Message), MB = 1048576, f = (x) => Number(x).toFixed(1);
  console.log(`health frame_rate=${f(i.Framerate)} heap=${f(i.Memory * MB)} resident=${f(i.MemoryUsageSystem * MB)} ` +
    `entities=${f(i.EntityCount)} joining=${f(i.Joining)} in=${f(i.NetworkIn)} out=${f(i.NetworkOut)} ` +
    `uptime=${f(i.Uptime)} queued=${i.Queued}`);
  clearTimeout(timer);
  ws.close(1000);
});
ws.on("error", (e) => { console.error("error", e.message); process.exit(1); });
JS
    ) || interop_fail "npm ws failed"
    echo "$NAME: ws:      $theirs"
    [[ $theirs == "$ours" ]] || interop_fail "npm ws read $theirs but query rust published $ours"
fi
echo "$NAME: passed"
