#!/usr/bin/env bash
# OpenTTD interop against a real server: Debian's openttd 13 with openttd-opengfx (installed
# when missing) as a dedicated server on 127.0.0.1 with a generated 64x64 map and no
# advertising (server_game_type = local: no Game Coordinator, no internet). Our
# `query openttd --json`, gamedig 5.3.3 (type openttd) and the raw bytes must agree on name,
# version, counts and password, matching the server's settings; gamedig also reads the
# simulator as query does. The real server's UDP answer is checked to be the empty
# SERVER_RESPONSE that made this a TCP protocol. A few seconds.
set -euo pipefail
cd "$(dirname "$0")/../.."
NAME=openttd.sh
. .ci/interop/lib.sh
. .ci/interop/thirdparty.sh

sim_serve_build "$@"
if [[ ! -x /usr/games/openttd ]] || ! dpkg -s openttd-opengfx >/dev/null 2>&1; then
    interop_install openttd openttd-opengfx
fi
interop_work
port=$(free_port_both)
cat >"$work/openttd.cfg" <<CFG
[network]
server_game_type = local
server_name = InteropTTD
max_clients = 7
max_companies = 5
use_relay_service = never
[game_creation]
map_x = 6
map_y = 6
CFG
(HOME=$work XDG_DATA_HOME=$work/data XDG_CONFIG_HOME=$work/config \
    exec /usr/games/openttd -D "127.0.0.1:$port" -c "$work/openttd.cfg" -g -x) \
    >"$work/openttd.log" 2>&1 &
pids+=($!)
addr=127.0.0.1:$port
json=
for _ in $(seq 100); do
    json=$("$bin" query openttd "$addr" --json --rules --timeout 1s 2>/dev/null) && break
    json=
    sleep 0.2
done
[[ -n $json ]] || interop_fail "openttd never answered query openttd on $addr"
echo "$NAME: ours: $(python3 -c 'import json,sys; print(json.dumps(json.loads(sys.argv[1])))' "$json")"

python3 - "$port" <<'PY' || interop_fail "the raw replies are not what the docs say"
import socket, sys
port = int(sys.argv[1])
u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
u.settimeout(2)
u.sendto(b"\x03\x00\x00", ("127.0.0.1", port))
d = u.recv(2000)
print("openttd.sh: UDP CLIENT_FIND_SERVER answered:", d.hex())
assert d == b"\x03\x00\x01", d
t = socket.create_connection(("127.0.0.1", port), 2)
t.sendall(b"\x03\x00\x07")
buf = b""
while len(buf) < 2 or len(buf) < int.from_bytes(buf[:2], "little"):
    chunk = t.recv(4096)
    if not chunk:
        break
    buf += chunk
print("openttd.sh: TCP CLIENT_GAME_INFO answered:", buf.hex())
assert buf[2] == 6 and b"InteropTTD\x00" in buf, buf
PY

python3 - "$json" <<'PY' || interop_fail "the server's settings not read back"
import json, sys
s = json.loads(sys.argv[1])
got = (s["name"], s["online"], s["max"], s["password"], s["map"], s["game"])
want = ("InteropTTD", 0, 7, False, "64x64 temperate", "OpenTTD")
assert got == want, (got, want)
rules = dict(s["rules"])
assert rules["companies_max"] == "5" and rules["start_date"] == "1950-01-01", rules
PY

need_gamedig
if [[ -n $gamedig_dir ]]; then
    gamedig_query openttd "$port" >"$work/gamedig.json" 2>"$work/gamedig.log" ||
        interop_fail "gamedig against the real server"
    echo "$NAME: gamedig (real server): $(cat "$work/gamedig.json")"
    simulator() {
        sim_start openttd
        gamedig_query openttd "${sim_addr##*:}" >"$work/gamedig-sim.json" 2>"$work/gamedig-sim.log" ||
            interop_fail "gamedig against the simulator"
        "$bin" query openttd "$sim_addr" --json --timeout 2s >"$work/ours-sim.json" ||
            interop_fail "query openttd against the simulator"
        echo "$NAME: gamedig (simulator): $(cat "$work/gamedig-sim.json")"
        echo "$NAME: ours (simulator): $(python3 -m json.tool --compact "$work/ours-sim.json")"
    }
    simulator
    python3 - "$json" "$work/gamedig.json" "$work/ours-sim.json" "$work/gamedig-sim.json" <<'PY' ||
import json, sys
def same(ours, g, where):
    want = (ours["name"], ours["version"], ours["online"], ours["max"], ours["password"])
    got = (g["name"], g["version"], int(g["numplayers"]), int(g["maxplayers"]), g["password"])
    assert got == want, (where, got, want)
    print("openttd.sh: gamedig agrees (%s):" % where, got)
same(json.loads(sys.argv[1]), json.load(open(sys.argv[2])), "real server")
same(json.load(open(sys.argv[3])), json.load(open(sys.argv[4])), "simulator")
PY
        interop_fail "gamedig disagrees"
fi
echo "$NAME: ok"
