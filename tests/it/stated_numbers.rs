//! Numbers the user-facing texts state, checked against the code that defines them (issue 32:
//! a comment or help text quoting a number must not outlive the number). Each test reads one
//! text (`exporter.example.toml`, `query --help`, docs/configuration.md, README's protocol
//! table) and compares what it says with the constant, or, for a stated range, with what
//! `config::parse` accepts at and beyond each end.

use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;

use gameserver_exporter::config::{
    self, DEFAULT_HTTP_HEADER_TIMEOUT, DEFAULT_LISTEN, MAX_FILES_PER_INCLUDE, MAX_FILE_BYTES,
    MAX_TARGETS,
};
use gameserver_exporter::protocol::spec::SOURCE_RCON_PORT;
use gameserver_exporter::protocol::teamspeak2::DEFAULT_VOICE_PORT as TS2_VOICE_PORT;
use gameserver_exporter::protocol::teamspeak3::DEFAULT_VOICE_PORT;
use gameserver_exporter::query::driver::{RESENDS, RESEND_AFTER_MIN};
use gameserver_exporter::scheduler::{BATCH, MIN_SLOTS, SLOT, SPREAD};
use gameserver_exporter::shard::MAX_SHARDS;
use gameserver_exporter::target::{
    Console, Limits, Protocol, DEFAULT_INTERVAL, DEFAULT_MAX_PLAYER_SERIES, DEFAULT_TIMEOUT,
};

const EXAMPLE: &str = "exporter.example.toml";

fn read(path: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(path);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// `text` with comment markers dropped and every run of white space one space, so a phrase
/// is found wherever the text's line breaks fall.
fn squash(text: &str) -> String {
    text.lines()
        .map(|l| l.trim_start().trim_start_matches('#'))
        .collect::<Vec<_>>()
        .join(" ")
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
}

fn assert_says(text: &str, what: &str, phrase: &str) {
    assert!(
        squash(text).contains(phrase),
        "{what} should say {phrase:?} (the value the code defines)"
    );
}

/// A target the config accepts, for the checks that add one key to it.
const TARGET: &str = "[[target]]\nname = \"a\"\nprotocol = \"a2s\"\naddress = \"127.0.0.1\"\n";

fn accepted(text: &str) -> bool {
    config::parse("stated.toml", text).is_ok()
}

/// Checks that `toml(n)` is accepted for `lo` and `hi` and refused just outside both.
fn assert_range(what: &str, (lo, hi): (i64, i64), toml: impl Fn(i64) -> String) {
    for n in [lo, hi] {
        assert!(
            accepted(&toml(n)),
            "{what}: {n} is in the stated range but refused"
        );
    }
    for n in [lo - 1, hi + 1] {
        assert!(
            !accepted(&toml(n)),
            "{what}: {n} is outside the stated range but accepted"
        );
    }
}

/// The `lo..=hi` stated in the comment lines just above the `nth` line (from 0) that sets `key`.
fn stated_range(text: &str, key: &str, nth: usize) -> (i64, i64) {
    let lines: Vec<&str> = text.lines().collect();
    let at = lines
        .iter()
        .enumerate()
        .filter(|(_, l)| l.starts_with(&format!("{key} =")))
        .nth(nth)
        .unwrap_or_else(|| panic!("{EXAMPLE}: no line {nth} setting {key}"))
        .0;
    let comment: Vec<&str> = lines[..at]
        .iter()
        .rev()
        .take_while(|l| l.starts_with('#'))
        .copied()
        .collect();
    let comment = comment.join(" ");
    let range = comment
        .split(|c: char| !(c.is_ascii_digit() || c == '.' || c == '='))
        .find_map(|w| w.trim_end_matches('.').split_once("..="))
        .unwrap_or_else(|| panic!("{EXAMPLE}: no lo..=hi above {key}: {comment}"));
    let n = |s: &str| {
        s.parse::<i64>()
            .unwrap_or_else(|e| panic!("{key}: {s:?}: {e}"))
    };
    (n(range.0), n(range.1))
}

/// The example's `[exporter]` values are the defaults, as its first lines promise ("default to
/// the values written here"): the file loaded equals a file that sets none of them.
#[test]
fn example_exporter_values_are_the_defaults() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(EXAMPLE);
    let example = config::load(&path).unwrap().exporter;
    let defaults = config::parse("defaults.toml", TARGET).unwrap().exporter;
    assert_eq!(example.listen, defaults.listen);
    assert_eq!(example.interval, defaults.interval);
    assert_eq!(example.timeout, defaults.timeout);
    assert_eq!(example.max_concurrent_polls, defaults.max_concurrent_polls);
    assert_eq!(example.limits, defaults.limits);
    assert_eq!(example.http_header_timeout, defaults.http_header_timeout);
    assert_eq!(
        example.probe_allowed_networks,
        defaults.probe_allowed_networks
    );
    // And the defaults are the named constants the rest of the code and docs refer to.
    assert_eq!(defaults.listen, DEFAULT_LISTEN.parse().unwrap());
    assert_eq!(defaults.interval, DEFAULT_INTERVAL);
    assert_eq!(defaults.timeout, DEFAULT_TIMEOUT);
    assert_eq!(defaults.limits, Limits::default());
    assert_eq!(defaults.http_header_timeout, DEFAULT_HTTP_HEADER_TIMEOUT);
}

