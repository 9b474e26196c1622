#!/usr/bin/env python3
"""Assertions of .ci/e2e.sh that go through Prometheus's HTTP API. Standard library only.

Prints one line per check, "ok    NAME" or "FAIL  NAME" (with detail below it), then
"checks done". The shell script counts those lines.

How expressions are checked:
- Dashboard queries: template variables are substituted ($protocol and $target become the
  "All" regex .*, $__rate_interval 1m), then each query is run as Grafana runs it (a range
  query over the last minute, or an instant query for instant targets) and must succeed and
  return at least one series. Variable queries label_values(SELECTOR, LABEL) must return values.
- Alert rules: Prometheus loaded alerts.yml itself; every rule must report health "ok" after
  being evaluated. A rule's condition is usually false on a healthy demo, so "returns data" is
  checked on its operands instead: the expression is split at top-level set operators
  (and/or/unless) and comparisons (== != > < >= <=), parentheses around a whole operand are
  stripped and split again, and every operand that is not a number must return data. For
  `(time() - X > 900) and X > 0` that runs `time() - X` and `X`.
- Data for failure series: the demo's servers never fail, and gameserver_query_failures_total
  only appears once a failure happened, so e2e.sh also runs a --config exporter with one
  target on a closed loopback port; its refused polls feed the failure panel and rules.
- Data source: the dashboard's `datasource` variable (type datasource) is resolved by Grafana,
  not by Prometheus; its plugin type must be prometheus. tests/it/grafana.rs checks that every
  panel, query and variable uses it.
- Metric names: every identifier used as a metric in the dashboard and the rules must appear
  in the exporter's /metrics (Prometheus's own `up` excepted).
"""

import argparse
import json
import re
import sys
import time
import urllib.error
import urllib.parse
import urllib.request

# The demo's protocols, one simulator each: from --protocols (e2e.sh keeps the list).
PROTOCOLS = []
# Protocols whose servers answer only after a login: their ad-hoc probes carry no
# credentials, so they are down (auth_refused, before any connection).
LOGIN_ONLY = []
# The metric names of the exporter's contract (docs/metrics.md).
CONTRACT_METRICS = [
    "gameserver_up",
    "gameserver_players_online",
    "gameserver_players_max",
    "gameserver_players_bots",
    "gameserver_players_queued",
    "gameserver_latency_seconds",
    "gameserver_info",
    "gameserver_query_duration_seconds",
    "gameserver_last_success_timestamp_seconds",
    "gameserver_consecutive_failures",
    "gameserver_last_player_seen_timestamp_seconds",
    "gameserver_queries_total",
    # Opt-in families: the demo turns players and rules on for every target.
    "gameserver_player_seconds_total",
    "gameserver_player_joins_total",
    "gameserver_player_leaves_total",
    "gameserver_player_info",
    "gameserver_player_score",
    "gameserver_player_connected_seconds",
    "gameserver_player_series_dropped",
    "gameserver_rule_value",
    "gameserver_rule_info",
    "gameserver_exporter_build_info",
    "gameserver_config_last_reload_successful",
    "gameserver_config_last_reload_success_timestamp_seconds",
    "gameserver_targets",
    "process_cpu_seconds_total",
    "process_resident_memory_bytes",
    "process_open_fds",
    "process_max_fds",
    "process_start_time_seconds",
]
# Series Prometheus makes itself for every scrape.
SYNTHETIC_METRICS = {"up", "scrape_duration_seconds", "scrape_samples_scraped"}
PROMQL_KEYWORDS = {
    "by", "without", "on", "ignoring", "group_left", "group_right", "and", "or", "unless",
    "bool", "offset", "inf", "nan", "sum", "min", "max", "avg", "count", "stddev", "stdvar",
    "topk", "bottomk", "quantile", "count_values", "group",
}
SUBSTITUTIONS = [
    (r"\$\{?__rate_interval\}?", "1m"),
    (r"\$\{?__interval\}?", "10s"),
    (r"\$\{?__range\}?", "5m"),
    (r"\$\{?protocol(:regex)?\}?", ".*"),
    (r"\$\{?target(:regex)?\}?", ".*"),
]

results = {"ok": 0, "fail": 0}


# Families no demo server feeds yet (their panels and rules are checked by promtool and the
# dashboard checks; here they may return no data). None now: the demo's Minecraft server
# answers `tick query` over RCON, which feeds the tick target rate and percentiles.
UNFED = set()


def unfed(expr):
    return any(n in expr for n in UNFED)


def report(ok, name, detail=""):
    if ok:
        results["ok"] += 1
        print(f"ok    {name}", flush=True)
    else:
        results["fail"] += 1
        print(f"FAIL  {name}", flush=True)
        for line in str(detail).splitlines()[:20]:
            print(f"      {line}", flush=True)


