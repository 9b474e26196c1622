#!/usr/bin/env bash
# Interop check against real Quake 3-engine servers (opt-in: the game data is large).
#
#   GSE_INTEROP_QUAKE3=1 .ci/interop/quake3.sh          OpenArena (ioquake3), ~450 MB of packages
#   GSE_INTEROP_QUAKE3_DP=1 (as well)                   also Nexuiz (DarkPlaces), ~750 MB more
#
# Installs what is missing (apt, as root), starts each server on 127.0.0.1 on a free port with
# known settings, checks that getstatus and getinfo answer with those settings and that the
# engine's flood protection behaves as docs/protocols/quake3.md says, then asserts the
# exporter's `query quake3 ... --json` output and the daemon's gauges against the settings
# the server was started with, and stops every process it started by PID.
set -euo pipefail
cd "$(dirname "$0")/../.."

if [[ "${GSE_INTEROP_QUAKE3:-}" != 1 ]]; then
    echo "quake3 interop: skipped (set GSE_INTEROP_QUAKE3=1; downloads ~450 MB of game data)"
    exit 0
fi
NAME="quake3 interop"
. .ci/interop/lib.sh

interop_work

# check.py PORT NAME MAX BOTS MODE: polls until the server answers with the expected values,
# then probes its flood protection. MODE is ioq3 or dp.
cat >"$work/check.py" <<'PY'
import re, socket, sys, time
port, name, want_max, want_bots, mode = int(sys.argv[1]), sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), sys.argv[5]
src = iter("127.0.%d.%d" % (9, i) for i in range(1, 250))

def query(cmd, tag, sock=None, timeout=1.0):
    s = sock or socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    if sock is None:
        s.bind((next(src), 0))
    s.settimeout(timeout)
    s.sendto(b"\xff\xff\xff\xff%s %s\n" % (cmd.encode(), tag.encode()), ("127.0.0.1", port))
    try:
        return s.recvfrom(65535)[0]
    except socket.timeout:
        return None

def var(reply, key):
    m = re.search(rb"\\" + key.encode() + rb"\\([^\\\n]*)", reply)
    return m.group(1).decode() if m else None

deadline = time.time() + 60
while True:
    r = query("getstatus", "ready")
    lines = [l for l in (r or b"").split(b"\n")[2:] if l.strip()]
    if r and len(lines) >= want_bots:
        break
    if time.time() > deadline:
        sys.exit("no status with %d player lines within 60 s: %r" % (want_bots, r))
    time.sleep(1)
print("getstatus:", r[:120], "...", len(r), "bytes")
host = var(r, "sv_hostname") or var(r, "hostname")
assert host == name, (host, name)
slots = int(var(r, "sv_maxclients")) - int(var(r, "sv_privateClients") or 0)
assert slots == want_max, (slots, want_max)
assert var(r, "challenge") == "ready", var(r, "challenge")
pings = [l.split()[1] for l in lines]
assert len(lines) == want_bots and all(p == b"0" for p in pings), lines
if mode == "dp":
    assert var(r, "bots") == str(want_bots), var(r, "bots")
time.sleep(1.2)
i = query("getinfo", "info")
assert i and i.startswith(b"\xff\xff\xff\xffinfoResponse\n"), i
assert var(i, "challenge") == "info", i
print("getinfo:  ", i[:120], "...")

def pair(gap, cmds=("getstatus", "getstatus")):
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); s.bind((next(src), 0))
    a = query(cmds[0], "a", s)
    time.sleep(gap)
    b = query(cmds[1], "b", s, timeout=0.5)
    return a is not None, b is not None

fast, slow = pair(0.01), pair(1.1)
print("flood: 10 ms apart ->", fast, " 1.1 s apart ->", slow)
assert slow == (True, True), slow
if mode == "dp":
    assert fast == (True, False), fast
    assert pair(0.01, ("getinfo", "getstatus")) == (True, False)
else:
    assert fast == (True, True), fast
print("ok")
PY

bin=${GSE_BIN:-target/debug/gameserver-exporter}
[[ -x $bin ]] || cargo build --locked --quiet
[[ -x $bin ]] || { echo "quake3 interop: no binary at $bin" >&2; exit 1; }

