#!/usr/bin/env bash
# Per-player series at scale (issue "Who is online"): N A2S simulators of P players each
# (examples/playerfleet.rs), polled by the release exporter once with `players = true` on every
# target and once without. Reports CPU per poll (utime+stime of the exporter over a window),
# peak RSS, and one scrape's size plain and gzip, and its series count.
#
#   benches/players.sh [servers=1000] [players=20] [seconds=30]
#
# Loopback only; stops every process it started by PID.
set -euo pipefail
cd "$(dirname "$0")/.."
servers=${1:-1000}
players=${2:-20}
seconds=${3:-30}
interval=5

cargo build --release --locked --quiet --bin gameserver-exporter --example playerfleet
# EXPORTER=path runs a saved binary instead (paired before/after runs).
bin=${EXPORTER:-target/release/gameserver-exporter}
work=$(mktemp -d)
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; rm -rf "$work"; }
trap cleanup EXIT

target/release/examples/playerfleet "$servers" "$players" "$work" "${interval}s" 2>"$work/fleet.log" &
pids+=($!)
for _ in $(seq 600); do [[ -e $work/ready ]] && break; sleep 0.1; done
[[ -e $work/ready ]] || { echo "fleet did not start" >&2; exit 1; }

ticks=$(getconf CLK_TCK)
cpu_of() { awk '{print $14 + $15}' "/proc/$1/stat"; }

for mode in off on; do
    port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
    "$bin" --config "$work/$mode.toml" --listen "127.0.0.1:$port" --log-level warn 2>"$work/$mode.log" &
    pid=$!
    pids+=($pid)
    sleep $((interval * 2))   # warm-up: every target polled at least once
    q0=$(curl -s "http://127.0.0.1:$port/metrics" | awk '/^gameserver_queries_total/ {s+=$2} END {print s}')
    c0=$(cpu_of $pid)
    sleep "$seconds"
    c1=$(cpu_of $pid)
    curl -s "http://127.0.0.1:$port/metrics" >"$work/$mode.prom"
    q1=$(awk '/^gameserver_queries_total/ {s+=$2} END {print s}' "$work/$mode.prom")
    up=$(grep -c '^gameserver_up{.*} 1$' "$work/$mode.prom" || true)
    series=$(grep -vc '^#' "$work/$mode.prom")
    player_series=$(grep -c '^gameserver_player_' "$work/$mode.prom" || true)
    plain=$(wc -c <"$work/$mode.prom")
    gz=$(curl -s -H 'Accept-Encoding: gzip' "http://127.0.0.1:$port/metrics" | wc -c)
    rss=$(awk '/VmHWM/ {print $2}' "/proc/$pid/status")
    polls=$((q1 - q0))
    python3 - "$mode" "$c0" "$c1" "$ticks" "$polls" "$up" "$series" "$player_series" "$plain" "$gz" "$rss" "$servers" "$players" <<'PY'
import sys
mode, c0, c1, ticks, polls, up, series, pseries, plain, gz, rss, n, p = sys.argv[1:]
cpu = (int(c1) - int(c0)) / int(ticks)
polls = int(polls)
per = cpu / polls * 1e6 if polls else float("nan")
print(f"players {mode:3}: {n} servers x {p} players: {polls} polls, {per:.1f} µs CPU per poll, "
      f"peak RSS {int(rss)/1024:.1f} MiB, up {up}, {series} samples ({pseries} gameserver_player_*), "
      f"scrape {int(plain)/1e6:.2f} MB plain, {int(gz)/1e3:.0f} KB gzip")
PY
    kill "$pid"
    wait "$pid" 2>/dev/null || true
done
