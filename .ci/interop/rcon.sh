#!/usr/bin/env bash
# Two Source RCON clients nobody here wrote, PyPI `rcon` 2.4.9 and `opengsq` 3.7.0 (its
# SourceRcon), read our RCON simulator the same as our own client: the Factorio answer to
# `/players online` (count and names). `rcon` reads all three server families the simulator
# plays (SRCDS, vanilla Minecraft, Factorio); opengsq only SRCDS, as with real servers: it
# sends the command and its empty-command marker back to back and waits for the marker's
# echo, which Factorio never sends and which vanilla Minecraft answers by closing the
# connection (docs/protocols/factorio.md). Against the Factorio flavour, the `factorio`
# protocol end to end, `gameserver-exporter query factorio --json --password-file`, reads the
# same as both; and PyPI rcon reads `tick query` from a vanilla Minecraft console as
# `query minecraft --json --rcon-password-file` publishes it (server health).
set -euo pipefail
cd "$(dirname "$0")/../.."
NAME=rcon
# shellcheck source=lib.sh
source .ci/interop/lib.sh

BIN=${1:-target/debug/gameserver-exporter}
cargo build --locked --quiet --example sim_rcon --bin gameserver-exporter
interop_work

venv="$work/venv"
if ! python3 -m venv "$venv" >/dev/null 2>&1 ||
    ! "$venv/bin/pip" install -q rcon==2.4.9 opengsq==3.7.0 >"$work/pip.log" 2>&1; then
    echo "$NAME: SKIPPED: could not install PyPI rcon 2.4.9 and opengsq 3.7.0 (python3-venv, pip)" >&2
    exit 0
fi
umask 077
printf 'interop-rcon-pw\n' >"$work/rcon.pw"

read_with() { # CLIENT PORT -> "ours online=N players=a|b"
    "$venv/bin/python" - "$1" "$2" "$work/rcon.pw" <<'PY'
import asyncio, sys
client, port, pwfile = sys.argv[1], int(sys.argv[2]), sys.argv[3]
pw = open(pwfile).read().rstrip("\n")
if client == "rcon":
    from rcon.source import Client
    with Client("127.0.0.1", port, passwd=pw, timeout=5) as c:
        reply = c.run("/players", "online")
else:
    from opengsq.rcon_protocols.source_rcon import SourceRcon
    async def main():
        with SourceRcon("127.0.0.1", port, timeout=5) as r:
            await r.authenticate(pw)
            return await r.send_command("/players online")
    reply = asyncio.run(main())
lines = reply.splitlines()
count = lines[0].split("(", 1)[1].split(")", 1)[0]
names = [l.strip().removesuffix("(online)").strip() for l in lines[1:] if l.strip()]
print(f"ours online={count} players={'|'.join(names)}")
PY
}

for flavour in srcds minecraft factorio; do
    log="$work/sim-$flavour.log"
    target/debug/examples/sim_rcon "$flavour" "$work/rcon.pw" >"$log" 2>&1 &
    pids+=($!)
    for ((i = 0; i < 100; i++)); do
        grep -q '^ours ' "$log" && break
        kill -0 "${pids[-1]}" 2>/dev/null || interop_fail "simulator ($flavour) exited"
        sleep 0.1
    done
    grep -q '^ours ' "$log" || interop_fail "our client did not finish ($flavour)"
    port=$(awk '/^addr /{ n = split($2, a, ":"); print a[n] }' "$log")
    ours=$(grep '^ours ' "$log")
    clients=(rcon)
    [[ $flavour == srcds ]] && clients+=(opengsq)
    if [[ $flavour == factorio ]]; then
        json=$("$BIN" query factorio "127.0.0.1:$port" --json --players --password-file "$work/rcon.pw") ||
            interop_fail "query factorio failed"
        echo "$NAME: gameserver-exporter query factorio --json:"
        printf '%s\n' "$json" | sed 's/^/    /'
        query=$(printf '%s' "$json" | python3 -c '
import json, sys
s = json.load(sys.stdin)
print("ours online={} players={}".format(s["online"], "|".join(p["name"] for p in s["players"])))')
        [[ $query == "$ours" ]] || interop_fail "query factorio read $query but the RCON client read $ours"
        echo "$NAME: factorio: query:   $query"
    fi
    for client in "${clients[@]}"; do
        theirs=$(read_with "$client" "$port") || interop_fail "$client failed against $flavour"
        echo "$NAME: $flavour: ours:    $ours"
        echo "$NAME: $flavour: $client: $theirs"
        [[ $theirs == "$ours" ]] || interop_fail "$client read $theirs but our client read $ours ($flavour)"
    done
done
# Minecraft health: PyPI rcon runs `tick query` on the vanilla console beside a simulated
# Minecraft server; its text, read by hand here, must give what
# `gameserver-exporter query minecraft --json --rcon-password-file` publishes as health.
console_sim_start sim_rcon minecraft-health
theirs=$("$venv/bin/python" - "$rcon_port" "$work/rcon.pw" <<'PY'
import re, sys
from rcon.source import Client
port, pw = int(sys.argv[1]), open(sys.argv[2]).read().rstrip("\n")
with Client("127.0.0.1", port, passwd=pw, timeout=5) as c:
    text = c.run("tick", "query")
print(repr(text), file=sys.stderr)
num = lambda label: float(re.search(re.escape(label) + r"\s*([0-9.]+)", text).group(1))
print("health target={!r} mean={!r} p50={!r} p95={!r} p99={!r}".format(
    num("Target tick rate:"), num("Average time per tick:") / 1000,
    num("P50:") / 1000, num("P95:") / 1000, num("P99:") / 1000))
PY
) || interop_fail "rcon failed against the Minecraft console"
json=$("$BIN" query minecraft "$addr" --json --rcon-port "$rcon_port" --rcon-password-file "$work/rcon.pw") ||
    interop_fail "query minecraft --rcon-password-file failed"
ours=$(printf '%s' "$json" | python3 -c '
import json, sys
h = json.load(sys.stdin)["health"]
q = h["tick_quantiles"]
print("health target={!r} mean={!r} p50={!r} p95={!r} p99={!r}".format(
    h["tick_target_rate_hertz"], h["tick_duration_seconds"], q["p50"], q["p95"], q["p99"]))') ||
    interop_fail "query minecraft --json has no health: $json"
echo "$NAME: minecraft health: query:  $ours"
echo "$NAME: minecraft health: rcon:   $theirs"
[[ $theirs == "$ours" ]] || interop_fail "rcon read $theirs but query minecraft published $ours"
echo "$NAME: passed"
