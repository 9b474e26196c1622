#!/usr/bin/env bash
# Interop check of the PROXY protocol header against a real HAProxy (Debian's haproxy):
# HAProxy listens with `accept-proxy` (it takes v1 and v2 and refuses a connection without a
# header) in TCP mode in front of the demo's Minecraft simulator, then
#   1. `gameserver-exporter query minecraft` without a header must fail;
#   2. with `--proxy-protocol v1` and with `--proxy-protocol v2` the status must arrive
#      (the demo world's name and player cap);
#   3. the daemon with three targets on HAProxy (v1, v2, none) publishes gameserver_up 1 for
#      the first two and 0 for the third.
# Every process it starts is stopped by its PID, on failure too. Takes a few seconds.
#
# Usage: .ci/interop/haproxy.sh [path/to/gameserver-exporter]  (default: target/debug/...,
# built if missing)
set -euo pipefail
cd "$(dirname "$0")/../.."
NAME=haproxy.sh
. .ci/interop/lib.sh

bin=${1:-target/debug/gameserver-exporter}
if [[ ! -x $bin ]]; then
    cargo build --locked --bin gameserver-exporter
fi

if ! command -v haproxy >/dev/null 2>&1 && [[ ! -x /usr/sbin/haproxy ]]; then
    # In a subshell: interop_install exits on failure, and a missing tool is a loud skip.
    if ! (interop_install haproxy); then
        echo "$NAME: SKIPPED: haproxy is not installed and could not be installed" >&2
        exit 0
    fi
fi
haproxy=$(command -v haproxy || echo /usr/sbin/haproxy)

interop_work

# The demo: a simulator of every protocol on 127.0.0.1 (each prints its address), and an
# exporter polling them on a port of its own that this script does not use.
: >"$work/demo.log" # exists before the background job opens it
"$bin" demo --listen "127.0.0.1:$(free_tcp_port)" >"$work/demo.log" 2>&1 &
pids+=($!)
sim=
for _ in $(seq 80); do
    sim=$(sed -nE 's/^ *minecraft simulator on (127\.0\.0\.1:[0-9]+)$/\1/p' "$work/demo.log")
    [[ -n $sim ]] && break
    kill -0 "${pids[-1]}" 2>/dev/null || interop_fail "demo exited"
    sleep 0.25
done
[[ -n $sim ]] || interop_fail "demo printed no minecraft simulator address"

port=$(free_tcp_port)
cat >"$work/haproxy.cfg" <<CFG
global
    log stdout format raw local0
defaults
    mode tcp
    log global
    option tcplog
    timeout connect 2s
    timeout client 5s
    timeout server 5s
frontend minecraft
    bind 127.0.0.1:$port accept-proxy
    default_backend simulator
backend simulator
    server sim $sim
CFG
"$haproxy" -c -q -f "$work/haproxy.cfg" || interop_fail "haproxy -c rejects the generated config"
# -db: foreground, no daemon; its PID is the one to stop.
"$haproxy" -db -f "$work/haproxy.cfg" >"$work/haproxy.log" 2>&1 &
pids+=($!)
python3 - "$port" <<'PY' || interop_fail "haproxy does not listen on $port"
import socket, sys, time
deadline = time.monotonic() + 10
while True:
    try:
        socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=0.5).close()
        break
    except OSError:
        if time.monotonic() > deadline:
            sys.exit(1)
        time.sleep(0.1)
PY
echo "$NAME: HAProxy $("$haproxy" -v | sed -nE '1s/^HAProxy version ([^ ]+).*/\1/p') on 127.0.0.1:$port (accept-proxy) -> simulator $sim"

# 1. No header: HAProxy drops the connection, every attempt of the ping fails.
if "$bin" query minecraft "127.0.0.1:$port" --json --timeout 2s >"$work/none.json" 2>"$work/none.log"; then
    interop_fail "query without a PROXY header succeeded through accept-proxy"
fi
echo "$NAME: without a header: refused ($(tail -n 1 "$work/none.log"))"

# 2. v1 and v2: the demo world's status arrives.
for v in v1 v2; do
    "$bin" query minecraft "127.0.0.1:$port" --json --timeout 3s --proxy-protocol "$v" \
        >"$work/$v.json" 2>"$work/query-$v.log" || interop_fail "query --proxy-protocol $v exited $?"
    python3 - "$work/$v.json" "$v" <<'PY' || interop_fail "query --proxy-protocol $v output"
import json, sys
s = json.load(open(sys.argv[1]))
assert s["name"] == "A Demo Minecraft Server", s["name"]
assert s["max"] == 20, s["max"]
assert 0 <= s["online"] <= 20, s["online"]
assert 0 < s["latency"] < 3, s["latency"]
print("haproxy.sh: --proxy-protocol %s: %r, %d/%d players" % (sys.argv[2], s["name"], s["online"], s["max"]))
PY
done

# 3. The daemon: the v1 and v2 targets up, the one without a header down.
listen=127.0.0.1:$(free_tcp_port)
cat >"$work/exporter.toml" <<TOML
[exporter]
interval = "1s"
timeout = "900ms"

[[target]]
name = "mc-v1"
protocol = "minecraft"
address = "127.0.0.1:$port"
proxy_protocol = "v1"

[[target]]
name = "mc-v2"
protocol = "minecraft"
address = "127.0.0.1:$port"
proxy_protocol = "v2"

[[target]]
name = "mc-none"
protocol = "minecraft"
address = "127.0.0.1:$port"
TOML
"$bin" check-config "$work/exporter.toml" >/dev/null || interop_fail "check-config"
"$bin" --config "$work/exporter.toml" --listen "$listen" --log-level warn >"$work/exporter.log" 2>&1 &
pids+=($!)
for t in mc-v1 mc-v2; do
    sel="{target=\"$t\",protocol=\"minecraft\"}"
    python3 .ci/interop/await_series.py "$NAME $t" "$listen" "$t" minecraft 15 \
        "gameserver_up$sel 1" "gameserver_players_max$sel 20" ||
        interop_fail "daemon gauges of $t"
done
python3 - "$listen" <<'PY' || interop_fail "mc-none is not down"
import sys, time, urllib.request
want = 'gameserver_up{target="mc-none",protocol="minecraft"} 0'
deadline = time.monotonic() + 15
while True:
    body = urllib.request.urlopen("http://%s/metrics" % sys.argv[1], timeout=2).read().decode()
    if want in body.splitlines():
        print("haproxy.sh: daemon: mc-none (no header) is down")
        break
    if time.monotonic() > deadline:
        sys.exit("haproxy.sh: %s not seen" % want)
    time.sleep(0.2)
PY
echo "$NAME: ok"
