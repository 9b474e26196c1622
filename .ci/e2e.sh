#!/usr/bin/env bash
# End-to-end check: `gameserver-exporter demo` scraped by a real Prometheus, then the
# dashboard, the alert rules and the example configs are checked against what arrives.
#
# Needs (installed by the caller, see .ci/run): prometheus + promtool, curl, python3, openssl,
# and htpasswd (apache2-utils) or python3's bcrypt module for the TLS + basic auth exporter.
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
for tool in prometheus promtool curl python3 openssl; do
    command -v "$tool" >/dev/null || { echo "e2e: $tool not found (.ci/run installs it)" >&2; exit 1; }
done
# bcrypt PASSWORD: a cost-10 hash for basic_auth_users.
bcrypt_hash() {
    if command -v htpasswd >/dev/null; then
        htpasswd -nbBC 10 "" "$1" | tr -d ':\n'
    elif python3 -c 'import bcrypt' 2>/dev/null; then
        python3 -c 'import bcrypt, sys; print(bcrypt.hashpw(sys.argv[1].encode(), bcrypt.gensalt(10)).decode())' "$1"
    else
        echo "e2e: neither htpasswd (apache2-utils) nor python3 bcrypt found (.ci/run installs apache2-utils)" >&2
        return 1
    fi
}

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
    echo "--- daemon log (tail)"; tail -n 30 "$tmp/daemon.log" 2>/dev/null || true
    for f in "$tmp"/replica-*.log; do
        [[ -e $f ]] && { echo "--- $(basename "$f") (tail)"; tail -n 10 "$f"; }
    done
    echo "--- prometheus log (tail)"; tail -n 30 "$tmp/prometheus.log" 2>/dev/null || true
    echo "--- TLS exporter log (tail)"; tail -n 30 "$tmp/tls-exporter.log" 2>/dev/null || true
}

# Static checks first: they need nothing running.
check "promtool check config prometheus/scrape-scheduled.yml" promtool check config prometheus/scrape-scheduled.yml
check "promtool check config prometheus/scrape-probe.yml" promtool check config prometheus/scrape-probe.yml
check "promtool check config prometheus/scrape-probe-sharded.yml" promtool check config prometheus/scrape-probe-sharded.yml
check "promtool check config prometheus/scrape-blackbox.yml" promtool check config prometheus/scrape-blackbox.yml
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

# A second exporter in daemon mode (--config): one target on the demo's A2S simulator with a
# custom label, one on a closed loopback TCP port (so failure counters and a down target
# exist) in an included target file, probe_allowed_networks for the ad-hoc probes of the
# sharded setup, and the [module.minecraft_players] that prometheus/scrape-blackbox.yml names.
# The demo's protocols: every protocol the exporter speaks, read from README's protocol table
# (its first column after the header; tests/it/protocol_checklist.rs keeps it equal to
# Protocol::ALL).
mapfile -t protos < <(sed -n '/^## Supported protocols/,/^## /p' README.md |
    grep -oP '^\| `\K[a-z0-9-]+(?=` \|)' | sed 1d)
