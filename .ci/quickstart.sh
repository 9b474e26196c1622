#!/usr/bin/env bash
# README's Quick start, run as written: every fenced block after a `<!-- quickstart -->`
# comment, in order, each under `bash -euo pipefail`, so a command that fails (or a grep that
# finds nothing) fails the check. The block after `<!-- quickstart background -->` holds the
# one long-running command (`cargo run -- demo`): it is started in the background in its own
# process group, waited for until every simulated target is up, and stopped by its PID at the
# end. Then the outputs must show what README promises.
#
# The one change made to the text: the demo's port. README uses 10765; here a free loopback
# port replaces it everywhere and `--listen 127.0.0.1:PORT` is added to the background
# command, so the check never collides with anything on a fixed port.
#
# Where: in this checkout, so `cargo run` reuses the debug build .ci/run has just made (a
# fresh clone's first `cargo run` is a full debug build, minutes on 2 cores). CI itself runs
# on a fresh clone, so nothing untracked can help. QUICKSTART_CLONE=1 runs the blocks in a
# `git clone` of HEAD instead (sharing this target/ directory: the crate itself is rebuilt,
# its dependencies are not, and target/debug/gameserver-exporter is then the clone's build).
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$PWD

tmp=$(mktemp -d)
bg_pid=
cleanup() {
    if [[ -n $bg_pid ]] && kill -0 "$bg_pid" 2>/dev/null; then
        kill -TERM -- "-$bg_pid" 2>/dev/null || true
        wait "$bg_pid" 2>/dev/null || true
    fi
    rm -rf "$tmp"
}
trap cleanup EXIT
fail() {
    echo "quickstart: FAIL: $*" >&2
    exit 1
}

port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')

# Extract the marked blocks: $tmp/blocks/NN.fg.sh or NN.bg.sh, in README order.
mkdir "$tmp/blocks"
awk -v dir="$tmp/blocks" -v port="$port" '
    /^<!-- quickstart( background)? -->$/ { kind = ($0 ~ /background/) ? "bg" : "fg"; armed = 1; next }
    armed && /^```/ { n++; file = sprintf("%s/%02d.%s.sh", dir, n, kind); armed = 0; inblock = 1; next }
    inblock && /^```/ { inblock = 0; next }
    inblock { gsub(/10765/, port); print > file; next }
    armed && NF { armed = 0 }   # a marker must be followed by its block
' README.md
mapfile -t blocks < <(ls "$tmp/blocks")
bg=("$tmp"/blocks/*.bg.sh)
((${#blocks[@]} >= 2)) || fail "README.md has no marked Quick start blocks (<!-- quickstart -->)"
[[ ${#bg[@]} -eq 1 && -e ${bg[0]} ]] || fail "README.md needs exactly one <!-- quickstart background --> block"
[[ ${blocks[0]} == *.bg.sh ]] || fail "the background block (the demo) must come first"
[[ $(grep -cv '^\s*$' "${bg[0]}") -eq 1 ]] || fail "the background block must hold one command"
grep -q -- '--listen' "${bg[0]}" || sed -i "s|\$| --listen 127.0.0.1:$port|" "${bg[0]}"

workdir=$repo
if [[ ${QUICKSTART_CLONE:-0} == 1 ]]; then
    git clone --quiet "$repo" "$tmp/clone"
    workdir=$tmp/clone
    export CARGO_TARGET_DIR=$repo/target
fi

cd "$workdir"
echo "quickstart: $(cat "${bg[0]}")  (in the background, port $port)"
set -m # the background command gets its own process group (cargo and the exporter it runs)
bash -euo pipefail "${bg[0]}" >"$tmp/demo.log" 2>&1 &
bg_pid=$!
set +m

# Ready: the demo prints one line per simulator before it listens, then /-/ready answers.
# The deadline covers a first build when the debug binary is not there yet.
deadline=$((SECONDS + ${QUICKSTART_BUILD_SECONDS:-900}))
until curl -fsS -o /dev/null "http://127.0.0.1:$port/-/ready" 2>/dev/null; do
    kill -0 "$bg_pid" 2>/dev/null || { cat "$tmp/demo.log" >&2; fail "the demo exited"; }
    ((SECONDS < deadline)) || { tail -20 "$tmp/demo.log" >&2; fail "the demo did not answer /-/ready"; }
    sleep 1
done
simulators=$(grep -cE '^ *[a-z0-9-]+ simulator on ' "$tmp/demo.log" || true)
((simulators >= 8)) || { cat "$tmp/demo.log" >&2; fail "the demo printed $simulators simulators"; }

# README: "every protocol is up within 10 s"; allowed 30 s here on a machine busy building.
deadline=$((SECONDS + 30))
while :; do
    up=$(curl -fsS "http://127.0.0.1:$port/metrics" | grep -cE '^gameserver_up\{.*\} 1$' || true)
    ((up >= simulators)) && break
    ((SECONDS < deadline)) || fail "$up of $simulators demo targets up after 30 s"
    sleep 1
done
echo "quickstart: demo ready, $up targets up ($simulators protocol simulators, and the game titles with their consoles)"

for b in "${blocks[@]}"; do
    [[ $b == *.fg.sh ]] || continue
    echo "quickstart: block ${b%%.*}:"
    sed 's/^/    /' "$tmp/blocks/$b"
    if ! bash -euo pipefail "$tmp/blocks/$b" >"$tmp/$b.out" 2>&1; then
        cat "$tmp/$b.out" >&2
        fail "block ${b%%.*} failed"
    fi
    cat "$tmp/$b.out" >>"$tmp/all.out"
done

# What README says the commands show.
expect() {
    grep -qE -- "$2" "$tmp/all.out" || fail "no $1 in the output (pattern $2)"
    echo "quickstart: ok: $1"
}
expect "gameserver_up line for every protocol" '^gameserver_up\{.*protocol="teeworlds".*\} 1$'
[[ $(grep -cE '^gameserver_up\{.*\} 1$' "$tmp/all.out") -ge $simulators ]] ||
    fail "fewer gameserver_up 1 lines than demo targets"
echo "quickstart: ok: $simulators gameserver_up lines at 1"
expect "health JSON of an up target" '"target":"demo-minecraft","up":true'
expect "debug transcript of one poll" '^Outcome:'
expect "game preset list" '^valheim +Valheim +a2s'
expect "check-config verdict" '^exporter.example.toml: OK'

kill -TERM -- "-$bg_pid"
wait "$bg_pid" 2>/dev/null || true
bg_pid=
echo "quickstart: passed (${#blocks[@]} blocks)"
