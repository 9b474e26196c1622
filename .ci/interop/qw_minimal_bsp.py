#!/usr/bin/env python3
"""Writes the smallest Quake 1 map (BSP version 29) a QuakeWorld server loads: one plane
splitting space into a solid and an empty leaf, one node, one clip node, the world model
and a worldspawn plus one deathmatch start. No faces, textures, lighting or visibility:
a dedicated server only needs the collision hulls. Usage: qw_minimal_bsp.py OUT.bsp"""
import struct
import sys

ENTITIES = (
    b'{\n"classname" "worldspawn"\n"message" "gameserver-exporter interop"\n}\n'
    b'{\n"classname" "info_player_deathmatch"\n"origin" "0 0 24"\n}\n'
    b'{\n"classname" "info_player_start"\n"origin" "0 0 24"\n}\n\x00'
)
# One plane: z = 0, axial (type 2). Below it is solid, above it empty.
PLANES = struct.pack("<4fi", 0.0, 0.0, 1.0, 0.0, 2)
# Node 0 on plane 0: front (above) -> leaf 1 (empty, child -2), back -> leaf 0 (solid, -1).
NODES = struct.pack("<i2h3h3h2H", 0, -2, -1, -4096, -4096, -4096, 4096, 4096, 4096, 0, 0)
# Clip node 0 on plane 0: front empty (-1), back solid (-2).
CLIPNODES = struct.pack("<i2h", 0, -1, -2)
LEAFS = (
    struct.pack("<ii3h3h2H4B", -2, -1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
    + struct.pack("<ii3h3h2H4B", -1, -1, -4096, -4096, 0, 4096, 4096, 4096, 0, 0, 0, 0, 0, 0)
)
MODELS = struct.pack("<9f4i3i", -4096, -4096, -4096, 4096, 4096, 4096, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0)
# Empty texture lump: a count of zero textures.
MIPTEX = struct.pack("<i", 0)


def main(path):
    lumps = [ENTITIES, PLANES, MIPTEX, b"", b"", NODES, b"", b"", b"", CLIPNODES, LEAFS, b"", b"", b"", MODELS]
    header_len = 4 + 15 * 8
    body = b""
    directory = b""
    for lump in lumps:
        directory += struct.pack("<ii", header_len + len(body), len(lump))
        body += lump
        body += b"\x00" * (-len(body) % 4)
    with open(path, "wb") as f:
        f.write(struct.pack("<i", 29) + directory + body)


if __name__ == "__main__":
    main(sys.argv[1])
