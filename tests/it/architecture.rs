//! The walls between top-level modules, pinned.
//!
//! Reads every `crate::` path in `src/` (and every `super::` path that climbs out of its
//! top-level module), with comments, string literals and `#[cfg(test)]` items left out, and
//! fails on an edge the [`ALLOWED`] table does not list, on a circle between top-level
//! modules, on a circle between sibling submodules inside one ([`no_circle_inside_a_module`],
//! issue 20), and on tokio inside `protocol/`. The layering it enforces is written out in
//! `src/lib.rs` ("# Layout"); this file is the one place that lists it edge by edge.
//!
//! Adding an edge means adding it to [`ALLOWED`]; the table itself is checked against the
//! [`WALLS`] and for circles, so the walls cannot be lowered by editing the table alone.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// Who may use whom: every top-level module of `src/` and the modules it may name through
/// `crate::` paths. Ordered from the bottom (the shared vocabulary) to the top (the daemon).
const ALLOWED: &[(&str, &[&str])] = &[
    // The shared vocabulary, below every layer.
    // Passwords and tokens read from files (std only).
    ("secret", &[]),
    ("status", &[]),
    ("sync", &[]),
    // What server-supplied text may show (controls, direction overrides hidden).
    ("text", &[]),
    // Integers as decimal digits without the formatter (metrics encoding, protocol texts).
    ("decimal", &[]),
    // Sans-IO codecs, and each protocol's spec (its facts, in its own folder), with the
    // vocabulary a spec and an exchange need (limits, credentials, the PROXY header version).
    ("protocol", &["decimal", "secret", "status"]),
    // What a poll aims at: the protocol list (read from the specs), addresses, targets.
    ("target", &["protocol", "secret"]),
    // Game presets (protocol and default port per game id): data over the vocabulary.
    ("games", &["target"]),
    // The async I/O layer.
    ("net", &["protocol", "status", "sync", "target"]),
    // Each protocol's dialogue.
    (
        "query",
        &["games", "net", "protocol", "secret", "status", "target"],
    ),
    // In-process servers for every protocol.
    ("simulate", &["protocol", "status", "target"]),
    // The daemon: configuration, scheduling, results, rendering, HTTP.
    // Which targets this replica polls (hashmod over names).
    ("shard", &["target"]),
    // Schema, validation, reload diffs; `config::cidr` for the allow-list.
    ("config", &["games", "secret", "shard", "target"]),
    // Targets and their latest results; `state::roster` cuts player lists down to bounded
    // per-player series.
    ("state", &["status", "sync", "target", "text"]),
    (
        "scheduler",
        &["net", "query", "state", "status", "sync", "target"],
    ),
    (
        "metrics",
        &["decimal", "shard", "state", "status", "target", "text"],
    ),
    // The running exporter (`daemon::Daemon`): configuration, scheduler (and its poller
    // thread) and state tied together, below http.
    ("daemon", &["config", "scheduler", "shard", "state", "sync"]),
    // The HTTP side, every endpoint: server and routing, /probe, /health, the landing page and
    // --web.config.file (TLS, basic auth, gzip). The web config joins reloads as a
    // daemon::Companion, so daemon never names http.
    (
        "http",
        &[
            // `[module.NAME]` and what `module=` resolves to.
            "config",
            "daemon",
            "metrics",
            "query",
            "scheduler",
            "shard",
            "state",
            "status",
            "sync",
            "target",
            "text",
        ],
    ),
    // The entry point: a daemon serving HTTP until told to stop.
    ("serve", &["config", "daemon", "http", "scheduler"]),
    (
        "demo",
        &[
            "config",
            "games",
            "scheduler",
            "secret",
            "serve",
            "simulate",
            "target",
        ],
    ),
];

/// Edges no table may allow (from, to), from the layering in lib.rs.
const WALLS: &[(&str, &str)] = &[
    // protocol reaches only the bottom vocabulary (status, secret, decimal); tokio is
    // checked apart. Its specs are what `target` reads, so it never climbs back to it.
    ("protocol", "target"),
    ("protocol", "net"),
    ("protocol", "query"),
    ("protocol", "config"),
    ("protocol", "scheduler"),
    ("protocol", "state"),
    ("protocol", "metrics"),
    ("protocol", "http"),
    ("protocol", "simulate"),
    ("protocol", "sync"),
    // metrics never reaches the polling side.
    ("metrics", "net"),
    ("metrics", "protocol"),
    ("metrics", "query"),
    ("metrics", "scheduler"),
    // http never reaches protocol or net.
    ("http", "protocol"),
    ("http", "net"),
    // simulate reaches protocol and the vocabulary only.
    ("simulate", "net"),
    ("simulate", "query"),
    ("simulate", "config"),
    ("simulate", "scheduler"),
    ("simulate", "state"),
    ("simulate", "metrics"),
    ("simulate", "http"),
    ("simulate", "sync"),
    // The vocabulary depends on nothing above it.
    ("status", "protocol"),
    ("status", "net"),
    ("status", "target"),
    ("target", "net"),
    ("target", "status"),
];

