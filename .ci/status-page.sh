#!/usr/bin/env bash
# The status page at / in a real browser: headless Chromium renders the page of
# `gameserver-exporter demo` (every protocol's simulator, all up) and of a second exporter
# polling three of those simulators and a closed port (a down row). From the DOM after the
# page's script has run: a row per target with its state class, players as N/MAX, the
# failure reason, the script's row count (so the script ran), the server-side filter, and no
# console message at all (an uncaught error would be one). At 1280 px wide, with the demo's
# 20+ rows, nothing overflows: a small proxy in front of the demo adds a script that measures
# the document and every cell after the page's own script ran. A screenshot of the second page
# goes to $STATUS_PAGE_PNG (default: a temporary file; docs/status-page.png is one).
#
# Chromium comes from Debian (~25 s to install, ~300 MB); without it, and unable to install
# it, the step says so loudly and skips. Uses target/debug/gameserver-exporter (built if
# missing), or $GSE_BIN. Listeners bind 127.0.0.1 on ports the OS hands out.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD

if ! command -v chromium >/dev/null; then
    if [[ $(id -u) -eq 0 ]] && command -v apt-get >/dev/null; then
        echo "status-page: installing chromium (Debian)"
        policy=/usr/sbin/policy-rc.d
        made_policy=
        if [[ ! -e $policy ]]; then
            printf '#!/bin/sh\nexit 101\n' >"$policy"
            chmod 0755 "$policy"
            made_policy=1
        fi
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends chromium >/dev/null 2>&1 ||
            { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends chromium >/dev/null 2>&1; } || true
        [[ -n $made_policy ]] && rm -f "$policy"
    fi
    if ! command -v chromium >/dev/null; then
        echo "status-page: SKIPPED -- chromium is not installed and could not be installed (run as root with apt-get)" >&2
        exit 0
    fi
fi
for tool in curl python3; do
    command -v "$tool" >/dev/null || { echo "status-page: $tool not found (.ci/run installs it)" >&2; exit 1; }
done
bin=${GSE_BIN:-$root/target/debug/gameserver-exporter}
if [[ -z ${GSE_BIN:-} && ! -x $bin ]]; then
    cargo build --locked --bin gameserver-exporter
fi

