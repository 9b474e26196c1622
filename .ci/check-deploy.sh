#!/usr/bin/env bash
# Offline validation of deploy/kubernetes/ (see .ci/check_deploy.py for what is checked and
# with which tool). The validators come from PyPI into a virtualenv kept between runs
# (kubernetes-validate: the Kubernetes API's JSON schemas for every release from 1.25 on,
# bundled, nothing fetched at run time; cloudcoil-models-prometheus-operator: models of the
# operator's CRDs); they are installed only when missing. promtool comes from Debian's
# prometheus package (.ci/run installs it).
set -euo pipefail
cd "$(dirname "$0")/.."

bin=${GSE_BIN:-$PWD/target/debug/gameserver-exporter}
if [[ -z ${GSE_BIN:-} && ! -x $bin ]]; then
    cargo build --locked --bin gameserver-exporter
fi
command -v promtool >/dev/null || { echo "check-deploy: promtool not found (.ci/run installs it)" >&2; exit 1; }

venv=${GSE_DEPLOY_VENV:-${XDG_CACHE_HOME:-$HOME/.cache}/gameserver-exporter/deploy-venv}
pins=(kubernetes-validate==1.37.0 cloudcoil-models-prometheus-operator==0.80.1.0 PyYAML)
if ! "$venv/bin/python" -c 'import kubernetes_validate, yaml, cloudcoil.models.prometheus_operator.v1' 2>/dev/null; then
    echo "check-deploy: installing ${pins[*]} into $venv"
    python3 -m venv "$venv"
    "$venv/bin/pip" install --quiet --disable-pip-version-check "${pins[@]}"
fi
"$venv/bin/python" .ci/check_deploy.py --dir deploy/kubernetes --binary "$bin"
