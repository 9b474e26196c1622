#!/usr/bin/env bash
# Checks the systemd units offline (CI has no running systemd): the plain unit
# systemd/gameserver-exporter.service and the sharding template
# systemd/gameserver-exporter@.service, the latter both as the template and as the instance
# gameserver-exporter@0-of-3 (which expands %i into `--shard 0-of-3`). For each,
# `systemd-analyze verify` must print nothing, and the `systemd-analyze security` exposure
# level is reported and must stay below 2.0 ("OK" band) so hardening cannot silently regress.
set -euo pipefail
cd "$(dirname "$0")/.."

max_exposure=2.0

if ! command -v systemd-analyze >/dev/null; then
    echo "check-systemd: systemd-analyze not found (apt-get install systemd)" >&2
    exit 1
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# verify insists that ExecStart= names an existing executable; /usr/local/bin is not
# installed in CI, so check copies whose binary paths point at the build (or a stub).
binary=$PWD/target/debug/gameserver-exporter
if [[ ! -x $binary ]]; then
    binary=$tmp/gameserver-exporter
    printf '#!/bin/sh\nexit 0\n' >"$binary"
    chmod +x "$binary"
fi

failed=0
# check_unit FILE [NAME]: verifies NAME (default: the file's own name) from a copy of FILE
# in $tmp; an instance name such as x@0-of-3.service is loaded from its template x@.service.
check_unit() {
    local unit=$1 name=${2:-$(basename "$1")} out line level security
    sed "s|/usr/local/bin/gameserver-exporter|$binary|" "$unit" >"$tmp/$(basename "$unit")"
    grep -q "^ExecStart=$binary " "$tmp/$(basename "$unit")"
    if ! out=$(cd "$tmp" && systemd-analyze verify "$tmp/$name" 2>&1); then
        echo "$out" >&2
        echo "check-systemd: $name: systemd-analyze verify failed" >&2
        failed=1
        return
    fi
    if [[ -n $out ]]; then
        echo "$out" >&2
        echo "check-systemd: $name: systemd-analyze verify printed warnings" >&2
        failed=1
        return
    fi
    echo "check-systemd: $name: systemd-analyze verify: clean"

    security=$(cd "$tmp" && systemd-analyze security --offline=true --no-pager "$tmp/$name" 2>&1) || true
    line=$(grep 'Overall exposure level' <<<"$security" || true)
    if [[ -z $line ]]; then
        echo "$security" >&2
        echo "check-systemd: $name: no exposure level in systemd-analyze security output" >&2
        failed=1
        return
    fi
    level=$(sed -E 's/.*: ([0-9]+\.[0-9]+) .*/\1/' <<<"$line")
    echo "check-systemd: $name: security exposure level $level (${line##*: })"
    if ! awk -v l="$level" -v m="$max_exposure" 'BEGIN { exit !(l < m) }'; then
        grep '^✗' <<<"$security" >&2 || true
        echo "check-systemd: $name: exposure $level is not below $max_exposure" >&2
        failed=1
    fi
}

check_unit systemd/gameserver-exporter.service
check_unit systemd/gameserver-exporter@.service
check_unit systemd/gameserver-exporter@.service gameserver-exporter@0-of-3.service

# The template must pass its instance name as the shard, and hardening must match the plain
# unit's line for line (only the [Unit]/ExecStart/Environment lines may differ).
template_ok=$(grep -c '^ExecStart=.* --shard %i ' systemd/gameserver-exporter@.service || true)
if [[ $template_ok != 1 ]]; then
    echo "check-systemd: the template's ExecStart must pass --shard %i" >&2
    failed=1
fi
hardening() { sed -n '/^DynamicUser=/,/^SystemCallErrorNumber=/p' "$1" | grep -v '^#'; }
if ! diff <(hardening systemd/gameserver-exporter.service) <(hardening systemd/gameserver-exporter@.service) >&2; then
    echo "check-systemd: the template's hardening differs from gameserver-exporter.service" >&2
    failed=1
fi
exit "$failed"