# exporter_check PORT NAME MAX BOTS ONLINE: `query --json` and the daemon's gauges.
exporter_check() {
    local port=$1 name=$2 max=$3 bots=$4 online=$5
    # A fresh source port, but the same IP as check.py's last query: wait out the flood gap.
    sleep 1.2
    local json
    json=$("$bin" query quake3 "127.0.0.1:$port" --json --players --rules --timeout 4s)
    echo "query --json: ${json:0:300}..."
    python3 - "$json" "$name" "$max" "$bots" "$online" <<'PY'
import json, sys
s = json.loads(sys.argv[1]); name, mx, bots, online = sys.argv[2], *map(int, sys.argv[3:6])
got = (s["name"], s["max"], s["bots"], s["online"])
assert got == (name, mx, bots, online), (got, (name, mx, bots, online))
assert len(s["players"]) == online and all(p["ping"] == 0 for p in s["players"]), s["players"]
assert s["map"] == "aggressor", s["map"]
assert not any(k == "challenge" for k, _ in s["rules"]), "our challenge leaked into rules"
print("query: ok", got)
PY
    local lport
    lport=$(free_tcp_port)
    cat >"$work/exporter.toml" <<TOML
[exporter]
interval = "2s"
timeout = "1900ms"

[[target]]
name = "real"
protocol = "quake3"
address = "127.0.0.1:$port"
TOML
    "$bin" --config "$work/exporter.toml" --listen "127.0.0.1:$lport" --log-level warn \
        >"$work/daemon.log" 2>&1 &
    local dpid=$!
    pids+=("$dpid")
    local metrics="" i
    for i in $(seq 40); do
        sleep 0.5
        metrics=$(python3 -c 'import sys, urllib.request
try: print(urllib.request.urlopen(sys.argv[1], timeout=2).read().decode())
except Exception: pass' "http://127.0.0.1:$lport/metrics")
        grep -q '^gameserver_up{target="real",protocol="quake3"} 1' <<<"$metrics" && break
    done
    # Four more polls (2 s apart): none may fail on the flood-protected server.
    sleep 8
    metrics=$(python3 -c 'import sys, urllib.request; print(urllib.request.urlopen(sys.argv[1], timeout=2).read().decode())' "http://127.0.0.1:$lport/metrics")
    kill "$dpid"
    grep '{target="real"' <<<"$metrics" | grep -E '^gameserver_(up|players_(online|max|bots)|query_failures_total|queries_total)' || true
    grep -q "^gameserver_up{target=\"real\",protocol=\"quake3\"} 1$" <<<"$metrics"
    grep -q "^gameserver_players_max{target=\"real\",protocol=\"quake3\"} $max$" <<<"$metrics"
    grep -q "^gameserver_players_online{target=\"real\",protocol=\"quake3\"} $online$" <<<"$metrics"
    grep -q "^gameserver_players_bots{target=\"real\",protocol=\"quake3\"} $bots$" <<<"$metrics"
    if grep -q '^gameserver_query_failures_total{target="real"' <<<"$metrics"; then
        echo "quake3 interop: the daemon's polls failed" >&2
        exit 1
    fi
    echo "daemon: ok"
}

interop_install openarena-server
port=$(free_udp_port)
mkdir -p "$work/oa"
HOME="$work/oa" /usr/games/openarena-server +set net_enabled 1 +set net_ip 127.0.0.1 \
    +set net_port "$port" +set dedicated 1 +set sv_master1 "" \
    +set sv_hostname "^1Interop ^7OA" +set sv_maxclients 10 +set sv_privateClients 2 \
    +set bot_enable 1 +set bot_minplayers 2 +map aggressor >"$work/oa.log" 2>&1 </dev/null &
pids+=($!)
echo "quake3 interop: OpenArena pid ${pids[-1]} on 127.0.0.1:$port"
python3 "$work/check.py" "$port" "^1Interop ^7OA" 8 2 ioq3 || { tail -20 "$work/oa.log"; exit 1; }
exporter_check "$port" "Interop OA" 8 2 2

if [[ "${GSE_INTEROP_QUAKE3_DP:-}" == 1 ]]; then
    interop_install nexuiz-server
    port=$(free_udp_port)
    mkdir -p "$work/dp"
    # A fifo keeps the console open so that commands can follow the map load.
    mkfifo "$work/dp.in"
    sleep 600 >"$work/dp.in" &
    pids+=($!)
    HOME="$work/dp" /usr/games/nexuiz-server -dedicated +set net_address 127.0.0.1 \
        +set net_address_ipv6 ::1 +port "$port" +set sv_public 0 \
        +set hostname "^1Interop ^7DP" +maxplayers 6 +set minplayers 2 +map aggressor \
        >"$work/dp.log" 2>&1 <"$work/dp.in" &
    pids+=($!)
    echo "quake3 interop: Nexuiz pid ${pids[-1]} on 127.0.0.1:$port"
    sleep 3
    # Nexuiz adds no bots to an empty server unless told to.
    echo "bot_join_empty 1" >"$work/dp.in"
    python3 "$work/check.py" "$port" "^1Interop ^7DP" 6 2 dp || { tail -20 "$work/dp.log"; exit 1; }
    exporter_check "$port" "Interop DP" 6 2 2
fi
echo "quake3 interop: passed"