/// Every `lo..=hi` the example states for a key is what the config accepts.
#[test]
fn example_ranges_are_what_the_config_accepts() {
    let text = read(EXAMPLE);
    for key in ["max_split_packets", "max_challenges"] {
        let exporter = |n| format!("[exporter]\n{key} = {n}\n{TARGET}");
        assert_range(key, stated_range(&text, key, 0), exporter);
    }
    // The per-target reply cap: the second `max_reply_bytes` line, in the first [[target]].
    let range = stated_range(&text, "max_reply_bytes", 1);
    assert_range("target max_reply_bytes", range, |n| {
        format!("{TARGET}max_reply_bytes = {n}\n")
    });
    let range = stated_range(&text, "players", 0);
    assert_range("players.max_series", range, |n| {
        format!("{TARGET}players = {{ max_series = {n} }}\n")
    });
}

/// The rules caps `text` states after `before` ("at most 32 names of up to 64 characters"):
/// that many names of that length pass, one name more or one character more does not.
fn assert_rule_caps(text: &str, what: &str, before: &str) {
    let squashed = squash(text);
    let phrase = format!("{before}at most ");
    let (names, chars) = squashed
        .split_once(phrase.as_str())
        .and_then(|(_, rest)| rest.split_once(" characters"))
        .and_then(|(said, _)| said.split_once(" names of up to "))
        .unwrap_or_else(|| panic!("{what} states the rules caps after {before:?}"));
    let (names, chars): (usize, usize) = (names.parse().unwrap(), chars.parse().unwrap());
    let rules = |n: usize, len: usize| {
        let list: Vec<String> = (0..n).map(|i| format!("\"{i:0>len$}\"")).collect();
        format!("{TARGET}rules = [{}]\n", list.join(", "))
    };
    assert!(
        accepted(&rules(names, chars)),
        "{what}: {names} rules of {chars} chars"
    );
    assert!(
        !accepted(&rules(names + 1, chars)),
        "{what}: {} rules",
        names + 1
    );
    assert!(
        !accepted(&rules(1, chars + 1)),
        "{what}: a rule of {} chars",
        chars + 1
    );
}

/// The example's prose about caps and pacing quotes the constants.
#[test]
fn example_prose_quotes_the_constants() {
    let text = read(EXAMPLE);
    assert_says(
        &text,
        EXAMPLE,
        &format!("publishes up to {DEFAULT_MAX_PLAYER_SERIES} players per target"),
    );
    assert_says(&text, EXAMPLE, &format!("N at most {MAX_SHARDS}."));
    let times = match RESENDS {
        1 => "once".to_string(),
        2 => "twice".to_string(),
        n => format!("{n} times"),
    };
    assert_says(
        &text,
        EXAMPLE,
        &format!(
            "resent ({times} at most, never sooner than {} ms apart)",
            RESEND_AFTER_MIN.as_millis()
        ),
    );
    assert_rule_caps(&text, EXAMPLE, "by exact name, ");
    let squashed = squash(&text);
    // Module names "(up to 64)".
    let chars: usize = squashed
        .split_once("Names: A-Z a-z 0-9 _ - (up to ")
        .and_then(|(_, rest)| rest.split_once(')'))
        .map(|(n, _)| n.parse().unwrap())
        .expect("the module comment states the name's length");
    let module = |len: usize| format!("{TARGET}[module.{}]\nprotocol = \"a2s\"\n", "m".repeat(len));
    assert!(accepted(&module(chars)), "a module name of {chars} chars");
    assert!(
        !accepted(&module(chars + 1)),
        "a module name of {} chars",
        chars + 1
    );
}

