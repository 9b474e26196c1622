#!/usr/bin/env bash
# Armagetron Advanced interop against a real server: Debian's armagetronad-dedicated 0.2.9
# (installed when missing) in a network namespace of its own (`unshare -n`: it also binds a
# second socket on 0.0.0.0, so it gets a loopback-only world), listening on 127.0.0.1.
# `query armagetron --json` must read the server's settings (name, max, release); gamedig
# 5.3.3 (type armagetronadvanced: a lone big_request) must read the same from the real
# server once our poll opened its query window, and the same from the simulator. A few
# seconds once built.
set -euo pipefail
cd "$(dirname "$0")/../.."
NAME=armagetron.sh
. .ci/interop/lib.sh
. .ci/interop/thirdparty.sh

bin=${1:-target/debug/gameserver-exporter}
if [[ -z ${GSE_ARMAGETRON_NETNS:-} ]]; then
    # Outside: build, install (registries reachable here), then run again in the namespace.
    [[ -x $bin ]] || cargo build --locked --bin gameserver-exporter
    cargo build --locked --quiet --example sim_serve
    [[ -x /usr/games/armagetronad-dedicated.real ]] || interop_install armagetronad-dedicated
    need_gamedig
    if ! unshare -n true 2>/dev/null; then
        echo "$NAME: SKIPPED: cannot create a network namespace here (unshare -n needs root)" >&2
        exit 0
    fi
    exec unshare -n env GSE_ARMAGETRON_NETNS=1 GSE_GAMEDIG_DIR="$gamedig_dir" bash "$0" "$bin"
fi
ip link set lo up
gamedig_dir=${GSE_GAMEDIG_DIR:-}
interop_work
port=$(free_udp_port)
mkdir -p "$work/config" "$work/data" "$work/var"
cat >"$work/config/settings_custom.cfg" <<CFG
SERVER_IP 127.0.0.1
SERVER_PORT $port
SERVER_NAME InteropAA
MAX_CLIENTS 9
TALK_TO_MASTER 0
CFG
/usr/games/armagetronad-dedicated.real --datadir /usr/share/games/armagetronad \
    --configdir /etc/armagetronad --userconfigdir "$work/config" --userdatadir "$work/data" \
    --vardir "$work/var" -d >"$work/server.log" 2>&1 &
pids+=($!)
addr=127.0.0.1:$port
json=
for _ in $(seq 50); do
    json=$("$bin" query armagetron "$addr" --json --players --rules --timeout 1s 2>/dev/null) && break
    json=
    sleep 0.2
done
[[ -n $json ]] || interop_fail "armagetronad-dedicated never answered query armagetron on $addr"
echo "$NAME: ours: $(python3 -c 'import json,sys; print(json.dumps(json.loads(sys.argv[1])))' "$json")"
python3 - "$json" <<'PY' || interop_fail "the server's settings not read back"
import json, sys
s = json.loads(sys.argv[1])
got = (s["name"], s["online"], s["max"], s["players"], s["version"].split("_")[0])
want = ("InteropAA", 0, 9, [], "0.2.9.1")
assert got == want, (got, want)
PY

if [[ -n $gamedig_dir ]]; then
    # A poll of ours opens the window: gamedig's lone big_request is answered within it. The
    # server closes and rebinds its socket when it "takes a nap" with nobody connected (seen
    # in CI: the window closed between our poll and gamedig's), so the pair is tried again.
    ok=
    for _ in 1 2 3; do
        "$bin" query armagetron "$addr" --json --timeout 1s >/dev/null 2>&1 || true
        if gamedig_query armagetronadvanced "$port" >"$work/gamedig.json" 2>"$work/gamedig.log"; then
            ok=1
            break
        fi
        sleep 1
    done
    [[ -n $ok ]] || interop_fail "gamedig against the real server"
    echo "$NAME: gamedig (real server): $(cat "$work/gamedig.json")"
    sim_start armagetron
    sim_port=${sim_addr##*:}
    "$bin" query armagetron "$sim_addr" --json --players --timeout 2s >"$work/ours-sim.json" ||
        interop_fail "query armagetron against the simulator"
    gamedig_query armagetronadvanced "$sim_port" >"$work/gamedig-sim.json" 2>"$work/gamedig-sim.log" ||
        interop_fail "gamedig against the simulator"
    echo "$NAME: ours (simulator): $(python3 -m json.tool --compact "$work/ours-sim.json")"
    echo "$NAME: gamedig (simulator): $(cat "$work/gamedig-sim.json")"
    python3 - "$json" "$work/gamedig.json" "$work/ours-sim.json" "$work/gamedig-sim.json" <<'PY' ||
import json, sys
def same(ours, g, where):
    want = (ours["name"], ours["version"], ours["online"], ours["max"],
            [p["name"] for p in ours["players"] or []])
    got = (g["name"], g["version"], int(g["numplayers"]), int(g["maxplayers"]),
           [p["name"] for p in g["players"]])
    assert got == want, (where, got, want)
    print("armagetron.sh: gamedig agrees (%s):" % where, got)
same(json.loads(sys.argv[1]), json.load(open(sys.argv[2])), "real server")
same(json.load(open(sys.argv[3])), json.load(open(sys.argv[4])), "simulator")
PY
        interop_fail "gamedig disagrees"
else
    echo "$NAME: SKIPPING the gamedig cross-reads (gamedig not available)" >&2
fi
echo "$NAME: ok"
