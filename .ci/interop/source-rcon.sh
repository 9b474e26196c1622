#!/usr/bin/env bash
# Source RCON consoles, cross-read: two clients nobody here wrote, PyPI `rcon` 2.4.9
# (rcon.source.Client) and npm `rcon-srcds` (2.x), log in to our console simulators
# (examples/sim_consoles: srcds `stats`, CS2 `status`, Project Zomboid `players`, Conan
# Exiles `listplayers`, ARK: Survival Ascended `ListPlayers`) and must read the same as our
# own scripts (the A2S health query, the player consoles, `arkrcon`): the frame rate, CPU,
# traffic and uptime; CS2's bots and names; each game's player names. The same password
# file serves every console; a wrong one must be refused to both clients. Both clients are
# cached under ~/.cache so a second run installs nothing; a registry that cannot be reached
# skips that client loudly. A few seconds.
set -euo pipefail
cd "$(dirname "$0")/../.."
NAME=source-rcon.sh
# shellcheck source=lib.sh
. .ci/interop/lib.sh

cargo build --locked --quiet --example sim_consoles
interop_work
cache=${XDG_CACHE_HOME:-$HOME/.cache}/gameserver-exporter

venv=${GSE_PYRCON_VENV:-$cache/pyrcon-2.4.9}
py=
if ! "$venv/bin/python" -c 'import rcon.source' >/dev/null 2>&1; then
    echo "$NAME: installing PyPI rcon 2.4.9 into $venv"
    python3 -m venv "$venv" >/dev/null 2>&1 &&
        "$venv/bin/pip" install --quiet --disable-pip-version-check rcon==2.4.9 >/dev/null 2>&1 || true
fi
if "$venv/bin/python" -c 'import rcon.source' >/dev/null 2>&1; then
    py=$venv/bin/python
else
    echo "$NAME: SKIPPING PyPI rcon: rcon==2.4.9 could not be installed (registry unreachable?)" >&2
fi
prefix=${GSE_RCON_SRCDS_PREFIX:-$cache/rcon-srcds}
node_ok=
if command -v node >/dev/null 2>&1 && command -v npm >/dev/null 2>&1; then
    if [[ ! -f $prefix/node_modules/rcon-srcds/package.json ]]; then
        echo "$NAME: installing npm rcon-srcds into $prefix"
        mkdir -p "$prefix"
        npm install --silent --no-audit --no-fund --prefix "$prefix" rcon-srcds@2 >/dev/null 2>&1 || true
    fi
    [[ -f $prefix/node_modules/rcon-srcds/package.json ]] && node_ok=1
fi
[[ -n $node_ok ]] || echo "$NAME: SKIPPING npm rcon-srcds: node/npm missing or rcon-srcds could not be installed" >&2
if [[ -z $py && -z $node_ok ]]; then
    echo "$NAME: SKIPPED: neither third-party client is available" >&2
    exit 0
fi

umask 077
printf 'interop-consoles-pw\n' >"$work/rcon.pw"
printf 'pl4nted-wrong-pw\n' >"$work/wrong.pw"
target/debug/examples/sim_consoles "$work/rcon.pw" >"$work/sim.log" 2>&1 &
pids+=($!)
for ((i = 0; i < 100; i++)); do
    [[ $(grep -c '^ours ' "$work/sim.log") -ge 5 ]] && break
    kill -0 "${pids[-1]}" 2>/dev/null || interop_fail "the simulator exited"
    sleep 0.1
done
[[ $(grep -c '^ours ' "$work/sim.log") -ge 5 ]] || interop_fail "our scripts did not finish"

