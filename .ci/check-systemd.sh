#!/usr/bin/env bash
# Checks systemd/gameserver-exporter.service offline (CI has no running systemd):
# `systemd-analyze verify` must print nothing, and the `systemd-analyze security` exposure
# level is reported and must stay below 2.0 ("OK" band) so hardening cannot silently regress.
set -euo pipefail
cd "$(dirname "$0")/.."

unit=systemd/gameserver-exporter.service
max_exposure=2.0

if ! command -v systemd-analyze >/dev/null; then
    echo "check-systemd: systemd-analyze not found (apt-get install systemd)" >&2
    exit 1
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# verify insists that ExecStart= names an existing executable; /usr/local/bin is not
# installed in CI, so check a copy whose binary paths point at the build (or a stub).
binary=$PWD/target/debug/gameserver-exporter
if [[ ! -x $binary ]]; then
    binary=$tmp/gameserver-exporter
    printf '#!/bin/sh\nexit 0\n' >"$binary"
    chmod +x "$binary"
fi
sed "s|/usr/local/bin/gameserver-exporter|$binary|" "$unit" >"$tmp/gameserver-exporter.service"
grep -q "^ExecStart=$binary " "$tmp/gameserver-exporter.service"

verify_out=$(systemd-analyze verify "$tmp/gameserver-exporter.service" 2>&1) || {
    echo "$verify_out" >&2
    echo "check-systemd: systemd-analyze verify failed" >&2
    exit 1
}
if [[ -n $verify_out ]]; then
    echo "$verify_out" >&2
    echo "check-systemd: systemd-analyze verify printed warnings" >&2
    exit 1
fi
echo "check-systemd: systemd-analyze verify: clean"

security=$(systemd-analyze security --offline=true --no-pager "$unit" 2>&1) || true
line=$(grep 'Overall exposure level' <<<"$security" || true)
if [[ -z $line ]]; then
    echo "$security" >&2
    echo "check-systemd: no exposure level in systemd-analyze security output" >&2
    exit 1
fi
level=$(sed -E 's/.*: ([0-9]+\.[0-9]+) .*/\1/' <<<"$line")
echo "check-systemd: security exposure level $level (${line##*: })"
if ! awk -v l="$level" -v m="$max_exposure" 'BEGIN { exit !(l < m) }'; then
    grep '^✗' <<<"$security" >&2 || true
    echo "check-systemd: exposure $level is not below $max_exposure" >&2
    exit 1
fi
