#!/usr/bin/env bash
# Interop check against a real third-party Bedrock server: bedrock-protocol's server (npm) on
# its pure-JS RakNet backend (jsp-raknet; the native backend's prebuilt download fails
# offline, hence --ignore-scripts). No Bedrock server is packaged in Debian, and Mojang's
# Bedrock Dedicated Server is not downloadable here.
#
# Installs bedrock-protocol into $BEDROCK_NODE_DIR (default: a cache dir) if missing, starts
# its server on 127.0.0.1 on a free port with a known MOTD, level and max players, then
#   1. sends one RakNet unconnected ping itself and checks the pong against those settings;
#   2. runs `gameserver-exporter query minecraft-bedrock 127.0.0.1:PORT --json` and checks it;
#   3. runs the exporter daemon on a free port and checks its gauges on /metrics.
# Stops every process it started by PID, on failure too. Heavy (npm, ~300 packages): opt-in
# for CI (`INTEROP_BEDROCK=1 bash .ci/run`).
#
# Usage: .ci/interop/minecraft-bedrock.sh [path/to/gameserver-exporter]
set -euo pipefail
cd "$(dirname "$0")/../.."
NAME=minecraft-bedrock.sh
. .ci/interop/lib.sh

bin=${1:-target/debug/gameserver-exporter}
if [[ ! -x $bin ]]; then
    cargo build --locked --bin gameserver-exporter
fi

dir="${BEDROCK_NODE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/gse-interop/bedrock}"
mkdir -p "$dir"
if [ ! -d "$dir/node_modules/bedrock-protocol" ]; then
    (cd "$dir" && { [ -f package.json ] || npm init -y >/dev/null; } &&
        npm install bedrock-protocol jsp-raknet --no-audit --no-fund --ignore-scripts >/dev/null)
fi

interop_work

port=$(free_udp_port)
cat >"$work/server.js" <<'JS'
// bedrock-protocol's index.js loads the client, which needs the native RakNet build: load
// the server alone.
const { createServer } = require('bedrock-protocol/src/createServer')
createServer({
  host: '127.0.0.1',
  port: parseInt(process.argv[2], 10),
  raknetBackend: 'jsp-raknet',
  offline: true,
  maxPlayers: 7,
  motd: { motd: '§aInterop §lBedrock', levelName: 'interop level' }
})
JS
NODE_PATH="$dir/node_modules" node "$work/server.js" "$port" >"$work/server.log" 2>&1 &
pids+=($!)

# 1. The raw ping; prints the game mode and version the server announces.
announced=$(python3 - "$port" <<'PY'
import socket, struct, sys, time
port = int(sys.argv[1])
MAGIC = bytes.fromhex("00ffff00fefefefefdfdfdfd12345678")
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.settimeout(0.5)
t = 1234567
ping = b"\x01" + struct.pack(">q", t) + MAGIC + struct.pack(">Q", 0x1122334455667788)
deadline = time.monotonic() + 30
while True:
    s.sendto(ping, ("127.0.0.1", port))
    try:
        data, _ = s.recvfrom(65535)
        break
    except (socket.timeout, ConnectionRefusedError):
        if time.monotonic() > deadline:
            sys.exit("minecraft-bedrock.sh: no pong within 30 s")
print("minecraft-bedrock.sh: pong", data.hex(), file=sys.stderr)
assert data[0] == 0x1C, data[0]
assert struct.unpack(">q", data[1:9])[0] == t
assert data[17:33] == MAGIC
(n,) = struct.unpack(">H", data[33:35])
assert 35 + n == len(data), (n, len(data))
fields = data[35:].decode("utf-8").split(";")
print("minecraft-bedrock.sh: id", fields, file=sys.stderr)
assert fields[0] == "MCPE"
assert fields[1] == "§aInterop §lBedrock"
assert fields[5] == "7", fields[5]
assert fields[7] == "interop level"
print(fields[8] + ";" + fields[3])
PY
) || interop_fail "raw ping"
game=${announced%%;*}
version=${announced#*;}
echo "minecraft-bedrock.sh: raw ping ok: game mode $game, version $version"

# 2. The exporter's query command: MOTD without its § codes, the true counts.
"$bin" query minecraft-bedrock "127.0.0.1:$port" --json --timeout 2s >"$work/query.json" 2>"$work/query.log" ||
    interop_fail "query minecraft-bedrock exited $?"
python3 - "$work/query.json" "$game" "$version" <<'PY' || interop_fail "query minecraft-bedrock output"
import json, sys
path, game, version = sys.argv[1:4]
s = json.load(open(path))
want = {"online": 0, "max": 7, "name": "Interop Bedrock", "map": "interop level",
        "game": game, "version": version}
got = {k: s.get(k) for k in want}
assert got == want, (got, want)
assert s["extras"]["edition"] == "MCPE", s["extras"]
assert 0 < s["latency"] < 2, s["latency"]
print("minecraft-bedrock.sh: query ok:", json.dumps(got, ensure_ascii=False))
PY

# 3. The daemon's gauges.
listen=127.0.0.1:$(free_tcp_port)
cat >"$work/exporter.toml" <<TOML
[exporter]
interval = "1s"
timeout = "900ms"

[[target]]
name = "bedrock"
protocol = "minecraft-bedrock"
address = "127.0.0.1:$port"
TOML
"$bin" --config "$work/exporter.toml" --listen "$listen" --log-level warn >"$work/exporter.log" 2>&1 &
pids+=($!)
sel='{target="bedrock",protocol="minecraft-bedrock"}'
python3 .ci/interop/await_series.py minecraft-bedrock.sh "$listen" bedrock minecraft-bedrock 15 \
    "gameserver_up$sel 1" "gameserver_players_online$sel 0" "gameserver_players_max$sel 7" \
    "gameserver_info{target=\"bedrock\",protocol=\"minecraft-bedrock\",name=\"Interop Bedrock\",map=\"interop level\",game=\"$game\",version=\"$version\"} 1" ||
    interop_fail "daemon gauges"
echo "minecraft-bedrock.sh: ok"
