#!/usr/bin/env python3
"""Teeworlds / DDNet probe for the interop check and for capturing test fixtures.

Loopback only: every address is 127.0.0.1. Our own code, written from observing the servers.

  teeworlds_probe.py check06 PORT NAME     0.6/DDNet extended info request; the reply must name NAME
  teeworlds_probe.py check07 PORT NAME     0.7 token handshake, then info; the reply must name NAME
  teeworlds_probe.py capture DDPORT TWPORT DIR
                                           every request form against both servers, with fake
                                           clients joined, each reply saved as DIR/<case>.bin
  teeworlds_probe.py hold DDPORT TWPORT SECONDS
                                           joins 2 fake clients to DDNet (one spectating) and 3
                                           connecting ones to Teeworlds 0.7, prints "ready",
                                           keeps them SECONDS (or until killed)
  teeworlds_probe.py json FILE KEY=VALUE...
                                           the exporter's `query --json` output in FILE has these
                                           values (keys: name, map, max, online, bots, flavour,
                                           version-prefix, players: names joined by commas)
  teeworlds_probe.py metrics URL TARGET SECONDS KEY=VALUE...
                                           within SECONDS, the exporter's /metrics at URL shows
                                           TARGET with these values (up, online, max, bots, name,
                                           map: from gameserver_up, _players_*, gameserver_info)
"""
import json
import os
import re
import socket
import sys
import time
import urllib.request

HOST = "127.0.0.1"
H6 = b"\xff" * 6  # 0.6 connless header
PAD = b"\xff\xff\xff\xff"


def pint(i):
    """0.7 packed int: sign in bit 6 of the first byte, 6 then 7 bits per byte, bit 7 = more."""
    out = bytearray()
    b = 0
    if i < 0:
        b = 0x40
        i = ~i
    b |= i & 0x3F
    i >>= 6
    while i:
        out.append(b | 0x80)
        b = i & 0x7F
        i >>= 7
    out.append(b)
    return bytes(out)


def sock(timeout=0.7):
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.bind((HOST, 0))
    s.settimeout(timeout)
    return s


def collect(s, limit=64):
    out = []
    try:
        while len(out) < limit:
            out.append(s.recvfrom(65536)[0])
    except socket.timeout:
        pass
    return out


def ask(port, data):
    s = sock()
    s.sendto(data, (HOST, port))
    out = collect(s)
    s.close()
    return out


def req06(token=0x2A):
    return H6 + PAD + b"gie3" + bytes([token])


def req_ext(extra=0x1234, token=0x2A):
    return b"xe" + extra.to_bytes(2, "big") + b"\xff\xff" + PAD + b"gie3" + bytes([token])


def req_fstd(token=0x2A):
    return H6 + PAD + b"fstd" + bytes([token])


def token_request(mine):
    # control packet (flags CONTROL=1 << 2), ack 0, 0 chunks, token NONE, NET_CTRLMSG_TOKEN (5),
    # our token, padded to 512 data bytes: servers drop shorter token requests.
    return b"\x04\x00\x00\xff\xff\xff\xff\x05" + mine + b"\x00" * 508


def ask07(port, mine=b"\x11\x22\x33\x44", browse_token=1000):
    s = sock()
    s.sendto(token_request(mine), (HOST, port))
    got = collect(s, 1)
    if not got:
        return None, []
    tok = got[0]
    srv = tok[8:12]
    s.sendto(b"\x21" + srv + mine + PAD + b"gie3" + pint(browse_token), (HOST, port))
    out = collect(s)
    s.close()
    return tok, out


# --- fake DDNet 0.6 clients, enough to appear in the server's player list ---
def chunk(msg, seq):
    n = len(msg)
    return bytes([0x40 | ((n >> 4) & 0x3F), (n & 0xF) | ((seq >> 2) & 0xF0), seq & 0xFF]) + msg