/// The example's list of default ports is every protocol's spec, and names nothing else.
#[test]
fn example_default_ports_are_the_specs() {
    let text = squash(&read(EXAMPLE));
    let list = text
        .split_once("Default ports: ")
        .and_then(|(_, rest)| rest.split_once('.'))
        .expect("the example lists default ports")
        .0;
    let mut stated = BTreeMap::new();
    for item in list.split(", ") {
        // "a2s 27015", "minecraft and minecraft-query 25565", "factorio 27015 (its RCON port)"
        let item = item.split(" (").next().unwrap_or(item);
        let words: Vec<&str> = item.split_whitespace().collect();
        let (port, ids) = words.split_last().expect("an id and a port");
        let port: u16 = port.parse().unwrap_or_else(|e| panic!("{item:?}: {e}"));
        for id in ids.iter().filter(|w| **w != "and") {
            assert!(stated.insert(id.to_string(), port).is_none(), "{id} twice");
        }
    }
    let specs: BTreeMap<String, u16> = Protocol::ALL
        .iter()
        .map(|p| (p.spec().id.to_string(), p.spec().default_port))
        .collect();
    assert_eq!(stated, specs, "{EXAMPLE}'s \"Default ports:\"");
}

/// README's protocol table: a row that states a default port states the spec's.
#[test]
fn readme_default_ports_are_the_specs() {
    let readme = read("README.md");
    for p in Protocol::ALL {
        let id = p.spec().id;
        let Some(row) = readme
            .lines()
            .find(|l| l.starts_with(&format!("| `{id}` |")))
        else {
            continue; // protocol_checklist says so
        };
        if !row.contains("default") {
            continue;
        }
        let port = p.spec().default_port.to_string();
        assert!(
            row.split(|c: char| !c.is_ascii_digit()).any(|w| w == port),
            "README's row for {p} states a default, but not the spec's port {port}"
        );
    }
}

/// `query --help` quotes the ports the code falls back to.
#[test]
fn query_help_quotes_the_constants() {
    let out = Command::new(env!("CARGO_BIN_EXE_gameserver-exporter"))
        .args(["query", "--help"])
        .output()
        .unwrap();
    assert!(out.status.success());
    let help = String::from_utf8_lossy(&out.stdout).into_owned();
    assert_says(
        &help,
        "query --help",
        &format!("{DEFAULT_VOICE_PORT} and {TS2_VOICE_PORT} unless given"),
    );
    let port = |c: Console| c.default_port().expect("a console with a port of its own");
    assert_says(
        &help,
        "query --help",
        &format!(
            "unless given: Minecraft's {}, Rust's {}, 7 Days to Die's {}, Source's {SOURCE_RCON_PORT})",
            Protocol::Minecraft.default_rcon_port(),
            port(Console::WebRcon),
            port(Console::SdtdTelnet),
        ),
    );
    let out = Command::new(env!("CARGO_BIN_EXE_gameserver-exporter"))
        .args(["demo", "--help"])
        .output()
        .unwrap();
    let help = String::from_utf8_lossy(&out.stdout).into_owned();
    let daemon_port = DEFAULT_LISTEN.rsplit(':').next().unwrap();
    assert_says(
        &help,
        "demo --help",
        &format!("[default: 127.0.0.1:{daemon_port}]"),
    );
}

