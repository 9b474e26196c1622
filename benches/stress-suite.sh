#!/usr/bin/env bash
# Issue 32's stress proof: the whole `cargo test --locked` three times in a row while
# `stress-ng --cpu 4` keeps both cores busy, as a loaded CI machine or a contributor's other
# builds would. Every run must pass; CONTRIBUTING.md ("Figures") keeps the last figures.
# Not part of .ci/run: it takes three suite runs under load (about 3-10 minutes).
#
# Usage: benches/stress-suite.sh [runs]   (Debian: apt-get install stress-ng)
set -uo pipefail
cd "$(dirname "$0")/.."
runs=${1:-3}
command -v stress-ng >/dev/null || { echo "stress-ng not installed (apt-get install stress-ng)" >&2; exit 2; }
cargo test --locked --no-run >/dev/null 2>&1 || { echo "the tests do not build" >&2; exit 2; }
stress-ng --cpu 4 --timeout 3600s >/dev/null 2>&1 &
stress=$!
trap 'kill $stress 2>/dev/null; wait $stress 2>/dev/null' EXIT
sleep 5
failed=0
for i in $(seq "$runs"); do
    log=$(mktemp /tmp/stress-suite.XXXXXX)
    start=$SECONDS
    cargo test --locked >"$log" 2>&1
    rc=$?
    passed=$(grep -E '^test result' "$log" | awk '{s+=$4} END {print s}')
    fails=$(grep -E '^test result' "$log" | awk '{s+=$6} END {print s}')
    echo "run $i: rc $rc, $((SECONDS - start)) s, load $(cut -d' ' -f1-3 /proc/loadavg), $passed passed, $fails failed (log $log)"
    ((rc == 0)) || failed=$((failed + 1))
done
exit $((failed > 0))