/// Edges the table forbids that the code still has, each waiting for a named piece of work.
/// Checked both ways: an edge not listed here fails, and so does a listed edge that no longer
/// occurs, so this list only shrinks.
const KNOWN_VIOLATIONS: &[(&str, &str)] = &[
    // Empty since issue 10 part 1 landed (status.rs no longer maps DecodeError and NetError
    // itself). A new entry needs a comment naming the work that will remove it.
];

/// Top-level modules whose files may not name tokio.
const NO_TOKIO: &[&str] = &["protocol", "secret", "status", "target"];

#[test]
fn layering() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut uses: BTreeMap<(String, String), String> = BTreeMap::new();
    let mut tokio = Vec::new();
    for file in rust_files(&src) {
        let rel = file.strip_prefix(&src).unwrap().to_path_buf();
        let Some(path) = module_path(&rel) else {
            continue;
        };
        let text = std::fs::read_to_string(&file).unwrap();
        let scan = scan(&text, &path);
        for to in scan.edges {
            if to != path[0] {
                let at = rel.display().to_string();
                uses.entry((path[0].clone(), to)).or_insert(at);
            }
        }
        if scan.tokio && NO_TOKIO.contains(&path[0].as_str()) {
            tokio.push(rel.display().to_string());
        }
    }
    assert!(tokio.is_empty(), "tokio named in {tokio:?}");

    let edges: BTreeSet<(String, String)> = uses.keys().cloned().collect();
    let problems = check(&edges);
    let report: Vec<String> = problems
        .iter()
        .map(|p| match p {
            Problem::Forbidden(from, to) => format!(
                "forbidden: {from} -> {to} (first in src/{}); add it to ALLOWED only if the \
                 layering in lib.rs says so",
                uses[&(from.clone(), to.clone())]
            ),
            other => format!("{other:?}"),
        })
        .collect();
    assert!(report.is_empty(), "{}", report.join("\n"));
}

/// The table keeps its own promises: it respects every wall and has no circle, so the code
/// (whose edges must all be in it, bar the known violations) has none either.
#[test]
fn table_is_walled_and_acyclic() {
    let allowed = allowed();
    for (from, to) in WALLS {
        assert!(
            !allowed.contains(&(from.to_string(), to.to_string())),
            "ALLOWED lets {from} reach {to} through a wall"
        );
    }
    assert_eq!(circle(&allowed), None);
    let modules: BTreeSet<&str> = ALLOWED.iter().map(|(m, _)| *m).collect();
    assert_eq!(modules.len(), ALLOWED.len(), "a module is listed twice");
    for (_, to) in &allowed {
        assert!(modules.contains(to.as_str()), "{to} is not a module");
    }
    // Every top-level module of src/ is in the table.
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    for file in rust_files(&src) {
        let rel = file.strip_prefix(&src).unwrap();
        if let Some(path) = module_path(rel) {
            assert!(modules.contains(path[0].as_str()), "{} is missing", path[0]);
        }
    }
}

