#!/bin/bash
# Instructions per successful poll on the poller thread, counted by callgrind: a figure the
# busy machine cannot disturb the way it disturbs CPU time (benches/RESULTS.md, c1-cpu).
#
#   benches/poll_instructions.sh target/release/deps/load-<hash> [targets]   # default 1,000
#
# Runs the load bench's daemon phase (A2S, 5 s interval, 10 s window) under callgrind with
# one output file per thread; the responder child is not traced. The poller thread is the
# busiest thread besides the main one; polls are counted as calls of decode_info (one per
# successful A2S poll, warm-up included). "without memset" leaves out zeroing fresh 64 KiB
# receive buffers, which happens only when the buffer pool runs dry and varies run to run.
set -euo pipefail
bin=$(realpath "$1")
targets=${2:-1000}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
cd "$dir"
valgrind --tool=callgrind --separate-threads=yes --callgrind-out-file="$dir/cg.out" \
    "$bin" --a2s "$targets" --interval 5s --seconds 10 --floor-rounds 100 >run.txt 2>vg.txt
best=""
best_ir=0
for f in cg.out-*; do
    [ "$f" = cg.out-01 ] && continue
    ir=$(awk '/^summary:/ {print $2; exit}' "$f")
    if [ "$ir" -gt "$best_ir" ]; then
        best=$f
        best_ir=$ir
    fi
done
callgrind_annotate --tree=caller "$best" >ann.txt 2>/dev/null
polls=$(grep -B1 '\* .*decode_info \[' ann.txt | head -1 | sed -E 's/.*\(([0-9,]+)x\).*/\1/' | tr -d ,)
memset=$(grep -m1 '__memset_avx2_unaligned_erms' ann.txt | awk '{print $1}' | tr -d , || true)
memset=${memset:-0}
echo "poller thread: $best_ir instructions, $polls polls: $((best_ir / polls)) per poll, $(((best_ir - memset) / polls)) without memset"
grep -E 'allocations per poll' run.txt
