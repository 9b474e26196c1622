#!/usr/bin/env bash
# Cube 2 interop against the real servers in Debian: redeclipse-server 1.6.0 (with
# redeclipse-common, its configs; not redeclipse-data, 862 MB: the server starts with a
# data/maps/readme.txt alone) and cube2-server (Sauerbraten 2020), fetched with
# `apt-get download` (the package registry only) and unpacked into a scratch directory.
# Both run on 127.0.0.1 with their master server set to 127.0.0.1 (Red Eclipse as a
# private server, which never registers): no traffic leaves loopback. `query cube2 --json`
# on game port + 1 must read the settings each was started with; qstat's `-cubes` (which
# reads Sauerbraten's layout) must read the Sauerbraten server the same way. Then
# Sauerbraten's extinfo: the raw header with no client, and our player list once a scripted
# client (sauer_client.py, over libenet7) has joined. A few seconds.
set -euo pipefail
cd "$(dirname "$0")/../.."
NAME=cube2.sh
. .ci/interop/lib.sh

bin=${1:-target/debug/gameserver-exporter}
[[ -x $bin ]] || cargo build --locked --bin gameserver-exporter
interop_install libenet7 libsqlite3-0 zlib1g
qstat_require
interop_work
cd "$work"
if ! apt-get download -qq redeclipse-server redeclipse-common cube2-server >apt.log 2>&1; then
    if ! apt-get download -qq redeclipse-server redeclipse-common cube2-server >apt.log 2>&1; then
        echo "$NAME: SKIPPED: apt-get download failed (registry unreachable?): $(tail -n 3 apt.log)" >&2
        exit 0
    fi
