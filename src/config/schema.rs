//! The file as serde reads it: every key, nothing validated yet. Values are
//! [`toml::Spanned`] so that validation can name the line of a bad one, and every table
//! denies unknown fields, so a typo is an error instead of a silently ignored key.

use std::collections::BTreeMap;

use serde::Deserialize;
use toml::Spanned;

use super::location;
use super::model::ConfigError;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawFile {
    #[serde(default)]
    pub(super) exporter: Option<RawExporter>,
    #[serde(default)]
    pub(super) target: Vec<Spanned<RawTarget>>,
    /// `[module.NAME]` sections (`config/module.rs`).
    #[serde(default)]
    pub(super) module: BTreeMap<String, Spanned<RawModule>>,
}

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
pub(super) struct RawExporter {
    pub(super) listen: Option<Spanned<String>>,
    pub(super) interval: Option<Spanned<String>>,
    pub(super) timeout: Option<Spanned<String>>,
    pub(super) max_concurrent_polls: Option<Spanned<i64>>,
    pub(super) max_reply_bytes: Option<Spanned<i64>>,
    pub(super) max_split_packets: Option<Spanned<i64>>,
    pub(super) max_challenges: Option<Spanned<i64>>,
    pub(super) http_header_timeout: Option<Spanned<String>>,
    pub(super) probe_allowed_networks: Option<Vec<Spanned<String>>>,
    pub(super) include: Option<Vec<Spanned<String>>>,
    pub(super) shard: Option<Spanned<String>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
// The optional keys are boxed: a target of a large fleet sets few of them, and every raw
// target lives until the whole file is validated (100,000 of them at ~470 bytes each were
// most of the exporter's peak heap at start; boxed, an absent key costs 8 bytes).
pub(super) struct RawTarget {
    pub(super) name: Spanned<String>,
    pub(super) protocol: Option<Spanned<String>>,
    pub(super) address: Spanned<String>,
    pub(super) interval: Option<Box<Spanned<String>>>,
    pub(super) timeout: Option<Box<Spanned<String>>>,
    pub(super) encoding: Option<Box<Spanned<String>>>,
    pub(super) max_reply_bytes: Option<Box<Spanned<i64>>>,
    pub(super) max_split_packets: Option<Box<Spanned<i64>>>,
    pub(super) labels: Option<Box<Spanned<BTreeMap<String, String>>>>,
    pub(super) game: Option<Box<Spanned<String>>>,
    pub(super) players: Option<Box<Spanned<toml::Value>>>,
    pub(super) rules: Option<Box<Spanned<Vec<Spanned<String>>>>>,
    pub(super) proxy_protocol: Option<Box<Spanned<String>>>,
    pub(super) tls: Option<Box<Spanned<bool>>>,
    pub(super) tls_fingerprint: Option<Box<Spanned<String>>>,
    pub(super) tls_insecure: Option<Box<Spanned<bool>>>,
    pub(super) voice_port: Option<Box<Spanned<i64>>>,
    pub(super) max_players: Option<Box<Spanned<i64>>>,
    // Credentials (`config::validate::credentials`): a login name, and files holding the
    // secrets; never the secrets themselves.
    pub(super) username: Option<Box<Spanned<String>>>,
    pub(super) password_file: Option<Box<Spanned<String>>>,
    pub(super) token_file: Option<Box<Spanned<String>>>,
    pub(super) api_token_file: Option<Box<Spanned<String>>>,
    pub(super) code_file: Option<Box<Spanned<String>>>,
    pub(super) rcon: Option<Box<Spanned<RawRcon>>>,
}

/// `rcon = { port = N, password_file = "..." }`.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawRcon {
    pub(super) port: Option<Spanned<i64>>,
    pub(super) password_file: Spanned<String>,
}

/// A `[module.NAME]` section: what `/probe?module=NAME&target=HOST:PORT` polls with. The
/// keys a target has, less those that make no sense for one probe of an address given in
/// the request (`name`, `address`, `interval`). Never add a key that names a credential or a
/// file (a password, an RCON secret, a key file): a module is applied to any address a
/// scraper sends inside `exporter.probe_allowed_networks`, so whatever it carried would be
/// handed to hosts the operator did not name. `config::module`'s tests pin this key list.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawModule {
    pub(super) game: Option<Spanned<String>>,
    pub(super) protocol: Option<Spanned<String>>,
    pub(super) timeout: Option<Spanned<String>>,
    pub(super) encoding: Option<Spanned<String>>,
    pub(super) max_reply_bytes: Option<Spanned<i64>>,
    pub(super) max_split_packets: Option<Spanned<i64>>,
    pub(super) labels: Option<Spanned<BTreeMap<String, String>>>,
    pub(super) players: Option<Spanned<toml::Value>>,
    pub(super) rules: Option<Spanned<Vec<Spanned<String>>>>,
}

impl RawTarget {
    /// This target as it reads when its text sits `by` bytes later in the file: a piece of a
    /// large file is parsed on its own, and its spans (every error message's line) are moved
    /// to where the piece is in the whole file.
    pub(super) fn shifted(self, by: usize) -> RawTarget {
        let boxed = |s: Option<Box<Spanned<String>>>| s.map(|b| Box::new(shift(*b, by)));
        let int = |s: Option<Box<Spanned<i64>>>| s.map(|b| Box::new(shift(*b, by)));
        RawTarget {
            name: shift(self.name, by),
            protocol: self.protocol.map(|s| shift(s, by)),
            address: shift(self.address, by),
            interval: boxed(self.interval),
            timeout: boxed(self.timeout),
            encoding: boxed(self.encoding),
            max_reply_bytes: int(self.max_reply_bytes),
            max_split_packets: int(self.max_split_packets),
            labels: self.labels.map(|b| Box::new(shift(*b, by))),
            game: boxed(self.game),
            players: self.players.map(|b| Box::new(shift(*b, by))),
            rules: self.rules.map(|b| {
                let outer = b.span();
                let list = b.into_inner().into_iter().map(|s| shift(s, by)).collect();
                Box::new(Spanned::new(outer.start + by..outer.end + by, list))
            }),
            proxy_protocol: boxed(self.proxy_protocol),
            tls: self.tls.map(|b| Box::new(shift(*b, by))),
            tls_fingerprint: boxed(self.tls_fingerprint),
            tls_insecure: self.tls_insecure.map(|b| Box::new(shift(*b, by))),
            voice_port: int(self.voice_port),
            max_players: int(self.max_players),
            username: boxed(self.username),
            password_file: boxed(self.password_file),
            token_file: boxed(self.token_file),
            api_token_file: boxed(self.api_token_file),
            code_file: boxed(self.code_file),
            rcon: self.rcon.map(|b| {
                let span = b.span();
                let r = b.into_inner();
                let inner = RawRcon {
                    port: r.port.map(|p| shift(p, by)),
                    password_file: shift(r.password_file, by),
                };
                Box::new(Spanned::new(span.start + by..span.end + by, inner))
            }),
        }
    }
}

/// `s` as it reads `by` bytes later in the file.
pub(super) fn shift<T>(s: Spanned<T>, by: usize) -> Spanned<T> {
    let span = s.span();
    Spanned::new(span.start + by..span.end + by, s.into_inner())
}

/// serde's reading of one file, its errors located like ours (`file:line: key: message`).
pub(super) fn decode<T: serde::de::DeserializeOwned>(
    file: &str,
    text: &str,
) -> Result<T, ConfigError> {
    toml::from_str(text).map_err(|e| location::parse_error(file, text, &e))
}
