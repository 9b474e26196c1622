#!/usr/bin/env bash
# BZFlag interop against a real server: Debian's bzflag-server 2.4 (installed when missing),
# bzfs on 127.0.0.1 as a capture-the-flag server with no list server (no -public,
# -publictitle or -publicaddr: it never registers) and no master ban list, the sample
# server-side robot plugin when shipped (it joins as an observer), bzadmin joined as the
# observer `Watcher`, and two scripted clients entered as tanks (`MsgEnter`: Alpha red,
# Bravo blue). `query bzflag --json --rules --players` must read the settings bzfs was
# started with (max players 20, max shots 2, team score 5, time limit 900 s, style Capture
# the Flag, protocol 0221), the two tanks by name and leave the observers out of the count;
# bzfs's own reader (/usr/games/bzfquery, the package's Perl script) must read the same max
# players, shots, style, players and observers.
# The raw answer is checked to be what docs/protocols/bzflag.md says. A few seconds.
set -euo pipefail
cd "$(dirname "$0")/../.."
NAME=bzflag.sh
. .ci/interop/lib.sh

bin=${1:-target/debug/gameserver-exporter}
[[ -x $bin ]] || cargo build --locked --bin gameserver-exporter
[[ -x /usr/games/bzfs && -x /usr/games/bzadmin ]] || interop_install bzflag-server
interop_work
port=$(free_port_both)
addr=127.0.0.1:$port
plugin=/usr/lib/bzflag-server/serverSidePlayerSample.so
extra=()
robots=0
if [[ -f $plugin ]]; then
    extra=(-loadplugin "$plugin")
    robots=1
fi
(exec /usr/games/bzfs -p "$port" -i 127.0.0.1 -noMasterBanlist -c -mp 20 -ms 2 -j -mts 5 \
    -time 900 -d "${extra[@]}") >"$work/bzfs.log" 2>&1 &
pids+=($!)

# bzfs listens within a second; bzadmin retries until it is in.
joined=
for _ in $(seq 50); do
    if "$bin" query bzflag "$addr" --timeout 1s >/dev/null 2>&1; then
        (exec timeout 60 /usr/games/bzadmin -ui stdout "Watcher@$addr") >"$work/bzadmin.log" 2>&1 &
        pids+=($!)
        for tank in Alpha:1 Bravo:3; do
            (exec timeout 60 python3 - "$port" "${tank%%:*}" "${tank##*:}" <<'PY'
# A scripted client: the hello, then MsgEnter as a tank (type 0) on the given team; then it
# reads whatever bzfs sends until bzfs or the timeout ends it.
import socket, struct, sys
port, name, team = int(sys.argv[1]), sys.argv[2].encode(), int(sys.argv[3])
s = socket.create_connection(("127.0.0.1", port), 5)
s.sendall(b"BZFLAG\r\n\r\n")
assert s.recv(9)[:4] == b"BZFS"
pad = lambda b, n: b[: n - 1].ljust(n, b"\0")
body = struct.pack(">Hh", 0, team) + pad(name, 32) + pad(b"scripted", 128) + pad(b"", 22) + pad(b"2.4.26", 60)
s.sendall(struct.pack(">H2s", len(body), b"en") + body)
s.settimeout(None)
while s.recv(65536):
    pass
PY
            ) >"$work/tank-${tank%%:*}.log" 2>&1 &
            pids+=($!)
        done
        joined=1
        break
    fi
    sleep 0.2
done
[[ -n $joined ]] || interop_fail "bzfs never answered query bzflag on $addr"
want_observers=$((robots + 1))
json=
for _ in $(seq 50); do
    json=$("$bin" query bzflag "$addr" --json --rules --players --timeout 1s 2>/dev/null) || json=
    if [[ -n $json ]] && python3 -c 'import json,sys; s = json.loads(sys.argv[1]); sys.exit((s["extras"]["observers"], s["online"]) != (int(sys.argv[2]), 2))' "$json" "$want_observers"; then
        break
    fi
    json=
    sleep 0.2
done
[[ -n $json ]] || interop_fail "2 tanks and $want_observers observers never showed in query bzflag"
echo "$NAME: ours: $(python3 -c 'import json,sys; print(json.dumps(json.loads(sys.argv[1])))' "$json")"
if grep -qi "CURLOPT_URL\|list server" "$work/bzfs.log"; then
    interop_fail "bzfs tried to reach a list server"
fi

python3 - "$json" <<'PY' || interop_fail "the server's settings not read back"
import json, sys
s = json.loads(sys.argv[1])
players = sorted((p["name"], p["score"]) for p in s["players"])
got = (s["name"], s["online"], s["max"], s["bots"], s["game"], s["version"], players)
want = ("", 2, 20, 0, "Capture the Flag", "0221", [("Alpha", 0), ("Bravo", 0)])
assert got == want, (got, want)
rules = dict(s["rules"])
for k, v in [("max_shots", "2"), ("max_team_score", "5"), ("time_limit", "900"),
             ("options", "jumping,inertia"), ("max_observer", "200")]:
    assert rules[k] == v, (k, rules[k], v)
PY

python3 - "$port" <<'PY' || interop_fail "the raw answer is not what the docs say"
import socket, sys
t = socket.create_connection(("127.0.0.1", int(sys.argv[1])), 2)
t.settimeout(2)
t.sendall(b"BZFLAG\r\n\r\n\x00\x00qg\x00\x00qp")
buf = b""
# hello 9, qg 48, qp 8, tu 45, then the records: read until the announced count is in.
while True:
    if len(buf) >= 65:
        n = int.from_bytes(buf[63:65], "big")
        if len(buf) >= 65 + 45 + 175 * n:
            break
    chunk = t.recv(4096)
    if not chunk:
        break
    buf += chunk
t.close()
print("bzflag.sh: raw answer:", buf.hex())
assert buf[:8] == b"BZFS0221" and buf[8] != 0xff, buf[:9]
assert buf[9:13] == b"\x00\x2cqg" and buf[57:61] == b"\x00\x04qp", buf[9:61]
assert buf[65:69] == b"\x00\x29tu", buf[65:69]
assert b"Watcher" in buf
PY

report=$(timeout 10 /usr/games/bzfquery "127.0.0.1" "$port" 2>&1) || interop_fail "bzfquery failed: $report"
echo "$NAME: bzfquery: $(echo "$report" | head -5 | tr '\n' ';')"
python3 - "$json" "$report" <<'PY' || interop_fail "bzfquery disagrees"
import json, re, sys
s = json.loads(sys.argv[1])
r = sys.argv[2]
field = lambda k: re.search(r"^%s: (.*)$" % k, r, re.M).group(1).strip()
sizes = [int(x) for x in re.search(r"^team sizes: ([\d ]+)\(", r, re.M).group(1).split()]
tanks = sorted(re.findall(r"^player (\S+) \((?:Red|Blue) team\)", r, re.M))
got = (int(field("maxPlayers")), field("maxShots"), field("style"), sizes[5], sum(sizes[:5]), tanks)
want = (s["max"], dict(s["rules"])["max_shots"], "ClassicCTF", s["extras"]["observers"], s["online"],
        sorted(p["name"] for p in s["players"]))
assert got == want, (got, want)
print("bzflag.sh: bzfquery agrees:", got)
PY
echo "$NAME: ok"
