#!/usr/bin/env bash
# Interop check against a real third-party Bedrock server: bedrock-protocol's server (npm) on
# its pure-JS RakNet backend (jsp-raknet; the native backend's prebuilt download fails
# offline, hence --ignore-scripts). No Bedrock server is packaged in Debian, and Mojang's
# Bedrock Dedicated Server is not downloadable here.
#
# Installs bedrock-protocol into $BEDROCK_NODE_DIR (default: a cache dir) if missing, starts
# its server on 127.0.0.1 on a free port with a known MOTD, level and max players, sends one
# RakNet unconnected ping and checks the pong against those settings; stops the server by PID.
# Heavy (npm, ~300 packages): opt-in for CI. Phase 2 adds the exporter's `query` and daemon.
set -euo pipefail

dir="${BEDROCK_NODE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/gse-interop/bedrock}"
mkdir -p "$dir"
if [ ! -d "$dir/node_modules/bedrock-protocol" ]; then
    (cd "$dir" && { [ -f package.json ] || npm init -y >/dev/null; } &&
        npm install bedrock-protocol jsp-raknet --no-audit --no-fund --ignore-scripts >/dev/null)
fi

work=$(mktemp -d)
pid=
cleanup() {
    if [ -n "$pid" ]; then kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; fi
    rm -rf "$work"
}
trap cleanup EXIT

port=$(python3 -c 'import socket; s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
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
pid=$!

python3 - "$port" <<'PY'
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
print("minecraft-bedrock.sh: pong", data.hex())
assert data[0] == 0x1C, data[0]
assert struct.unpack(">q", data[1:9])[0] == t
assert data[17:33] == MAGIC
(n,) = struct.unpack(">H", data[33:35])
assert 35 + n == len(data), (n, len(data))
fields = data[35:].decode("utf-8").split(";")
print("minecraft-bedrock.sh: id", fields)
assert fields[0] == "MCPE"
assert fields[1] == "§aInterop §lBedrock"
assert fields[5] == "7", fields[5]
assert fields[7] == "interop level"
print("minecraft-bedrock.sh: ok")
PY