fi
for deb in ./*.deb; do dpkg -x "$deb" root; done
cd - >/dev/null

# A port whose neighbour (the info socket) is free too.
port_pair() {
    python3 - <<'PY'
import socket
while True:
    a = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    a.bind(("127.0.0.1", 0))
    p = a.getsockname()[1]
    if p >= 65535:
        continue
    b = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    try:
        b.bind(("127.0.0.1", p + 1))
    except OSError:
        continue
    print(p)
    break
PY
}

# query PORT: our poll of 127.0.0.1:PORT, retried while the server is still starting.
query() {
    local json= _
    for _ in $(seq 50); do
        json=$("$bin" query cube2 "127.0.0.1:$1" --json --players --timeout 1s 2>/dev/null) && break
        json=
        sleep 0.2
    done
    echo "$json"
}

compact() { python3 -c 'import json, sys; print(json.dumps(json.loads(sys.argv[1])))' "$1"; }

# Red Eclipse: it looks for config/ and data/ from its working directory.
re=$work/re
mkdir -p "$re/data/maps" "$re/home"
touch "$re/data/maps/readme.txt"
ln -s "$work/root/usr/share/games/redeclipse/config" "$re/config"
re_port=$(port_pair)
(cd "$re" && exec "$work/root/usr/lib/games/redeclipse/redeclipse-server" -h"$re/home" -ss1 \
    -si127.0.0.1 -sp"$re_port" -sm127.0.0.1 -sa"$re_port" -g \
    '-xsv_serverdesc "InteropRE"; sv_serverclients 12') >"$work/redeclipse.log" 2>&1 &
pids+=($!)

# Sauerbraten.
sauer_port=$(port_pair)
mkdir -p "$work/sauer"
(cd "$work/sauer" && exec "$work/root/usr/lib/cube2/cube2_server" -i127.0.0.1 -j"$sauer_port" \
    -m127.0.0.1 -nInteropSauer -c7) >"$work/sauerbraten.log" 2>&1 &
pids+=($!)

re_json=$(query $((re_port + 1)))
[[ -n $re_json ]] || interop_fail "redeclipse-server never answered query cube2 on port $((re_port + 1))"
echo "$NAME: ours (Red Eclipse 1.6.0): $(compact "$re_json")"
python3 - "$re_json" <<'PY' || interop_fail "Red Eclipse's settings not read back"
import json, sys
s = json.loads(sys.argv[1])
e = s["extras"]
# max is Red Eclipse's slots: the clients plus as many spectator slots (serverspectators 0).
got = (s["name"], s["online"], s["max"], s["players"], s["version"], s["password"],
       e["dialect"], e["game_version"], bool(s["map"]))
want = ("InteropRE", 0, 24, [], "1.6.0", False, "redeclipse", 230, True)
assert got == want, (got, want)
PY

sauer_json=$(query $((sauer_port + 1)))
[[ -n $sauer_json ]] || interop_fail "cube2-server never answered query cube2 on port $((sauer_port + 1))"
echo "$NAME: ours (Sauerbraten): $(compact "$sauer_json")"
python3 - "$sauer_json" <<'PY' || interop_fail "Sauerbraten's settings not read back"
import json, sys
s = json.loads(sys.argv[1])
e = s["extras"]
got = (s["name"], s["online"], s["max"], s["password"], s["game"], e["dialect"], e["protocol"])
want = ("InteropSauer", 0, 7, False, "ffa", "sauerbraten", 260)
assert got == want, (got, want)
PY

# qstat's -cubes takes the game port and pings port + 1, as the game's browser does.
qstat_out=$("$QSTAT" -cubes "127.0.0.1:$sauer_port" -raw , -P -R -timeout 2 -retry 3)
echo "$NAME: qstat -cubes (Sauerbraten): ${qstat_out//$'\n'/ / }"
ours=$(ours_summary "$sauer_json")
theirs=$(qstat_summary <<<"$qstat_out")
[[ $ours == "$theirs" ]] || interop_fail "qstat disagrees: ours '$ours', qstat '$theirs'"
echo "$NAME: qstat agrees: $ours"

# Sauerbraten's extinfo (a request starting with 0), asked raw with no client: the header
# alone (ack -1, version 105, no error, -10), no ids.
ext=$(python3 - $((sauer_port + 1)) <<'PY'
import socket, sys
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.settimeout(2)
s.sendto(b"\x00\x01\xff", ("127.0.0.1", int(sys.argv[1])))
print(s.recv(5000).hex())
PY
)
echo "$NAME: extinfo player stats, no client: $ext"
[[ $ext == 0001ffff6900f6 ]] || interop_fail "cube2-server's extinfo header is not the one we read"

# A player joins (a scripted ENet client over the system's libenet7: N_CONNECT, then master
# and one bot): our poll with --players must list both through extinfo, the bot numbered
# from 128 (the info reply counts only Alice).
python3 .ci/interop/sauer_client.py "$sauer_port" Alice 30 1 >"$work/sauer_client.log" 2>&1 &
pids+=($!)
listed=
for _ in $(seq 50); do
    json=$("$bin" query cube2 "127.0.0.1:$((sauer_port + 1))" --json --players --timeout 1s 2>/dev/null) || json=
    # Quiet while the client and its bot are still joining; the last reply is in the failure.
    if [[ -n $json ]] && python3 - "$json" 2>/dev/null <<'PY'
import json, sys
s = json.loads(sys.argv[1])
got = (s["online"], s["bots"], [(p["name"], p["id"], p["score"]) for p in s["players"] or []],
       s["extras"]["extinfo_missing"])
assert got == (1, 1, [("Alice", "0", 0), ("bot", "128", 0)], 0), got
PY
    then
        listed=$json
        break
    fi
    sleep 0.2
done
[[ -n $listed ]] || interop_fail "our poll never listed the Sauerbraten client (last: ${json:-none}; client: $(cat "$work/sauer_client.log"))"
echo "$NAME: ours (Sauerbraten, one client and a bot, extinfo): $(compact "$listed")"
# qstat's -cubes reads no Sauerbraten players (it never asks extinfo): its -P lists none.
qstat_out=$("$QSTAT" -cubes "127.0.0.1:$sauer_port" -raw , -P -R -timeout 2 -retry 3)
echo "$NAME: qstat -cubes -P with a client and a bot: ${qstat_out//$'\n'/ / }"
echo "$NAME: ok"
