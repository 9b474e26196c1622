#!/usr/bin/env bash
# Interop check against real Teeworlds-family servers: installs ddnet-server and
# teeworlds-server if missing, starts DDNet 16.x and Teeworlds 0.7.x on free 127.0.0.1 ports
# (no master-server registration), checks each answers in the dialects it speaks (and that
# Teeworlds 0.7 ignores the 0.6 request, which is why the exporter must detect), joins a few
# fake clients, then asserts against the settings the servers were started with:
# - `gameserver-exporter query teeworlds 127.0.0.1:PORT --json` (name, map, max, online,
#   dialect, player names);
# - a daemon polling both: gameserver_up 1, players online/max, bots (0.7), and the name and
#   map labels of gameserver_info.
# Every process it starts is stopped by PID, on failure too. About 15 s once the packages are
# installed. The exporter binary: $GSE_BIN, else target/debug/gameserver-exporter (built if
# missing).
set -euo pipefail
cd "$(dirname "$0")/../.."
NAME=teeworlds.sh
. .ci/interop/lib.sh

probe=.ci/interop/teeworlds_probe.py
DDNET=/usr/games/DDNet-Server
TW=/usr/games/teeworlds-server

need=()
[[ -x $DDNET ]] || need+=(ddnet-server)
[[ -x $TW ]] || need+=(teeworlds-server)
# teeworlds-server ships a service unit: interop_install keeps it from starting.
((${#need[@]} == 0)) || interop_install "${need[@]}"

bin=${GSE_BIN:-target/debug/gameserver-exporter}
if [[ ! -x $bin ]]; then
    cargo build --locked --quiet --bin gameserver-exporter
fi

interop_work

DD_PORT=$(free_udp_port)
TW_PORT=$(free_udp_port)
while [[ $TW_PORT == "$DD_PORT" ]]; do TW_PORT=$(free_udp_port); done
DD_NAME="interop DDNet $DD_PORT"
TW_NAME="interop Teeworlds $TW_PORT"
DD_MAX=24
TW_MAX=12

# Both servers keep their state under $HOME/.local/share, and DDNet writes a database and a
# log into its working directory: give them a scratch one of each.
# DDNet: sv_ipv4only, or it also binds an IPv6 socket to 127.0.0.1 and gives up. Map
# Tutorial: DDNet speaks 0.7 only on maps it has a 0.7 version of (not dm1).
(cd "$work" && exec env HOME="$work" "$DDNET" "sv_register 0; sv_ipv4only 1; bindaddr 127.0.0.1; sv_port $DD_PORT; \
sv_name \"$DD_NAME\"; sv_max_clients $DD_MAX; sv_map Tutorial") >"$work/ddnet.log" 2>&1 &
pids+=($!)
(cd "$work" && exec env HOME="$work" "$TW" "sv_register 0" "bindaddr 127.0.0.1" "sv_port $TW_PORT" \
    "sv_name $TW_NAME" "sv_max_clients $TW_MAX" "sv_map dm1") >"$work/teeworlds.log" 2>&1 &
pids+=($!)

# Wait (bounded) until a server answers; print its log if it never does.
await() {
    local what=$1 log=$2
    shift 2
    for _ in $(seq 1 40); do
        if python3 "$probe" "$@" >/dev/null 2>&1; then
            return 0
        fi
        sleep 0.25
    done
    echo "teeworlds.sh: $what never answered; its log:" >&2
    tail -n 20 "$log" >&2
    return 1
}

await DDNet "$work/ddnet.log" check06 "$DD_PORT" "$DD_NAME"
await "Teeworlds 0.7" "$work/teeworlds.log" check07 "$TW_PORT" "$TW_NAME"

fail=0
python3 "$probe" check06 "$DD_PORT" "$DD_NAME" || fail=1
python3 "$probe" check07 "$DD_PORT" "$DD_NAME" || fail=1
python3 "$probe" check07 "$TW_PORT" "$TW_NAME" || fail=1
# Teeworlds 0.7 must not answer the 0.6 request: that is why the exporter detects.
if python3 "$probe" check06 "$TW_PORT" "$TW_NAME" >/dev/null; then
    echo "teeworlds.sh: Teeworlds 0.7 answered the 0.6 request; detection assumptions changed" >&2
    fail=1
else
    echo "check06 port $TW_PORT: no answer from Teeworlds 0.7, as expected"
fi

# Fake clients: 2 on DDNet (one spectating: online counts it), 3 connecting to 0.7.
python3 "$probe" hold "$DD_PORT" "$TW_PORT" 60 >"$work/hold.out" 2>&1 &
pids+=($!)
for _ in $(seq 1 40); do
    grep -q ready "$work/hold.out" 2>/dev/null && break
    sleep 0.25
done
grep -q ready "$work/hold.out" || { echo "teeworlds.sh: fake clients did not join" >&2; cat "$work/hold.out" >&2; fail=1; }

# `query --json` against the settings each server was started with.
query() {
    local what=$1 port=$2
    shift 2
    echo "query teeworlds 127.0.0.1:$port --json ($what)"
    if ! "$bin" query teeworlds "127.0.0.1:$port" --json --players >"$work/$what.json" 2>"$work/$what.err"; then
        echo "  exit status $?: $(cat "$work/$what.err")" >&2
        return 1
    fi
    python3 "$probe" json "$work/$what.json" "$@"
}
query ddnet "$DD_PORT" "name=$DD_NAME" map=Tutorial "max=$DD_MAX" online=2 flavour=ddnet \
    "players=nameless tee,brainless tee" || fail=1
query teeworlds07 "$TW_PORT" "name=$TW_NAME" map=dm1 "max=$TW_MAX" online=3 bots=0 flavour=0.7 \
    version-prefix=0.7 || fail=1

# The daemon, polling both every second.
listen_port=$(free_tcp_port)
cat >"$work/exporter.toml" <<TOML
[exporter]
listen = "127.0.0.1:$listen_port"
interval = "1s"
timeout = "900ms"

[[target]]
name = "tw-ddnet"
protocol = "teeworlds"
address = "127.0.0.1:$DD_PORT"

[[target]]
name = "tw-07"
game = "teeworlds"
address = "127.0.0.1:$TW_PORT"
TOML
"$bin" --config "$work/exporter.toml" --log-level warn >"$work/daemon.log" 2>&1 &
pids+=($!)
metrics="http://127.0.0.1:$listen_port/metrics"
echo "daemon on 127.0.0.1:$listen_port"
python3 "$probe" metrics "$metrics" tw-ddnet 15 up=1 "name=$DD_NAME" map=Tutorial "max=$DD_MAX" online=2 \
    || fail=1
python3 "$probe" metrics "$metrics" tw-07 15 up=1 "name=$TW_NAME" map=dm1 "max=$TW_MAX" online=3 bots=0 \
    || fail=1

if ((fail)); then
    echo "--- daemon log (tail)" >&2
    tail -n 20 "$work/daemon.log" >&2 || true
    echo "teeworlds.sh: FAILED" >&2
    exit 1
fi
echo "teeworlds.sh: ok (DDNet on $DD_PORT, Teeworlds 0.7 on $TW_PORT)"
