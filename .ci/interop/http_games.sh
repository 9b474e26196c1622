#!/usr/bin/env bash
# The single-game JSON status pages (issue 30): each simulator (examples/sim_serve PROTOCOL:
# "Interop <protocol>", 3 players of 16) read by npm gamedig 5.3.3 (its protocol for the game)
# and by a second reader (PyPI opengsq 3.7.0 where it knows the protocol, else curl + jq as a
# plain reader of the same page), which must show the same name, counts and player names as
# `gameserver-exporter query PROTOCOL ADDR --json --players`. A few seconds.
#
# Usage: http_games.sh [BIN] (all protocols), or GSE_HTTP_GAMES="eco ..." to pick some.
set -euo pipefail
cd "$(dirname "$0")/../.."
NAME=http_games.sh
. .ci/interop/lib.sh
. .ci/interop/thirdparty.sh

sim_serve_build "$@"
command -v jq >/dev/null || interop_install jq
interop_work
need_gamedig

# summary: `name=... online=N max=N players=a|b|c` from JSON on stdin, read by a jq program
# that yields [name, online, max, [player names]].
summary() {
    jq -r "$1"' | "name=\(.[0]) online=\(.[1]) max=\(.[2]) players=\(.[3] | join("|"))"'
}
ours='[.name, .online, .max, [(.players // [])[].name]]'
gamedig='[.name, (.numplayers | tonumber), (.maxplayers | tonumber), [.players[].name]]'

# check PROTOCOL GAMEDIG_TYPE JQ PATH...: our query, gamedig, and curl + jq: the pages at
# PATH... fetched as they are and read by JQ over the array of them (`.[0]` the first page).
check() {
    local protocol=$1 type=$2 plain=$3
    shift 3
    sim_start "$protocol"
    local port=${sim_addr##*:}
    "$bin" query "$protocol" "$sim_addr" --json --players --timeout 2s >"$work/ours.json" 2>"$work/query.log" ||
        interop_fail "query $protocol exited $?"
    local want got path
    want=$(summary "$ours" <"$work/ours.json")
    echo "$NAME: $protocol: gameserver-exporter query: $want"
    if [[ -n $gamedig_dir ]]; then
        gamedig_query "$type" "$port" >"$work/gamedig.json" 2>"$work/gamedig.log" ||
            interop_fail "gamedig $type: $(tail -n 3 "$work/gamedig.log")"
        got=$(summary "$gamedig" <"$work/gamedig.json")
        echo "$NAME: $protocol: gamedig --type $type: $got"
        [[ $got == "$want" ]] || interop_fail "$protocol: gamedig read $got"
    fi
    : >"$work/pages.json"
    for path in "$@"; do
        curl -fsS -g --max-time 3 "http://$sim_addr$path" >>"$work/pages.json" || interop_fail "curl $path"
        echo >>"$work/pages.json"
    done
    got=$(jq -s . "$work/pages.json" | summary "$plain")
    echo "$NAME: $protocol: curl $* | jq: $got"
    [[ $got == "$want" ]] || interop_fail "$protocol: curl + jq read $got"
    kill "${pids[-1]}" 2>/dev/null || true
    wait "${pids[-1]}" 2>/dev/null || true
    unset 'pids[-1]'
}

for protocol in ${GSE_HTTP_GAMES:-assettocorsa eco buildandshoot eldewrito kspdmp hytale}; do
    case $protocol in
    assettocorsa)
        # /INFO holds name and counts; the drivers are the entry list's connected slots.
        check assettocorsa assettocorsa \
            '[.[0].name, .[0].clients, .[0].maxclients, [.[1].Cars[] | select(.IsConnected) | .DriverName]]' \
            /INFO '/JSON|0'
        ;;
    eco)
        # No capacity here (TotalPlayers is everyone who ever joined; gamedig calls it
        # maxplayers): gamedig's maxplayers is compared with our total_players extra. gamedig
        # keeps the name's rich-text tags, which we cut: its name is read with them cut.
        gamedig='[(.name | gsub("<[a-zA-Z/#][^<>]{0,63}>"; "")), (.numplayers | tonumber), 0, [.players[].name]]' \
            check eco eco \
            '[(.[0].Info.Description | gsub("<[a-zA-Z/#][^<>]{0,63}>"; "")), .[0].Info.OnlinePlayers, 0, .[0].Info.OnlinePlayersNames]' \
            /frontpage
        [[ -z $gamedig_dir ]] || [[ $(jq .maxplayers "$work/gamedig.json") == $(jq .extras.total_players "$work/ours.json") ]] ||
            interop_fail "eco: gamedig's maxplayers $(jq .maxplayers "$work/gamedig.json") is not our total_players"
        ;;
    buildandshoot)
        check buildandshoot bas '[.[0].serverName, (.[0].players | length), .[0].maxPlayers, [.[0].players[].name]]' /json
        ;;
    eldewrito)
        # gamedig's eldewrito reader sets no numplayers (it stays 0): its count is its list's.
        gamedig='[.name, (.players | length), (.maxplayers | tonumber), [.players[].name]]' \
            check eldewrito eldewrito '[.[0].name, .[0].numPlayers, .[0].maxPlayers, [.[0].players[].name]]' /
        # opengsq's ElDewrito reader: its page fetch and parser on the simulator's port (its
        # get_status first broadcasts on UDP 11774, which a loopback check cannot answer).
        need_opengsq
        if [[ -n $opengsq_py ]]; then
            sim_start eldewrito
            "$opengsq_py" - "${sim_addr##*:}" >"$work/opengsq.txt" 2>"$work/opengsq.log" <<'PY' || interop_fail "opengsq eldewrito"
