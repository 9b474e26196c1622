#!/usr/bin/env python3
"""A minimal NetQuake client for .ci/interop/netquake.sh: connects to 127.0.0.1:PORT with
CCREQ_CONNECT, sets its name and colours with two reliable string commands, acknowledges what
the server sends reliably, and stays SECONDS seconds (or until killed), so the server has one
active player with a known name. Usage: netquake_bot.py PORT NAME SECONDS"""
import socket
import struct
import sys
import time

port, name, seconds = int(sys.argv[1]), sys.argv[2], float(sys.argv[3])
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.settimeout(0.5)
hello = b"\x01QUAKE\x00\x03"
deadline = time.time() + seconds
game_port = None
while game_port is None and time.time() < deadline:
    s.sendto(struct.pack(">I", 0x80000000 | (4 + len(hello))) + hello, ("127.0.0.1", port))
    try:
        reply, _ = s.recvfrom(2048)
    except socket.timeout:
        continue
    if len(reply) >= 9 and reply[4] == 0x81:  # CCREP_ACCEPT + the client's own port (LE)
        game_port = struct.unpack("<i", reply[5:9])[0]
if game_port is None:
    sys.exit("netquake_bot: no CCREP_ACCEPT")
print(f"accepted on port {game_port}", flush=True)
pending = [f"name {name}\n", "color 4 12\n"]
sequence = 0
acked = True
while time.time() < deadline:
    if acked and pending:
        payload = b"\x04" + pending.pop(0).encode() + b"\x00"  # clc_stringcmd
        # NETFLAG_DATA | NETFLAG_EOM, length, then the reliable sequence number.
        s.sendto(struct.pack(">II", 0x00090000 | (8 + len(payload)), sequence) + payload, ("127.0.0.1", game_port))
        sequence += 1
        acked = False
    try:
        data, _ = s.recvfrom(65535)
    except socket.timeout:
        acked = True  # resend nothing: the loopback does not lose packets; move on
        continue
    if len(data) < 8:
        continue
    flags, their_sequence = struct.unpack(">II", data[:8])
    if flags & 0x00010000:  # reliable data from the server: acknowledge it
        s.sendto(struct.pack(">II", 0x00020008, their_sequence), ("127.0.0.1", game_port))
    if flags & 0x00020000:  # our reliable message acknowledged
        acked = True
