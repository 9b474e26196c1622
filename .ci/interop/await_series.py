#!/usr/bin/env python3
"""Waits until the exporter's /metrics shows every wanted series with its value.

  await_series.py NAME LISTEN TARGET PROTOCOL SECONDS 'SERIES VALUE'...

SERIES is written as in the exposition (labels included). Besides the wanted values, the
target's gameserver_latency_seconds must lie in (0, 1) and it must have no failures counted.
Polls /metrics every 0.2 s for up to SECONDS; prints the latency and exits 0 once all hold,
else prints what it saw and exits 1. NAME prefixes every message.
"""
import sys
import time
import urllib.request


def samples(body):
    values = {}
    for line in body.splitlines():
        if line and not line.startswith("#"):
            series, _, value = line.rpartition(" ")
            values[series] = float(value)
    return values


def main():
    name, listen, target, protocol, seconds = sys.argv[1:6]
    want = {}
    for arg in sys.argv[6:]:
        series, _, value = arg.rpartition(" ")
        want[series] = float(value)
    latency_series = 'gameserver_latency_seconds{target="%s",protocol="%s"}' % (target, protocol)
    failures_prefix = 'gameserver_query_failures_total{target="%s"' % target
    deadline = time.monotonic() + float(seconds)
    while True:
        try:
            body = urllib.request.urlopen("http://%s/metrics" % listen, timeout=2).read().decode()
        except OSError:
            body = ""
        values = samples(body)
        got = {k: values.get(k) for k in want}
        latency = values.get(latency_series)
        if got == want and latency is not None and 0 < latency < 1:
            break
        if time.monotonic() > deadline:
            sys.exit("%s: daemon gauges %r (latency %r), want %r\n%s" % (name, got, latency, want, body))
        time.sleep(0.2)
    failures = [l for l in body.splitlines() if l.startswith(failures_prefix)]
    if failures:
        sys.exit("%s: failures counted: %r" % (name, failures))
    print("%s: daemon ok: %d series as wanted, latency %.6f s" % (name, len(want), latency))


if __name__ == "__main__":
    main()