/// The checker itself: a forbidden `use` is caught, wherever in the file and in whichever
/// form; the same text in a comment, a string or a test module is not an edge.
#[test]
fn checker_catches_forbidden_use() {
    let metrics = vec!["metrics".to_string()];
    let bad = [
        "use crate::net::Address;\n",
        "use crate::{state::Entry, protocol::Protocol};\n",
        "fn f() { let _ = crate::query::poll; }\n",
        "pub use crate::scheduler::Permits;\n",
    ];
    for (src, to) in bad.iter().zip(["net", "protocol", "query", "scheduler"]) {
        let edges: BTreeSet<(String, String)> = scan(src, &metrics)
            .edges
            .into_iter()
            .map(|t| ("metrics".to_string(), t))
            .collect();
        let problems = check(&edges);
        assert!(
            problems.contains(&Problem::Forbidden("metrics".into(), to.into())),
            "{src:?}: {problems:?}"
        );
    }
    // `super::` climbing out of a top-level module is an edge too.
    let nested = vec!["metrics".to_string(), "encode".to_string()];
    assert!(scan("use super::super::net::Address;\n", &nested)
        .edges
        .contains("net"));
    assert!(scan("use super::Kind;\n", &nested).edges.is_empty());
    // Inline modules count as one more level.
    let src = "mod inner {\n    use super::net::X;\n}\n";
    assert!(scan(src, &metrics).edges.is_empty());
    let src = "mod inner {\n    use super::super::net::X;\n}\n";
    assert!(scan(src, &metrics).edges.contains("net"));
    // Not code: comments, strings, test modules.
    let quiet = concat!(
        "// use crate::net::Address;\n",
        "/* crate::net /* nested */ crate::query */\n",
        "/// [`crate::protocol`]\n",
        "const S: &str = \"crate::net::x\";\n",
        "const R: &str = r#\"crate::\"net\"\"#;\n",
        "const C: char = '\"'; fn f<'a>(_: &'a str) {}\n",
        "#[cfg(test)]\nmod tests {\n    use crate::net::Address;\n    fn f() { {} }\n}\n",
        "#[cfg(test)]\nuse crate::query::Request;\n",
        "use crate::state::Entry;\n",
    );
    let s = scan(quiet, &metrics);
    assert_eq!(s.edges, BTreeSet::from(["state".to_string()]));
    assert!(!s.tokio);
    assert!(scan("use tokio::time::Instant;\n", &metrics).tokio);
    // A circle between allowed edges is found.
    let looped: BTreeSet<(String, String)> = [("a", "b"), ("b", "c"), ("c", "a")]
        .iter()
        .map(|(x, y)| (x.to_string(), y.to_string()))
        .collect();
    assert!(circle(&looped).is_some());
}

/// Circles between sibling submodules, each waiting for a named piece of work, as the
/// members of one strongly connected part (see [`circles`]). Checked both ways like
/// [`KNOWN_VIOLATIONS`]: a circle not listed fails, and so does a listed one that is gone or
/// has changed, so this list only shrinks.
const KNOWN_CIRCLES: &[&[&str]] = &[
    // Empty since the template work of issue 20 (runtime-free exchanges under protocol/, one
    // generic poll in query/registry.rs) removed the registry <-> pollers circle. A new entry
    // needs a comment naming the work that will remove it.
];

/// No circle between the submodules of one module, at any depth (issue 20): if
/// `metrics::encode` names `metrics::families`, `metrics::families` may not name
/// `metrics::encode`, directly or through a sibling. See [`sibling_edges`] for what counts.
#[test]
fn no_circle_inside_a_module() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = BTreeMap::new();
    for file in rust_files(&src) {
        let rel = file.strip_prefix(&src).unwrap();
        if let Some(path) = module_path(rel) {
            let text = std::fs::read_to_string(&file).unwrap();
            files.insert(path, (format!("src/{}", rel.display()), text));
        }
    }
    let report = check_circles(&sibling_edges(&files), KNOWN_CIRCLES);
    assert!(report.is_empty(), "{}", report.join("\n"));
}

