//! What `--engine exporter` reads out of a scraped `/metrics` page (Prometheus text format):
//! the sample count, the poll counters summed and per target, and the reload timestamp.

use std::collections::HashMap;

use gameserver_exporter::status::Reason;

#[derive(Default)]
pub struct Page {
    /// Sample lines (neither comments nor blank).
    pub samples: usize,
    /// `gameserver_queries_total` summed over targets.
    pub queries: u64,
    /// `gameserver_query_failures_total` per reason (Reason::ALL order), summed over targets.
    pub failures: [u64; Reason::ALL.len()],
    /// `gameserver_queries_total` per `target` label.
    pub per_target: HashMap<String, u64>,
    pub reload_success: Option<f64>,
}

impl Page {
    pub fn parse(text: &str) -> Page {
        let mut p = Page::default();
        for line in text.lines() {
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            p.samples += 1;
            let (series, value) = match line.rsplit_once(' ') {
                Some(x) => x,
                None => continue,
            };
            let (name, labels) = series.split_once('{').unwrap_or((series, ""));
            match name {
                "gameserver_queries_total" => {
                    let v = value.parse::<f64>().unwrap_or(0.0) as u64;
                    p.queries += v;
                    if let Some(t) = label(labels, "target") {
                        p.per_target.insert(t.to_string(), v);
                    }
                }
                "gameserver_query_failures_total" => {
                    let v = value.parse::<f64>().unwrap_or(0.0) as u64;
                    let r = label(labels, "reason")
                        .and_then(|r| Reason::ALL.iter().position(|x| x.as_str() == r));
                    if let Some(i) = r {
                        p.failures[i] += v;
                    }
                }
                "gameserver_config_last_reload_success_timestamp_seconds" => {
                    p.reload_success = value.parse().ok();
                }
                _ => {}
            }
        }
        p
    }

    pub fn failed(&self) -> u64 {
        self.failures.iter().sum()
    }

    pub fn ok(&self) -> u64 {
        self.queries.saturating_sub(self.failed())
    }
}

/// The value of `name="..."` in a label set (the bench's names and reasons hold no quotes or
/// escapes).
fn label<'a>(labels: &'a str, name: &str) -> Option<&'a str> {
    let at = labels
        .match_indices(name)
        .find(|(i, _)| *i == 0 || matches!(labels.as_bytes()[i - 1], b',' | b'{'))?
        .0;
    let rest = labels[at + name.len()..].strip_prefix("=\"")?;
    rest.split('"').next()
}
