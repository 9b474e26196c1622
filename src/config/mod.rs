//! The TOML configuration: schema, defaults and validation.
//!
//! Decoding happens in two steps. serde reads the file into raw structs (`schema`) whose
//! fields are [`toml::Spanned`], with `deny_unknown_fields` everywhere, so a typo is an
//! error; then `validate` turns the raw structs into a [`Config`] and checks what serde
//! cannot (durations, protocols, addresses, encodings, label names, duplicates, timeout <
//! interval), resolving game presets (`preset`) and included target files (`include`) on the
//! way. Every error is one line naming the file, the line and the key (`location` finds
//! them), e.g. `exporter.toml:12: target "eu-survival".timeout: 20s must be shorter than interval 15s`.

pub mod cidr;
mod credentials;
mod include;
mod location;
mod model;
mod module;
mod pieces;
mod preset;
mod reuse;
mod schema;
mod validate;

use std::path::Path;
use std::sync::Arc;

pub use crate::target::Target;
pub use include::{Include, MAX_FILES_PER_INCLUDE, MAX_FILE_BYTES, MAX_TARGETS};
use location::Ctx;
pub use model::{
    Config, ConfigError, Exporter, DEFAULT_HTTP_HEADER_TIMEOUT, DEFAULT_LISTEN, DEFAULT_PATH,
    PLAYER_LABELS, RESERVED_LABELS, RULE_LABELS,
};
pub use module::Module;
use schema::RawFile;

/// Reads and validates the file at `path` and the files it includes.
pub fn load(path: &Path) -> Result<Config, ConfigError> {
    reload(path, &[])
}

/// [`load`] for a running daemon: every target equal to one of `running` is that one (the
/// same `Arc`), so a reload holds new copies only of what changed (see `config/reuse.rs`).
pub fn reload(path: &Path, running: &[Arc<Target>]) -> Result<Config, ConfigError> {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| path.display().to_string());
    let running = reuse::Running::new(running);
    if let Some(config) = pieces::load_in_pieces(path, &name, pieces::PIECE_TARGETS, &running) {
        log_empty_includes(&config);
        return Ok(config);
    }
    let text = std::fs::read_to_string(path)
        .map_err(|e| ConfigError(format!("{}: cannot read: {e}", path.display())))?;
    let origin = include::Origin {
        dir: path.parent().unwrap_or(Path::new("")),
        main: Some(path),
    };
    let config = parse_in(&name, &text, Some(origin), &running)?;
    log_empty_includes(&config);
    Ok(config)
}

fn log_empty_includes(config: &Config) {
    for i in config.includes.iter().filter(|i| i.files.is_empty()) {
        tracing::info!(pattern = %i.pattern, "exporter.include: the pattern matches no files");
    }
}

/// Validates `text`; `file` names it in error messages. It cannot `include` (nothing to be
/// relative to): use [`load`] for that.
pub fn parse(file: &str, text: &str) -> Result<Config, ConfigError> {
    let none = reuse::Running::none();
    if let Some(config) = pieces::validate_in_pieces(file, text, pieces::PIECE_TARGETS, &none) {
        return Ok(config);
    }
    parse_in(file, text, None, &none)
}

