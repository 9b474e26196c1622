#!/bin/bash
# Instructions per successful poll on the poller thread, counted by callgrind: a figure the
# busy machine cannot disturb the way it disturbs CPU time (benches/RESULTS.md, c1-cpu).
#
#   benches/poll_instructions.sh target/release/deps/load-<hash> [targets] [protocol]
#
# protocol: a2s (default; 1,000 targets by default), minecraft (200 targets by default:
# TCP connects under callgrind are slow, and a poll that misses its timeout is not counted),
# or any other protocol id of the load bench's one-table mode (gamespy3, minecraft-query,
# mumble, samp, ...; 1,000 targets by default).
# Runs the load bench's daemon phase (`--a2s N`, or `--a2s 0 --minecraft N`; for every other
# protocol the one-table mode, `--table --targets N --protocols P`, whose simulators and
# floors are not on the poller thread, and `--no-reference`: the A2S reference windows would
# run on the same thread and be counted; 5 s interval, 10 s window) under callgrind with one
# output file per thread; the responder and simulator children are not traced. The poller
# thread is the busiest thread besides the main one.
# Polls are counted as calls of a function every poll passes through once, warm-up included:
# in the one-table mode the target's record, `state::Entry::record` (every protocol alike;
# a failed poll is counted too, so read the bench's success ratio beside it: 1.00000 in every
# run on loopback); in the `--a2s`/`--minecraft` modes the protocol's decoder, as before:
# decode_info (A2S), parse_status_json (Minecraft 1.7+ status; in the pre-template build too).
# COUNTER=<regex> counts another function (a decoder: `map::status_of` for gamespy3,
# `view_body_keeping` for minecraft-query, what earlier sessions counted). "without
# memset" leaves out zeroing fresh 64 KiB receive buffers, which happens only when the buffer
# pool runs dry and varies run to run. MARGINAL=1 adds a 30 s run and prints the instructions
# per poll of the difference (see below); KEEP=path/prefix keeps the 10 s profile.
set -euo pipefail
bin=$(realpath "$1")
protocol=${3:-a2s}
record="state::Entry::record"
case "$protocol" in
    a2s) targets=${2:-1000}; counter=decode_info; flags=(--a2s "$targets")
        # TABLE=1: A2S in the one-table mode too, the yardstick beside the other protocols.
        if [ -n "${TABLE:-}" ]; then counter=$record; flags=(--table --targets "$targets" --protocols a2s --no-reference); fi ;;
    minecraft) targets=${2:-200}; counter=parse_status_json; flags=(--a2s 0 --minecraft "$targets") ;;
    *[!a-z0-9-]*) echo "protocol: a protocol id (a2s, minecraft, gamespy3, ...), not $protocol" >&2; exit 2 ;;
    *) targets=${2:-1000}; counter=$record; flags=(--table --targets "$targets" --protocols "$protocol" --no-reference) ;;
esac
counter=${COUNTER:-$counter}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
cd "$dir"

# measure SECONDS: runs the bench for a window of that many seconds; sets ir (the poller
# thread's instructions), polls, memset and leaves ann.txt and run.txt.
measure() {
    rm -f cg.out-*
    valgrind --tool=callgrind --separate-threads=yes --callgrind-out-file="$dir/cg.out" \
        "$bin" "${flags[@]}" --interval 5s --seconds "$1" --floor-rounds 100 >run.txt 2>vg.txt
    local f best=""
    ir=0
    for f in cg.out-*; do
        [ "$f" = cg.out-01 ] && continue
        local n
        n=$(awk '/^summary:/ {print $2; exit}' "$f")
        if [ "$n" -gt "$ir" ]; then
            best=$f
            ir=$n
        fi
    done
    cp "$best" best.cg
    callgrind_annotate --tree=caller best.cg >ann.txt 2>/dev/null
    # The calls of the counter from all its callers: the caller lines above its `*` line.
    polls=$(awk -v fn="$counter" '
        $0 ~ "\\* .*::" fn " \\[" { print sum; exit }
        /^$/ { sum = 0; next }
        /\([0-9,]+x\)/ { s = $0; sub(/.*\(/, "", s); sub(/x\).*/, "", s); gsub(/,/, "", s); sum += s }
    ' ann.txt)
    memset=$(grep -m1 '__memset_avx2_unaligned_erms' ann.txt | awk '{print $1}' | tr -d , || true)
    memset=${memset:-0}
}

if [ -n "${MARGINAL:-}" ]; then
    # Start-up and per-target set-up cancel out: the difference between a 30 s and a 10 s
    # window, per poll of the difference. Steadier than the 10 s figure, whose polls vary
    # with how many the slowed-down run fits.
    measure 10
    ir10=$ir polls10=$polls
    measure 30
    echo "marginal: $((ir - ir10)) instructions over $((polls - polls10)) polls: $(((ir - ir10) / (polls - polls10))) per poll"
fi
measure 10
echo "poller thread: $ir instructions, $polls polls: $((ir / polls)) per poll, $(((ir - memset) / polls)) without memset"
grep -E 'allocations per poll|^row:' run.txt || true
if [ -n "${KEEP:-}" ]; then cp best.cg "$KEEP.cg"; cp ann.txt "$KEEP.ann"; cp run.txt "$KEEP.run"; fi
