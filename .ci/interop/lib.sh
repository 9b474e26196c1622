# Shared by the interop scripts, sourced after `set -euo pipefail` with NAME set (it prefixes
# every message): Debian packages installed without their services starting, a scratch
# directory, every process the script starts stopped by PID on exit (on failure and on a
# signal too), and free loopback ports.
#
#   interop_install PKG...   installs what dpkg does not have yet (as root)
#   interop_work             makes $work and pids=(), and the traps that clean both up
#   interop_fail MESSAGE     prints MESSAGE and the tail of every $work/*.log, exits 1
#   free_udp_port | free_tcp_port | free_port_both    a port free on 127.0.0.1 right now
#   sim_serve_build [BIN]    sets $bin (BIN, or the debug build, built when missing) and
#                            builds examples/sim_serve
#   console_sim_start EXAMPLE KIND   runs examples/EXAMPLE KIND on $work/rcon.pw (built and
#                            written already: sim_dialects, sim_rcon), waits for its `rcon`
#                            line; sets $addr (the game) and $rcon_port (its console)

interop_install() {
    local missing=() p
    for p in "$@"; do dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p"); done
    ((${#missing[@]})) || return 0
    if [[ $(id -u) -ne 0 ]]; then
        echo "$NAME: missing ${missing[*]}; install them or run as root" >&2
        exit 1
    fi
    # Packaged services must not start on their default ports: without systemd the
    # maintainer scripts go through invoke-rc.d, which a policy-rc.d exiting 101 forbids.
    local policy=/usr/sbin/policy-rc.d made_policy=
    if [[ ! -e $policy ]]; then
        printf '#!/bin/sh\nexit 101\n' >"$policy"
        chmod 0755 "$policy"
        made_policy=1
    fi
    echo "$NAME: apt-get install ${missing[*]}"
    export DEBIAN_FRONTEND=noninteractive
    local ok=1
    apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null ||
        { apt-get update -qq && apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null; } ||
        ok=
    if [[ -n $made_policy ]]; then rm -f "$policy"; fi
    [[ -n $ok ]] || { echo "$NAME: apt-get install ${missing[*]} failed" >&2; exit 1; }
}

interop_cleanup() {
    local p
    for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
    for p in "${pids[@]}"; do wait "$p" 2>/dev/null || true; done
    rm -rf "$work"
}

interop_work() {
    work=$(mktemp -d)
    pids=()
    trap interop_cleanup EXIT
    # A signal ends the script through exit, so the EXIT trap stops the servers too.
    trap 'exit 130' INT TERM
}

interop_fail() {
    echo "$NAME: FAIL: $*" >&2
    local f
    for f in "$work"/*.log; do
        [[ -s $f ]] && { echo "--- $f" >&2; tail -n 20 "$f" >&2; }
    done
    exit 1
}

free_udp_port() {
    python3 -c 'import socket; s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

free_tcp_port() {
    python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# Free for both TCP and UDP (servers such as Murmur bind both).
free_port_both() {
    python3 - <<'PY'
import socket
while True:
    t = socket.socket()
    t.bind(("127.0.0.1", 0))
    p = t.getsockname()[1]
    u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    try:
        u.bind(("127.0.0.1", p))
    except OSError:
        continue
    print(p)
    break
PY
}

# --- qstat cross-reads (.ci/interop/qstat-*.sh) ---
#   qstat_require            sets QSTAT to Debian's quakestat, installing it as root; without
#                            it the script says SKIPPED loudly and exits 0
#   await_addr LOG SED       waits up to 10 s for the simulator's address in LOG, printed as
#                            `sed -n SED` extracts it (e.g. 's/^addr=//p'), and prints it
#   ours_summary JSON        our `query --json` as `name=… map=… online=… max=… players=a|b`,
#                            player names sorted (qstat lists them in its own order)
#   qstat_summary            the same from `quakestat -raw , -P -R` on stdin (server line:
#                            TYPE,ADDRESS,NAME,MAP,MAX,ONLINE,PING,RETRIES; then the rules;
#                            then one line per player, name first)

qstat_require() {
    QSTAT=$(command -v quakestat || command -v qstat || true)
    if [[ -z $QSTAT && $(id -u) -eq 0 ]] && apt-cache show qstat >/dev/null 2>&1; then
        interop_install qstat
        QSTAT=$(command -v quakestat || command -v qstat || true)
    fi
    if [[ -z $QSTAT ]]; then
        echo "$NAME: SKIPPED: qstat is not installed and not installable here (apt-get install qstat)" >&2
        exit 0
    fi
}

await_addr() {
    local log=$1 expr=$2 addr= _
    for _ in $(seq 100); do
        addr=$(sed -n "$expr" "$log" 2>/dev/null | head -n1)
        [[ -n $addr ]] && break
        sleep 0.1
    done
    [[ -n $addr ]] || interop_fail "the simulator printed no address in $log"
    echo "$addr"
}

ours_summary() {
    python3 -c 'import json, sys
s = json.loads(sys.argv[1])
names = "|".join(sorted(p["name"] for p in s.get("players") or []))
print("name=%s map=%s online=%s max=%s players=%s" % (s["name"], s.get("map") or "", s["online"], s["max"], names))' "$1"
}

qstat_summary() {
    python3 -c 'import sys
lines = sys.stdin.read().splitlines()
head = lines[0].split(",") if lines else [""] * 6
names = "|".join(sorted(l.split(",")[0] for l in lines[2:] if "," in l))
print("name=%s map=%s online=%s max=%s players=%s" % (head[2], head[3], head[5], head[4], names))'
}

sim_serve_build() {
    bin=${1:-target/debug/gameserver-exporter}
    [[ -x $bin ]] || cargo build --locked --bin gameserver-exporter
    cargo build --locked --quiet --example sim_serve
}

console_sim_start() {
    local log="$work/sim-$2.log" i
    target/debug/examples/"$1" "$2" "$work/rcon.pw" >"$log" 2>&1 &
    pids+=($!)
    for ((i = 0; i < 100; i++)); do
        grep -q '^rcon ' "$log" && break
        kill -0 "${pids[-1]}" 2>/dev/null || interop_fail "simulator ($2) exited"
        sleep 0.1
    done
    addr=$(awk '/^addr /{ print $2 }' "$log")
    rcon_port=$(awk '/^rcon /{ n = split($2, a, ":"); print a[n] }' "$log")
    [[ -n $addr && -n $rcon_port ]] || interop_fail "the $2 simulator printed no addresses"
}