class Prom:
    def __init__(self, base):
        self.base = base.rstrip("/")

    def get(self, path, **params):
        url = f"{self.base}{path}?{urllib.parse.urlencode(params, doseq=True)}"
        try:
            with urllib.request.urlopen(url, timeout=10) as r:
                body = json.load(r)
        except urllib.error.HTTPError as e:
            body = json.load(e)
        if body.get("status") != "success":
            raise RuntimeError(f"{body.get('errorType')}: {body.get('error')}")
        return body["data"]

    def instant(self, expr):
        data = self.get("/api/v1/query", query=expr)
        return data["result"] if data["resultType"] in ("vector", "matrix") else [data["result"]]

    def range(self, expr, seconds=60, step=5):
        end = time.time()
        return self.get("/api/v1/query_range", query=expr, start=end - seconds, end=end, step=step)["result"]


def wait_until(what, fn, timeout):
    """Polls fn() until it returns a truthy value or the timeout passes; reports either way."""
    deadline = time.monotonic() + timeout
    last = None
    while True:
        try:
            last = fn()
            if last:
                report(True, what)
                return last
        except Exception as e:  # noqa: BLE001 - keep polling through transient errors
            last = e
        if time.monotonic() >= deadline:
            report(False, what, f"gave up after {timeout}s; last result: {last}")
            return None
        time.sleep(1)


def substitute(expr):
    for pattern, value in SUBSTITUTIONS:
        expr = re.sub(pattern, value, expr)
    return expr


def dashboard_queries(dashboard):
    """(panel title, refId, expr, instant) for every target of every panel, rows included."""
    out = []

    def walk(panels):
        for p in panels:
            for t in p.get("targets", []):
                if t.get("expr"):
                    out.append((p.get("title", "?"), t.get("refId", "?"), t["expr"], bool(t.get("instant"))))
            walk(p.get("panels", []))

    walk(dashboard.get("panels", []))
    return out


def metric_names(expr):
    """Identifiers used as metric names in a PromQL expression."""
    e = re.sub(r'"(\\.|[^"\\])*"', '""', expr)  # strings
    e = re.sub(r"\{[^}]*\}", "", e)  # label matchers
    e = re.sub(r"\[[^\]]*\]", "", e)  # ranges
    e = re.sub(r"\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)", " ", e)
    names = set()
    for m in re.finditer(r"(?<![\w:.$])([a-zA-Z_:][a-zA-Z0-9_:]*)\s*(\()?", e):
        name, call = m.group(1), m.group(2)
        if call or name.lower() in PROMQL_KEYWORDS:
            continue
        names.add(name)
    return names


def split_top(expr):
    """Splits at top-level set operators and comparisons; returns the operands."""
    ops = re.compile(r"==|!=|>=|<=|>|<|\b(?:and|or|unless)\b")
    parts, depth, start, i, quote = [], 0, 0, 0, None
    while i < len(expr):
        c = expr[i]
        if quote:
            if c == "\\":
                i += 1
            elif c == quote:
                quote = None
        elif c in "\"'`":
            quote = c
        elif c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
        elif depth == 0:
            m = ops.match(expr, i)
            # `=~` and `!~` only occur inside braces, so no confusion with `==`/`!=` here.
            if m and not (m.group(0).isalpha() and i > 0 and (expr[i - 1].isalnum() or expr[i - 1] == "_")):
                parts.append(expr[start:i])
                i = m.end()
                start = i
                continue
        i += 1
    parts.append(expr[start:])
    return [p.strip() for p in parts if p.strip()]


def wrapped(expr):
    """True when the whole expression is one parenthesised group."""
    if not (expr.startswith("(") and expr.endswith(")")):
        return False
    depth = 0
    for i, c in enumerate(expr):
        depth += c == "("
        depth -= c == ")"
        if depth == 0 and i < len(expr) - 1:
            return False
    return True


def operands(expr):
    out = []
    for part in split_top(expr):
        while wrapped(part):
            part = part[1:-1].strip()
        sub = split_top(part)
        if len(sub) > 1:
            out.extend(operands(part))
        elif not re.fullmatch(r"[-+]?[0-9.eE+]+", part):
            out.append(part)
    return out