tmp=$(mktemp -d)
pids=()
cleanup() {
    local pid
    for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
    for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
    rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

passed=0
failed=0
pass() { passed=$((passed + 1)); echo "ok    $*"; }
fail() { failed=$((failed + 1)); echo "FAIL  $*"; }
free_port() {
    python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}
wait_http() { # URL SECONDS PID: until URL answers 2xx, PID alive
    local deadline=$((SECONDS + $2))
    until curl -fsS -o /dev/null --max-time 2 "$1" 2>/dev/null; do
        if ((SECONDS >= deadline)) || ! kill -0 "$3" 2>/dev/null; then return 1; fi
        sleep 0.3
    done
}
# browser MODE URL OUT: headless Chromium as root (hence --no-sandbox), console messages
# into $tmp/NAME.log; MODE is --dump-dom (the DOM to OUT) or --screenshot (a PNG to OUT).
# The virtual time budget lets the page's script run before the DOM is taken.
browser() {
    local mode=$1 url=$2 out=$3 log=$tmp/$(basename "$3").log
    local args=(--headless --no-sandbox --disable-gpu --hide-scrollbars --no-first-run
        --user-data-dir="$tmp/profile" --enable-logging=stderr --v=0
        --virtual-time-budget=3000 --window-size="${WINDOW:-1280,430}")
    if [[ $mode == --dump-dom ]]; then
        timeout 90 chromium "${args[@]}" --dump-dom "$url" >"$out" 2>"$log"
    else
        timeout 90 chromium "${args[@]}" "--screenshot=$out" "$url" >/dev/null 2>"$log"
    fi
}
# The DOM checks on one dump: python3 reads it; prints what is wrong, exits non-zero.
check_dom() { # FILE ROWS_UP ROWS_DOWN
    python3 - "$@" <<'EOF'
import re, sys
path, want_up, want_down = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
dom = open(path, encoding="utf-8").read()
wrong = []
rows = re.findall(r'<tr class="(up|down|pending)"[^>]*>(.*?)</tr>', dom, re.S)
ups = [r for s, r in rows if s == "up"]
downs = [r for s, r in rows if s == "down"]
if len(ups) != want_up: wrong.append(f"{len(ups)} up rows, want {want_up}")
if len(downs) != want_down: wrong.append(f"{len(downs)} down rows, want {want_down}")
for r in ups:
    if not re.search(r'<td class="num">\d+/(\d+<span class="bar( full)?"|<span title="the server reports no capacity">–</span>)', r): wrong.append("up row without players N/MAX or N/–: " + r[:200])
    if not re.search(r'>\d+ (s|min|h|d) ago</td>', r): wrong.append("up row without 'ago': " + r[:200])
for r in downs:
    if not re.search(r'<td colspan="5" class="why">[a-z_]+: ', r): wrong.append("down row without a reason: " + r[:200])
if rows and rows[0][0] != ("down" if want_down else "up"): wrong.append("down rows do not come first")
# The script fills in the row count: proof that it ran.
n = want_up + want_down
if not re.search(r'<span id="count">(%d of )?%d rows</span>' % (n, n), dom): wrong.append("the script did not count the rows")
print("\n".join(wrong))
sys.exit(1 if wrong else 0)
EOF
}
# no_console FILE.log: the page logged nothing to the console (errors included).
no_console() { ! grep -E ':CONSOLE[:(]' "$1"; }
check() { # NAME COMMAND...
    local name=$1 out
    shift
    if out=$("$@" 2>&1); then pass "$name"; else fail "$name"; sed 's/^/      /' <<<"$out"; fi
}

# measure_proxy PORT UPSTREAM: serves UPSTREAM's pages with a script added to HTML ones that,
# once the page's own script has run, writes what overflows into <pre id="overflow">: the
# document wider than the window, or a cell whose content is wider than the cell.
measure_proxy() {
    exec python3 - "$@" <<'PROXY'
import http.server, sys, urllib.error, urllib.request
port, upstream = int(sys.argv[1]), sys.argv[2]
MEASURE = b"""<script>
setTimeout(function () {
  var out = [], de = document.documentElement;
  if (de.scrollWidth > window.innerWidth) out.push("document " + de.scrollWidth + " px wide, window " + window.innerWidth);
  document.querySelectorAll("th, td").forEach(function (c) {
    if (c.scrollWidth > c.clientWidth + 1) out.push("cell " + c.scrollWidth + " > " + c.clientWidth + ": " + c.textContent.slice(0, 60));
  });
  var pre = document.createElement("pre"); pre.id = "overflow";
  pre.textContent = out.length ? out.join(" | ") : "none";
  document.body.appendChild(pre);
}, 1500);
</script>"""
class Proxy(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        try:
            r = urllib.request.urlopen("http://" + upstream + self.path, timeout=10)
        except urllib.error.HTTPError as e:  # passed on as it came (a favicon's 404)
            r = e
        with r:
            status, body, kind = r.status, r.read(), r.headers.get("Content-Type", "")
        if kind.startswith("text/html"):
            body = body.replace(b"</body>", MEASURE + b"</body>")
        self.send_response(status)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)
    def log_message(self, *args):
        pass
http.server.HTTPServer(("127.0.0.1", port), Proxy).serve_forever()
PROXY
}
no_overflow() { # FILE: the measuring script reported nothing
    local got
    got=$(python3 -c 'import re, sys, html; m = re.search(r"<pre id=\"overflow\">(.*?)</pre>", open(sys.argv[1]).read(), re.S); print(html.unescape(m.group(1)) if m else "the measuring script did not run")' "$1")
    [[ $got == none ]] || { echo "$got"; return 1; }
}

# The demo: simulators of every protocol and an exporter polling them.
demo=127.0.0.1:$(free_port)
"$bin" demo --listen "$demo" >"$tmp/demo.log" 2>&1 &
pids+=($!)
if ! wait_http "http://$demo/-/ready" 30 "${pids[-1]}"; then
    fail "demo ready on $demo"
    tail -n 30 "$tmp/demo.log"
    echo "$passed passed, $failed failed"
    exit 1
fi
declare -A sim
while read -r proto _ _ addr; do sim[$proto]=$addr; done \
    < <(grep -E '^ *[a-z0-9-]+ simulator on 127\.0\.0\.1:[0-9]+$' "$tmp/demo.log")
# Plus the A2S console titles (demo-rust, demo-sdtd, ...), printed as "<id> game on ...".
titles=$(grep -cE '^ *[a-z0-9-]+ game on 127\.0\.0\.1:[0-9]+, its console on ' "$tmp/demo.log" || true)
rows=$((${#sim[@]} + titles))

browser --dump-dom "http://$demo/" "$tmp/demo.html"
check "demo page: $rows up rows with players and 'ago', the script ran" check_dom "$tmp/demo.html" "$rows" 0
check "demo page: nothing on the console" no_console "$tmp/demo.html.log"
browser --dump-dom "http://$demo/?q=minecraft" "$tmp/filtered.html"
minecrafts=$(grep -c '^minecraft' < <(printf '%s\n' "${!sim[@]}"))
check "demo page ?q=minecraft: the $minecrafts Minecraft rows" check_dom "$tmp/filtered.html" "$minecrafts" 0
proxy=127.0.0.1:$(free_port)
measure_proxy "${proxy#*:}" "$demo" &
pids+=($!)
wait_http "http://$proxy/" 10 "${pids[-1]}" || fail "measuring proxy ready on $proxy"
WINDOW=1280,900 browser --dump-dom "http://$proxy/" "$tmp/narrow.html"
check "demo page at 1280 px: $rows rows, nothing overflows" no_overflow "$tmp/narrow.html"

# A second exporter with a down target: three of the demo's simulators and a closed port.
closed=$(free_port)
cat >"$tmp/exporter.toml" <<EOF
[exporter]
interval = "5s"
timeout = "1s"
[[target]]
name = "eu-cs-source"
protocol = "a2s"
address = "${sim[a2s]}"
[[target]]
name = "eu-survival"
protocol = "minecraft"
address = "${sim[minecraft]}"
[[target]]
name = "us-creative"
protocol = "minecraft"
address = "127.0.0.1:$closed"
[[target]]
name = "us-samp"
protocol = "samp"
address = "${sim[samp]}"
[[target]]
name = "voice"
protocol = "mumble"
address = "${sim[mumble]}"
EOF
fleet=127.0.0.1:$(free_port)
"$bin" --config "$tmp/exporter.toml" --listen "$fleet" >"$tmp/fleet.log" 2>&1 &
pids+=($!)
if wait_http "http://$fleet/-/ready" 30 "${pids[-1]}"; then
    browser --dump-dom "http://$fleet/" "$tmp/fleet.html"
    check "fleet page: 4 up rows, 1 down row first with its reason" check_dom "$tmp/fleet.html" 4 1
    check "fleet page: nothing on the console" no_console "$tmp/fleet.html.log"
    png=${STATUS_PAGE_PNG:-$tmp/status-page.png}
    browser --screenshot "http://$fleet/" "$png"
    check "screenshot $png" test -s "$png"
else
    fail "exporter with a down target ready on $fleet"
    tail -n 30 "$tmp/fleet.log"
fi

echo "$passed passed, $failed failed"
((failed == 0))