/// docs/configuration.md states the listen default, the player-series default and range, and
/// the consoles' default ports as the code has them.
#[test]
fn configuration_doc_quotes_the_constants() {
    let doc = read("docs/configuration.md");
    let what = "docs/configuration.md";
    assert_says(&doc, what, &format!("(default `{DEFAULT_LISTEN}`;"));
    let squashed = squash(&doc);
    let (lo, hi) = squashed
        .split_once("{ max_series = 20 }, ")
        .and_then(|(_, rest)| rest.split_once(", default "))
        .and_then(|(range, _)| range.split_once("..="))
        .expect("the players line states a range");
    let range = (lo.parse().unwrap(), hi.parse().unwrap());
    assert_range("players.max_series", range, |n| {
        format!("{TARGET}players = {{ max_series = {n} }}\n")
    });
    assert_says(
        &doc,
        what,
        &format!("1..={hi}, default {DEFAULT_MAX_PLAYER_SERIES}"),
    );
    assert_rule_caps(&doc, what, "# ");
    assert_says(
        &doc,
        what,
        &format!(
            "`voice_port = {DEFAULT_VOICE_PORT}` (TeamSpeak 3's default; {TS2_VOICE_PORT} for TeamSpeak 2;"
        ),
    );
    let port = |c: Console| c.default_port().expect("a console with a port of its own");
    assert_says(
        &doc,
        what,
        &format!(
            "the game's RCON port (Minecraft {};",
            Protocol::Minecraft.default_rcon_port()
        ),
    );
    assert_says(
        &doc,
        what,
        &format!("`game = \"rust\"` (port {},", port(Console::WebRcon)),
    );
    assert_says(
        &doc,
        what,
        &format!("`game = \"sdtd\"` (port {})", port(Console::SdtdTelnet)),
    );
}

/// `n` with a comma between thousands, as the texts write numbers (`50,000`).
fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// The numbers (digits and commas) right after each `phrase` in `text`.
fn numbers_after(text: &str, phrase: &str) -> Vec<u64> {
    text.match_indices(phrase)
        .map(|(i, _)| {
            let rest = &text[i + phrase.len()..];
            let end = rest
                .find(|c: char| !(c.is_ascii_digit() || c == ','))
                .unwrap_or(rest.len());
            let digits: String = rest[..end].chars().filter(char::is_ascii_digit).collect();
            digits
                .parse()
                .unwrap_or_else(|e| panic!("{phrase:?} then {rest:.20?}: {e}"))
        })
        .collect()
}

/// The start grid as the texts describe it ("the first 90 % of its interval", "in batches of
/// about 128", "at least 4 batches per interval", "more when a config polls over 12,800 times
/// a second") is the scheduler's.
#[test]
fn start_grid_texts_quote_the_scheduler() {
    let batch = BATCH as u64;
    for (path, phrase) in [
        (EXAMPLE, "in batches of about "),
        ("docs/operations.md", "in batches of about "),
        ("docs/performance.md", "in batches of about "),
        ("docs/players.md", "in batches of about "),
        ("docs/metrics.md", "start batch (about "),
    ] {
        let said = numbers_after(&squash(&read(path)), phrase);
        assert!(
            !said.is_empty(),
            "{path} no longer says {phrase:?}: drop it here"
        );
        assert!(
            said.iter().all(|n| *n == batch),
            "{path}: {phrase:?} {said:?}, BATCH is {batch}"
        );
    }
    for path in [EXAMPLE, "docs/performance.md"] {
        assert_says(
            &read(path),
            path,
            &format!("(at least {MIN_SLOTS} batches per interval"),
        );
    }
    let spread = (SPREAD * 100.0).round();
    assert_says(
        &read(EXAMPLE),
        EXAMPLE,
        &format!("within the first {spread} % of its interval"),
    );
    let per_second = (BATCH / SLOT.as_secs_f64()).round() as u64;
    assert_says(
        &read("docs/operations.md"),
        "docs/operations.md",
        &format!(
            "more when a config polls over {} times a second",
            thousands(per_second)
        ),
    );
}

/// The `include` caps the example and docs/configuration.md state are the config's.
#[test]
fn include_caps_are_the_configs() {
    assert_eq!(
        MAX_FILE_BYTES % (1 << 20),
        0,
        "MAX_FILE_BYTES is stated in MiB"
    );
    let caps = format!(
        "Caps: {} files per pattern, {} MiB per file, {} targets in all.",
        thousands(MAX_FILES_PER_INCLUDE as u64),
        MAX_FILE_BYTES >> 20,
        thousands(MAX_TARGETS as u64),
    );
    for path in [EXAMPLE, "docs/configuration.md"] {
        assert_says(&read(path), path, &caps);
    }
}