/// The checker itself: a circle between siblings is found and named, at any depth and in any
/// path form; test code, a module and its own children, and a listed circle are not reported.
#[test]
fn checker_catches_circle_between_siblings() {
    let files = |list: &[(&str, &str)]| -> BTreeMap<Vec<String>, (String, String)> {
        list.iter()
            .map(|(file, text)| {
                let path = module_path(Path::new(file)).unwrap();
                (path, (format!("src/{file}"), text.to_string()))
            })
            .collect()
    };
    // metrics::a -> metrics::b through super::, back through crate:: in an expression.
    let looped = files(&[
        ("metrics/mod.rs", "mod a;\nmod b;\npub use a::X;\n"),
        ("metrics/a.rs", "use super::{b::Y, Kind};\npub struct X;\n"),
        (
            "metrics/b.rs",
            "pub struct Y;\nfn f() { let _ = crate::metrics::a::X; }\n",
        ),
    ]);
    let edges = sibling_edges(&looped);
    let report = check_circles(&edges, &[]);
    assert_eq!(report.len(), 1, "{report:?}");
    assert!(
        report[0].contains("metrics::a -> metrics::b -> metrics::a")
            && report[0].contains("src/metrics/a.rs -> src/metrics/b.rs")
            && report[0].contains("src/metrics/b.rs -> src/metrics/a.rs"),
        "{report:?}"
    );
    // Listed, it passes; listed and gone, it fails.
    assert!(check_circles(&edges, &[&["metrics::a", "metrics::b"]]).is_empty());
    let gone = check_circles(&BTreeMap::new(), &[&["metrics::a", "metrics::b"]]);
    assert_eq!(gone.len(), 1, "{gone:?}");
    // Deeper files count for the sibling they are in: protocol::x::inner -> protocol::y
    // closes a circle with protocol::y -> protocol::x.
    let deep = files(&[
        ("protocol/x.rs", "mod inner;\n"),
        ("protocol/x/inner.rs", "use super::super::y::Y;\n"),
        ("protocol/y.rs", "use super::x::X;\n"),
    ]);
    let report = check_circles(&sibling_edges(&deep), &[]);
    assert_eq!(report.len(), 1, "{report:?}");
    assert!(report[0].contains("protocol::x -> protocol::y -> protocol::x"));
    // Not a circle: one way only, test code (an item or a whole test file), a module and its
    // children both ways, and paths from another top-level module.
    let quiet = files(&[
        (
            "metrics/mod.rs",
            "mod a;\nmod b;\n#[cfg(test)]\nmod tests;\nfn f() { a::g(); }\n",
        ),
        ("metrics/a.rs", "use super::b::Y;\nuse super::Kind;\n"),
        (
            "metrics/b.rs",
            "#[cfg(test)]\nmod tests {\n    use super::super::a::X;\n}\n// crate::metrics::a\n",
        ),
        ("metrics/tests.rs", "use super::a::X;\nuse super::b::Y;\n"),
        ("net/mod.rs", "use crate::metrics::a::X;\n"),
    ]);
    let edges = sibling_edges(&quiet);
    assert_eq!(
        edges.keys().collect::<Vec<_>>(),
        [&("metrics::a".to_string(), "metrics::b".to_string())]
    );
    assert!(check_circles(&edges, &[]).is_empty());
}

/// Each circle among `edges` that `known` does not list, and each listed one that is not
/// there any more, as a line to print.
fn check_circles(edges: &BTreeMap<(String, String), String>, known: &[&[&str]]) -> Vec<String> {
    let graph: BTreeSet<(String, String)> = edges.keys().cloned().collect();
    let found = circles(&graph);
    let mut out = Vec::new();
    for part in &found {
        if known.iter().any(|k| k.iter().eq(part.iter())) {
            continue;
        }
        // One concrete circle through the part, each step with the file edge behind it.
        let inside: BTreeSet<(String, String)> = graph
            .iter()
            .filter(|(a, b)| part.contains(a) && part.contains(b))
            .cloned()
            .collect();
        let c = circle(&inside).unwrap_or_default();
        let steps: Vec<String> = c
            .windows(2)
            .map(|w| format!("\n    {}", edges[&(w[0].clone(), w[1].clone())]))
            .collect();
        out.push(format!(
            "circle: {} (all of {}); move what they share into the lower one or a new file{}",
            c.join(" -> "),
            part.join(", "),
            steps.concat()
        ));
    }
    for k in known {
        if !found.iter().any(|part| k.iter().eq(part.iter())) {
            out.push(format!(
                "known circle gone or changed: {}; update KNOWN_CIRCLES",
                k.join(", ")
            ));
        }
    }
    out
}

/// The edges between sibling submodules: `(a, b)` when a file in or under the submodule `a`
/// names an item of a file in or under its sibling `b` (`metrics::encode` and
/// `metrics::families`; `protocol::a2s::split::encode` naming `protocol::a2s::info` is
/// `protocol::a2s::split -> protocol::a2s::info`), with the first such file edge seen.
/// `files` maps each file's module path to its `src/…` name and its text.
///
/// Edges between a module and its own descendants are left out: a `mod.rs` re-exporting and
/// calling its children while they use its shared items is the usual shape in `src/` (a
/// dozen modules), not a tangle. Edges between top-level modules are [`layering`]'s
/// business. Files declared under `#[cfg(test)]` are left out with everything under them.
fn sibling_edges(
    files: &BTreeMap<Vec<String>, (String, String)>,
) -> BTreeMap<(String, String), String> {
    let mut tests: Vec<Vec<String>> = Vec::new();
    for (path, (_, text)) in files {
        for name in test_children(text) {
            let mut child = path.clone();
            child.push(name);
            tests.push(child);
        }
    }
    let mut edges = BTreeMap::new();
    for (path, (shown, text)) in files {
        if tests.iter().any(|t| path.starts_with(t)) {
            continue;
        }
        for p in scan(text, path).paths {
            let Some((to, (to_shown, _))) = node_of(&p, files) else {
                continue;
            };
            if let Some(pair) = siblings(path, to) {
                edges
                    .entry(pair)
                    .or_insert(format!("{shown} -> {to_shown}"));
            }
        }
    }
    edges
}

