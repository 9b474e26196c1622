#!/usr/bin/env python3
"""A Sauerbraten player for the interop step, without the game: connects to PORT on
127.0.0.1 through the system's libenet (ctypes, libenet7), sends the one message that makes
it a client (N_CONNECT: name, player model, empty password, auth description and name) and
keeps the connection serviced for SECONDS, answering nothing else. Enough for the server to
list it in extinfo. With BOTS > 0 it then claims master (N_SETMASTER, which an open server
grants the first asker) and asks that many bots (N_ADDBOT, random skill).
Usage: sauer_client.py PORT NAME SECONDS [BOTS]"""
import ctypes
import sys
import time

port, name, seconds = int(sys.argv[1]), sys.argv[2].encode(), float(sys.argv[3])
bots = int(sys.argv[4]) if len(sys.argv) > 4 else 0
enet = ctypes.CDLL("libenet.so.7")


class Address(ctypes.Structure):
    _fields_ = [("host", ctypes.c_uint32), ("port", ctypes.c_uint16)]


class Packet(ctypes.Structure):
    _fields_ = [("referenceCount", ctypes.c_size_t), ("flags", ctypes.c_uint32),
                ("data", ctypes.POINTER(ctypes.c_uint8)), ("dataLength", ctypes.c_size_t)]


class Event(ctypes.Structure):
    _fields_ = [("type", ctypes.c_int), ("peer", ctypes.c_void_p),
                ("channelID", ctypes.c_uint8), ("data", ctypes.c_uint32),
                ("packet", ctypes.c_void_p)]


enet.enet_host_create.restype = ctypes.c_void_p
enet.enet_host_create.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_size_t,
                                  ctypes.c_uint32, ctypes.c_uint32]
enet.enet_host_connect.restype = ctypes.c_void_p
enet.enet_host_connect.argtypes = [ctypes.c_void_p, ctypes.POINTER(Address), ctypes.c_size_t,
                                   ctypes.c_uint32]
enet.enet_host_service.argtypes = [ctypes.c_void_p, ctypes.POINTER(Event), ctypes.c_uint32]
enet.enet_packet_create.restype = ctypes.c_void_p
enet.enet_packet_create.argtypes = [ctypes.c_char_p, ctypes.c_size_t, ctypes.c_uint32]
enet.enet_peer_send.argtypes = [ctypes.c_void_p, ctypes.c_uint8, ctypes.c_void_p]
enet.enet_packet_destroy.argtypes = [ctypes.c_void_p]
enet.enet_address_set_host.argtypes = [ctypes.POINTER(Address), ctypes.c_char_p]

EVENT_CONNECT, EVENT_DISCONNECT, EVENT_RECEIVE = 1, 2, 3
RELIABLE = 1
# Message numbers of the 2020 edition's protocol (game.h's enum).
N_CONNECT, N_SERVINFO, N_SETMASTER, N_ADDBOT = 0, 1, 63, 96

if enet.enet_initialize() != 0:
    sys.exit("enet_initialize failed")
host = enet.enet_host_create(None, 1, 3, 0, 0)
address = Address()
enet.enet_address_set_host(ctypes.byref(address), b"127.0.0.1")
address.port = port
peer = enet.enet_host_connect(host, ctypes.byref(address), 3, 0)
event = Event()
end = time.monotonic() + seconds
cn = None
bots_at = None


def send(msg):
    enet.enet_peer_send(peer, 1, enet.enet_packet_create(msg, len(msg), RELIABLE))


while time.monotonic() < end:
    # Once connected (a moment after N_CONNECT), claim master and add the bots.
    if bots and bots_at and cn is not None and time.monotonic() >= bots_at:
        bots_at = None
        send(bytes([N_SETMASTER, cn, 1, 0]) + bytes([N_ADDBOT, 0xFF]) * bots)
        print(f"asked master and {bots} bots", flush=True)
    if enet.enet_host_service(host, ctypes.byref(event), 50) <= 0:
        continue
    if event.type == EVENT_CONNECT:
        # Channel 1 carries the client's messages; the strings are plain ASCII here.
        send(bytes([N_CONNECT]) + name + b"\0" + bytes([0]) + b"\0\0\0")
        bots_at = time.monotonic() + 0.5
        print("connected", flush=True)
    elif event.type == EVENT_RECEIVE:
        packet = Packet.from_address(event.packet)
        # The server's first message: N_SERVINFO and our client number (below 128: one byte).
        if cn is None and packet.dataLength >= 2 and packet.data[0] == N_SERVINFO:
            cn = packet.data[1]
        enet.enet_packet_destroy(event.packet)
    elif event.type == EVENT_DISCONNECT:
        sys.exit(f"disconnected ({event.data})")
