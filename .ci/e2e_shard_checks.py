#!/usr/bin/env python3
"""Sharding checks of .ci/e2e.sh, through Prometheus's HTTP API. Standard library only.

Three replicas (--shard 0-of-3, 1-of-3, GAMESERVER_EXPORTER_SHARD=2/3) serve one config of
N targets and Prometheus scrapes all three in one job, whose metric relabelling computes
Prometheus's own `hashmod` of each series' `target` label into `prom_shard`. Asserted:
every target appears exactly once (one gameserver_up series, and all its series from one
replica), each from the replica whose gameserver_exporter_shard_info names the shard that
Prometheus's hashmod computed, and the replicas together report N configured targets.

Prints "ok    NAME" / "FAIL  NAME" lines, then "shard checks done".
"""

import argparse
import json
import time
import urllib.error
import urllib.parse
import urllib.request
from collections import defaultdict

results = {"ok": 0, "fail": 0}


def report(ok, name, detail=""):
    results["ok" if ok else "fail"] += 1
    print(("ok    " if ok else "FAIL  ") + name, flush=True)
    if not ok:
        for line in str(detail).splitlines()[:20]:
            print("      " + line, flush=True)


def query(base, expr):
    url = f"{base}/api/v1/query?{urllib.parse.urlencode({'query': expr})}"
    try:
        with urllib.request.urlopen(url, timeout=10) as r:
            body = json.load(r)
    except urllib.error.HTTPError as e:
        body = json.load(e)
    if body.get("status") != "success":
        raise RuntimeError(f"{expr}: {body.get('errorType')}: {body.get('error')}")
    return body["data"]["result"]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--prometheus", required=True)
    ap.add_argument("--job", required=True)
    ap.add_argument("--targets", type=int, required=True)
    ap.add_argument("--shards", type=int, required=True)
    ap.add_argument("--timeout", type=float, default=30)
    a = ap.parse_args()
    base, job, n = a.prometheus.rstrip("/"), a.job, a.targets
    sel = f'job="{job}"'

    # Every target polled and scraped: N up series with value 1.
    deadline = time.monotonic() + a.timeout
    up = []
    while True:
        try:
            up = query(base, f"gameserver_up{{{sel}}} == 1")
        except Exception as e:  # noqa: BLE001 - Prometheus may still be starting its first scrapes
            up = []
            last = e
        else:
            last = f"{len(up)} series"
        if len(up) >= n or time.monotonic() >= deadline:
            break
        time.sleep(1)
    report(len(up) == n, f"{n} gameserver_up series with value 1 in job {job} within {a.timeout:.0f}s", last)

    by_target = defaultdict(list)
    for s in query(base, f"gameserver_up{{{sel}}}"):
        by_target[s["metric"].get("target")].append(s["metric"])
    twice = {t: [m["instance"] for m in ms] for t, ms in by_target.items() if len(ms) != 1}
    report(len(by_target) == n and not twice,
           f"every one of the {n} targets has exactly one gameserver_up series",
           f"{len(by_target)} targets; more than one: {twice}")

    # All of a target's series (every family) come from one replica.
    multi = query(base, f'count by (target) (count by (target, instance) ({{{sel}, target!=""}})) > 1')
    report(not multi, "all series of each target come from one replica",
           [m["metric"] for m in multi])

    info = query(base, f"gameserver_exporter_shard_info{{{sel}}}")
    shards = sorted((m["metric"].get("shard"), m["metric"].get("shards")) for m in info)
    want = [(str(i), str(a.shards)) for i in range(a.shards)]
    report(shards == want, f"gameserver_exporter_shard_info: shards 0..{a.shards - 1} of {a.shards}, one each",
           shards)

    # The replica that publishes a target is the one Prometheus's hashmod names.
    joined = query(base, f"gameserver_up{{{sel}}} * on (instance) group_left (shard) "
                         f"gameserver_exporter_shard_info{{{sel}}}")
    wrong = [(m["metric"].get("target"), m["metric"].get("shard"), m["metric"].get("prom_shard"))
             for m in (s for s in joined)
             if m["metric"].get("shard") != m["metric"].get("prom_shard")]
    report(len(joined) == n and not wrong,
           "each target's replica shard equals Prometheus's hashmod(target, shards)",
           f"{len(joined)} joined; (target, replica shard, prometheus hashmod) that differ: {wrong}")

    per_replica = query(base, f"sum by (instance) (gameserver_targets{{{sel}}})")
    counts = {m["metric"]["instance"]: int(float(m["value"][1])) for m in per_replica}
    report(sum(counts.values()) == n and len(counts) == a.shards and all(counts.values()),
           f"gameserver_targets over the replicas adds up to {n}, none empty", counts)

    print("shard checks done", flush=True)


if __name__ == "__main__":
    main()
