//! The shipped Grafana dashboard works unedited for UI import, file provisioning and the
//! Kubernetes sidecar: every query goes through its `datasource` variable, and nothing is left
//! for an import form (`__inputs`) to fill in. `.ci/e2e.sh` runs its queries against a real
//! Prometheus; this checks the wiring.

use serde_json::Value;

const DASHBOARD: &str = include_str!("../../grafana/gameserver-exporter.json");
const PROVIDER: &str =
    include_str!("../../grafana/provisioning/dashboards/gameserver-exporter.yaml");
const DATASOURCE: &str = include_str!("../../grafana/provisioning/datasources/prometheus.yaml");

fn dashboard() -> Value {
    serde_json::from_str(DASHBOARD).expect("the dashboard is JSON")
}

/// Every `"datasource"` value in the document, with a JSON path for messages.
fn datasource_refs<'a>(v: &'a Value, path: String, out: &mut Vec<(String, &'a Value)>) {
    match v {
        Value::Object(m) => {
            for (k, v) in m {
                if k == "datasource" {
                    out.push((format!("{path}.{k}"), v));
                }
                datasource_refs(v, format!("{path}.{k}"), out);
            }
        }
        Value::Array(a) => {
            for (i, v) in a.iter().enumerate() {
                datasource_refs(v, format!("{path}[{i}]"), out);
            }
        }
        _ => {}
    }
}

/// The first template variable is the data source picker, offering Prometheus data sources.
#[test]
fn has_a_prometheus_datasource_variable() {
    let d = dashboard();
    let vars = d["templating"]["list"].as_array().expect("templating.list");
    let ds = &vars[0];
    assert_eq!(ds["name"], "datasource");
    assert_eq!(ds["type"], "datasource");
    assert_eq!(ds["query"], "prometheus");
    assert_eq!(vars.iter().filter(|v| v["type"] == "datasource").count(), 1);
}

/// Every panel, query and query variable uses `${datasource}`; only Grafana's built-in
/// annotation keeps its own.
#[test]
fn every_reference_uses_the_variable() {
    let d = dashboard();
    let mut refs = Vec::new();
    datasource_refs(&d, String::new(), &mut refs);
    let want = serde_json::json!({ "type": "prometheus", "uid": "${datasource}" });
    let builtin = serde_json::json!({ "type": "grafana", "uid": "-- Grafana --" });
    let mut using = 0;
    for (path, r) in &refs {
        if path.starts_with(".annotations.") {
            assert_eq!(*r, &builtin, "{path}");
        } else {
            assert_eq!(*r, &want, "{path}");
            using += 1;
        }
    }
    // 14 panels (the row has none) with one or two queries each, plus the two query variables.
    assert!(using >= 30, "only {using} references");
    let panels_with_queries = d["panels"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|p| p.get("targets").is_some())
        .count();
    assert!(panels_with_queries >= 10, "{panels_with_queries}");
    for p in d["panels"].as_array().unwrap() {
        for t in p
            .get("targets")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            assert_eq!(t["datasource"], want, "panel {} target", p["title"]);
        }
        if p.get("targets").is_some() {
            assert_eq!(p["datasource"], want, "panel {}", p["title"]);
        }
    }
    for v in d["templating"]["list"].as_array().unwrap() {
        if v["type"] == "query" {
            assert_eq!(v["datasource"], want, "variable {}", v["name"]);
        }
    }
}

/// Nothing waits for an import form: file provisioning and the sidecar load the file as is.
#[test]
fn no_import_placeholders() {
    let d = dashboard();
    assert!(d.get("__inputs").is_none());
    assert!(
        !DASHBOARD.contains("${DS_"),
        "an import placeholder is left"
    );
}

/// The provisioning examples are Grafana's provisioning format and point at a directory for
/// the dashboard file.
#[test]
fn provisioning_examples() {
    for (top, text) in [("providers:", PROVIDER), ("datasources:", DATASOURCE)] {
        assert!(text.lines().any(|l| l == "apiVersion: 1"), "{top}");
        assert!(text.lines().any(|l| l == top), "{top}");
    }
    assert!(PROVIDER.contains("    type: file\n"));
    assert!(PROVIDER.contains("      path: /var/lib/grafana/dashboards/gameserver-exporter\n"));
    assert!(DATASOURCE.contains("    type: prometheus\n"));
}

/// Families the dashboard leaves out on purpose, and why; every other family docs/metrics.md
/// lists has a panel, so a new health family lands with one.
const NOT_GRAPHED: &[(&str, &str)] = &[
    (
        "gameserver_players_bots",
        "inside players online (A2S counts bots there)",
    ),
    (
        "gameserver_rule_value",
        "a target's own choice of rules: per deployment",
    ),
    (
        "gameserver_rule_info",
        "text, for tables an operator builds",
    ),
    (
        "gameserver_player_info",
        "one series per player: the Top players table covers it",
    ),
    (
        "gameserver_player_connected_seconds",
        "per player, as above",
    ),
    ("gameserver_player_ping_seconds", "per player, as above"),
    (
        "gameserver_player_series_dropped",
        "a limit's warning: alerting, not a graph",
    ),
    (
        "gameserver_consecutive_failures",
        "alerting's input (docs/alerting.md)",
    ),
    (
        "gameserver_last_player_seen_timestamp_seconds",
        "per player, as above",
    ),
    (
        "gameserver_queries_total",
        "the failures by reason panel is its useful ratio",
    ),
    ("gameserver_exporter_build_info", "an info metric"),
    ("gameserver_exporter_shard_info", "an info metric"),
    (
        "gameserver_config_last_reload_success_timestamp_seconds",
        "the reload-successful stat shows the state",
    ),
];

#[test]
fn every_family_has_a_panel() {
    let doc = include_str!("../../docs/metrics.md");
    let families: Vec<&str> = doc
        .lines()
        .filter_map(|l| l.strip_prefix("| `gameserver_"))
        .filter_map(|l| l.split_once('`').map(|(name, _)| name))
        .collect();
    assert!(families.len() > 30, "the table of docs/metrics.md moved");
    let mut missing = Vec::new();
    for f in families {
        let family = format!("gameserver_{f}");
        let skipped = NOT_GRAPHED.iter().any(|(n, _)| *n == family);
        // A family name followed by `{`, `)` or a space, so `_max` is not found in `_max_bytes`.
        let graphed = ["{", ")", " "]
            .iter()
            .any(|end| DASHBOARD.contains(&format!("{family}{end}")));
        assert!(
            !(skipped && graphed),
            "{family} is graphed: drop it from NOT_GRAPHED"
        );
        if !skipped && !graphed {
            missing.push(family);
        }
    }
    assert!(missing.is_empty(), "no dashboard panel for {missing:?}");
}
