"""Network fixtures for .ci/image.sh, run inside a private network namespace the script made.

- A DNS server on 127.0.0.1:53 (the port resolv.conf implies; free in a fresh namespace):
  an A record 127.0.0.1 for NAME, no data for NAME's other types, NXDOMAIN for every other
  name (so `localhost` must come from /etc/hosts, as from a real upstream that knows nothing
  of it).
- A Mumble ping responder on 127.0.0.1, port chosen by the system: 24-byte pongs (version
  1.4.0, 3 of 10 users, 72000 bit/s) to well-formed 12-byte pings.

Prints `ready PORT` (the Mumble port) once both sockets are bound, then serves until it is
killed or LIFETIME seconds have passed.

Usage: image_fixture.py NAME [LIFETIME]
"""

import select
import socket
import struct
import sys
import time


def dns_reply(query: bytes, name: bytes) -> bytes | None:
    """The answer to one DNS query, or None for a datagram that is no query."""
    if len(query) < 12:
        return None
    ident, flags, qdcount = struct.unpack("!HHH", query[:6])
    if flags & 0x8000 or qdcount != 1:
        return None
    labels, i = [], 12
    while i < len(query) and query[i] != 0:
        n = query[i]
        if n & 0xC0 or i + 1 + n > len(query):
            return None
        labels.append(query[i + 1 : i + 1 + n].lower())
        i += 1 + n
    if i + 5 > len(query):
        return None
    question = query[12 : i + 5]
    qtype, _qclass = struct.unpack("!HH", query[i + 1 : i + 5])
    known = b".".join(labels) == name
    rcode = 0 if known else 3
    answers = b""
    if known and qtype == 1:
        # Name by pointer to the question (offset 12), A, IN, TTL 60, 4 bytes: 127.0.0.1.
        answers = struct.pack("!HHHIH", 0xC00C, 1, 1, 60, 4) + bytes([127, 0, 0, 1])
    header = struct.pack(
        "!HHHHHH", ident, 0x8180 | (flags & 0x0100) | rcode, 1, 1 if answers else 0, 0, 0
    )
    return header + question + answers


def pong(ping: bytes) -> bytes | None:
    if len(ping) != 12 or ping[:4] != b"\0\0\0\0":
        return None
    return struct.pack("!I", 0x00010400) + ping[4:] + struct.pack("!III", 3, 10, 72000)


def main() -> None:
    name = sys.argv[1].rstrip(".").lower().encode()
    lifetime = float(sys.argv[2]) if len(sys.argv) > 2 else 120.0
    dns = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    dns.bind(("127.0.0.1", 53))
    mumble = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    mumble.bind(("127.0.0.1", 0))
    print("ready", mumble.getsockname()[1], flush=True)
    end = time.monotonic() + lifetime
    while (left := end - time.monotonic()) > 0:
        readable, _, _ = select.select([dns, mumble], [], [], left)
        for sock in readable:
            data, peer = sock.recvfrom(2048)
            reply = dns_reply(data, name) if sock is dns else pong(data)
            if reply is not None:
                sock.sendto(reply, peer)


if __name__ == "__main__":
    main()
