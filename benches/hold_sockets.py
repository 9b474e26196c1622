#!/usr/bin/env python3
"""Holds idle UDP sockets open, so a 10,000-target load run can carry the kernel socket table
of a 100,000-target one (benches/RESULTS.md, "Bigger start batches"): on loopback the kernel
looks up the destination socket in the sender's time, so the simulated servers' sockets are
part of what a poll costs, and the two runs compare only with as many sockets in the kernel.

    benches/hold_sockets.py ADDRESS COUNT SECONDS

Binds COUNT sockets on ADDRESS (a 127.0.0.0/8 address the bench does not use, such as
127.0.0.9) to ports 10000 upwards, below the ephemeral range: sockets on ephemeral ports
would leave the exporter's wildcard-bound shared socket no free port. One process holds at
most 19,000 sockets (this machine's descriptor limit is 20,000), so run five for 90,000:

    for a in 9 10 11 12 13; do benches/hold_sockets.py 127.0.0.$a 18000 200 & done
"""
import resource
import socket
import sys
import time


def main():
    address, count, seconds = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    if not address.startswith("127.") or not 0 < count <= 19000:
        sys.exit("hold_sockets.py: a 127.0.0.0/8 address and at most 19,000 sockets")
    resource.setrlimit(resource.RLIMIT_NOFILE, (count + 100, count + 100))
    held = []
    for i in range(count):
        s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        s.bind((address, 10000 + i))
        held.append(s)
    print(f"holding {len(held)} sockets on {address}", flush=True)
    time.sleep(seconds)


if __name__ == "__main__":
    main()
