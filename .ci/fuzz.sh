#!/usr/bin/env bash
# Fuzz smoke run for CI: builds the libFuzzer targets in fuzz/ once (address sanitizer, debug
# assertions), then runs each for FUZZ_SECONDS (default 15) over a copy of the checked-in
# corpus, so the checkout stays clean. Fails if any target crashes, and prints per target the
# executions from libFuzzer's final stats. FUZZ_JOBS targets (default: one per core) run at
# once: each fuzzer is one busy thread, so two cores run two for the time of one, with the
# same executions each.
#
# Without a nightly toolchain or cargo-fuzz the targets cannot be built: the decoders' proptests
# run instead and the script says so, exiting 0.
set -euo pipefail
cd "$(dirname "$0")/.."

seconds="${FUZZ_SECONDS:-15}"

if ! rustup run nightly rustc --version >/dev/null 2>&1 || ! cargo fuzz --version >/dev/null 2>&1; then
    echo "fuzz.sh: no nightly toolchain or no cargo-fuzz: libFuzzer targets NOT run." >&2
    echo "fuzz.sh: falling back to the decoders' proptests (cargo test --lib protocol)." >&2
    cargo test --locked --lib protocol
    echo "fuzz.sh: NOTE: only proptests ran; install nightly and cargo-fuzz for the fuzz run." >&2
    exit 0
fi

start=$(date +%s)
(cd fuzz && cargo +nightly fuzz build --debug-assertions)
built=$(date +%s)
echo "fuzz.sh: build took $((built - start)) s"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# run_one TARGET: fuzzes TARGET and leaves its outcome in $work/TARGET.status (ok or CRASH);
# always succeeds, so the pool below never stops on a crash.
run_one() {
    local target=$1 corpus="$work/corpus/$1" log="$work/$1.log"
    mkdir -p "$corpus"
    if [ -d "fuzz/corpus/$target" ]; then
        cp -R "fuzz/corpus/$target/." "$corpus/"
    fi
    # Crash artifacts go to the temp dir too; on failure the log names the input.
    if (cd fuzz && cargo +nightly fuzz run --debug-assertions "$target" "$corpus" -- \
        -max_total_time="$seconds" -print_final_stats=1 \
        -artifact_prefix="$work/artifacts-$target-") >"$log" 2>&1; then
        echo ok >"$work/$target.status"
    else
        echo CRASH >"$work/$target.status"
    fi
}

jobs=${FUZZ_JOBS:-$(nproc)}
targets=$(cd fuzz && cargo +nightly fuzz list)
for target in $targets; do
    while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do
        wait -n || true
    done
    run_one "$target" &
done
wait

failed=()
for target in $targets; do
    status=$(cat "$work/$target.status" 2>/dev/null || echo CRASH)
    log="$work/$target.log"
    execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" 2>/dev/null | tail -n 1 || true)
    printf 'fuzz.sh: %-16s %-5s %s executions in %s s\n' "$target" "$status" "${execs:-?}" "$seconds"
    if [ "$status" = CRASH ]; then
        failed+=("$target")
        tail -n 60 "$log" >&2 || true
        mkdir -p fuzz/artifacts
        cp "$work"/artifacts-"$target"-* fuzz/artifacts/ 2>/dev/null || true
    fi
done

echo "fuzz.sh: total $(( $(date +%s) - start )) s ($jobs at a time)"
if [ "${#failed[@]}" -gt 0 ]; then
    echo "fuzz.sh: crashed: ${failed[*]} (inputs copied to fuzz/artifacts/)" >&2
    exit 1
fi
