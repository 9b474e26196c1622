#!/usr/bin/env bash
# npm gamedig 5.3.3 and PyPI opengsq 3.7.0 read our Palworld REST simulator: the same name,
# player count and maximum (gamedig: the player names too) as
# `gameserver-exporter query palworld --json`.
set -euo pipefail
cd "$(dirname "$0")/../.."
NAME=interop-palworld
# shellcheck source=lib.sh
source .ci/interop/lib.sh
# shellcheck source=http_apis.sh
source .ci/interop/http_apis.sh
BIN=${1:-target/debug/gameserver-exporter}

http_clients
if [[ -z $GAMEDIG && -z $OPENGSQ_PY ]]; then
    echo "$NAME: SKIPPED: neither npm gamedig 5.3.3 nor PyPI opengsq 3.7.0 could be installed" >&2
    exit 0
fi
interop_work
http_sim palworld

ours=$("$BIN" query palworld "$addr" --json --players) || interop_fail "our query failed"
echo "$NAME: gameserver-exporter query palworld --json:"
printf '%s\n' "$ours" | sed 's/^/    /'
a=$(printf '%s' "$ours" | ours_summary)
if [[ -n $GAMEDIG ]]; then
    theirs=$("$GAMEDIG" --type palworld --host 127.0.0.1 --port "$port" --givenPortOnly \
        --username admin --password interop) || interop_fail "gamedig failed"
    echo "$NAME: gamedig --type palworld:"
    printf '%s\n' "$theirs" | sed 's/^/    /'
    b=$(printf '%s' "$theirs" | python3 -c '
import json, sys
s = json.load(sys.stdin)
names = "|".join(p["name"] for p in s["players"])
print("name={} online={} max={} players={}".format(s["name"], s["numplayers"], s["maxplayers"], names))')
    [[ $a == "$b" ]] || interop_fail "gamedig read
  $b
but our decoder read
  $a"
    echo "$NAME: gamedig agrees: $b"
else
    echo "$NAME: gamedig SKIPPED (not installable)" >&2
fi
if [[ -n $OPENGSQ_PY ]]; then
    theirs=$("$OPENGSQ_PY" - "$port" <<'PY'
import asyncio, sys
from opengsq.protocols import Palworld
async def main():
    s = await Palworld("127.0.0.1", int(sys.argv[1]), "admin", "interop", 5).get_status()
    print(repr(s))
    print(f"name={s.server_name} online={s.num_players} max={s.max_players}")
asyncio.run(main())
PY
) || interop_fail "opengsq failed"
    echo "$NAME: opengsq Palworld.get_status():"
    printf '%s\n' "$theirs" | sed 's/^/    /'
    want=${a% players=*}
    [[ $(printf '%s\n' "$theirs" | tail -n 1) == "$want" ]] || interop_fail "opengsq read
  $(printf '%s\n' "$theirs" | tail -n 1)
but our decoder read
  $want"
    echo "$NAME: opengsq agrees: $want"
else
    echo "$NAME: opengsq SKIPPED (not installable)" >&2
fi
echo "$NAME: passed"