/// The names of the child modules a file declares under `#[cfg(test)]` (`mod tests;`).
fn test_children(text: &str) -> Vec<String> {
    let toks = tokens(&blank_non_code(text));
    let cfg_test = [
        Tok::Punct('#'),
        Tok::Punct('['),
        Tok::Ident("cfg".into()),
        Tok::Punct('('),
        Tok::Ident("test".into()),
        Tok::Punct(')'),
        Tok::Punct(']'),
    ];
    let mut out = Vec::new();
    for (i, w) in toks.windows(cfg_test.len()).enumerate() {
        if w != cfg_test {
            continue;
        }
        let mut j = i + cfg_test.len();
        if toks.get(j) == Some(&Tok::Ident("pub".into())) {
            j += 1;
        }
        if let (Some(Tok::Ident(m)), Some(Tok::Ident(name)), Some(Tok::Punct(';'))) =
            (toks.get(j), toks.get(j + 1), toks.get(j + 2))
        {
            if m == "mod" {
                out.push(name.clone());
            }
        }
    }
    out
}

/// The two sibling submodules an edge between the modules `from` and `to` runs between,
/// `None` when one is inside the other or they share no top-level module.
fn siblings(from: &[String], to: &[String]) -> Option<(String, String)> {
    let common = from.iter().zip(to).take_while(|(a, b)| a == b).count();
    if common == 0 || common == from.len() || common == to.len() {
        return None;
    }
    Some((from[..=common].join("::"), to[..=common].join("::")))
}

/// The file a path from the crate root lands in: the longest prefix of it that is a file's
/// module path (`[metrics, families, Family]` -> `[metrics, families]`).
fn node_of<'a, V>(
    path: &[String],
    files: &'a BTreeMap<Vec<String>, V>,
) -> Option<(&'a Vec<String>, &'a V)> {
    (1..=path.len())
        .rev()
        .find_map(|n| files.get_key_value(&path[..n]))
}

/// The strongly connected parts of a directed graph with more than one node: every set of
/// nodes each of which reaches every other. Sorted, each sorted.
fn circles(edges: &BTreeSet<(String, String)>) -> Vec<Vec<String>> {
    let mut next: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    for (a, b) in edges {
        next.entry(a).or_default().push(b);
    }
    let reach = |from: &str| {
        let mut seen = BTreeSet::new();
        let mut todo = vec![from];
        while let Some(n) = todo.pop() {
            for &m in next.get(n).into_iter().flatten() {
                if seen.insert(m) {
                    todo.push(m);
                }
            }
        }
        seen
    };
    let reaches: BTreeMap<&str, BTreeSet<&str>> = next.keys().map(|&n| (n, reach(n))).collect();
    let mut out: BTreeSet<Vec<String>> = BTreeSet::new();
    for (&n, r) in &reaches {
        let part: Vec<String> = r
            .iter()
            .filter(|&&m| m == n || reaches.get(m).is_some_and(|rm| rm.contains(n)))
            .map(|m| m.to_string())
            .collect();
        if part.len() > 1 {
            out.insert(part);
        }
    }
    out.into_iter().collect()
}

#[derive(Debug, PartialEq, Eq)]
enum Problem {
    /// An edge the table does not allow.
    Forbidden(String, String),
    /// A known violation that no longer occurs: delete it from the list.
    Fixed(String, String),
    /// A circle among the edges that are not known violations.
    Circle(Vec<String>),
}

fn allowed() -> BTreeSet<(String, String)> {
    ALLOWED
        .iter()
        .flat_map(|(from, tos)| tos.iter().map(|to| (from.to_string(), to.to_string())))
        .collect()
}

/// Every problem with the edges found in the code.
fn check(edges: &BTreeSet<(String, String)>) -> Vec<Problem> {
    let allowed = allowed();
    let known: BTreeSet<(String, String)> = KNOWN_VIOLATIONS
        .iter()
        .map(|(a, b)| (a.to_string(), b.to_string()))
        .collect();
    let mut out = Vec::new();
    for e in edges {
        if !allowed.contains(e) && !known.contains(e) {
            out.push(Problem::Forbidden(e.0.clone(), e.1.clone()));
        }
    }
    for e in &known {
        if !edges.contains(e) {
            out.push(Problem::Fixed(e.0.clone(), e.1.clone()));
        }
    }
    let rest: BTreeSet<(String, String)> = edges.difference(&known).cloned().collect();
    if let Some(c) = circle(&rest) {
        out.push(Problem::Circle(c));
    }
    out
}

