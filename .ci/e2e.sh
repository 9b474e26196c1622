#!/usr/bin/env bash
# End-to-end check: `gameserver-exporter demo` scraped by a real Prometheus, then the
# dashboard, the alert rules and the example configs are checked against what arrives.
#
# Needs (installed by the caller, see .ci/run): prometheus + promtool, curl, python3.
# Uses target/debug/gameserver-exporter (built if missing), or $GSE_BIN.
# Every listener binds 127.0.0.1 on a port the OS hands out; nothing leaves loopback.
# Ends with "N passed, N failed"; exits non-zero if any check failed.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD

bin=${GSE_BIN:-$root/target/debug/gameserver-exporter}
if [[ -z ${GSE_BIN:-} && ! -x $bin ]]; then
    cargo build --locked --bin gameserver-exporter
fi
for tool in prometheus promtool curl python3; do
    command -v "$tool" >/dev/null || { echo "e2e: $tool not found (.ci/run installs it)" >&2; exit 1; }
done

tmp=$(mktemp -d)
pids=()
cleanup() {
    local pid
    for pid in "${pids[@]}"; do
        kill "$pid" 2>/dev/null || true
    done
    for pid in "${pids[@]}"; do
        wait "$pid" 2>/dev/null || true
    done
    rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

passed=0
failed=0
pass() { passed=$((passed + 1)); echo "ok    $*"; }
fail() { failed=$((failed + 1)); echo "FAIL  $*"; }
# check NAME COMMAND...: runs the command, output shown only when it fails.
check() {
    local name=$1 out
    shift
    if out=$("$@" 2>&1); then
        pass "$name"
    else
        fail "$name"
        sed 's/^/      /' <<<"$out"
    fi
}
free_port() {
    python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}
# wait_http URL SECONDS [PID]: polls until URL answers 2xx; gives up at the deadline or
# as soon as PID (the server expected to answer) has exited.
wait_http() {
    local url=$1 deadline=$((SECONDS + $2)) pid=${3:-}
    until curl -fsS -o /dev/null --max-time 2 "$url" 2>/dev/null; do
        ((SECONDS < deadline)) || return 1
        if [[ -n $pid ]] && ! kill -0 "$pid" 2>/dev/null; then
            echo "process $pid exited" >&2
            return 1
        fi
        sleep 0.5
    done
}
dump_logs() {
    echo "--- exporter log (tail)"; tail -n 30 "$tmp/exporter.log" 2>/dev/null || true
    echo "--- prometheus log (tail)"; tail -n 30 "$tmp/prometheus.log" 2>/dev/null || true
}

# Static checks first: they need nothing running.
check "promtool check config prometheus/scrape-scheduled.yml" promtool check config prometheus/scrape-scheduled.yml
check "promtool check config prometheus/scrape-probe.yml" promtool check config prometheus/scrape-probe.yml
check "promtool test rules prometheus/alerts_test.yml" promtool test rules prometheus/alerts_test.yml

# The exporter, in demo mode: simulated servers of every protocol on 127.0.0.1.
exporter_port=$(free_port)
exporter=127.0.0.1:$exporter_port
"$bin" demo --listen "$exporter" >"$tmp/exporter.log" 2>&1 &
pids+=($!)
if wait_http "http://$exporter/-/healthy" 20 "${pids[-1]}"; then
    pass "exporter demo answers /-/healthy on $exporter"
else
    fail "exporter demo answers /-/healthy on $exporter"
    dump_logs
    echo "$passed passed, $failed failed"
    exit 1
fi
check "exporter /-/ready within 15s" wait_http "http://$exporter/-/ready" 15

# Prometheus scraping /metrics (scheduled mode) and /probe via /sd (probe mode), evaluating
# prometheus/alerts.yml, with its own port and throwaway storage.
prom_port=$(free_port)
prom=127.0.0.1:$prom_port
cat >"$tmp/prometheus.yml" <<YAML
global:
  scrape_interval: 2s
  scrape_timeout: 2s
  evaluation_interval: 2s
rule_files:
  - $root/prometheus/alerts.yml
scrape_configs:
  - job_name: gameserver
    static_configs:
      - targets: ["$exporter"]
  - job_name: gameserver-probe
    metrics_path: /probe
    honor_labels: true
    http_sd_configs:
      - url: http://$exporter/sd
        refresh_interval: 5s
    relabel_configs:
      - source_labels: [__address__]
        target_label: __param_target
      - source_labels: [__param_target]
        target_label: instance
      - target_label: __address__
        replacement: $exporter
YAML
check "promtool check config (e2e Prometheus config)" promtool check config "$tmp/prometheus.yml"
prometheus --config.file="$tmp/prometheus.yml" --storage.tsdb.path="$tmp/data" \
    --web.listen-address="$prom" --log.level=warn >"$tmp/prometheus.log" 2>&1 &
pids+=($!)
if ! wait_http "http://$prom/-/ready" 30 "${pids[-1]}"; then
    fail "prometheus ready on $prom"
    dump_logs
    echo "$passed passed, $failed failed"
    exit 1
fi
pass "prometheus $(prometheus --version 2>&1 | awk 'NR == 1 { print $3 }') ready on $prom"

# What the exporter serves, checked directly.
curl -fsS --max-time 5 "http://$exporter/metrics" >"$tmp/metrics.txt" || true
check "promtool check metrics on /metrics" bash -c 'out=$(promtool check metrics <"$1" 2>&1); rc=$?; echo "$out"; [[ $rc -eq 0 && -s $1 && -z $out ]]' _ "$tmp/metrics.txt"
check "/metrics as OpenMetrics when asked" bash -c '
    ct=$(curl -fsS --max-time 5 -o "$2" -w "%{content_type}" -H "Accept: application/openmetrics-text;version=1.0.0" "$1")
    echo "content-type: $ct"; tail -n 1 "$2"
    [[ $ct == application/openmetrics-text* ]] && [[ $(tail -n 1 "$2") == "# EOF" ]]' _ "http://$exporter/metrics" "$tmp/openmetrics.txt"
curl -fsS --max-time 5 "http://$exporter/sd" >"$tmp/sd.json" || true

# Everything else goes through Prometheus's HTTP API, in Python.
set +e
python3 "$root/.ci/e2e_checks.py" --prometheus "http://$prom" --exporter "http://$exporter" \
    --metrics "$tmp/metrics.txt" --sd "$tmp/sd.json" \
    --dashboard "$root/grafana/gameserver-exporter.json" --rules "$root/prometheus/alerts.yml" \
    | tee "$tmp/checks.out"
set -e
py_passed=$(grep -c '^ok ' "$tmp/checks.out" || true)
py_failed=$(grep -c '^FAIL ' "$tmp/checks.out" || true)
if ! grep -q '^checks done$' "$tmp/checks.out"; then
    fail "e2e_checks.py ran to completion"
fi
passed=$((passed + py_passed))
failed=$((failed + py_failed))

if ((failed > 0)); then
    dump_logs
fi
echo "$passed passed, $failed failed"
((failed == 0))