# How a client's text reads, the same for both clients (and independent of our parsers):
# stdin is the reply, argv[1] the console.
summarise() {
    python3 -c '
import re, sys
kind, text = sys.argv[1], sys.stdin.read()
lines = text.splitlines()
if kind == "srcds":
    i = next(i for i, l in enumerate(lines) if "CPU" in l and "FPS" in l)
    head = re.sub(r"(\w+)[ _]\(KB/s\)", r"\1", lines[i]).replace("Map changes", "Maps").split()
    row = dict(zip(head, map(float, lines[i + 1].split())))
    f = lambda v: "%.2f" % v
    print("fps=%s cpu=%s in=%s out=%s uptime=%s" % tuple(map(f, (row["FPS"], row["CPU"], row["In"], row["Out"], row["Uptime"]))))
elif kind == "cs2":
    bots = re.search(r"players\s*:.*?(\d+) bots", text).group(1)
    rows = lines[lines.index("---------players--------") + 2:]
    names = [l[l.index(chr(39)) + 1:l.rindex(chr(39))] for l in rows if l.count(chr(39)) >= 2]
    print("bots=%s names=%s" % (bots, "|".join(n for n in names if n)))
elif kind == "zomboid":
    print("names=" + "|".join(l[1:] for l in lines if l.startswith("-")))
elif kind == "conan":
    rows = [l.split("|") for l in lines[1:] if "|" in l]
    print("names=" + "|".join(r[1].strip() for r in rows))
elif kind == "asa":
    rows = [l.rsplit(",", 1)[0].split(". ", 1)[1] for l in lines if re.match(r"^\d+\. ", l)]
    print("online=%d names=%s" % (len(rows), "|".join(rows)))
' "$1"
}

pyrcon() { # PORT COMMAND PASSWORD_FILE: the reply's text, as PyPI rcon reads it
    "$py" - "$@" <<'PY'
import sys
from rcon.source import Client
port, command, pw = int(sys.argv[1]), sys.argv[2], open(sys.argv[3]).read().rstrip("\n")
with Client("127.0.0.1", port, passwd=pw, timeout=5) as c:
    sys.stdout.write(c.run(command))
PY
}

srcds_js() { # PORT COMMAND PASSWORD_FILE: the reply's text, as npm rcon-srcds reads it
    NODE_PATH=$prefix/node_modules node - "$@" <<'JS'
const fs = require("fs");
const Rcon = require("rcon-srcds").default;
const [port, command, pwfile] = process.argv.slice(2);
const pw = fs.readFileSync(pwfile, "utf8").replace(/\n$/, "");
(async () => {
  const r = new Rcon({ host: "127.0.0.1", port: Number(port), timeout: 5000 });
  try {
    await r.authenticate(pw);
    process.stdout.write(String(await r.execute(command)));
  } finally {
    r.disconnect();
  }
})().catch((e) => { console.error(String(e)); process.exit(1); });
JS
}

clients=()
[[ -n $py ]] && clients+=(pyrcon)
[[ -n $node_ok ]] && clients+=(srcds_js)
while read -r _ kind port command; do
    ours=$(sed -n "s/^ours $kind //p" "$work/sim.log")
    echo "$NAME: $kind ($command): ours:       $ours"
    for client in "${clients[@]}"; do
        "$client" "$port" "$command" "$work/rcon.pw" >"$work/$kind-$client.txt" 2>"$work/$kind-$client.log" ||
            interop_fail "$client failed on $kind"
        theirs=$(summarise "$kind" <"$work/$kind-$client.txt") || interop_fail "$client's $kind reply does not read: $(head -c 300 "$work/$kind-$client.txt")"
        printf '%s: %s (%s): %-10s %s\n' "$NAME" "$kind" "$command" "$client:" "$theirs"
        [[ $theirs == "$ours" ]] || interop_fail "$client read '$theirs' from $kind but our code read '$ours'"
        # A wrong password is refused to the client too.
        if "$client" "$port" "$command" "$work/wrong.pw" >"$work/$kind-$client-wrong.txt" 2>&1; then
            interop_fail "$client logged in to $kind with a wrong password"
        fi
    done
done < <(grep '^console ' "$work/sim.log")
echo "$NAME: passed (${clients[*]})"