/// One circle in a directed graph, if there is any (depth-first search).
fn circle(edges: &BTreeSet<(String, String)>) -> Option<Vec<String>> {
    let mut next: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    for (a, b) in edges {
        next.entry(a).or_default().push(b);
    }
    // 0 unvisited, 1 on the stack, 2 done.
    let mut mark: BTreeMap<&str, u8> = BTreeMap::new();
    fn visit<'a>(
        n: &'a str,
        next: &BTreeMap<&'a str, Vec<&'a str>>,
        mark: &mut BTreeMap<&'a str, u8>,
        stack: &mut Vec<&'a str>,
    ) -> Option<Vec<String>> {
        mark.insert(n, 1);
        stack.push(n);
        for &m in next.get(n).into_iter().flatten() {
            match mark.get(m).copied().unwrap_or(0) {
                1 => {
                    let from = stack.iter().position(|x| *x == m).unwrap_or(0);
                    let mut c: Vec<String> = stack[from..].iter().map(|s| s.to_string()).collect();
                    c.push(m.to_string());
                    return Some(c);
                }
                0 => {
                    if let Some(c) = visit(m, next, mark, stack) {
                        return Some(c);
                    }
                }
                _ => {}
            }
        }
        stack.pop();
        mark.insert(n, 2);
        None
    }
    let nodes: Vec<&str> = next.keys().copied().collect();
    for n in nodes {
        if mark.get(n).copied().unwrap_or(0) == 0 {
            if let Some(c) = visit(n, &next, &mut mark, &mut Vec::new()) {
                return Some(c);
            }
        }
    }
    None
}

