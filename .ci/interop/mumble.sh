#!/usr/bin/env bash
# Interop check against a real Mumble server (Debian's mumble-server, Murmur): installs it if
# missing, starts it on 127.0.0.1 on a free port with a known `users` and `bandwidth`, sends
# the 12-byte UDP ping and checks the 24-byte reply against those settings; stops the server
# by its PID. Phase 2 will assert the exporter's `query mumble` output and daemon gauges too.
set -euo pipefail

if ! command -v murmurd >/dev/null 2>&1 && [ ! -x /usr/sbin/murmurd ]; then
    # Never let the package start its own service on the default port.
    if [ ! -e /usr/sbin/policy-rc.d ]; then
        printf '#!/bin/sh\nexit 101\n' >/usr/sbin/policy-rc.d
        chmod 755 /usr/sbin/policy-rc.d
    fi
    DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends mumble-server >/dev/null
fi
murmurd=$(command -v murmurd || echo /usr/sbin/murmurd)

work=$(mktemp -d)
# Murmur started as root drops to the mumble-server user: its database directory must be
# writable for that user.
chmod 777 "$work"
pid=
cleanup() {
    if [ -n "$pid" ]; then kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; fi
    rm -rf "$work"
}
trap cleanup EXIT

# A port free for both UDP (the ping) and TCP (the voice/control channel).
port=$(python3 - <<'PY'
import socket
while True:
    u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    u.bind(("127.0.0.1", 0))
    p = u.getsockname()[1]
    t = socket.socket()
    try:
        t.bind(("127.0.0.1", p))
    except OSError:
        continue
    print(p)
    break
PY
)
users=37
bandwidth=64000
cat >"$work/murmur.ini" <<INI
database=$work/murmur.sqlite
host=127.0.0.1
port=$port
users=$users
bandwidth=$bandwidth
registerName=
registerHostname=
ice=
INI

"$murmurd" -ini "$work/murmur.ini" -fg >"$work/murmur.log" 2>&1 &
pid=$!

python3 - "$port" "$users" "$bandwidth" <<'PY'
import socket, struct, sys, time
port, users, bandwidth = (int(a) for a in sys.argv[1:4])
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.settimeout(0.5)
ident = b"interop!"
deadline = time.monotonic() + 20
while True:
    s.sendto(b"\0\0\0\0" + ident, ("127.0.0.1", port))
    try:
        data, src = s.recvfrom(2048)
        break
    except (socket.timeout, ConnectionRefusedError):
        if time.monotonic() > deadline:
            sys.exit("mumble.sh: no ping reply within 20 s")
print("mumble.sh: reply", data.hex())
assert len(data) == 24, len(data)
version, echoed, online, maximum, bw = struct.unpack(">I8sIII", data)
assert echoed == ident, echoed
assert maximum == users, (maximum, users)
assert bw == bandwidth, (bw, bandwidth)
assert online == 0, online
print("mumble.sh: ok: version %d.%d.%d, users %d/%d, bandwidth %d"
      % (version >> 16, (version >> 8) & 255, version & 255, online, maximum, bw))
PY