def join06(port, name, clan, country, spectator=False):
    c = sock()
    c.sendto(b"\x10\x00\x00\x01TKEN" + b"\x00" * 508, (HOST, port))
    tok = c.recvfrom(2000)[0][-4:]
    c.sendto(b"\x10\x00\x00\x03" + tok, (HOST, port))
    info = pint(1 * 2 + 1) + b"0.6 626fce9a778df4d4\x00\x00"
    c.sendto(b"\x00\x00\x01" + chunk(info, 1) + tok, (HOST, port))
    time.sleep(0.03)
    c.sendto(b"\x00\x00\x01" + chunk(pint(14 * 2 + 1), 2) + tok, (HOST, port))
    time.sleep(0.03)
    start = (pint(20 * 2) + name.encode() + b"\x00" + clan.encode() + b"\x00" + pint(country)
             + b"default\x00" + pint(0) + pint(0) + pint(0))
    chunks = [chunk(start, 3), chunk(pint(15 * 2 + 1), 4)]
    if spectator:
        chunks.append(chunk(pint(18 * 2) + pint(-1), 5))
    c.sendto(b"\x00\x00" + bytes([len(chunks)]) + b"".join(chunks) + tok, (HOST, port))
    return c


def connect07(port, mine):
    """A 0.7 client that stops after the connect: the server lists it as "(connecting)"."""
    c = sock()
    c.sendto(token_request(mine), (HOST, port))
    srv = c.recvfrom(2000)[0][8:12]
    c.sendto(b"\x04\x00\x00" + srv + b"\x01" + mine + b"\x00" * 508, (HOST, port))
    c.recvfrom(2000)
    return c


def check06(port, name):
    replies = ask(port, req_ext())
    ok = any(name.encode() in r for r in replies)
    print(f"check06 port {port}: {len(replies)} replies, name {'found' if ok else 'MISSING'}")
    return ok


def check07(port, name):
    tok, replies = ask07(port)
    ok = tok is not None and any(name.encode() in r for r in replies)
    print(f"check07 port {port}: token {'yes' if tok else 'no'}, {len(replies)} replies, "
          f"name {'found' if ok else 'MISSING'}")
    return ok


def capture(dd, tw, out):
    os.makedirs(out, exist_ok=True)

    def save(case, datagrams):
        for i, d in enumerate(datagrams):
            with open(os.path.join(out, f"{case}.{i}.bin"), "wb") as f:
                f.write(d)
        print(case, len(datagrams), [len(d) for d in datagrams])

    pause = lambda: time.sleep(1.1)  # servers limit info replies per second
    save("ddnet_empty_06", ask(dd, req06())); pause()
    save("ddnet_empty_ext", ask(dd, req_ext())); pause()
    save("ddnet_empty_fstd", ask(dd, req_fstd())); pause()
    tok, r = ask07(dd); save("ddnet_07_token", [tok] if tok else []); save("ddnet_07_info", r); pause()
    save("tw07_empty_06", ask(tw, req06())); pause()
    save("tw07_empty_ext", ask(tw, req_ext())); pause()
    tok, r = ask07(tw); save("tw07_token", [tok] if tok else []); save("tw07_empty_info", r); pause()

    keep = [join06(dd, "nameless tee", "clanA", 276), join06(dd, "brainless tee", "", -1, True)]
    time.sleep(0.5)
    save("ddnet_two_06", ask(dd, req06())); pause()
    save("ddnet_two_ext", ask(dd, req_ext())); pause()
    # Long names and clans: enough bytes that DDNet has to split the extended reply.
    for i in range(46):
        keep.append(join06(dd, f"tee{i:02d} \u00e9\u00e9 longname", f"clan{i:02d} xyz", i, i % 5 == 0))
    time.sleep(0.8)
    save("ddnet_many_06", ask(dd, req06())); pause()
    save("ddnet_many_ext", ask(dd, req_ext())); pause()
    save("ddnet_many_fstd", ask(dd, req_fstd())); pause()

    keep += [connect07(tw, bytes([0x0A, 0x0B, 0x0C, i])) for i in range(3)]
    time.sleep(0.3)
    tok, r = ask07(tw, b"\x55\x66\x77\x01", 5)
    save("tw07_three_info", r)
    for c in keep:
        c.close()


