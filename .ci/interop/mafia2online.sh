#!/usr/bin/env bash
# Mafia II Online interop: Mafia II Multiplayer's query in another dialect, so mafia2mp.sh's
# checks with protocol mafia2online and gamedig type m2o (the names and their pings too).
# gamedig 5.3.3 is its only third-party reader here. A few seconds.
set -euo pipefail
exec bash "$(dirname "$0")/mafia2mp.sh" "${1:-target/debug/gameserver-exporter}" mafia2online m2o
