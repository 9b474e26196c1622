//! Every protocol is complete: the checklist of `docs/adding-a-protocol.md`, checked.
//!
//! For each [`Protocol::ALL`] entry: a simulator with a demo server, a fuzz target, a notes
//! page in `docs/protocols/` (with its row in that folder's index), a row in README's protocol
//! table and in the latency table of `docs/metrics.md`, an example in `exporter.example.toml`
//! and a game preset (the rows of `docs/games.md`). What the compiler already enforces (the
//! `match` arms on `Protocol`: default port, registry entry, simulator) is not repeated here.
//! A failure names every missing piece at once, by protocol and file.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use gameserver_exporter::games::list::GAMES;
use gameserver_exporter::games::Game;
use gameserver_exporter::simulate::{self, World};
use gameserver_exporter::target::Protocol;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn read(path: &str) -> String {
    std::fs::read_to_string(root().join(path)).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// The lines of the Markdown table under the first heading starting with `heading`.
fn table_under(markdown: &str, heading: &str) -> Vec<String> {
    markdown
        .lines()
        .skip_while(|l| {
            !(l.starts_with('#') && l.trim_start_matches('#').trim().starts_with(heading))
        })
        .skip(1)
        .skip_while(|l| !l.starts_with('|'))
        .take_while(|l| l.starts_with('|'))
        .map(str::to_string)
        .collect()
}

/// The lines of the Markdown table whose header line is `header`.
fn table_headed(markdown: &str, header: &str) -> Vec<String> {
    markdown
        .lines()
        .skip_while(|l| *l != header)
        .take_while(|l| l.starts_with('|'))
        .map(str::to_string)
        .collect()
}

/// Whether a table has a row whose first cell is the id in backticks.
fn has_row(rows: &[String], id: &str) -> bool {
    rows.iter()
        .any(|r| r.split('|').nth(1).map(str::trim) == Some(&format!("`{id}`")))
}

/// What `fuzz/Cargo.toml` declares: `[package.metadata.protocols]` (protocol id -> its fuzz
/// targets) and the `[[bin]]` targets (name -> path).
struct Fuzz {
    by_protocol: Vec<(String, Vec<String>)>,
    /// `[package.metadata.protocols_in_progress]`: protocols whose codec has landed ahead of
    /// their registry entry (issue 20 lands codecs first, then wires them into the template).
    /// An id here must not be a protocol yet: once wired, it moves to `protocols` and faces
    /// every check above.
    in_progress: Vec<(String, Vec<String>)>,
    bins: Vec<(String, String)>,
}

fn fuzz() -> Fuzz {
    let manifest: toml::Table = toml::from_str(&read("fuzz/Cargo.toml")).unwrap();
    let table = |key: &str| -> Vec<(String, Vec<String>)> {
        manifest["package"]["metadata"]
            .get(key)
            .and_then(|p| p.as_table())
            .map(|t| {
                t.iter()
                    .map(|(id, names)| {
                        let names = names.as_array().map(Vec::as_slice).unwrap_or_default();
                        let names = names.iter().filter_map(|n| n.as_str()).map(String::from);
                        (id.clone(), names.collect())
                    })
                    .collect()
            })
            .unwrap_or_default()
    };
    let by_protocol = table("protocols");
    let in_progress = table("protocols_in_progress");
    let bins = manifest["bin"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| {
            let field = |k: &str| b[k].as_str().unwrap().to_string();
            (field("name"), field("path"))
        })
        .collect();
    Fuzz {
        by_protocol,
        in_progress,
        bins,
    }
}

/// The protocols the example configuration shows: its targets' `protocol`, or the protocol
/// of their `game`.
fn example_protocols() -> BTreeSet<Protocol> {
    let config: toml::Table = toml::from_str(&read("exporter.example.toml")).unwrap();
    let targets = config["target"].as_array().unwrap();
    targets
        .iter()
        .filter_map(|t| match (t.get("protocol"), t.get("game")) {
            (Some(p), _) => Protocol::from_name(p.as_str()?),
            (None, Some(g)) => Game::find(g.as_str()?).map(|g| g.protocol),
            (None, None) => None,
        })
        .collect()
}

/// Every protocol has each piece; the message lists all that are missing.
#[test]
fn every_protocol_is_complete() {
    let readme = table_under(&read("README.md"), "Supported protocols");
    let notes_index = table_under(&read("docs/protocols/README.md"), "Protocol notes");
    let latency = table_headed(&read("docs/metrics.md"), "| Protocol | What is timed |");
    let fuzz = fuzz();
    let examples = example_protocols();
    let seeds = read("fuzz/examples/seed_corpus.rs");

    let mut missing = Vec::new();
    for p in Protocol::ALL {
        let id = p.as_str();
        let mut lacks = |what: String| missing.push(format!("{id}: {what}"));

        let targets = fuzz
            .by_protocol
            .iter()
            .find(|(k, _)| k == id)
            .map(|(_, v)| v.clone())
            .unwrap_or_default();
        if targets.is_empty() {
            lacks(format!(
                "no fuzz target (`{id} = [\"...\"]` under [package.metadata.protocols] in fuzz/Cargo.toml)"
            ));
        }
        for t in &targets {
            match fuzz.bins.iter().find(|(name, _)| name == t) {
                None => lacks(format!(
                    "fuzz target {t} is not a [[bin]] of fuzz/Cargo.toml"
                )),
                Some((_, path)) if !Path::new(&root().join("fuzz").join(path)).is_file() => {
                    lacks(format!("fuzz target {t}: no file fuzz/{path}"))
                }
                Some(_) => {}
            }
            // Seeds come from the generator, or (for `exchanges`, whose inputs wrap the other
            // targets' replies in replay scripts) are checked in as they are.
            let generated = seeds.contains(&format!("Corpus::new(root, \"{t}\")"));
            let checked_in = std::fs::read_dir(root().join("fuzz/corpus").join(t))
                .is_ok_and(|mut d| d.next().is_some());
            if !generated && !checked_in {
                lacks(format!(
                    "fuzz target {t} has no seeds in fuzz/examples/seed_corpus.rs nor in fuzz/corpus/{t}/"
                ));
            }
        }

        let page = format!("docs/protocols/{id}.md");
        if !root().join(&page).is_file() {
            lacks(format!("no notes page {page}"));
        }
        if !has_row(&notes_index, id) {
            lacks("no row in docs/protocols/README.md".into());
        }
        if !has_row(&readme, id) {
            lacks("no row in README.md's protocol table (\"Supported protocols\")".into());
        }
        if !has_row(&latency, id) {
            lacks("no row in docs/metrics.md's latency table (\"What is timed\")".into());
        }
        if !examples.contains(&p) {
            lacks(format!(
                "no target in exporter.example.toml (`protocol = \"{id}\"` or a game of it)"
            ));
        }
        if !GAMES.iter().any(|g| g.speaks(p)) {
            lacks("no game preset speaks it (src/games/list.rs, the rows of docs/games.md)".into());
        }
    }

    // And nothing for a protocol that does not exist (.ci/e2e.sh reads README's table as the
    // list of protocols), or a fuzz target of nobody.
    for (file, rows) in [
        ("README.md", &readme),
        ("docs/protocols/README.md", &notes_index),
        ("docs/metrics.md", &latency),
    ] {
        for id in rows.iter().skip(2).filter_map(|r| r.split('|').nth(1)) {
            let id = id.trim().trim_matches('`');
            if Protocol::from_name(id).is_none() {
                missing.push(format!("{file}: a row for unknown protocol {id:?}"));
            }
        }
    }
    for (id, _) in &fuzz.by_protocol {
        if Protocol::from_name(id).is_none() {
            missing.push(format!(
                "fuzz/Cargo.toml: [package.metadata.protocols] names unknown protocol {id:?}"
            ));
        }
    }
    for (id, names) in &fuzz.in_progress {
        if Protocol::from_name(id).is_some() {
            missing.push(format!(
                "fuzz/Cargo.toml: {id:?} is a protocol now: move it from \
                 [package.metadata.protocols_in_progress] to [package.metadata.protocols]"
            ));
        }
        for name in names {
            if !fuzz.bins.iter().any(|(bin, _)| bin == name) {
                missing.push(format!(
                    "fuzz/Cargo.toml: {id}'s fuzz target {name} is no [[bin]]"
                ));
            }
        }
    }
    for (name, _) in &fuzz.bins {
        let owned = |list: &[(String, Vec<String>)]| list.iter().any(|(_, v)| v.contains(name));
        if !owned(&fuzz.by_protocol) && !owned(&fuzz.in_progress) {
            missing.push(format!(
                "fuzz/Cargo.toml: [[bin]] {name} belongs to no protocol in [package.metadata.protocols]"
            ));
        }
    }

    assert!(
        missing.is_empty(),
        "incomplete protocols (see docs/adding-a-protocol.md):\n  {}",
        missing.join("\n  ")
    );
}

/// Every protocol's demo server starts (the table in `simulate` has every protocol by
/// construction; this runs each entry), and each line of that table names the module whose
/// `SIM` serves that protocol (a line copied from another protocol's is caught here).
#[tokio::test]
async fn every_protocol_has_a_demo_server() {
    for p in Protocol::ALL {
        let sim = simulate::simulator(p);
        assert_eq!(sim.protocol, p, "simulate::simulator's line for {p}");
        let server = (sim.spawn_demo)(World::default())
            .await
            .unwrap_or_else(|e| panic!("{p}: the demo server did not start: {e}"));
        assert!(server.addr.ip().is_loopback(), "{p}: {}", server.addr);
        assert_ne!(server.addr.port(), 0, "{p}");
    }
}

/// The dashboard's protocol variable is a query over the exported series, not a hand-written
/// list, so a new protocol shows up without editing it.
#[test]
fn dashboard_protocols_come_from_the_series() {
    let dashboard: serde_json::Value =
        serde_json::from_str(&read("grafana/gameserver-exporter.json")).unwrap();
    let vars = dashboard["templating"]["list"].as_array().unwrap();
    let protocol = vars
        .iter()
        .find(|v| v["name"] == "protocol")
        .expect("a protocol variable");
    assert_eq!(protocol["type"], "query");
    assert_eq!(
        protocol["definition"],
        "label_values(gameserver_up, protocol)"
    );
}

/// Every `.rs` file below `dir`, as (path relative to the crate, text).
fn sources(dir: &Path) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut stack = vec![root().join(dir)];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap().flatten() {
            let path = e.path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|x| x == "rs") {
                let rel = path.strip_prefix(root()).unwrap().display().to_string();
                out.push((rel, std::fs::read_to_string(&path).unwrap()));
            }
        }
    }
    out
}

