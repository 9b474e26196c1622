#!/usr/bin/env python3
"""Offline checks of deploy/kubernetes/ (run by .ci/check-deploy.sh inside its virtualenv).

What is checked, and with what:
- Every *.yaml / *.yml parses (PyYAML, safe loader).
- Kubernetes core objects (ConfigMap, Service, StatefulSet): kubernetes-validate in strict
  mode, i.e. the JSON schemas of the Kubernetes API with unknown fields refused, against the
  oldest release the manifests support (1.28: first with the pod-index label) and the newest
  the package bundles.
- The PodMonitor and the Probe (Prometheus Operator CRDs, not in those schemas): the pydantic models of
  cloudcoil-models-prometheus-operator, generated from the operator's CRDs. They ignore
  unknown fields, so the object must also survive a round trip unchanged: a field the model
  does not know is dropped and shows up as a difference.
- The plain Prometheus config: `promtool check config`. Debian's Prometheus is built without
  Kubernetes service discovery, so each kubernetes_sd_configs block is checked here against
  Prometheus's field list and swapped for a static target before promtool reads the rest
  (relabelling, timeouts, job names).
- Consistency between the objects: replicas == SHARDS, the shard variable built from the pod
  index in an order Kubernetes can expand, selectors matching the pod labels, named ports,
  the ConfigMap mounted where --config points, and the ConfigMap's exporter.toml accepted by
  `gameserver-exporter check-config`; the Probe aimed at the Service's port and /probe, its
  module one the exporter knows (a [module.NAME] of the ConfigMap, a protocol or a game id from
  `gameserver-exporter games`), its static addresses inside the ConfigMap's
  probe_allowed_networks.
Prints "ok    NAME" / "FAIL  NAME" lines and exits 1 if anything failed.
"""

import argparse
import copy
import ipaddress
import os
import pathlib
import subprocess
import sys
import tempfile
import tomllib

import yaml

OLDEST_K8S = "1.28.0"
K8S_SD_KEYS = {"api_server", "role", "kubeconfig_file", "namespaces", "selectors", "attach_metadata"}
K8S_SD_ROLES = {"node", "service", "pod", "endpoints", "endpointslice", "ingress"}
NAMESPACE_KEYS = {"names", "own_namespace"}

failures = 0


def report(ok, name, detail=""):
    global failures
    print(("ok    " if ok else "FAIL  ") + name, flush=True)
    if not ok:
        failures += 1
        for line in str(detail).splitlines():
            print("      " + line)


def load_all(root):
    docs = []
    for path in sorted(list(root.rglob("*.yaml")) + list(root.rglob("*.yml"))):
        rel = path.relative_to(root.parent.parent)
        try:
            loaded = [d for d in yaml.safe_load_all(path.read_text()) if d is not None]
        except yaml.YAMLError as e:
            report(False, f"{rel} parses as YAML", e)
            continue
        report(bool(loaded), f"{rel} parses as YAML ({len(loaded)} document(s))")
        docs.extend((rel, d) for d in loaded)
    return docs


def check_core(rel, obj):
    import kubernetes_validate

    for version in (OLDEST_K8S, kubernetes_validate.latest_version()):
        name = f"{rel}: {obj['kind']} valid for Kubernetes {version} (strict schema)"
        try:
            kubernetes_validate.validate(obj, version, strict=True)
            report(True, name)
        except Exception as e:  # ValidationError, SchemaNotFoundError...
            report(False, name, getattr(e, "message", e))


def diff(a, b, path="$"):
    """The first place where a and b differ, or None."""
    if isinstance(a, dict) and isinstance(b, dict):
        for k in a.keys() | b.keys():
            if k not in b:
                return f"{path}.{k}: unknown to the model (dropped)"
            if k not in a:
                return f"{path}.{k}: added by the model"
            d = diff(a[k], b[k], f"{path}.{k}")
            if d:
                return d
        return None
    if isinstance(a, list) and isinstance(b, list):
        if len(a) != len(b):
            return f"{path}: length {len(a)} != {len(b)}"
        for i, (x, y) in enumerate(zip(a, b)):
            d = diff(x, y, f"{path}[{i}]")
            if d:
                return d
        return None
    return None if a == b else f"{path}: {a!r} became {b!r}"


OPERATOR_KINDS = ("PodMonitor", "Probe")


