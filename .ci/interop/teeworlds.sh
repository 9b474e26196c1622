#!/usr/bin/env bash
# Interop check against real Teeworlds-family servers: installs ddnet-server and
# teeworlds-server if missing, starts DDNet 16.x and Teeworlds 0.7.x on free 127.0.0.1 ports
# (no master-server registration), checks each answers in the dialects it speaks (and that
# Teeworlds 0.7 ignores the 0.6 request, which is why the exporter must detect), then stops
# both by PID. Takes a few seconds once the packages are installed.
#
# Phase 2 extends this to assert `gameserver-exporter query teeworlds ...` and daemon gauges.
set -euo pipefail
cd "$(dirname "$0")/../.."

probe=.ci/interop/teeworlds_probe.py
DDNET=/usr/games/DDNet-Server
TW=/usr/games/teeworlds-server

need=()
[[ -x $DDNET ]] || need+=(ddnet-server)
[[ -x $TW ]] || need+=(teeworlds-server)
command -v python3 >/dev/null || need+=(python3)
if ((${#need[@]})); then
    if [[ $(id -u) -ne 0 ]]; then
        echo "teeworlds.sh: missing ${need[*]}; install them or run as root" >&2
        exit 1
    fi
    # teeworlds-server ships a service unit: it must not start (policy-rc.d exit 101).
    policy=/usr/sbin/policy-rc.d
    if [[ ! -e $policy ]]; then
        printf '#!/bin/sh\nexit 101\n' >"$policy"
        chmod 0755 "$policy"
        trap 'rm -f "$policy"' EXIT
    fi
    echo "teeworlds.sh: apt-get install ${need[*]}"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
fi

work=$(mktemp -d)
pids=()
cleanup() {
    for pid in "${pids[@]}"; do
        kill "$pid" 2>/dev/null || true
    done
    for pid in "${pids[@]}"; do
        wait "$pid" 2>/dev/null || true
    done
    rm -rf "$work"
}
trap cleanup EXIT

# A UDP port free on 127.0.0.1 right now (the server binds it a moment later).
free_port() {
    python3 -c 'import socket; s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

DD_PORT=$(free_port)
TW_PORT=$(free_port)
while [[ $TW_PORT == "$DD_PORT" ]]; do TW_PORT=$(free_port); done
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

if ((fail)); then
    echo "teeworlds.sh: FAILED" >&2
    exit 1
fi
echo "teeworlds.sh: ok (DDNet on $DD_PORT, Teeworlds 0.7 on $TW_PORT)"