/// The code before the first `#[cfg(test)]`: what ships.
fn shipped(text: &str) -> &str {
    text.split("#[cfg(test)]").next().unwrap_or(text)
}

/// docs/adding-a-protocol.md's template holds: each protocol's facts are its spec, in its
/// own folder (`src/protocol/<p>/spec.rs` or `<kind>_spec.rs` where one folder holds several
/// protocols), the list in `target.rs` is one line per protocol, and neither `target.rs`
/// nor the registry holds a rule of any one protocol.
#[test]
fn each_protocols_facts_live_in_its_folder() {
    let specs: Vec<(String, String)> = sources(Path::new("src/protocol"))
        .into_iter()
        .filter(|(path, _)| path.ends_with("/spec.rs") || path.ends_with("_spec.rs"))
        .collect();
    let mut missing = Vec::new();
    for p in Protocol::ALL {
        let id = p.as_str();
        let declares = |text: &str| {
            ["udp", "tcp", "http"]
                .iter()
                .any(|kind| text.contains(&format!("Spec::{kind}(\"{id}\"")))
                || text.contains(&format!("id: \"{id}\""))
        };
        if !specs.iter().any(|(_, text)| declares(text)) {
            missing.push(format!(
                "{id}: no src/protocol/<folder>/spec.rs declares it"
            ));
        }
    }
    assert!(missing.is_empty(), "{}", missing.join("\n"));

    let target = read("src/target.rs");
    assert!(target.contains("protocols! {"), "target.rs lists the specs");
    let named = target.matches("Protocol::").count();
    assert!(named <= 5, "target.rs names `Protocol::` {named} times");
    let registry = read("src/query/registry.rs");
    assert!(
        !shipped(&registry).contains("Protocol::"),
        "src/query/registry.rs names a protocol outside its tests"
    );

    // The how-to names the files the tree uses, and CONTRIBUTING points to it instead of
    // keeping a list of its own.
    let howto = read("docs/adding-a-protocol.md");
    for piece in [
        "src/protocol/<name>/spec.rs",
        "`protocols!`",
        "pub const SPEC: Spec",
    ] {
        assert!(
            howto.contains(piece),
            "docs/adding-a-protocol.md lacks {piece}"
        );
    }
    let contributing = read("CONTRIBUTING.md");
    assert!(contributing.contains("(docs/adding-a-protocol.md) is the one list of steps"));
}
