# Third-party game-query clients for the interop scripts, sourced after lib.sh: PyPI opengsq
# 3.7.0 in a virtualenv and npm gamedig 5.3.3 in a prefix, both cached under ~/.cache so a
# second run installs nothing. Each sets a variable when usable and says loudly when not
# (the registries unreachable): the caller skips that client, never fails silently.
#
#   need_opengsq   sets $opengsq_py (the venv's python) or leaves it empty
#   need_gamedig   sets $gamedig_dir (a prefix holding node_modules/gamedig) or leaves it empty

tp_cache=${XDG_CACHE_HOME:-$HOME/.cache}/gameserver-exporter

need_opengsq() {
    local venv=${GSE_OPENGSQ_VENV:-$tp_cache/opengsq-3.7.0}
    opengsq_py=
    if ! "$venv/bin/python" -c 'import opengsq' >/dev/null 2>&1; then
        echo "$NAME: installing opengsq 3.7.0 into $venv"
        python3 -m venv "$venv" >/dev/null 2>&1 &&
            "$venv/bin/pip" install --quiet --disable-pip-version-check opengsq==3.7.0 >/dev/null 2>&1 ||
            true
    fi
    if "$venv/bin/python" -c 'import opengsq' >/dev/null 2>&1; then
        opengsq_py=$venv/bin/python
    else
        echo "$NAME: SKIPPING opengsq: PyPI opengsq==3.7.0 could not be installed" >&2
    fi
}

need_gamedig() {
    local prefix=${GSE_GAMEDIG_PREFIX:-$tp_cache/gamedig-5.3.3}
    gamedig_dir=
    if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then
        echo "$NAME: SKIPPING gamedig: node/npm not installed" >&2
        return 0
    fi
    if [[ ! -f $prefix/node_modules/gamedig/package.json ]]; then
        echo "$NAME: installing gamedig 5.3.3 into $prefix"
        mkdir -p "$prefix"
        npm install --silent --no-audit --no-fund --prefix "$prefix" gamedig@5.3.3 >/dev/null 2>&1 || true
    fi
    if [[ -f $prefix/node_modules/gamedig/package.json ]]; then
        gamedig_dir=$prefix
    else
        echo "$NAME: SKIPPING gamedig: npm gamedig@5.3.3 could not be installed" >&2
    fi
}

# gamedig_query TYPE PORT [extra JSON options]: prints gamedig's result as JSON.
gamedig_query() {
    (cd "$gamedig_dir" && node --input-type=module -e '
import { GameDig } from "gamedig";
const [type, port, extra] = process.argv.slice(1);
const opts = { type, host: "127.0.0.1", port: Number(port), maxRetries: 1, socketTimeout: 2000,
               attemptTimeout: 5000, givenPortOnly: true, ...JSON.parse(extra || "{}") };
const r = await GameDig.query(opts);
console.log(JSON.stringify(r));
' "$@")
}

# sim_start PROTOCOL [ARGS...]: runs examples/sim_serve (built already) and sets $sim_addr.
sim_start() {
    target/debug/examples/sim_serve "$@" >"$work/sim.log" 2>&1 &
    pids+=($!)
    local i
    for i in $(seq 100); do
        # The simulator's shell may not have opened its log yet, and under set -e a sed
        # failing here would end the script (seen once: exit 2, "can't read sim.log").
        sim_addr=$(sed -n 's/^addr //p' "$work/sim.log" 2>/dev/null || true)
        [[ -n $sim_addr ]] && return 0
        sleep 0.1
    done
    interop_fail "simulator did not start"
}
