#!/usr/bin/env bash
# Issue 23's "one table, one sitting": every protocol of Protocol::ALL against its own
# simulator (one per target, in child processes), the daemon in-process, beside UDP floors
# (1, 4, 16, 256 in flight) and a TCP floor (a Minecraft status ping, 1, 16, 256 in flight)
# measured at the start and again at the end of the run ("x floor" is against their mean).
# Before each protocol but A2S, an A2S reference window on the same A2S simulators (kept for
# the whole run): "x a2s adj." is against it, "x a2s 1st" against the A2S row, and the
# references' min/median/max show how far the same code drifted. Prints the per-protocol
# detail, then a markdown table to paste into benches/RESULTS.md and docs/performance.md.
# Run it on an otherwise idle machine.
#
# Usage: benches/table.sh [load bench flags]
#   default: --targets 10000 --interval 5s --seconds 10 (11-14 minutes measured: 20 protocols and
#            19 A2S references of ~16 s each; about 5 with --no-reference)
#   quick:   benches/table.sh --targets 1000 --no-reference
#   subset:  benches/table.sh --protocols a2s,minecraft,teamspeak3
#   check:   benches/table.sh --targets 500 --seconds 3 --protocols a2s,mumble,minecraft (~1 minute)
# Later flags override earlier ones. The whole output is also kept in $OUT (default a temp file).
set -euo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-$(mktemp /tmp/table.XXXXXX)}
ulimit -n "$(ulimit -Hn)" 2>/dev/null || true
echo "# benches/table.sh $* ($(date -u +%Y-%m-%dT%H:%MZ), $(git rev-parse --short HEAD 2>/dev/null || echo '?'))" | tee "$OUT"
cargo bench --bench load -- --table --targets 10000 --interval 5s --seconds 10 "$@" 2>&1 | tee -a "$OUT"
echo "# output kept in $OUT"