fn parse_in(
    file: &str,
    text: &str,
    origin: Option<include::Origin>,
    running: &reuse::Running,
) -> Result<Config, ConfigError> {
    let raw: RawFile = pieces::decode(file, text, pieces::PIECE_TARGETS)?;
    let ctx = Ctx { file, text };
    let patterns = raw
        .exporter
        .as_ref()
        .and_then(|e| e.include.as_deref())
        .unwrap_or_default();
    let dir: &Path = origin.as_ref().map_or(Path::new(""), |o| o.dir);
    let (files, includes) = include::read(&ctx, patterns, origin)?;
    let mut included = Vec::with_capacity(files.len());
    let mut total = raw.target.len();
    for f in &files {
        let r = pieces::decode_included(&f.name, &f.text, pieces::PIECE_TARGETS)?;
        total += r.len();
        include::check_total(&ctx, patterns[0].span(), total)?;
        included.push(r);
    }
    let mut sources = vec![(ctx, raw.target.as_slice())];
    for (f, targets) in files.iter().zip(&included) {
        let ctx = Ctx {
            file: &f.name,
            text: &f.text,
        };
        sources.push((ctx, targets.as_slice()));
    }
    let mut config = validate::validate(raw.exporter.unwrap_or_default(), &sources, running, dir)?;
    config.modules = module::validate(&Ctx { file, text }, &config.exporter, &raw.module)?;
    config.includes = includes;
    Ok(config)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::target::{Address, Limits, PlayerSeries, Protocol};
    use std::time::Duration;

    fn err(text: &str) -> String {
        parse("exporter.toml", text).unwrap_err().0
    }

    const T: &str = "[[target]]\nname = \"a\"\nprotocol = \"a2s\"\naddress = \"127.0.0.1\"\n";

    /// A minimal file gets every documented default.
    #[test]
    fn defaults() {
        let c = parse("x", T).unwrap();
        assert_eq!(c.exporter.listen, "0.0.0.0:10765".parse().unwrap());
        assert_eq!(c.exporter.interval, Duration::from_secs(15));
        assert_eq!(c.exporter.timeout, Duration::from_secs(5));
        assert_eq!(c.exporter.max_concurrent_polls, 1024);
        assert_eq!(c.exporter.limits, Limits::default());
        assert_eq!(c.exporter.limits.max_challenges, 3);
        assert_eq!(c.exporter.http_header_timeout, Duration::from_secs(10));
        assert_eq!(c.exporter.shard, None);
        assert_eq!(c.targets.len(), 1);
        let t = &c.targets[0];
        assert_eq!(
            (t.interval, t.timeout),
            (c.exporter.interval, c.exporter.timeout)
        );
        assert_eq!(t.encoding, encoding_rs::WINDOWS_1252);
        assert_eq!(t.address, Address::parse("127.0.0.1").unwrap());
    }

    /// Every key is read and per-target overrides win.
    #[test]
    fn full() {
        let c = parse(
            "x",
            r#"
[exporter]
listen = "127.0.0.1:9999"
interval = "1m"
timeout = "2s"
max_concurrent_polls = 8
max_reply_bytes = 65536
max_split_packets = 4
max_challenges = 5
http_header_timeout = "3s"
probe_allowed_networks = ["10.0.0.0/8", "::1"]
shard = "1-of-3"

[[target]]
name = "survival"
protocol = "minecraft"
address = "mc.example.org:25566"
interval = "10s"
timeout = "3s"
encoding = "windows-1251"
max_reply_bytes = 4194304
labels = { region = "eu", tier = "1" }

[[target]]
name = "other"
protocol = "a2s"
address = "127.0.0.1"
max_split_packets = 9
"#,
        )
        .unwrap();
        assert_eq!(c.exporter.interval, Duration::from_secs(60));
        assert_eq!(c.exporter.max_concurrent_polls, 8);
        assert_eq!(c.exporter.limits.max_reply_bytes, 65536);
        assert_eq!(c.exporter.limits.max_split_packets, 4);
        assert_eq!(c.exporter.probe_allowed_networks.len(), 2);
        assert_eq!(
            c.exporter.shard,
            Some(crate::shard::Shard::new(1, 3).unwrap())
        );
        // The file names every target; which are polled is the daemon's business.
        assert_eq!(c.targets.len(), 2);
        let t = &c.targets[0];
        assert_eq!(t.protocol, Protocol::Minecraft);
        assert_eq!(t.interval, Duration::from_secs(10));
        assert_eq!(t.timeout, Duration::from_secs(3));
        assert_eq!(t.encoding, encoding_rs::WINDOWS_1251);
        assert_eq!(t.labels.get("region").map(String::as_str), Some("eu"));
        assert_eq!(t.limits.max_split_packets, 4);
        assert_eq!(t.limits.max_reply_bytes, 4194304);
        assert_eq!(t.limits.max_challenges, 5);
        assert_eq!(c.exporter.limits.max_challenges, 5);
        assert_eq!(c.exporter.http_header_timeout, Duration::from_secs(3));
        // The other target keeps the [exporter] reply cap and overrides only its own key.
        let o = &c.targets[1];
        assert_eq!(o.limits.max_reply_bytes, 65536);
        assert_eq!(o.limits.max_split_packets, 9);
    }

    /// Limits out of range are refused with the key that is wrong.
    #[test]
    fn limits_out_of_range() {
        let e = err(&format!("[exporter]\nmax_challenges = 0\n{T}"));
        assert!(
            e.contains("exporter.max_challenges: 0 is out of range 1..=16"),
            "{e}"
        );
        let e = err(&format!("{T}max_reply_bytes = 100000000\n"));
        assert!(
            e.contains("target \"a\".max_reply_bytes: 100000000 is out of range"),
            "{e}"
        );
        let e = err(&format!("{T}max_split_packets = 256\n"));
        assert!(
            e.contains("target \"a\".max_split_packets: 256 is out of range 1..=255"),
            "{e}"
        );
        let e = err(&format!("[exporter]\nhttp_header_timeout = \"0s\"\n{T}"));
        assert!(
            e.contains("exporter.http_header_timeout: must be greater than zero"),
            "{e}"
        );
    }

    /// An unknown key in [exporter] names the line and the key.
    #[test]
    fn unknown_exporter_key() {
        assert_eq!(
            err("[exporter]\ninterval = \"15s\"\nlisten_addr = \"x\"\n"),
            "exporter.toml:3: exporter.listen_addr: unknown field `listen_addr`, expected one of `listen`, `interval`, `timeout`, `max_concurrent_polls`, `max_reply_bytes`, `max_split_packets`, `max_challenges`, `http_header_timeout`, `probe_allowed_networks`, `include`, `shard`"
        );
    }

    /// An unknown key in a target names the target by index.
    #[test]
    fn unknown_target_key() {
        assert_eq!(
            err(&format!("{T}{T}port = 1\n").replacen("\"a\"", "\"b\"", 1)),
            "exporter.toml:9: target \"a\".port: unknown field `port`, expected one of `name`, `protocol`, `address`, `interval`, `timeout`, `encoding`, `max_reply_bytes`, `max_split_packets`, `labels`, `game`, `players`, `rules`, `proxy_protocol`, `tls`, `tls_fingerprint`, `tls_insecure`, `voice_port`, `max_players`, `username`, `password_file`, `token_file`, `api_token_file`, `code_file`, `rcon`"
        );
    }

    /// `voice_port` selects a TeamSpeak 3 or 2 virtual server; any other protocol refuses it.
    #[test]
    fn voice_port_on_teamspeak_only() {
        for protocol in ["teamspeak3", "teamspeak2"] {
            let c = parse(
                "x",
                &format!("{T}voice_port = 8800\n").replace("a2s", protocol),
            )
            .unwrap();
            assert_eq!(
                c.targets[0].voice_port.map(|p| p.get()),
                Some(8800),
                "{protocol}"
            );
        }
        let e = err(&format!("{T}voice_port = 8800\n").replace("a2s", "rfactor"));
        assert!(
            e.contains("only teamspeak3 and teamspeak2 targets select a virtual server"),
            "{e}"
        );
    }

    /// `players` and `rules`: off by default, on with the default cap, a cap of its own,
    /// the rule names in config order.
    #[test]
    fn players_and_rules() {
        let c = parse("x", T).unwrap();
        assert_eq!((c.targets[0].players, c.targets[0].rules.len()), (None, 0));
        let t = |extra: &str| parse("x", &format!("{T}{extra}")).unwrap().targets[0].clone();
        assert_eq!(
            t("players = true\n").players,
            Some(PlayerSeries { max_series: 100 })
        );
        assert_eq!(t("players = false\n").players, None);
        assert_eq!(
            t("players = { max_series = 7 }\n").players,
            Some(PlayerSeries { max_series: 7 })
        );
        assert_eq!(
            t("[target.players]\nmax_series = 1000\n").players,
            Some(PlayerSeries { max_series: 1000 })
        );
        assert_eq!(t("players = {}\n").players, Some(PlayerSeries::default()));
        assert_eq!(
            &*t("rules = [\"mp_timelimit\", \"sv_contact\"]\n").rules,
            ["mp_timelimit", "sv_contact"]
        );
    }

    /// Bad `players` and `rules` values are refused, each with its key.
    #[test]
    fn bad_players_and_rules() {
        for (extra, want) in [
            (
                "players = { max_series = 0 }\n",
                "exporter.toml:5: target \"a\".players.max_series: 0 is out of range 1..=1000",
            ),
            (
                "players = { max_series = 1001 }\n",
                "exporter.toml:5: target \"a\".players.max_series: 1001 is out of range 1..=1000",
            ),
            (
                "players = { max_series = \"10\" }\n",
                "exporter.toml:5: target \"a\".players.max_series: expected an integer, found string",
            ),
            (
                "players = { max = 10 }\n",
                "exporter.toml:5: target \"a\".players.max: unknown field `max`, expected `max_series`",
            ),
            (
                "players = \"yes\"\n",
                "exporter.toml:5: target \"a\".players: expected true, false or a table like { max_series = 100 }",
            ),
            (
                "rules = \"mp_timelimit\"\n",
                "exporter.toml:5: target \"a\".rules: invalid type: string \"mp_timelimit\", expected a sequence",
            ),
            (
                "rules = [\"a\", \"\"]\n",
                "exporter.toml:5: target \"a\".rules[1]: must be non-empty and free of control characters",
            ),
            (
                "rules = [\"a\", \"b\", \"a\"]\n",
                "exporter.toml:5: target \"a\".rules[2]: duplicate rule \"a\"",
            ),
        ] {
            assert_eq!(err(&format!("{T}{extra}")), want, "{extra}");
        }
        // `player`, `rule` and `value` stay a target's own labels unless it turns on the
        // feature whose series set them: configs written before those features still load.
        let own = "labels = { player = \"p\", rule = \"r\", value = \"v\" }\n";
        assert_eq!(
            parse("x", &format!("{T}{own}")).unwrap().targets[0]
                .labels
                .len(),
            3
        );
        assert_eq!(
            err(&format!("{T}players = true\nlabels = {{ player = \"p\" }}\n")),
            "exporter.toml:6: target \"a\".labels.player: label name \"player\" is reserved on a target with players"
        );
        assert_eq!(
            err(&format!("{T}rules = [\"a\"]\nlabels = {{ value = \"v\" }}\n")),
            "exporter.toml:6: target \"a\".labels.value: label name \"value\" is reserved on a target with rules"
        );
        let long = "r".repeat(65);
        assert_eq!(
            err(&format!("{T}rules = [\"{long}\"]\n")),
            "exporter.toml:5: target \"a\".rules[0]: longer than 64 characters"
        );
        let many: Vec<String> = (0..33).map(|i| format!("\"r{i}\"")).collect();
        assert_eq!(
            err(&format!("{T}rules = [{}]\n", many.join(", "))),
            "exporter.toml:5: target \"a\".rules: 33 names, at most 32 allowed"
        );
    }

    /// An unknown top-level table is refused.
    #[test]
    fn unknown_table() {
        assert_eq!(
            err("[exportr]\n"),
            "exporter.toml:1: unknown field `exportr`, expected one of `exporter`, `target`, `module`"
        );
    }

    /// A missing required key names the target.
    #[test]
    fn missing_key() {
        assert_eq!(
            err("[[target]]\nname = \"a\"\nprotocol = \"a2s\"\n"),
            "exporter.toml:1: target \"a\": missing field `address`"
        );
    }

    /// A wrongly typed value names its key.
    #[test]
    fn wrong_type() {
        assert_eq!(
            err("[exporter]\nmax_concurrent_polls = \"many\"\n"),
            "exporter.toml:2: exporter.max_concurrent_polls: invalid type: string \"many\", expected i64"
        );
    }

    /// Two targets with one name are refused, pointing at the second.
    #[test]
    fn duplicate_name() {
        assert_eq!(
            err(&format!("{T}{T}")),
            "exporter.toml:6: target[1].name: duplicate name \"a\" (first used at line 2)"
        );
    }

    /// A duration humantime cannot read is refused.
    #[test]
    fn bad_duration() {
        assert_eq!(
            err("[exporter]\ninterval = \"15 parsecs\"\n"),
            "exporter.toml:2: exporter.interval: invalid duration \"15 parsecs\": unknown time unit \"parsecs\", supported units: ns, us/µs, ms, sec, min, hours, days, weeks, months, years (and few variations)"
        );
        assert_eq!(
            err("[exporter]\ntimeout = \"0s\"\n"),
            "exporter.toml:2: exporter.timeout: must be greater than zero"
        );
    }

    /// A timeout not shorter than the interval is refused, per target and globally.
    #[test]
    fn timeout_not_shorter() {
        assert_eq!(
            err(&format!("{T}{T}timeout = \"20s\"\n").replacen("\"a\"", "\"b\"", 1)),
            "exporter.toml:9: target \"a\".timeout: 20s must be shorter than interval 15s"
        );
        assert_eq!(
            err("[exporter]\ninterval = \"5s\"\ntimeout = \"5s\"\n"),
            "exporter.toml:3: exporter.timeout: 5s must be shorter than interval 5s"
        );
    }

    /// An unknown protocol lists the known ones.
    #[test]
    fn unknown_protocol() {
        assert_eq!(
            err(&T.replace("a2s", "quake9")),
            format!(
                "exporter.toml:3: target \"a\".protocol: unknown protocol \"quake9\" (one of: {})",
                Protocol::names()
            )
        );
    }

    /// A bad address is refused with the reason.
    #[test]
    fn bad_address() {
        assert_eq!(
            err(&T.replace("127.0.0.1", "host:99999")),
            "exporter.toml:4: target \"a\".address: invalid address \"host:99999\": invalid port \"99999\""
        );
    }

    /// An encoding encoding_rs does not know is refused.
    #[test]
    fn bad_encoding() {
        assert_eq!(
            err(&format!("{T}encoding = \"klingon\"\n")),
            "exporter.toml:5: target \"a\".encoding: unknown encoding \"klingon\""
        );
    }

    /// Invalid, reserved and `__` label names are refused.
    #[test]
    fn bad_labels() {
        assert_eq!(
            err(&format!("{T}labels = {{ \"1x\" = \"v\" }}\n")),
            "exporter.toml:5: target \"a\".labels.1x: invalid label name \"1x\" (want [a-zA-Z_][a-zA-Z0-9_]*)"
        );
        assert_eq!(
            err(&format!("{T}labels = {{ job = \"v\" }}\n")),
            "exporter.toml:5: target \"a\".labels.job: label name \"job\" is reserved"
        );
        assert_eq!(
            err(&format!("{T}labels = {{ __x = \"v\" }}\n")),
            "exporter.toml:5: target \"a\".labels.__x: label name \"__x\" is reserved (starts with __)"
        );
    }

    /// TLS keys: plain HTTP by default, `tls = true` verifies, a pin (colons allowed) rides
    /// with the credentials, `tls_insecure` only when said; contradictions and non-HTTP
    /// protocols are refused.
    #[test]
    fn tls_keys() {
        use crate::target::TlsMode;
        let tr = "[[target]]\nname = \"t\"\nprotocol = \"terraria\"\naddress = \"127.0.0.1\"\n";
        let one = |extra: &str| parse("x", &format!("{tr}{extra}")).map(|c| c.targets[0].clone());
        assert_eq!(one("").unwrap().tls, TlsMode::Off);
        assert_eq!(one("tls = true\n").unwrap().tls, TlsMode::Verify);
        assert_eq!(one("tls_insecure = true\n").unwrap().tls, TlsMode::Insecure);
        let hex = "ab".repeat(32);
        let t = one(&format!("tls_fingerprint = \"sha256:{hex}\"\n")).unwrap();
        assert_eq!(t.tls, TlsMode::Pinned);
        assert_eq!(t.credentials.as_ref().unwrap().tls_pin, Some([0xab; 32]));
        let colons = vec!["AB"; 32].join(":");
        let t = one(&format!("tls_fingerprint = \"sha256:{colons}\"\n")).unwrap();
        assert_eq!(t.credentials.as_ref().unwrap().tls_pin, Some([0xab; 32]));
        for bad in [
            "tls_fingerprint = \"sha256:abcd\"\n".to_string(),
            format!("tls_fingerprint = \"md5:{hex}\"\n"),
            format!("tls_fingerprint = \"sha256:{hex}\"\ntls_insecure = true\n"),
            "tls = false\ntls_insecure = true\n".to_string(),
        ] {
            assert!(one(&bad).is_err(), "{bad}");
        }
        // The list is every protocol over HTTP, from the specs: a new one edits no test text.
        let http: Vec<&str> = Protocol::ALL
            .into_iter()
            .filter(|p| p.http().is_some())
            .map(Protocol::as_str)
            .collect();
        assert!(
            http.starts_with(&["terraria", "palworld", "satisfactory"]),
            "{http:?}"
        );
        assert_eq!(
            err(&format!("{T}tls = true\n")),
            format!(
                "exporter.toml:5: target \"a\".tls: only HTTP protocols ({}) use TLS settings; \
                 a2s does not",
                http.join(", ")
            )
        );
        // Satisfactory's HTTPS API: verified unless pinned or insecure; never plain.
        let sat = tr.replace("terraria", "satisfactory");
        let sat = |extra: &str| parse("x", &format!("{sat}{extra}")).map(|c| c.targets[0].clone());
        assert_eq!(sat("").unwrap().tls, TlsMode::Verify);
        assert_eq!(sat("tls_insecure = true\n").unwrap().tls, TlsMode::Insecure);
        assert!(sat("tls = false\n").is_err());
    }

    /// `proxy_protocol` on a TCP target is read; unset, there is none; with a game preset
    /// of a TCP protocol it is accepted too.
    #[test]
    fn proxy_protocol() {
        use crate::target::ProxyProtocol;
        let mc = T.replace("a2s", "minecraft");
        assert_eq!(parse("x", &mc).unwrap().targets[0].proxy_protocol, None);
        for (v, want) in [("v1", ProxyProtocol::V1), ("v2", ProxyProtocol::V2)] {
            let c = parse("x", &format!("{mc}proxy_protocol = \"{v}\"\n")).unwrap();
            assert_eq!(c.targets[0].proxy_protocol, Some(want));
        }
        let game = "[[target]]\nname = \"g\"\ngame = \"minecraft\"\naddress = \"127.0.0.1\"\nproxy_protocol = \"v2\"\n";
        let c = parse("x", game).unwrap();
        assert_eq!(c.targets[0].proxy_protocol, Some(ProxyProtocol::V2));
    }

    /// An unknown version, a UDP protocol and a value that is not a string are refused at
    /// the key's line.
    #[test]
    fn bad_proxy_protocol() {
        let mc = T.replace("a2s", "minecraft");
        assert_eq!(
            err(&format!("{mc}proxy_protocol = \"v3\"\n")),
            "exporter.toml:5: target \"a\".proxy_protocol: unknown version \"v3\" (want \"v1\" or \"v2\")"
        );
        assert_eq!(
            err(&format!("{T}\nproxy_protocol = \"v2\"\n")),
            format!(
                "exporter.toml:6: target \"a\".proxy_protocol: only TCP protocols ({}) can send a \
                 PROXY header; a2s runs over UDP",
                Protocol::tcp_names()
            )
        );
        assert_eq!(
            err(&format!("{mc}proxy_protocol = true\n")),
            "exporter.toml:5: target \"a\".proxy_protocol: invalid type: boolean `true`, expected a string"
        );
    }

    /// Bad listen addresses, networks and out-of-range numbers are refused.
    #[test]
    fn bad_exporter_values() {
        assert_eq!(
            err("[exporter]\nlisten = \"localhost\"\n"),
            "exporter.toml:2: exporter.listen: invalid socket address \"localhost\" (want IP:PORT)"
        );
        assert_eq!(
            err("[exporter]\nprobe_allowed_networks = [\"10.0.0.0/33\"]\n"),
            "exporter.toml:2: exporter.probe_allowed_networks[0]: invalid network \"10.0.0.0/33\" (want CIDR like 10.0.0.0/8)"
        );
        assert_eq!(
            err("[exporter]\nmax_split_packets = 300\n"),
            "exporter.toml:2: exporter.max_split_packets: 300 is out of range 1..=255"
        );
    }

    /// A bad exporter.shard names the key and the reason.
    #[test]
    fn bad_shard() {
        assert_eq!(
            err("[exporter]\nshard = \"3/3\"\n"),
            "exporter.toml:2: exporter.shard: shard index 3 must be below the shard count 3"
        );
        assert_eq!(
            err("[exporter]\nshard = \"one of three\"\n"),
            "exporter.toml:2: exporter.shard: invalid shard \"one of three\" (want I/N such as 0/3, or I-of-N such as 0-of-3)"
        );
        assert_eq!(
            err("[exporter]\nshard = 3\n"),
            "exporter.toml:2: exporter.shard: invalid type: integer `3`, expected a string"
        );
    }
}