def check_operator(rel, obj):
    from cloudcoil.models.prometheus_operator import v1

    kind = obj["kind"]
    name = f"{rel}: {kind} valid for the Prometheus Operator's monitoring.coreos.com/v1 models"
    try:
        model = getattr(v1, kind).model_validate(obj)
        back = model.model_dump(by_alias=True, exclude_unset=True, mode="json")
        d = diff(obj, back)
        report(d is None, name, d)
    except Exception as e:
        report(False, name, e)


def check_prometheus(rel, cfg, path, promtool):
    problems = []
    stripped = copy.deepcopy(cfg)
    for job in stripped.get("scrape_configs", []):
        blocks = job.pop("kubernetes_sd_configs", None)
        if blocks is None:
            continue
        for i, sd in enumerate(blocks):
            where = f"{job.get('job_name')}.kubernetes_sd_configs[{i}]"
            unknown = set(sd) - K8S_SD_KEYS
            if unknown:
                problems.append(f"{where}: unknown keys {sorted(unknown)}")
            if sd.get("role") not in K8S_SD_ROLES:
                problems.append(f"{where}: role {sd.get('role')!r} not one of {sorted(K8S_SD_ROLES)}")
            ns = sd.get("namespaces", {})
            if set(ns) - NAMESPACE_KEYS:
                problems.append(f"{where}.namespaces: unknown keys {sorted(set(ns) - NAMESPACE_KEYS)}")
        job.setdefault("static_configs", []).append({"targets": ["127.0.0.1:10765"]})
    report(not problems, f"{rel}: kubernetes_sd_configs fields", "\n".join(problems))
    with tempfile.NamedTemporaryFile("w", suffix=".yml", delete=False) as f:
        yaml.safe_dump(stripped, f)
    try:
        out = subprocess.run([promtool, "check", "config", f.name], capture_output=True, text=True)
        report(out.returncode == 0, f"{rel}: promtool check config (service discovery stubbed)",
               out.stdout + out.stderr)
    finally:
        os.unlink(f.name)


def labels_match(selector, labels):
    return all(labels.get(k) == v for k, v in selector.items())


def check_consistency(objs, binary):
    by_kind = {}
    for rel, o in objs:
        by_kind.setdefault(o.get("kind"), []).append(o)
    sts = by_kind["StatefulSet"][0]
    svc = by_kind["Service"][0]
    cm = by_kind["ConfigMap"][0]
    pm = by_kind.get("PodMonitor", [None])[0]
    probe = by_kind.get("Probe", [None])[0]
    spec = sts["spec"]
    pod = spec["template"]
    pod_labels = pod["metadata"]["labels"]
    container = pod["spec"]["containers"][0]
    env = container.get("env", [])
    names = [e["name"] for e in env]
    values = {e["name"]: e for e in env}

    shards = values.get("SHARDS", {}).get("value")
    report(shards == str(spec.get("replicas")), "StatefulSet: SHARDS equals replicas",
           f"SHARDS={shards!r} replicas={spec.get('replicas')!r}")
    shard = values.get("GAMESERVER_EXPORTER_SHARD", {}).get("value")
    ordered = (
        "POD_INDEX" in names and "SHARDS" in names and "GAMESERVER_EXPORTER_SHARD" in names
        and names.index("POD_INDEX") < names.index("GAMESERVER_EXPORTER_SHARD")
        and names.index("SHARDS") < names.index("GAMESERVER_EXPORTER_SHARD")
    )
    report(shard == "$(POD_INDEX)/$(SHARDS)" and ordered,
           "StatefulSet: GAMESERVER_EXPORTER_SHARD = $(POD_INDEX)/$(SHARDS), defined after both",
           f"value {shard!r}, order {names}")
    field = values.get("POD_INDEX", {}).get("valueFrom", {}).get("fieldRef", {}).get("fieldPath")
    report(field == "metadata.labels['apps.kubernetes.io/pod-index']",
           "StatefulSet: POD_INDEX comes from the pod-index label (downward API)", field)
    report(labels_match(spec["selector"]["matchLabels"], pod_labels),
           "StatefulSet: selector matches the pod labels")
    report(spec.get("serviceName") == svc["metadata"]["name"] and svc["spec"].get("clusterIP") == "None",
           "StatefulSet: serviceName is the headless Service")
    report(labels_match(svc["spec"]["selector"], pod_labels), "Service: selector matches the pod labels")
    port_names = {p["name"] for p in container.get("ports", [])}
    report(all(p["targetPort"] in port_names for p in svc["spec"]["ports"]),
           "Service: targetPort names a container port", port_names)
    mounts = {m["name"]: m["mountPath"] for m in container.get("volumeMounts", [])}
    volumes = {v["name"]: v for v in pod["spec"].get("volumes", [])}
    cm_mount = next((mounts[n] for n, v in volumes.items()
                     if v.get("configMap", {}).get("name") == cm["metadata"]["name"] and n in mounts), None)
    config_arg = next((a.split("=", 1)[1] for a in container.get("args", []) if a.startswith("--config=")), None)
    report(cm_mount is not None and config_arg == f"{cm_mount}/exporter.toml" and "exporter.toml" in cm["data"],
           "StatefulSet: --config points at exporter.toml of the mounted ConfigMap",
           f"mount {cm_mount!r}, --config {config_arg!r}")
    if pm is not None:
        report(labels_match(pm["spec"]["selector"]["matchLabels"], pod_labels),
               "PodMonitor: selector matches the pod labels")
        report(all(e.get("port") in port_names for e in pm["spec"]["podMetricsEndpoints"]),
               "PodMonitor: endpoints name a container port")
    if probe is not None:
        check_probe(probe, svc, cm, binary)
    with tempfile.TemporaryDirectory() as d:
        p = pathlib.Path(d) / "exporter.toml"
        p.write_text(cm["data"]["exporter.toml"])
        out = subprocess.run([binary, "check-config", str(p)], capture_output=True, text=True)
        report(out.returncode == 0, "ConfigMap: exporter.toml passes gameserver-exporter check-config",
               out.stdout + out.stderr)


