#!/usr/bin/env python3
"""Writes the smallest game directory a NetQuake server (Debian's quakespasm) runs a map from,
for .ci/interop/netquake.sh: BASEDIR/quakespasm.pak with maps/start.bsp (qw_minimal_bsp.py's
map) and progs/player.mdl (one triangle, one frame), and BASEDIR/id1/gfx.wad (an empty WAD2:
the engine opens it even when dedicated). progs.dat comes from fteqcc (netquake_progs.qc).
Why quakespasm.pak: without the registered data, files under a subdirectory (maps/...) are read
only from a pack, and any pak0.pak that is not id's sets the "modified game" refusal; the
engine's own quakespasm.pak is the one pack it reads without that. Usage: netquake_data.py BASEDIR"""
import os
import struct
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import qw_minimal_bsp  # noqa: E402


def player_mdl():
    """An alias model (IDPO version 6): one 8x8 skin, three vertices, one triangle, one frame."""
    header = struct.pack(
        "<4si3f3ff3f6iiif", b"IDPO", 6, 1, 1, 1, 0, 0, 0, 10, 0, 0, 22, 1, 8, 8, 3, 1, 1, 0, 0, 8.0
    )
    skin = struct.pack("<i", 0) + bytes(64)
    st_verts = struct.pack("<9i", 0, 0, 0, 0, 7, 0, 0, 0, 7)
    triangle = struct.pack("<4i", 1, 0, 1, 2)
    frame = (
        struct.pack("<i", 0)
        + bytes([0, 0, 0, 0, 8, 8, 8, 0])
        + b"stand".ljust(16, b"\0")
        + bytes([0, 0, 0, 0, 8, 0, 0, 0, 0, 8, 0, 0])
    )
    return header + skin + st_verts + triangle + frame


def pack(files):
    """A PACK file: header, the files' bytes, then the 64-byte directory entries."""
    body = b""
    directory = b""
    for name, data in files:
        directory += struct.pack("<56sii", name.encode(), 12 + len(body), len(data))
        body += data
    return b"PACK" + struct.pack("<ii", 12 + len(body), len(directory)) + body + directory


def main(base):
    os.makedirs(os.path.join(base, "id1"), exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        bsp = os.path.join(tmp, "start.bsp")
        qw_minimal_bsp.main(bsp)
        with open(bsp, "rb") as f:
            map_bytes = f.read()
    with open(os.path.join(base, "quakespasm.pak"), "wb") as f:
        f.write(pack([("maps/start.bsp", map_bytes), ("progs/player.mdl", player_mdl())]))
    with open(os.path.join(base, "id1", "gfx.wad"), "wb") as f:
        f.write(b"WAD2" + struct.pack("<ii", 0, 12))


if __name__ == "__main__":
    main(sys.argv[1])
