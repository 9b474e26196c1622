#!/usr/bin/env bash
# Issue 23's "one table, one sitting": every protocol of Protocol::ALL against its own
# simulator (one per target, in child processes), the daemon in-process, beside UDP floors
# (1, 4, 16, 256 in flight) and a TCP floor (a Minecraft status ping, 1, 16, 256 in flight)
# measured in the same run. Prints the per-protocol detail, then a markdown table to paste
# into benches/RESULTS.md and docs/performance.md. Run it on an otherwise idle machine.
#
# Usage: benches/table.sh [load bench flags]
#   default: --targets 10000 --interval 5s --seconds 10 (about 8 minutes)
#   quick:   benches/table.sh --targets 1000
#   subset:  benches/table.sh --protocols a2s,minecraft,teamspeak3
# Later flags override earlier ones. The whole output is also kept in $OUT (default a temp file).
set -euo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-$(mktemp /tmp/table.XXXXXX)}
ulimit -n "$(ulimit -Hn)" 2>/dev/null || true
echo "# benches/table.sh $* ($(date -u +%Y-%m-%dT%H:%MZ), $(git rev-parse --short HEAD 2>/dev/null || echo '?'))" | tee "$OUT"
cargo bench --bench load -- --table --targets 10000 --interval 5s --seconds 10 "$@" 2>&1 | tee -a "$OUT"
echo "# output kept in $OUT"