def exposed_metric_names(metrics_text):
    names = set()
    for line in metrics_text.splitlines():
        if line and not line.startswith("#"):
            names.add(re.split(r"[{\s]", line, maxsplit=1)[0])
    return names


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--prometheus", required=True)
    ap.add_argument("--exporter", required=True)
    ap.add_argument("--metrics", required=True, action="append",
                    help="a scrape of an exporter's /metrics (repeatable; names are pooled)")
    ap.add_argument("--sd", required=True, help="the exporter's /sd answer")
    ap.add_argument("--dashboard", required=True)
    ap.add_argument("--rules", required=True)
    ap.add_argument("--protocols", required=True, help="the demo's protocols, space-separated")
    ap.add_argument("--login-only", default="",
                    help="protocols that answer only after a login, space-separated")
    ap.add_argument("--blackbox", action="append", default=[],
                    help="JOB=INSTANCE: a scrape of prometheus/scrape-blackbox.yml's job (repeatable)")
    args = ap.parse_args()
    PROTOCOLS[:] = args.protocols.split()
    LOGIN_ONLY[:] = args.login_only.split()
    prom = Prom(args.prometheus)

    # --- the exporter's own answers
    exposed = set()
    for path in args.metrics:
        with open(path, encoding="utf-8") as f:
            exposed |= exposed_metric_names(f.read())
    missing = [m for m in CONTRACT_METRICS if m not in exposed]
    report(not missing, f"/metrics has all {len(CONTRACT_METRICS)} contract metrics", f"missing: {missing}")

    sd_names = []
    try:
        with open(args.sd, encoding="utf-8") as f:
            sd = json.load(f)
        ok = isinstance(sd, list) and all(
            isinstance(g, dict) and isinstance(g.get("targets"), list) and len(g["targets"]) == 1
            and isinstance(g.get("labels"), dict) and g["labels"].get("protocol") in PROTOCOLS
            for g in sd)
        sd_names = [g["targets"][0] for g in sd] if ok else []
        sd_protocols = sorted({g["labels"]["protocol"] for g in sd}) if ok else []
        report(ok and sd_protocols == sorted(PROTOCOLS),
               "/sd: one group per target, protocol label, every protocol present", json.dumps(sd)[:800])
    except (OSError, ValueError) as e:
        report(False, "/sd answers HTTP SD JSON", e)

    # --- data arrives in Prometheus (bounded waits)
    wait_until('up{job="gameserver"} == 1',
               lambda: [s for s in prom.instant('up{job="gameserver"}') if s["value"][1] == "1"], 30)
    for proto in PROTOCOLS:
        wait_until(f'gameserver_players_online series for protocol {proto}',
                   lambda p=proto: prom.instant(f'gameserver_players_online{{job="gameserver", protocol="{p}"}}'), 45)
        wait_until(f'gameserver_up == 1 for protocol {proto}',
                   lambda p=proto: prom.instant(f'gameserver_up{{job="gameserver", protocol="{p}"}} == 1'), 45)
    # rate() needs two samples of a counter inside its window.
    wait_until("rate(gameserver_queries_total[1m]) computable",
               lambda: prom.instant('rate(gameserver_queries_total{job="gameserver"}[1m])'), 30)
    if sd_names:
        want = len(sd_names)
        wait_until(f"probe mode: all {want} /sd targets scraped via /probe with up == 1",
                   lambda: len(prom.instant('up{job="gameserver-probe"} == 1')) == want, 45)
        wait_until(f"probe mode: gameserver_up == 1 for all {want} targets",
                   lambda: len(prom.instant('gameserver_up{job="gameserver-probe"} == 1')) == want, 45)

    # daemon mode (--config): custom labels, a down target, and ad-hoc probes
    wait_until('daemon: gameserver_up{target="e2e-a2s", env="e2e"} == 1 (custom label kept)',
               lambda: prom.instant('gameserver_up{job="gameserver-daemon", target="e2e-a2s", env="e2e"} == 1'), 30)
    wait_until('daemon: gameserver_up{target="e2e-closed"} == 0',
               lambda: prom.instant('gameserver_up{job="gameserver-daemon", target="e2e-closed"} == 0'), 30)
    # The failure panel's rate() needs two scrapes of the failure counter, which appears only
    # after the first refused poll: on a loaded machine the checks can otherwise get there first.
    wait_until("rate(gameserver_query_failures_total[1m]) computable",
               lambda: prom.instant('rate(gameserver_query_failures_total{job="gameserver-daemon"}[1m])'), 30)
    wait_until('GameServerDown is pending for e2e-closed (rule sees real exporter output)',
               lambda: prom.instant('ALERTS{alertname="GameServerDown", target="e2e-closed", alertstate="pending"}'), 30)
    wait_until(f"ad-hoc probes (sharded job shape): {len(PROTOCOLS)} simulators scraped with up == 1",
               lambda: len(prom.instant('up{job="gameserver-probe-adhoc"} == 1')) == len(PROTOCOLS), 45)
    open_protocols = sorted(p for p in PROTOCOLS if p not in LOGIN_ONLY)
    wait_until(f"ad-hoc probes: gameserver_up == 1 for the {len(open_protocols)} that need no login, one per protocol",
               lambda: sorted(s["metric"].get("protocol", "") for s in
                              prom.instant('gameserver_up{job="gameserver-probe-adhoc"} == 1')) == open_protocols, 45)
    for proto in LOGIN_ONLY:
        wait_until(f"ad-hoc probe of {proto} (answers only after a login, none carried): gameserver_up == 0",
                   lambda p=proto: prom.instant(
                       f'gameserver_up{{job="gameserver-probe-adhoc", protocol="{p}"}} == 0'), 45)

    # blackbox form (prometheus/scrape-blackbox.yml): /probe?module=M&target=HOST:PORT, the
    # module a protocol id or the daemon's [module.minecraft_players]; instance is the address.
    for spec in args.blackbox:
        job, instance = spec.split("=", 1)

        def scraped(job=job, instance=instance):
            got = prom.instant(f'gameserver_up{{job="{job}", instance="{instance}"}} == 1')
            return len(got) == 1 and got[0]["metric"].get("target") == instance

        wait_until(f'blackbox form: gameserver_up{{job="{job}", instance="{instance}"}} == 1, target="{instance}"',
                   scraped, 45)
    if any(s.startswith("gameserver-blackbox-minecraft=") for s in args.blackbox):
        # The module's players = true: per-player series come through the module form.
        wait_until('blackbox form: [module.minecraft_players] brings per-player series',
                   lambda: prom.instant('gameserver_player_info{job="gameserver-blackbox-minecraft"}'), 45)

    # --- alert rules, as Prometheus loaded them from alerts.yml
    with open(args.rules, encoding="utf-8") as f:
        rules_in_file = len(re.findall(r"^\s*-\s*alert:", f.read(), flags=re.M))

    def evaluated_rules():
        groups = prom.get("/api/v1/rules")["groups"]
        rules = [r for g in groups for r in g["rules"]]
        if len(rules) == rules_in_file and all(r.get("lastEvaluation", "").startswith("20") for r in rules):
            return rules
        return None

    rules = wait_until(f"Prometheus loaded and evaluated all {rules_in_file} rules of alerts.yml",
                       evaluated_rules, 20) or []
    used = set()
    for r in rules:
        name = r["name"]
        report(r.get("health") == "ok", f"rule {name}: health ok", r.get("lastError", ""))
        try:
            prom.instant(r["query"])
            report(True, f"rule {name}: expression evaluates")
        except Exception as e:  # noqa: BLE001
            report(False, f"rule {name}: expression evaluates", e)
        for op in dict.fromkeys(operands(r["query"])):
            try:
                got = prom.instant(op)
                report(bool(got) or unfed(op), f"rule {name}: operand returns data: {op}", "empty result")
            except Exception as e:  # noqa: BLE001
                report(False, f"rule {name}: operand returns data: {op}", e)
        used |= metric_names(r["query"])

    # --- dashboard
    with open(args.dashboard, encoding="utf-8") as f:
        dashboard = json.load(f)
    queries = dashboard_queries(dashboard)
    report(len(queries) >= 10, f"dashboard has panel queries ({len(queries)})")
    for title, ref, raw, instant in queries:
        expr = substitute(raw)
        name = f"dashboard '{title}' {ref}: {expr}"
        if "$" in expr:
            report(False, name, "unsubstituted template variable")
            continue
        try:
            got = prom.instant(expr) if instant else prom.range(expr)
            report(bool(got) or unfed(expr), name, "no data")
        except Exception as e:  # noqa: BLE001
            report(False, name, e)
        used |= metric_names(expr)

    for var in dashboard.get("templating", {}).get("list", []):
        if var.get("type") == "datasource":
            # Resolved by Grafana, not by a query: only the plugin type it offers matters.
            report(var.get("query") == "prometheus",
                   f"variable {var.get('name')}: a data source variable of type prometheus", var.get("query"))
            continue
        q = var.get("query")
        q = q.get("query") if isinstance(q, dict) else q
        m = re.fullmatch(r"\s*label_values\((.*),\s*(\w+)\s*\)\s*", q or "")
        if not m:
            report(False, f"variable {var.get('name')}: label_values query", q)
            continue
        selector, label = substitute(m.group(1)), m.group(2)
        used |= metric_names(selector)
        try:
            values = prom.get(f"/api/v1/label/{label}/values", **{"match[]": selector})
            report(bool(values), f"variable {var['name']}: label_values({selector}, {label}) -> {values}")
        except Exception as e:  # noqa: BLE001
            report(False, f"variable {var['name']}: label_values({selector}, {label})", e)

    # --- every metric name used exists in the exporter's output
    unknown = sorted(n for n in used if n not in exposed and n not in SYNTHETIC_METRICS and n not in UNFED)
    report(not unknown, f"all {len(used)} metric names used by dashboard and rules are exposed", f"not in /metrics: {unknown}")

    print("checks done", flush=True)
    return 0 if results["fail"] == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