def hold(dd, tw, seconds):
    keep = [join06(dd, "nameless tee", "clanA", 276), join06(dd, "brainless tee", "", -1, True)]
    keep += [connect07(tw, bytes([0x0A, 0x0B, 0x0C, i])) for i in range(3)]
    time.sleep(0.5)  # the servers list a client once its join is processed
    print("ready", flush=True)
    time.sleep(seconds)
    for c in keep:
        c.close()


def check_json(path, wants):
    with open(path, encoding="utf-8") as f:
        v = json.load(f)
    got = {
        "name": v.get("name"),
        "map": v.get("map"),
        "max": str(v.get("max")),
        "online": str(v.get("online")),
        "bots": str(v.get("bots")),
        "flavour": (v.get("extras") or {}).get("flavour"),
        "players": ",".join(p.get("name", "") for p in v.get("players") or []),
    }
    ok = True
    for want in wants:
        key, value = want.split("=", 1)
        if key == "version-prefix":
            have = v.get("version") or ""
            good = have.startswith(value)
        else:
            have = got.get(key)
            good = have == value
        print(f"  query --json {key}: {have!r} {'ok' if good else f'WANT {value!r}'}")
        ok &= good
    return ok


SAMPLE = re.compile(r'^([a-z_]+)\{(.*)\} (\S+)$')
LABEL = re.compile(r'([a-z_]+)="((?:[^"\\]|\\.)*)"')


def scrape(url, target):
    """The target's samples: metric name -> (labels, value)."""
    with urllib.request.urlopen(url, timeout=2) as r:
        text = r.read().decode()
    out = {}
    for line in text.splitlines():
        m = SAMPLE.match(line)
        if not m:
            continue
        labels = dict(LABEL.findall(m.group(2)))
        if labels.get("target") == target:
            out[m.group(1)] = (labels, m.group(3))
    return out


def check_metrics(url, target, seconds, wants):
    def read(samples, key):
        if key in ("name", "map"):
            return samples.get("gameserver_info", ({}, None))[0].get(key)
        metric = {"up": "gameserver_up", "online": "gameserver_players_online",
                  "max": "gameserver_players_max", "bots": "gameserver_players_bots"}[key]
        return samples.get(metric, ({}, None))[1]

    wants = [w.split("=", 1) for w in wants]
    deadline = time.monotonic() + seconds
    while True:
        try:
            samples = scrape(url, target)
        except OSError:
            samples = {}
        have = {k: read(samples, k) for k, _ in wants}
        if all(have[k] == v for k, v in wants) or time.monotonic() > deadline:
            break
        time.sleep(0.5)
    ok = True
    for k, v in wants:
        good = have[k] == v
        print(f"  daemon {target} {k}: {have[k]!r} {'ok' if good else f'WANT {v!r}'}")
        ok &= good
    return ok


def main():
    cmd = sys.argv[1] if len(sys.argv) > 1 else ""
    if cmd == "hold":
        hold(int(sys.argv[2]), int(sys.argv[3]), float(sys.argv[4]))
        return
    if cmd == "json":
        sys.exit(0 if check_json(sys.argv[2], sys.argv[3:]) else 1)
    if cmd == "metrics":
        sys.exit(0 if check_metrics(sys.argv[2], sys.argv[3], float(sys.argv[4]), sys.argv[5:]) else 1)
    if cmd == "check06":
        sys.exit(0 if check06(int(sys.argv[2]), sys.argv[3]) else 1)
    if cmd == "check07":
        sys.exit(0 if check07(int(sys.argv[2]), sys.argv[3]) else 1)
    if cmd == "capture":
        capture(int(sys.argv[2]), int(sys.argv[3]), sys.argv[4])
        return
    print(__doc__, file=sys.stderr)
    sys.exit(2)


if __name__ == "__main__":
    main()