fn rust_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut todo = vec![dir.to_path_buf()];
    while let Some(d) = todo.pop() {
        for entry in std::fs::read_dir(&d).unwrap() {
            let p = entry.unwrap().path();
            if p.is_dir() {
                todo.push(p);
            } else if p.extension().is_some_and(|e| e == "rs") {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

/// The module path of a file under `src/` (`net/udp.rs` -> `[net, udp]`); `None` for the
/// crate roots (lib.rs declares modules only; main.rs is the binary, which uses the library
/// from outside).
fn module_path(rel: &Path) -> Option<Vec<String>> {
    let mut parts: Vec<String> = rel
        .iter()
        .map(|p| p.to_string_lossy().into_owned())
        .collect();
    let last = parts.pop()?;
    let stem = last.strip_suffix(".rs")?;
    if parts.is_empty() && (stem == "lib" || stem == "main") {
        return None;
    }
    if stem != "mod" {
        parts.push(stem.to_string());
    }
    Some(parts)
}

/// What one file names.
#[derive(Debug, Default)]
struct Scan {
    /// Top-level modules reached through `crate::` or an escaping `super::` path.
    edges: BTreeSet<String>,
    /// Whether `tokio::` appears.
    tokio: bool,
    /// Every path through `crate::` or `super::`, from the crate root (a `use` group expanded
    /// into one path per leaf): `use super::families::Family;` in `metrics/encode.rs` is
    /// `[metrics, families, Family]`. [`node_of`] finds the file each one lands in. (`self::`
    /// and prefix-less paths stay inside the file or go down to its children, so they never
    /// reach a sibling.)
    paths: BTreeSet<Vec<String>>,
}

#[derive(Debug, Clone, PartialEq)]
enum Tok {
    Ident(String),
    PathSep,
    Punct(char),
}

/// Scans one file whose module path is `path`.
fn scan(text: &str, path: &[String]) -> Scan {
    let toks = without_test_items(tokens(&blank_non_code(text)));
    let mut out = Scan::default();
    // Inline modules: (name, brace depth inside them).
    let mut inline: Vec<(String, usize)> = Vec::new();
    // The module the code at hand is in: the file's path and the inline modules around it.
    let here = |inline: &[(String, usize)]| -> Vec<String> {
        let mut m = path.to_vec();
        m.extend(inline.iter().map(|(name, _)| name.clone()));
        m
    };
    let mut depth = 0usize;
    let ident = |i: usize| match toks.get(i) {
        Some(Tok::Ident(s)) => Some(s.as_str()),
        _ => None,
    };
    let is = |i: usize, t: &Tok| toks.get(i) == Some(t);
    let mut i = 0;
    while i < toks.len() {
        match &toks[i] {
            Tok::Punct('{') => depth += 1,
            Tok::Punct('}') => {
                if inline.last().map(|(_, d)| *d) == Some(depth) {
                    inline.pop();
                }
                depth = depth.saturating_sub(1);
            }
            Tok::Ident(w)
                if w == "mod" && ident(i + 1).is_some() && is(i + 2, &Tok::Punct('{')) =>
            {
                let name = ident(i + 1).unwrap_or_default().to_string();
                inline.push((name, depth + 1));
            }
            Tok::Ident(w)
                if w == "tokio"
                    && is(i + 1, &Tok::PathSep)
                    && !is(i.wrapping_sub(1), &Tok::PathSep) =>
            {
                out.tokio = true;
            }
            Tok::Ident(w)
                if w == "crate"
                    && is(i + 1, &Tok::PathSep)
                    && !is(i.wrapping_sub(1), &Tok::PathSep) =>
            {
                heads(&toks, i + 2, &mut out.edges);
                i = use_tree(&toks, i + 2, Vec::new(), &mut out.paths);
                continue;
            }
            Tok::Ident(w) if w == "super" && !is(i.wrapping_sub(1), &Tok::PathSep) => {
                let mut up = 0;
                let mut j = i;
                while ident(j) == Some("super") && is(j + 1, &Tok::PathSep) {
                    up += 1;
                    j += 2;
                }
                if up > 0 && up >= path.len() + inline.len() {
                    heads(&toks, j, &mut out.edges);
                }
                if up > 0 {
                    let mut base = here(&inline);
                    base.truncate(base.len().saturating_sub(up));
                    j = use_tree(&toks, j, base, &mut out.paths);
                }
                i = j.max(i + 1);
                continue;
            }
            _ => {}
        }
        i += 1;
    }
    out
}

/// Expands the path (or `use` tree) starting at `i` into one path per leaf, each after
/// `prefix`: `a::{b, c::{self, d}}` is `a::b`, `a::c` and `a::c::d`. A path ends at the first
/// token that is not a segment (`::<`, `(`, `as`, `;`). Returns the index after it.
fn use_tree(
    toks: &[Tok],
    mut i: usize,
    mut prefix: Vec<String>,
    out: &mut BTreeSet<Vec<String>>,
) -> usize {
    loop {
        match toks.get(i) {
            Some(Tok::Ident(s)) => {
                if s != "self" {
                    prefix.push(s.clone());
                }
                i += 1;
                if toks.get(i) == Some(&Tok::PathSep) {
                    i += 1;
                    continue;
                }
                out.insert(prefix);
                return i;
            }
            Some(Tok::Punct('{')) => {
                i += 1;
                while let Some(t) = toks.get(i) {
                    match t {
                        Tok::Punct('}') => return i + 1,
                        Tok::Punct(',') => i += 1,
                        _ => {
                            let end = use_tree(toks, i, prefix.clone(), out);
                            // Past an `as name` or anything else up to the next leaf.
                            i = end.max(i + 1);
                            while let Some(t) = toks.get(i) {
                                if matches!(t, Tok::Punct(',') | Tok::Punct('}')) {
                                    break;
                                }
                                i += 1;
                            }
                        }
                    }
                }
                return i;
            }
            _ => {
                // `*`, `::<`, or the path ended at `::` (`use super::*`): what was named so far.
                out.insert(prefix);
                return i;
            }
        }
    }
}

/// The first segment of the path at `i`, or of each path in a `{a::b, c}` group.
fn heads(toks: &[Tok], i: usize, out: &mut BTreeSet<String>) {
    match toks.get(i) {
        Some(Tok::Ident(s)) => {
            out.insert(s.clone());
        }
        Some(Tok::Punct('{')) => {
            let mut depth = 0;
            let mut expect_head = true;
            for t in &toks[i..] {
                match t {
                    Tok::Punct('{') => {
                        depth += 1;
                        expect_head = depth == 1;
                    }
                    Tok::Punct('}') => {
                        depth -= 1;
                        if depth == 0 {
                            break;
                        }
                    }
                    Tok::Punct(',') if depth == 1 => expect_head = true,
                    Tok::Ident(s) if expect_head && depth == 1 => {
                        if s != "self" {
                            out.insert(s.clone());
                        }
                        expect_head = false;
                    }
                    _ => expect_head = false,
                }
            }
        }
        _ => {}
    }
}

/// Replaces comments, string literals and char literals by spaces (newlines kept).
fn blank_non_code(text: &str) -> String {
    let c: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    let blank = |out: &mut String, s: &[char]| {
        for &ch in s {
            out.push(if ch == '\n' { '\n' } else { ' ' });
        }
    };
    let mut i = 0;
    while i < c.len() {
        let rest = &c[i..];
        if rest.starts_with(&['/', '/']) {
            let end = rest.iter().position(|&x| x == '\n').unwrap_or(rest.len());
            blank(&mut out, &rest[..end]);
            i += end;
        } else if rest.starts_with(&['/', '*']) {
            let mut depth = 0;
            let mut j = 0;
            while j < rest.len() {
                if rest[j..].starts_with(&['/', '*']) {
                    depth += 1;
                    j += 2;
                } else if rest[j..].starts_with(&['*', '/']) {
                    depth -= 1;
                    j += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    j += 1;
                }
            }
            blank(&mut out, &rest[..j.min(rest.len())]);
            i += j;
        } else if let Some(len) = raw_string(rest) {
            blank(&mut out, &rest[..len]);
            i += len;
        } else if rest[0] == '"' || (rest[0] == 'b' && rest.get(1) == Some(&'"')) {
            let start = if rest[0] == 'b' { 2 } else { 1 };
            let mut j = start;
            while j < rest.len() && rest[j] != '"' {
                j += if rest[j] == '\\' { 2 } else { 1 };
            }
            let end = (j + 1).min(rest.len());
            blank(&mut out, &rest[..end]);
            i += end;
        } else if rest[0] == '\'' {
            // A char literal ('x', '\n', '\u{1F600}') or a lifetime ('a).
            let len = if rest.get(1) == Some(&'\\') {
                rest[2..].iter().position(|&x| x == '\'').map(|p| p + 3)
            } else if rest.get(2) == Some(&'\'') {
                Some(3)
            } else {
                None
            };
            match len {
                Some(n) => {
                    blank(&mut out, &rest[..n.min(rest.len())]);
                    i += n;
                }
                None => {
                    out.push('\'');
                    i += 1;
                }
            }
        } else {
            out.push(rest[0]);
            i += 1;
        }
    }
    out
}

/// The length of a raw string literal (`r"…"`, `r#"…"#`, `br#"…"#`) starting here.
fn raw_string(s: &[char]) -> Option<usize> {
    let mut i = 0;
    if s.first() == Some(&'b') {
        i += 1;
    }
    if s.get(i) != Some(&'r') {
        return None;
    }
    i += 1;
    let hashes = s[i..].iter().take_while(|&&c| c == '#').count();
    i += hashes;
    if s.get(i) != Some(&'"') {
        return None;
    }
    i += 1;
    while i < s.len() {
        if s[i] == '"'
            && s[i + 1..]
                .iter()
                .take(hashes)
                .filter(|&&c| c == '#')
                .count()
                == hashes
        {
            return Some(i + 1 + hashes);
        }
        i += 1;
    }
    Some(s.len())
}

fn tokens(code: &str) -> Vec<Tok> {
    let c: Vec<char> = code.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < c.len() {
        let ch = c[i];
        if ch.is_alphanumeric() || ch == '_' {
            let start = i;
            while i < c.len() && (c[i].is_alphanumeric() || c[i] == '_') {
                i += 1;
            }
            // `r#ident` raw identifiers keep their name.
            out.push(Tok::Ident(c[start..i].iter().collect()));
            continue;
        }
        if ch == ':' && c.get(i + 1) == Some(&':') {
            out.push(Tok::PathSep);
            i += 2;
            continue;
        }
        if !ch.is_whitespace() {
            out.push(Tok::Punct(ch));
        }
        i += 1;
    }
    out
}

/// Drops every item under `#[cfg(test)]`: a `mod … { … }` to its closing brace, anything
/// else to its `;` or its closing brace.
fn without_test_items(toks: Vec<Tok>) -> Vec<Tok> {
    let cfg_test = |i: usize| {
        let want = [
            Tok::Punct('#'),
            Tok::Punct('['),
            Tok::Ident("cfg".into()),
            Tok::Punct('('),
            Tok::Ident("test".into()),
            Tok::Punct(')'),
            Tok::Punct(']'),
        ];
        toks.get(i..i + want.len()) == Some(&want[..])
    };
    let mut out = Vec::with_capacity(toks.len());
    let mut i = 0;
    while i < toks.len() {
        if !cfg_test(i) {
            out.push(toks[i].clone());
            i += 1;
            continue;
        }
        i += 7;
        let mut depth = 0usize;
        while i < toks.len() {
            match toks[i] {
                Tok::Punct('{') => depth += 1,
                Tok::Punct('}') => {
                    depth = depth.saturating_sub(1);
                    if depth == 0 {
                        i += 1;
                        break;
                    }
                }
                Tok::Punct(';') if depth == 0 => {
                    i += 1;
                    break;
                }
                _ => {}
            }
            i += 1;
        }
    }
    out
}
