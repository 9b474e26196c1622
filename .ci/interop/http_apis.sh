# Shared by terraria.sh and palworld.sh, sourced after lib.sh: the third-party clients (npm
# gamedig 5.3.3 under a tmp prefix, PyPI opengsq 3.7.0 in a virtualenv, both cached under
# ~/.cache/gse-interop) and the simulator (examples/sim_http).
#
#   http_clients               installs both when missing; sets GAMEDIG and OPENGSQ_PY ('' if
#                              not installable: the caller says so loudly and skips)
#   http_sim PROTOCOL          starts examples/sim_http PROTOCOL, sets $addr and $port

http_clients() {
    local cache=${XDG_CACHE_HOME:-$HOME/.cache}/gse-interop
    mkdir -p "$cache"
    GAMEDIG=$cache/npm/node_modules/.bin/gamedig
    if [[ ! -x $GAMEDIG ]] && command -v npm >/dev/null; then
        npm install --silent --prefix "$cache/npm" gamedig@5.3.3 >/dev/null 2>&1 || true
    fi
    [[ -x $GAMEDIG ]] || GAMEDIG=
    OPENGSQ_PY=$cache/venv/bin/python
    if ! "$OPENGSQ_PY" -c 'import opengsq' 2>/dev/null; then
        { python3 -m venv "$cache/venv" && "$cache/venv/bin/pip" install -q opengsq==3.7.0; } >/dev/null 2>&1 || true
    fi
    "$OPENGSQ_PY" -c 'import opengsq' 2>/dev/null || OPENGSQ_PY=
}

http_sim() {
    cargo build --locked --quiet --example sim_http
    local log="$work/sim-$1.log"
    target/debug/examples/sim_http "$1" >"$log" 2>&1 &
    pids+=($!)
    for ((i = 0; i < 100; i++)); do
        grep -q '^addr ' "$log" && break
        kill -0 "${pids[-1]}" 2>/dev/null || interop_fail "simulator exited"
        sleep 0.1
    done
    addr=$(awk '/^addr /{ print $2 }' "$log")
    [[ -n $addr ]] || interop_fail "no simulator address"
    port=${addr##*:}
}

# name=... online=N max=N players=a|b|c from `gameserver-exporter query ... --json --players`.
ours_summary() {
    python3 -c '
import json, sys
s = json.load(sys.stdin)
names = "|".join(p["name"] for p in (s.get("players") or []))
print("name={} online={} max={} players={}".format(s["name"], s["online"], s["max"], names))'
}
