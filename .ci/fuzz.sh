#!/usr/bin/env bash
# Fuzz smoke run for CI: builds the libFuzzer targets in fuzz/ once (address sanitizer, debug
# assertions), then runs each for FUZZ_SECONDS (default 15) over a copy of the checked-in
# corpus, so the checkout stays clean. Fails if any target crashes, and prints per target the
# executions from libFuzzer's final stats.
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

failed=()
for target in $(cd fuzz && cargo +nightly fuzz list); do
    corpus="$work/corpus/$target"
    mkdir -p "$corpus"
    if [ -d "fuzz/corpus/$target" ]; then
        cp -R "fuzz/corpus/$target/." "$corpus/"
    fi
    log="$work/$target.log"
    # Crash artifacts go to the temp dir too; on failure the log names the input.
    if (cd fuzz && cargo +nightly fuzz run --debug-assertions "$target" "$corpus" -- \
        -max_total_time="$seconds" -print_final_stats=1 \
        -artifact_prefix="$work/artifacts-$target-") >"$log" 2>&1; then
        status=ok
    else
        status=CRASH
        failed+=("$target")
    fi
    execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
    printf 'fuzz.sh: %-16s %-5s %s executions in %s s\n' "$target" "$status" "${execs:-?}" "$seconds"
    if [ "$status" = CRASH ]; then
        tail -n 60 "$log" >&2
        mkdir -p fuzz/artifacts
        cp "$work"/artifacts-"$target"-* fuzz/artifacts/ 2>/dev/null || true
    fi
done

echo "fuzz.sh: total $(( $(date +%s) - start )) s"
if [ "${#failed[@]}" -gt 0 ]; then
    echo "fuzz.sh: crashed: ${failed[*]} (inputs copied to fuzz/artifacts/)" >&2
    exit 1
fi
