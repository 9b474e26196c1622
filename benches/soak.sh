#!/usr/bin/env bash
# Soak test: the release daemon polls a fleet of simulated servers (healthy and hostile, see
# examples/simfleet.rs) for DURATION seconds, with a SIGHUP reload every RELOAD_EVERY seconds
# alternating two configurations that differ in a few targets. Samples the daemon's RSS and
# open fds at start, periodically and at the end, and prints failures by reason from /metrics.
#
# Usage: benches/soak.sh [duration-seconds]  (default 600; builds the release binaries first)   (env: TARGETS=1000 RELOAD_EVERY=30 SAMPLE_EVERY=60
#                                              INTERVAL=10s TIMEOUT=2s NO_BUILD=1 OUT=dir)
# Exits non-zero if the daemon died, or fds at the end exceed fds at start by more than 64.
set -euo pipefail

DURATION=${1:-${DURATION:-600}}
TARGETS=${TARGETS:-1000}
RELOAD_EVERY=${RELOAD_EVERY:-30}
SAMPLE_EVERY=${SAMPLE_EVERY:-60}
INTERVAL=${INTERVAL:-10s}
TIMEOUT=${TIMEOUT:-2s}
OUT=${OUT:-$(mktemp -d /tmp/soak.XXXXXX)}
cd "$(dirname "$0")/.."

if [[ -z ${NO_BUILD:-} ]]; then
    cargo build --release --bin gameserver-exporter --example simfleet
fi
PROFILE_DIR=${PROFILE_DIR:-target/release}
BIN=$PROFILE_DIR/gameserver-exporter
FLEET=$PROFILE_DIR/examples/simfleet

ulimit -n "$(ulimit -Hn)" 2>/dev/null || true
mkdir -p "$OUT"
rm -f "$OUT/ready"
"$FLEET" "$TARGETS" "$OUT" "$INTERVAL" "$TIMEOUT" 2>"$OUT/simfleet.log" &
FLEET_PID=$!
DAEMON_PID=
cleanup() {
    [[ -n $DAEMON_PID ]] && kill "$DAEMON_PID" 2>/dev/null || true
    kill "$FLEET_PID" 2>/dev/null || true
    wait 2>/dev/null || true
}
trap cleanup EXIT

for _ in $(seq 1 600); do
    [[ -s $OUT/ready ]] && break
    kill -0 "$FLEET_PID" 2>/dev/null || { echo "simfleet died:"; cat "$OUT/simfleet.log"; exit 1; }
    sleep 0.1
done
[[ -s $OUT/ready ]] || { echo "simfleet not ready"; exit 1; }
PORT=$(cat "$OUT/ready")
cp "$OUT/a.toml" "$OUT/active.toml"
"$BIN" --config "$OUT/active.toml" --log-level warn 2>"$OUT/daemon.log" &
DAEMON_PID=$!

scrape() { # scrape PATH -> body on stdout; empty on failure
    curl -s --max-time 10 "http://127.0.0.1:$PORT$1" || true
}
for _ in $(seq 1 100); do
    scrape /-/healthy | grep -q healthy && break
    sleep 0.1
done

rss_kib() { awk '/^VmRSS:/ {print $2}' "/proc/$DAEMON_PID/status"; }
hwm_kib() { awk '/^VmHWM:/ {print $2}' "/proc/$DAEMON_PID/status"; }
fds() { ls "/proc/$DAEMON_PID/fd" | wc -l; }
sample() { # sample LABEL
    printf '%-8s t=%5ss rss=%6s KiB fds=%5s\n' "$1" "$((SECONDS - START))" "$(rss_kib)" "$(fds)" | tee -a "$OUT/samples.txt"
}

START=$SECONDS
# The first polls start at random points of the interval: measure "start" after one interval
# (humantime units the soak needs: s or ms).
case $INTERVAL in
*ms) sleep "$(awk -v ms="${INTERVAL%ms}" 'BEGIN {print ms / 1000}')" ;;
*s) sleep "${INTERVAL%s}" ;;
*) echo "INTERVAL must be in s or ms" >&2; exit 2 ;;
esac
sample start
RSS0=$(rss_kib)
FDS0=$(fds)
next_reload=$((SECONDS + RELOAD_EVERY))
next_sample=$((SECONDS + SAMPLE_EVERY))
which=a
reloads=0
while ((SECONDS - START < DURATION)); do
    kill -0 "$DAEMON_PID" 2>/dev/null || { echo "daemon died"; tail "$OUT/daemon.log"; exit 1; }
    if ((SECONDS >= next_reload)); then
        which=$([[ $which == a ]] && echo b || echo a)
        cp "$OUT/$which.toml" "$OUT/active.toml"
        kill -HUP "$DAEMON_PID"
        reloads=$((reloads + 1))
        next_reload=$((next_reload + RELOAD_EVERY))
    fi
    if ((SECONDS >= next_sample)); then
        sample periodic
        next_sample=$((next_sample + SAMPLE_EVERY))
    fi
    sleep 1
done
sample end
RSS1=$(rss_kib)
FDS1=$(fds)
HWM=$(hwm_kib)
METRICS=$(scrape /metrics)
kill -0 "$DAEMON_PID" 2>/dev/null || { echo "daemon died"; exit 1; }

echo
echo "== soak summary: $TARGETS targets, ${DURATION}s, $reloads reloads (SIGHUP every ${RELOAD_EVERY}s)"
echo "rss start ${RSS0} KiB, end ${RSS1} KiB, peak (VmHWM) ${HWM} KiB"
echo "fds start ${FDS0}, end ${FDS1}"
echo "targets up: $(grep -c '^gameserver_up{.*} 1$' <<<"$METRICS" || true)," \
    "down: $(grep -c '^gameserver_up{.*} 0$' <<<"$METRICS" || true)"
echo "config reload successful: $(grep '^gameserver_config_last_reload_successful ' <<<"$METRICS" | cut -d' ' -f2)"
echo "failures by reason (sum over targets):"
grep '^gameserver_query_failures_total{' <<<"$METRICS" |
    sed -E 's/.*reason="([a-z_]+)".* ([0-9.e+]+)$/\1 \2/' |
    awk '{s[$1] += $2} END {for (r in s) printf "  %-10s %d\n", r, s[r]}' | sort
echo "polls total: $(grep '^gameserver_queries_total{' <<<"$METRICS" | awk '{s += $NF} END {print s}')"
echo "daemon log lines at warn+: $(wc -l <"$OUT/daemon.log")  (panics: $(grep -c panicked "$OUT/daemon.log" || true))"
echo "samples and logs in $OUT"
if ((FDS1 > FDS0 + 64)); then
    echo "FAIL: fds grew from $FDS0 to $FDS1"
    exit 1
fi