import asyncio, sys
from opengsq.protocols.eldewrito import ElDewrito
async def main():
    port = int(sys.argv[1])
    e = ElDewrito("127.0.0.1", 11774, 3.0)
    e.ELDEWRITO_HTTP_PORT = port
    s = e._parse_server_info(await e._query_http_endpoint())
    print("name=%s online=%d max=%d players=%s" % (s.name, s.num_players, s.max_players, "|".join(p.name for p in s.players)))
asyncio.run(main())
PY
            "$bin" query eldewrito "$sim_addr" --json --players --timeout 2s >"$work/ours.json" ||
                interop_fail "query eldewrito"
            want=$(summary "$ours" <"$work/ours.json")
            echo "$NAME: eldewrito: opengsq ElDewrito: $(cat "$work/opengsq.txt")"
            [[ $(cat "$work/opengsq.txt") == "$want" ]] || interop_fail "eldewrito: opengsq read $(cat "$work/opengsq.txt")"
            kill "${pids[-1]}"; wait "${pids[-1]}" 2>/dev/null || true; unset 'pids[-1]'
        fi
        ;;
    kspdmp)
        # DarkMultiPlayer's players are one ", "-joined string. gamedig 5.3.3 first walks it as
        # if it were a list (one nameless player per character), then splits it: its named
        # players and maxplayers are compared, its numplayers is printed, not compared.
        gamedig='[.name, ([.players[] | select((.name // "") != "")] | length), (.maxplayers | tonumber), [.players[].name | select((. // "") != "")]]' \
            check kspdmp kspd \
            '[.[0].server_name, .[0].player_count, .[0].max_players, (.[0].players | split(",") | map(gsub("^ +| +$"; "")) | map(select(. != "")))]' \
            /
        [[ -z $gamedig_dir ]] ||
            echo "$NAME: kspdmp: gamedig's own numplayers: $(jq .numplayers "$work/gamedig.json") (the players string's characters + the names)"
        # Debian's qstat reads DMP's page too (-ksp): name and counts, no names.
        if command -v quakestat >/dev/null; then
            sim_start kspdmp
            quakestat -ksp "$sim_addr" -json >"$work/qstat.json" 2>"$work/qstat.log" || interop_fail "qstat -ksp"
            "$bin" query kspdmp "$sim_addr" --json --timeout 2s >"$work/ours.json" || interop_fail "query kspdmp"
            want=$(jq -r '"\(.name) \(.online)/\(.max)"' "$work/ours.json")
            got=$(jq -r '.[0] | "\(.name) \(.numplayers)/\(.maxplayers)"' "$work/qstat.json")
            echo "$NAME: kspdmp: qstat -ksp: $got"
            [[ $got == "$want" ]] || interop_fail "kspdmp: qstat read $got, query $want"
            kill "${pids[-1]}"; wait "${pids[-1]}" 2>/dev/null || true; unset 'pids[-1]'
        else
            echo "$NAME: kspdmp: SKIPPING qstat -ksp: quakestat not installed" >&2
        fi
        ;;
    hytale)
        # The plugin's page over plain HTTP (gamedig builds an http:// URL); its players a list.
        check hytale hytale '[.[0].Server.Name, .[0].Universe.CurrentPlayers, .[0].Server.MaxPlayers, [.[0].Players[].Name]]' \
            /Nitrado/Query
        ;;
    *) interop_fail "unknown protocol $protocol" ;;
    esac
done
echo "$NAME: ok"
