# Shared by the interop scripts, sourced after `set -euo pipefail` with NAME set (it prefixes
# every message): Debian packages installed without their services starting, a scratch
# directory, every process the script starts stopped by PID on exit (on failure and on a
# signal too), and free loopback ports.
#
#   interop_install PKG...   installs what dpkg does not have yet (as root)
#   interop_work             makes $work and pids=(), and the traps that clean both up
#   interop_fail MESSAGE     prints MESSAGE and the tail of every $work/*.log, exits 1
#   free_udp_port | free_tcp_port | free_port_both    a port free on 127.0.0.1 right now

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
