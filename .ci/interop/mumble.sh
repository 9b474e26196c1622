#!/usr/bin/env bash
# Interop check against a real Mumble server (Debian's mumble-server, Murmur): installs it if
# missing, starts it on 127.0.0.1 on a free port with a known `users` and `bandwidth`, then
#   1. sends the 12-byte UDP ping itself and checks the 24-byte reply against those settings;
#   2. runs `gameserver-exporter query mumble 127.0.0.1:PORT --json` and checks its output;
#   3. runs the exporter daemon on another free port and checks its gauges on /metrics.
# Every process it starts is stopped by its PID, on failure too. Takes a few seconds.
#
# Usage: .ci/interop/mumble.sh [path/to/gameserver-exporter]  (default: target/debug/...,
# built if missing)
set -euo pipefail
cd "$(dirname "$0")/../.."
NAME=mumble.sh
. .ci/interop/lib.sh

bin=${1:-target/debug/gameserver-exporter}
if [[ ! -x $bin ]]; then
    cargo build --locked --bin gameserver-exporter
fi

if ! command -v murmurd >/dev/null 2>&1 && [[ ! -x /usr/sbin/murmurd ]]; then
    interop_install mumble-server
fi
murmurd=$(command -v murmurd || echo /usr/sbin/murmurd)

interop_work
# Murmur started as root drops to the mumble-server user: its database directory must be
# writable for that user.
chmod 777 "$work"

port=$(free_port_both)
users=37
bandwidth=64000
cat >"$work/murmur.ini" <<INI
database=$work/murmur.sqlite
host=127.0.0.1
port=$port
users=$users
bandwidth=$bandwidth
registerName=
registerHostname=
ice=
INI

"$murmurd" -ini "$work/murmur.ini" -fg >"$work/murmur.log" 2>&1 &
pids+=($!)

# 1. The raw ping; prints the version Murmur packs into its reply.
version=$(python3 - "$port" "$users" "$bandwidth" <<'PY'
import socket, struct, sys, time
port, users, bandwidth = (int(a) for a in sys.argv[1:4])
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.settimeout(0.5)
ident = b"interop!"
deadline = time.monotonic() + 20
while True:
    s.sendto(b"\0\0\0\0" + ident, ("127.0.0.1", port))
    try:
        data, src = s.recvfrom(2048)
        break
    except (socket.timeout, ConnectionRefusedError):
        if time.monotonic() > deadline:
            sys.exit("mumble.sh: no ping reply within 20 s")
print("mumble.sh: reply", data.hex(), file=sys.stderr)
assert len(data) == 24, len(data)
version, echoed, online, maximum, bw = struct.unpack(">I8sIII", data)
assert echoed == ident, echoed
assert maximum == users, (maximum, users)
assert bw == bandwidth, (bw, bandwidth)
assert online == 0, online
print("%d.%d.%d" % (version >> 16, (version >> 8) & 255, version & 255))
PY
) || interop_fail "raw ping"
echo "mumble.sh: raw ping ok: Murmur $version, max users $users, bandwidth $bandwidth"
# The packaged version is the one the ping reports (Debian's 1.3.4-4 says 1.3.4).
pkg=$(dpkg-query -W -f '${Version}' mumble-server 2>/dev/null || true)
pkg=${pkg#*:}
if [[ -n $pkg && ${pkg%%[-+~]*} != "$version" ]]; then
    interop_fail "ping says version $version, package says $pkg"
fi

# 2. The exporter's query command.
"$bin" query mumble "127.0.0.1:$port" --json --timeout 2s >"$work/query.json" 2>"$work/query.log" ||
    interop_fail "query mumble exited $?"
python3 - "$work/query.json" "$users" "$bandwidth" "$version" <<'PY' || interop_fail "query mumble output"
import json, sys
path, users, bandwidth, version = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
s = json.load(open(path))
want = {"online": 0, "max": users, "name": "", "version": version}
got = {k: s.get(k) for k in want}
assert got == want, (got, want)
assert s["extras"]["bandwidth"] == bandwidth, s["extras"]
assert 0 < s["latency"] < 2, s["latency"]
print("mumble.sh: query ok:", json.dumps(got), "bandwidth", s["extras"]["bandwidth"])
PY

# 3. The daemon's gauges.
listen=127.0.0.1:$(free_tcp_port)
cat >"$work/exporter.toml" <<TOML
[exporter]
interval = "1s"
timeout = "900ms"

[[target]]
name = "murmur"
protocol = "mumble"
address = "127.0.0.1:$port"
TOML
"$bin" --config "$work/exporter.toml" --listen "$listen" --log-level warn >"$work/exporter.log" 2>&1 &
pids+=($!)
sel='{target="murmur",protocol="mumble"}'
python3 .ci/interop/await_series.py mumble.sh "$listen" murmur mumble 15 \
    "gameserver_up$sel 1" "gameserver_players_online$sel 0" "gameserver_players_max$sel $users" \
    "gameserver_info{target=\"murmur\",protocol=\"mumble\",name=\"\",map=\"\",game=\"\",version=\"$version\"} 1" ||
    interop_fail "daemon gauges"
echo "mumble.sh: ok"