def accepts(binary, text):
    """Whether `gameserver-exporter check-config` accepts the exporter.toml `text`."""
    with tempfile.TemporaryDirectory() as d:
        p = pathlib.Path(d) / "exporter.toml"
        p.write_text(text)
        return subprocess.run([binary, "check-config", str(p)], capture_output=True).returncode == 0


def check_probe(probe, svc, cm, binary):
    spec = probe["spec"]
    prober = spec.get("prober", {})
    host, _, port = prober.get("url", "").rpartition(":")
    svc_ports = {str(p["port"]) for p in svc["spec"]["ports"]}
    report(host.split(".")[0] == svc["metadata"]["name"] and port in svc_ports and prober.get("path") == "/probe",
           "Probe: prober.url is the Service's name and port, path /probe", prober)
    toml = tomllib.loads(cm["data"]["exporter.toml"])
    module = spec.get("module")
    known = module in toml.get("module", {}) or any(
        accepts(binary, f'[module.m]\n{key} = "{module}"\n') for key in ("protocol", "game"))
    report(known,
           "Probe: module is a [module.NAME] of the ConfigMap, a game id or a protocol id", module)
    allowed = [ipaddress.ip_network(n) for n in toml.get("exporter", {}).get("probe_allowed_networks", [])]
    static = [a for c in [spec.get("targets", {}).get("staticConfig", {})] for a in c.get("static", [])]
    outside = []
    for a in static:
        host = a.rsplit(":", 1)[0] if a.count(":") == 1 or a.startswith("[") else a
        try:
            ip = ipaddress.ip_address(host.strip("[]"))
        except ValueError:
            continue  # a DNS name: the exporter checks the address it resolves to
        if not any(ip in n for n in allowed):
            outside.append(a)
    report(bool(static) and not outside, "Probe: every static address lies in the ConfigMap's probe_allowed_networks",
           f"outside {outside}, allowed {allowed}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--dir", required=True)
    ap.add_argument("--binary", required=True)
    ap.add_argument("--promtool", default="promtool")
    args = ap.parse_args()
    root = pathlib.Path(args.dir).resolve()
    docs = load_all(root)
    objs = []
    for rel, d in docs:
        if not isinstance(d, dict):
            report(False, f"{rel}: a mapping at the top")
        elif "scrape_configs" in d:
            check_prometheus(rel, d, rel, args.promtool)
        elif d.get("kind") in OPERATOR_KINDS:
            check_operator(rel, d)
            objs.append((rel, d))
        elif "apiVersion" in d and "kind" in d:
            check_core(rel, d)
            objs.append((rel, d))
        else:
            report(False, f"{rel}: neither a Kubernetes object nor a Prometheus config")
    kinds = sorted(o["kind"] for _, o in objs)
    want = ["ConfigMap", "PodMonitor", "Probe", "Service", "StatefulSet"]
    report(kinds == want, "one ConfigMap, PodMonitor, Probe, Service and StatefulSet", kinds)
    if kinds == want:
        check_consistency(objs, args.binary)
    print(f"check-deploy: {failures} failure(s)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
