#!/usr/bin/env bash
# The example Alertmanager config (prometheus/alertmanager.yml): `amtool check-config`, no
# inline webhook URL, and the receiver every rule of prometheus/alerts.yml reaches; and every
# rule has a unit test in prometheus/alerts_test.yml (e2e.sh runs `promtool test rules`).
#
# amtool comes from Debian's prometheus-alertmanager (.ci/run installs it). Debian 12's is
# 0.25, older than Discord's `webhook_url_file` (Alertmanager 0.27/0.28): with such an amtool
# the check says so and validates a copy with a placeholder `webhook_url` instead, the way
# check_deploy.py stubs what Debian's Prometheus lacks.
set -euo pipefail
cd "$(dirname "$0")/.."

config=prometheus/alertmanager.yml
rules=prometheus/alerts.yml
tests=prometheus/alerts_test.yml
fail=0
pass() { echo "ok   $1"; }
bad() { echo "FAIL $1" >&2; fail=1; }

# Which receiver each alert must reach. A rule added to alerts.yml without a line here fails.
expected=(
    GameServerDown=discord-ops
    GameServerFlapping=discord-ops
    GameServerEmpty=automation
    GameServerPopulated=discord-community
    GameServerFull=discord-ops
    GameServerLatencyHigh=discord-ops
    GameServerTickRateLow=discord-ops
    GameServerFrameRateLow=discord-ops
    GameServerDataStale=discord-ops
    GameServerExporterReloadFailed=discord-ops
    GameServerExporterDown=discord-ops
)

# Every rule has a unit test and a routing expectation (no tool needed).
mapfile -t alerts < <(sed -n 's/^ *- alert: *\([A-Za-z0-9_]*\).*/\1/p' "$rules")
((${#alerts[@]} > 0)) || bad "no rules found in $rules"
for a in "${alerts[@]}"; do
    grep -q "alertname: $a\$" "$tests" && pass "$a has a unit test in $tests" \
        || bad "$a has no unit test in $tests"
    printf '%s\n' "${expected[@]}" | grep -q "^$a=" && pass "$a has an expected receiver" \
        || bad "$a has no expected receiver in .ci/check-alerting.sh"
done

# Webhook URLs are secrets: only files may name them.
if grep -Eq '^[^#]*webhook_url:' "$config"; then
    bad "$config has an inline webhook_url (use webhook_url_file)"
else
    pass "$config keeps webhook URLs in files"
fi

if ! command -v amtool >/dev/null; then
    echo "check-alerting: SKIPPED amtool checks: amtool not found (Debian package prometheus-alertmanager)" >&2
    exit "$fail"
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
checked=$config
if out=$(amtool check-config "$config" 2>&1); then
    pass "amtool check-config $config"
elif grep -q 'field webhook_url_file not found' <<<"$out"; then
    echo "check-alerting: NOTE $(amtool --version 2>&1 | head -n1) predates Discord's webhook_url_file;" \
        "checking a copy with a placeholder webhook_url instead" >&2
    checked=$tmp/alertmanager.yml
    sed -E 's#^([ -]*)webhook_url_file: .*#\1webhook_url: https://discord.invalid/api/webhooks/0/placeholder#' \
        "$config" >"$checked"
    if out=$(amtool check-config "$checked" 2>&1); then
        pass "amtool check-config $config (webhook_url_file stubbed)"
    else
        bad "amtool check-config $config (webhook_url_file stubbed)"
        echo "$out" >&2
    fi
else
    bad "amtool check-config $config"
    echo "$out" >&2
fi

for pair in "${expected[@]}"; do
    alert=${pair%%=*} receiver=${pair#*=}
    if amtool config routes test --config.file="$checked" --verify.receivers="$receiver" \
        alertname="$alert" instance=exporter:10765 target=cs2-eu >/dev/null 2>&1; then
        pass "$alert routes to $receiver"
    else
        bad "$alert does not route to $receiver"
    fi
done
exit "$fail"
