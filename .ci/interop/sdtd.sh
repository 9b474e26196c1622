#!/usr/bin/env bash
# 7 Days to Die telnet interop: two telnet clients nobody here wrote, Python's telnetlib
# (read_until the password prompt, then `mem`, then `exit`, as the console's admin tools
# script it) and Debian's netcat-openbsd (the password, `mem` and `exit` piped in at once),
# read `mem` from our telnet simulator (examples/sim_dialects sdtd). The `mem` line they
# read, converted as docs/metrics.md says (MB x 1048576, minutes x 60), must be the health
# `gameserver-exporter query sdtd ADDR --json --rcon-port P --rcon-password-file F`
# publishes. A few seconds once built.
set -euo pipefail
cd "$(dirname "$0")/../.."
NAME=sdtd
# shellcheck source=lib.sh
source .ci/interop/lib.sh

BIN=${1:-target/debug/gameserver-exporter}
cargo build --locked --quiet --example sim_dialects --bin gameserver-exporter
interop_work
umask 077
printf 'interop sdtd pw\n' >"$work/rcon.pw"

console_sim_start sim_dialects sdtd

json=$("$BIN" query sdtd "$addr" --json --rcon-port "$rcon_port" --rcon-password-file "$work/rcon.pw" --timeout 3s) ||
    interop_fail "query sdtd --rcon-password-file failed"
ours=$(printf '%s' "$json" | python3 -c '
import json, sys
h = json.load(sys.stdin)["health"]
print("health fps={:.2f} heap={:.1f} max={:.1f} rss={:.1f} chunks={:.0f} zombies={:.0f} entities={:.0f} uptime={:.1f}".format(
    h["frame_rate_hertz"], h["memory_heap_bytes"], h["memory_heap_max_bytes"], h["memory_resident_bytes"],
    h["chunks_loaded"], h["zombies"], h["entities"], h["uptime_seconds"]))') ||
    interop_fail "query sdtd --json has no health: $json"
echo "$NAME: query:     $ours"

# The `mem` line as a client read it -> the same summary.
summarise() {
    python3 -c '
import re, sys
text = sys.stdin.read()
line = next(l for l in text.splitlines() if "FPS:" in l and "Heap:" in l)
print(repr(line), file=sys.stderr)
v = lambda name: re.search(re.escape(name) + r"\s+([0-9.]+)", line).group(1)
MB = 1048576
print("health fps={:.2f} heap={:.1f} max={:.1f} rss={:.1f} chunks={:.0f} zombies={:.0f} entities={:.0f} uptime={:.1f}".format(
    float(v("FPS:")), float(v("Heap:")) * MB, float(v("Max:")) * MB, float(v("RSS:")) * MB,
    float(v("Chunks:")), float(v("Zom:")), float(v("Ent:")), float(v("Time:")) * 60))'
}

theirs=$(python3 -W ignore::DeprecationWarning - "$rcon_port" "$work/rcon.pw" 2>"$work/telnetlib.log" <<'PY' | summarise 2>>"$work/telnetlib.log"
import sys, telnetlib
port, pw = int(sys.argv[1]), open(sys.argv[2]).read().rstrip("\n")
t = telnetlib.Telnet("127.0.0.1", port, timeout=5)
t.read_until(b"enter password:", timeout=5)
t.write(pw.encode() + b"\r\n")
t.read_until(b"Logon successful.", timeout=5)
t.write(b"mem\r\n")
print(t.read_until(b"RSS:", timeout=5).decode() + t.read_until(b"\n", timeout=5).decode())
t.write(b"exit\r\n")
t.close()
PY
) || interop_fail "telnetlib failed"
echo "$NAME: telnetlib: $theirs"
[[ $theirs == "$ours" ]] || interop_fail "telnetlib read $theirs but query sdtd published $ours"

if ! command -v nc >/dev/null && [[ $(id -u) -eq 0 ]]; then
    interop_install netcat-openbsd
fi
if command -v nc >/dev/null; then
    theirs=$({ printf '%s\r\n' "$(cat "$work/rcon.pw")"; sleep 0.2; printf 'mem\r\n'; sleep 0.3; printf 'exit\r\n'; } |
        nc -w 5 127.0.0.1 "$rcon_port" 2>"$work/nc.log" | summarise 2>>"$work/nc.log") ||
        interop_fail "netcat failed"
    echo "$NAME: netcat:    $theirs"
    [[ $theirs == "$ours" ]] || interop_fail "netcat read $theirs but query sdtd published $ours"
else
    echo "$NAME: netcat not installed (apt-get install netcat-openbsd): only telnetlib reads" >&2
fi
echo "$NAME: passed"