declare -A sim
for _ in $(seq 20); do # the lines may trail the listener by a moment
    (($(grep -cE '^ *[a-z0-9-]+ simulator on ' "$tmp/exporter.log") >= ${#protos[@]})) && break
    sleep 0.25
done
while read -r proto _ _ addr; do
    sim[$proto]=$addr
done < <(grep -E '^ *[a-z0-9-]+ simulator on 127\.0\.0\.1:[0-9]+$' "$tmp/exporter.log")
if ((${#sim[@]} == ${#protos[@]})); then
    pass "demo printed the addresses of ${#protos[@]} simulators (${!sim[*]})"
else
    fail "demo printed the addresses of ${#protos[@]} simulators (${!sim[*]})"
    dump_logs
    echo "$passed passed, $failed failed"
    exit 1
fi
closed_port=$(free_port) # free now, and nothing here binds it
# Protocols whose servers answer only after a login (Factorio's and ARK: Survival Ascended's
# RCON, the demo's Trackmania server's XML-RPC): the demo's own targets carry the simulators' passwords; the configs written below
# carry none, and an ad-hoc /probe never carries credentials (docs/configuration.md), so
# these stay out of the sharded config and are expected down (auth_refused) as ad-hoc probes.
login_only=(factorio arkrcon nadeo)
open_protos=()
for p in "${protos[@]}"; do
    [[ " ${login_only[*]} " == *" $p "* ]] || open_protos+=("$p")
done
daemon_port=$(free_port)
daemon=127.0.0.1:$daemon_port
cat >"$tmp/exporter.toml" <<TOML
[exporter]
listen = "127.0.0.1:1"
interval = "2s"
timeout = "1s"
probe_allowed_networks = ["127.0.0.0/8"]
include = ["targets.d/*.toml"]

[module.minecraft_players]
game = "minecraft"
timeout = "1s"
players = true

[[target]]
name = "e2e-a2s"
protocol = "a2s"
address = "${sim[a2s]}"
labels = { env = "e2e" }
TOML
mkdir -p "$tmp/targets.d"
cat >"$tmp/targets.d/closed.toml" <<TOML
[[target]]
name = "e2e-closed"
game = "minecraft"
address = "127.0.0.1:$closed_port"
TOML
check "check-config accepts the e2e config and its included file" bash -c '
    out=$("$1" check-config "$2") || exit 1; echo "$out"
    grep -q "OK (2 targets)" <<<"$out" && grep -q "include \"targets.d/\*.toml\": 1 files" <<<"$out"' _ "$bin" "$tmp/exporter.toml"
"$bin" --config "$tmp/exporter.toml" --listen "$daemon" --log-level warn >"$tmp/daemon.log" 2>&1 &
pids+=($!)
daemon_pid=$!
check "daemon (--config, --listen overrides exporter.listen) answers /-/healthy" wait_http "http://$daemon/-/healthy" 20 "$daemon_pid"

# A third exporter behind TLS and basic auth (--web.config.file, exporter-toolkit's format): a
# self-signed certificate for 127.0.0.1 made here, a bcrypt user; Prometheus scrapes it with
# scheme https, basic_auth and tls_config.ca_file.
mkdir -p "$tmp/tls"
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 2 \
    -subj /CN=localhost -addext "subjectAltName=DNS:localhost,IP:127.0.0.1" \
    -keyout "$tmp/tls/server.key" -out "$tmp/tls/server.crt" 2>/dev/null
tls_password=e2e-$RANDOM-$RANDOM
cat >"$tmp/tls/web.yml" <<YAML
tls_server_config:
  cert_file: server.crt
  key_file: server.key
basic_auth_users:
  prometheus: '$(bcrypt_hash "$tls_password")'
YAML
cat >"$tmp/tls/exporter.toml" <<TOML
[exporter]
interval = "2s"
timeout = "1s"

[[target]]
name = "e2e-tls-a2s"
protocol = "a2s"
address = "${sim[a2s]}"
TOML
tls_exporter=127.0.0.1:$(free_port)
"$bin" --config "$tmp/tls/exporter.toml" --web.config.file "$tmp/tls/web.yml" --listen "$tls_exporter" \
    --log-level warn >"$tmp/tls-exporter.log" 2>&1 &
pids+=($!)
tls_curl() { curl -sS --max-time 5 --cacert "$tmp/tls/server.crt" "$@"; }
tls_up() {
    local deadline=$((SECONDS + 20))
    until tls_curl -fo /dev/null -u "prometheus:$tls_password" "https://$tls_exporter/-/healthy" 2>/dev/null; do
        ((SECONDS < deadline)) || return 1
        sleep 0.5
    done
}
check "TLS exporter answers https /-/healthy with the password" tls_up
check "TLS exporter: no password is 401 with WWW-Authenticate: Basic" bash -c '
    out=$(curl -sS --max-time 5 --cacert "$1" -o /dev/null -D - "https://$2/metrics"); echo "$out"
    grep -q "^HTTP/1.1 401" <<<"$out" && grep -qi "^www-authenticate: Basic" <<<"$out"' _ "$tmp/tls/server.crt" "$tls_exporter"
check "TLS exporter: wrong password is 401" bash -c '
    code=$(curl -sS --max-time 5 --cacert "$1" -o /dev/null -w "%{http_code}" -u prometheus:wrong "https://$2/metrics"); echo "$code"
    [[ $code == 401 ]]' _ "$tmp/tls/server.crt" "$tls_exporter"
check "TLS exporter: plain HTTP to the TLS port gets no metrics" bash -c '
    ! curl -sS --max-time 5 -u "prometheus:$2" "http://$1/metrics" 2>&1 | grep -q "^gameserver_"' _ "$tls_exporter" "$tls_password"
check "TLS exporter: gzip when asked (Content-Encoding: gzip, inflates to the metrics)" bash -c '
    hdr=$(curl -sS --max-time 5 --cacert "$1" -u "prometheus:$3" -H "Accept-Encoding: gzip" -D - -o "$4" "https://$2/metrics")
    grep -qi "^content-encoding: gzip" <<<"$hdr" && gzip -dc <"$4" | grep -q "^gameserver_config_last_reload_successful 1"' \
    _ "$tmp/tls/server.crt" "$tls_exporter" "$tls_password" "$tmp/tls/metrics.gz"

# Three sharded replicas over one 30-target config (names spread over the demo's
# simulators). Replicas 0 and 1 run the command line of systemd/gameserver-exporter@.service
# for instances 0-of-3 and 1-of-3 (binary, config and listen address substituted); replica 2
# takes its shard from GAMESERVER_EXPORTER_SHARD=2/3, as a Kubernetes pod does.
{
    printf '[exporter]\nlisten = "127.0.0.1:1"\ninterval = "2s"\ntimeout = "1s"\n'
    for i in $(seq 0 29); do
        p=${open_protos[i % ${#open_protos[@]}]}
        printf '\n[[target]]\nname = "shard-e2e-%02d"\nprotocol = "%s"\naddress = "%s"\n' "$i" "$p" "${sim[$p]}"
    done
} >"$tmp/sharded.toml"
exec_start=$(sed -n 's/^ExecStart=//p' systemd/gameserver-exporter@.service)
replicas=()
for i in 0 1 2; do
    port=$(free_port)
    replicas+=("127.0.0.1:$port")
    if ((i < 2)); then
        cmd=${exec_start//\/usr\/local\/bin\/gameserver-exporter/$bin}
        cmd=${cmd//\/etc\/gameserver-exporter\/exporter.toml/$tmp/sharded.toml}
        cmd=${cmd//%i/$i-of-3}
        cmd=${cmd//\$\{GAMESERVER_EXPORTER_LISTEN\}/127.0.0.1:$port}
        read -ra argv <<<"$cmd"
        env -u GAMESERVER_EXPORTER_SHARD "${argv[@]}" --log-level warn >"$tmp/replica-$i.log" 2>&1 &
    else
        GAMESERVER_EXPORTER_SHARD=2/3 "$bin" --config "$tmp/sharded.toml" --listen "127.0.0.1:$port" \
            --log-level warn >"$tmp/replica-$i.log" 2>&1 &
    fi
    pids+=($!)
    check "sharded replica $i/3 answers /-/healthy on 127.0.0.1:$port" wait_http "http://127.0.0.1:$port/-/healthy" 20 "$!"
done

# Prometheus: /metrics of both exporters (scheduled mode), /probe via /sd (probe mode), and
# ad-hoc probes of the simulators from file_sd (the job of scrape-probe-sharded.yml, on one
# replica); evaluating prometheus/alerts.yml, with its own port and throwaway storage.
for p in "${protos[@]}"; do
    printf -- '- targets: ["%s"]\n  labels: {protocol: %s}\n' "${sim[$p]}" "$p"
done >"$tmp/gameservers.yml"
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
  - job_name: gameserver-daemon
    static_configs:
      - targets: ["$daemon"]
  - job_name: gameserver-tls
    scheme: https
    basic_auth:
      username: prometheus
      password: "$tls_password"
    tls_config:
      ca_file: $tmp/tls/server.crt
    static_configs:
      - targets: ["$tls_exporter"]
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
  # The sharded replicas, scheduled mode. Prometheus computes hashmod of each series'
  # target label itself (prom_shard) so the checks can compare it with the replica's shard.
  - job_name: gameserver-sharded
    static_configs:
      - targets: ["${replicas[0]}", "${replicas[1]}", "${replicas[2]}"]
    metric_relabel_configs:
      - source_labels: [target]
        modulus: 3
        target_label: prom_shard
        action: hashmod
      - source_labels: [target]
        regex: ""
        target_label: prom_shard
        replacement: ""
  - job_name: gameserver-probe-adhoc
    metrics_path: /probe
    honor_labels: true
    file_sd_configs:
      - files: ["$tmp/gameservers.yml"]
        refresh_interval: 5s
    relabel_configs:
      - source_labels: [__address__]
        target_label: __param_address
      - source_labels: [protocol]
        target_label: __param_protocol
      - source_labels: [__address__]
        target_label: instance
      - source_labels: [__address__]
        modulus: 1
        target_label: __tmp_shard
        action: hashmod
      - source_labels: [__tmp_shard]
        regex: "0"
        target_label: __address__
        replacement: $daemon
YAML
# prometheus/scrape-blackbox.yml's jobs as shipped, aimed at the daemon and the demo's
# simulators: its example addresses swapped for theirs, 2s intervals for a quick run.
blackbox_a2s_name=localhost:${sim[a2s]##*:}
sed -n '/^scrape_configs:/,$p' prometheus/scrape-blackbox.yml | tail -n +2 | sed \
    -e "s/127\.0\.0\.1:10765/$daemon/" \
    -e "s/203\.0\.113\.10:27015/${sim[a2s]}/" \
    -e "s/203\.0\.113\.11:27016/$blackbox_a2s_name/" \
    -e "s/203\.0\.113\.20:25565/${sim[minecraft]}/" \
    -e "s/scrape_interval: 30s/scrape_interval: 2s/" \
    -e "s/scrape_timeout: 10s/scrape_timeout: 2s/" >"$tmp/scrape-blackbox.yml"
check "scrape-blackbox.yml's jobs rewritten for the e2e run (no example address left)" bash -c '
    grep -c "job_name: gameserver-blackbox-" "$1" && ! grep -nE "203\.0\.113\.|:10765|: (30|10)s" "$1"' _ "$tmp/scrape-blackbox.yml"
cat "$tmp/scrape-blackbox.yml" >>"$tmp/prometheus.yml"
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
lint_metrics() {
    local out rc
    out=$(promtool check metrics <"$1" 2>&1) && rc=0 || rc=$?
    echo "$out"
    [[ $rc -eq 0 && -s $1 && -z $out ]]
}
curl -fsS --max-time 5 "http://$exporter/metrics" >"$tmp/metrics.txt" || true
check "promtool check metrics on the demo's /metrics" lint_metrics "$tmp/metrics.txt"
# Wait for the closed target's first failure so its failure counter is in the scrape.
closed_target_failing() {
    local _
    for _ in $(seq 20); do
        curl -fsS --max-time 2 "http://$daemon/metrics" >"$tmp/daemon-metrics.txt" 2>/dev/null || true
        grep -q '^gameserver_query_failures_total{target="e2e-closed",protocol="minecraft",reason="refused"} [1-9]' "$tmp/daemon-metrics.txt" &&
            grep -q '^gameserver_up{target="e2e-closed",protocol="minecraft"} 0$' "$tmp/daemon-metrics.txt" && return 0
        sleep 0.5
    done
    grep e2e-closed "$tmp/daemon-metrics.txt"
    return 1
}
check 'daemon reports e2e-closed down with reason="refused" within 10s' closed_target_failing
check "promtool check metrics on the daemon's /metrics" lint_metrics "$tmp/daemon-metrics.txt"
no_gauges_while_down() {
    ! grep -E '^gameserver_(players_[a-z]+|latency_seconds|info)\{target="e2e-closed"' "$tmp/daemon-metrics.txt"
}
check "no players/latency/info series for the down target" no_gauges_while_down
# e2e-a2s has players and rules off: once it is up, none of their series may appear for it.
no_opt_in_series_when_off() {
    local _ page=$tmp/daemon-metrics-off.txt
    for _ in $(seq 20); do
        curl -fsS --max-time 2 "http://$daemon/metrics" >"$page" 2>/dev/null || true
        grep -q '^gameserver_up{target="e2e-a2s",protocol="a2s",env="e2e"} 1$' "$page" && break
        sleep 0.5
    done
    grep -q '^gameserver_up{target="e2e-a2s",protocol="a2s",env="e2e"} 1$' "$page" || return 1
    grep -q '^gameserver_player_seconds_total{target="e2e-a2s",' "$page" || return 1
    ! grep -E '^gameserver_(player_[a-z_]+|rule_[a-z]+)\{target="e2e-a2s"' "$page" | grep -v '^gameserver_player_seconds_total'
}
check "players and rules off: only player-seconds for e2e-a2s, no per-player or rule series" no_opt_in_series_when_off
check "/metrics as OpenMetrics when asked" bash -c '
    ct=$(curl -fsS --max-time 5 -o "$2" -w "%{content_type}" -H "Accept: application/openmetrics-text;version=1.0.0" "$1")
    echo "content-type: $ct"; tail -n 1 "$2"
    [[ $ct == application/openmetrics-text* ]] && [[ $(tail -n 1 "$2") == "# EOF" ]]' _ "http://$exporter/metrics" "$tmp/openmetrics.txt"
curl -fsS --max-time 5 "http://$exporter/sd" >"$tmp/sd.json" || true

# Everything else goes through Prometheus's HTTP API, in Python.
set +e
python3 "$root/.ci/e2e_checks.py" --prometheus "http://$prom" --exporter "http://$exporter" \
    --metrics "$tmp/metrics.txt" --metrics "$tmp/daemon-metrics.txt" --sd "$tmp/sd.json" \
    --dashboard "$root/grafana/gameserver-exporter.json" --rules "$root/prometheus/alerts.yml" \
    --protocols "${protos[*]}" --login-only "${login_only[*]}" \
    --blackbox "gameserver-blackbox-a2s=${sim[a2s]}" \
    --blackbox "gameserver-blackbox-a2s=$blackbox_a2s_name" \
    --blackbox "gameserver-blackbox-minecraft=${sim[minecraft]}" \
    | tee "$tmp/checks.out"
set -e

# The TLS + basic auth exporter as Prometheus sees it: scraped over https with the password.
prom_query_is_1() {
    local deadline=$((SECONDS + 30)) out
    while ((SECONDS < deadline)); do
        out=$(curl -fsS --max-time 2 --get --data-urlencode "query=$1" "http://$prom/api/v1/query" 2>/dev/null) &&
            python3 -c 'import json, sys; r = json.load(sys.stdin)["data"]["result"]; sys.exit(0 if r and all(x["value"][1] == "1" for x in r) else 1)' <<<"$out" &&
            return 0
        sleep 1
    done
    echo "last answer: $out"
    curl -fsS --max-time 2 "http://$prom/api/v1/targets?state=active" | python3 -c '
import json, sys
for t in json.load(sys.stdin)["data"]["activeTargets"]:
    if t["labels"].get("job") == "gameserver-tls": print(t["health"], t.get("lastError"))' || true
    return 1
}
check 'Prometheus scrapes the TLS + basic auth exporter: up{job="gameserver-tls"} == 1' prom_query_is_1 'up{job="gameserver-tls"}'
check 'through it, gameserver_up{job="gameserver-tls",target="e2e-tls-a2s"} == 1' prom_query_is_1 'gameserver_up{job="gameserver-tls",target="e2e-tls-a2s"}'

# /health for uptime tools, on the plain daemon: 200 up, 503 down, 404 unknown, 400 without target.
health() {
    local code
    code=$(curl -sS --max-time 5 -o "$tmp/health.json" -w "%{http_code}" "http://$daemon/health$1")
    echo "$code $(cat "$tmp/health.json")"
    [[ $code == "$2" ]] && python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); sys.exit(0 if eval(sys.argv[2]) else 1)' "$tmp/health.json" "$3"
}
check "/health?target=e2e-a2s: 200, up true, players and max numbers" \
    health '?target=e2e-a2s' 200 'd["up"] is True and isinstance(d["players"], int) and isinstance(d["max"], int) and d["last_failure_reason"] is None'
check "/health?target=e2e-closed: 503, up false, reason refused" \
    health '?target=e2e-closed' 503 'd["up"] is False and d["last_failure_reason"] == "refused"'
check "/health?target=nope: 404" health '?target=nope' 404 'True'
check "/health without target: 400" health '' 400 'True'

# Reloads, last because a failed one leaves its mark: POST /-/reload of a good file succeeds; a
# broken file sent with SIGHUP is refused, and the exporter keeps serving the old targets.
reload_status() {
    curl -fsS --max-time 2 "http://$daemon/metrics" | awk '$1 == "gameserver_config_last_reload_successful" { print $2 }'
}
reload_good() {
    curl -fsS --max-time 5 -X POST "http://$daemon/-/reload" && [[ $(reload_status) == 1 ]]
}
reload_broken() {
    local _
    kill -HUP "$daemon_pid"
    for _ in $(seq 10); do
        [[ $(reload_status) == 0 ]] && return 0
        sleep 0.5
    done
    return 1
}
still_serving() {
    # Into a file first: `curl | grep -q` fails under pipefail when grep exits before curl
    # has written the whole body (curl: (23) Failed writing body).
    kill -0 "$daemon_pid" && curl -fsS --max-time 2 -o "$tmp/after-reload.txt" "http://$daemon/metrics" &&
        grep -q '^gameserver_up{target="e2e-a2s"' "$tmp/after-reload.txt"
}
check "POST /-/reload with a good config: reload successful" reload_good
printf 'this is = not [valid toml\n' >>"$tmp/exporter.toml"
check "SIGHUP with a broken config: gameserver_config_last_reload_successful 0 within 5s" reload_broken
check "after the refused reload the daemon still serves its targets" still_serving

# Sharding, through Prometheus's HTTP API: every target exactly once, from the right replica.
set +e
python3 "$root/.ci/e2e_shard_checks.py" --prometheus "http://$prom" --job gameserver-sharded \
    --targets 30 --shards 3 | tee -a "$tmp/checks.out"
set -e

py_passed=$(grep -c '^ok ' "$tmp/checks.out" || true)
py_failed=$(grep -c '^FAIL ' "$tmp/checks.out" || true)
if ! grep -q '^checks done$' "$tmp/checks.out"; then
    fail "e2e_checks.py ran to completion"
fi
if ! grep -q '^shard checks done$' "$tmp/checks.out"; then
    fail "e2e_shard_checks.py ran to completion"
fi
passed=$((passed + py_passed))
failed=$((failed + py_failed))

if ((failed > 0)); then
    dump_logs
fi
echo "$passed passed, $failed failed"
((failed == 0))
