#!/usr/bin/env bash
# Issue 15's figures in one sitting: the load bench at 10,000 and 100,000 A2S targets, on
# loopback and through the simulated network (5-150 ms delay, 1 % dropped), one run after the
# other, each output kept in $OUT. Run it on an otherwise idle machine and compare ratios
# within the sitting (see benches/RESULTS.md). Takes about 15 minutes.
#
# Usage: benches/scale.sh            (env: OUT=dir, ROUNDS=1: how many times the whole set runs)
set -euo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-$(mktemp -d /tmp/scale.XXXXXX)}
ROUNDS=${ROUNDS:-1}
mkdir -p "$OUT"

bin=$(cargo bench --bench load --no-run 2>&1 |
    sed -n 's/.*(\(target\/release\/deps\/load-[0-9a-f]*\)).*/\1/p' | tail -n 1)
[[ -x $bin ]] || { echo "scale.sh: cannot find the load bench binary" >&2; exit 1; }
ulimit -n "$(ulimit -Hn)" 2>/dev/null || true

run() {
    local name=$1
    shift
    echo "== $name: load $* ($(uptime | sed 's/.*load average/load average/'))"
    "$bin" "$@" 2>&1 | tee "$OUT/$name.txt"
}

for round in $(seq 1 "$ROUNDS"); do
    run "r$round-a2s-10000-5s" --a2s 10000 --interval 5s --seconds 15
    run "r$round-a2s-100000-both" --a2s 100000 --interval 15s --seconds 15 --network both
    run "r$round-a2s-10000-both" --a2s 10000 --interval 15s --seconds 15 --network both
    run "r$round-a2s-100000-lossy" --a2s 100000 --interval 15s --seconds 15 --network lossy
    # The release binary as a child process (config file, HTTP scrapes, a real reload).
    run "r$round-a2s-100000-both-exporter" --engine exporter --a2s 100000 --interval 15s --seconds 15 --network both
    run "r$round-a2s-10000-both-exporter" --engine exporter --a2s 10000 --interval 15s --seconds 15 --network both
done
echo "scale.sh: outputs in $OUT"
