#!/usr/bin/env bash
# npm gamedig 5.3.3 (its `terrariatshock` type) reads our TShock REST simulator: the same
# name, player count, maximum and player names as `gameserver-exporter query terraria --json`.
set -euo pipefail
cd "$(dirname "$0")/../.."
NAME=interop-terraria
# shellcheck source=lib.sh
source .ci/interop/lib.sh
# shellcheck source=http_apis.sh
source .ci/interop/http_apis.sh
BIN=${1:-target/debug/gameserver-exporter}

http_clients
if [[ -z $GAMEDIG ]]; then
    echo "$NAME: SKIPPED: npm gamedig 5.3.3 could not be installed (npm missing or offline)" >&2
    exit 0
fi
interop_work
http_sim terraria

ours=$("$BIN" query terraria "$addr" --json --players) || interop_fail "our query failed"
echo "$NAME: gameserver-exporter query terraria --json:"
printf '%s\n' "$ours" | sed 's/^/    /'
theirs=$("$GAMEDIG" --type terrariatshock --host 127.0.0.1 --port "$port" --givenPortOnly) ||
    interop_fail "gamedig failed"
echo "$NAME: gamedig --type terrariatshock:"
printf '%s\n' "$theirs" | sed 's/^/    /'
a=$(printf '%s' "$ours" | ours_summary)
b=$(printf '%s' "$theirs" | python3 -c '
import json, sys
s = json.load(sys.stdin)
names = "|".join(p["name"] for p in s["players"])
print("name={} online={} max={} players={}".format(s["name"], s["numplayers"], s["maxplayers"], names))')
[[ $a == "$b" ]] || interop_fail "gamedig read
  $b
but our decoder read
  $a"
echo "$NAME: both read $a"
echo "$NAME: passed"
