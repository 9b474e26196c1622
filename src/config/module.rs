//! `[module.NAME]` sections: what `/probe?module=NAME&target=HOST:PORT` polls with, for
//! scrapers shaped like blackbox_exporter's (Prometheus Operator's `Probe`, the classic
//! relabelling). A module is a target without a name, an address or an interval: the game
//! or protocol, the timeout, and the keys a target has for what to fetch and how to read it.
//!
//! `module=X` is looked up in this order ([`Config::probe_module`]): a configured
//! `[module.X]`, then a protocol id, then a game preset id (or alias); `game:ID` selects the
//! game where its id is also a protocol's (`ase`: the protocol; `game:ase`: ARK). A module never carries
//! credentials or file paths (see `schema::RawModule`): it is applied to whatever address a
//! scraper sends inside `exporter.probe_allowed_networks`.

use std::collections::BTreeMap;

use toml::Spanned;

use super::location::Ctx;
pub use super::model::Module;
use super::model::{Config, ConfigError, Exporter};
use super::preset;
use super::schema::RawModule;
use super::validate::{self, RawShared, Shared};
use crate::games::Game;
use crate::target::{Address, Protocol, Target, DEFAULT_ENCODING};

/// Longest module name: it travels in every probe URL.
const MAX_NAME_CHARS: usize = 64;

impl Module {
    /// A module of the `[exporter]` defaults polling with `protocol`.
    pub fn defaults(exporter: &Exporter, protocol: Protocol, game: Option<&'static Game>) -> Self {
        Module {
            protocol,
            game,
            timeout: exporter.timeout,
            encoding: DEFAULT_ENCODING,
            labels: BTreeMap::new(),
            limits: exporter.limits,
            players: None,
            rules: Box::default(),
        }
    }

    /// The target a probe of `address` polls, named `name` (the request's `target`). A
    /// port-less address gets the game's query port, as a configured target's does; a port
    /// in the address is the port polled (for a game whose query port is not its game port,
    /// that is the query port).
    pub fn target(&self, exporter: &Exporter, name: &str, mut address: Address) -> Target {
        if let (Some(g), None) = (self.game, address.port) {
            address.port = g.port_for(self.protocol);
        }
        Target {
            timeout: self.timeout,
            encoding: self.encoding,
            labels: self.labels.clone(),
            limits: self.limits,
            game: self.game.map(|g| g.id),
            players: self.players,
            rules: self.rules.clone(),
            ..exporter.target(name, self.protocol, address)
        }
    }
}

impl Config {
    /// What `module=NAME` means: the configured `[module.NAME]`, else the protocol with that
    /// id, else the game preset with that id or alias, each with the `[exporter]` defaults;
    /// `game:ID` is always the game (a protocol id wins over a game's: [`Game::resolve`]).
    pub fn probe_module(&self, name: &str) -> Option<Module> {
        if let Some(m) = self.modules.get(name) {
            return Some(m.clone());
        }
        let (protocol, game) = Game::resolve(name)?;
        Some(Module::defaults(&self.exporter, protocol, game))
    }
}

/// Validates every `[module.NAME]` of the main file under `exporter`.
pub(super) fn validate(
    ctx: &Ctx,
    exporter: &Exporter,
    raw: &BTreeMap<String, Spanned<RawModule>>,
) -> Result<BTreeMap<String, Module>, ConfigError> {
    raw.iter()
        .map(|(name, m)| Ok((name.clone(), one(ctx, exporter, name, m)?)))
        .collect()
}

fn one(
    ctx: &Ctx,
    exporter: &Exporter,
    name: &str,
    spanned: &Spanned<RawModule>,
) -> Result<Module, ConfigError> {
    let key = |k: &str| format!("module.{name}.{k}");
    let valid = !name.is_empty()
        && name.chars().count() <= MAX_NAME_CHARS
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-'));
    if !valid {
        return Err(ctx.err(
            spanned.span(),
            &format!("module.{name}"),
            format!(
                "invalid module name {name:?} (want 1 to {MAX_NAME_CHARS} of A-Z a-z 0-9 _ -: it is sent as ?module=)"
            ),
        ));
    }
    let m = spanned.get_ref();
    let (protocol, game) = preset::protocol_and_game(
        ctx,
        &key,
        &|| format!("module.{name}"),
        spanned.span(),
        m.game.as_ref(),
        m.protocol.as_ref(),
    )?;
    let timeout = match &m.timeout {
        Some(v) => validate::duration(ctx, v, &key("timeout"))?,
        None => exporter.timeout,
    };
    let Shared {
        encoding,
        labels,
        limits,
        players,
        rules,
    } = validate::shared(
        ctx,
        &key,
        RawShared {
            encoding: m.encoding.as_ref(),
            labels: m.labels.as_ref(),
            max_reply_bytes: m.max_reply_bytes.as_ref(),
            max_split_packets: m.max_split_packets.as_ref(),
            players: m.players.as_ref(),
            rules: m.rules.as_ref(),
        },
        exporter.limits,
    )?;
    Ok(Module {
        protocol,
        game,
        timeout,
        encoding,
        labels,
        limits,
        players,
        rules: rules.into(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::parse;
    use crate::target::PlayerSeries;
    use std::time::Duration;

    const EX: &str = "[exporter]\ntimeout = \"3s\"\nprobe_allowed_networks = [\"10.0.0.0/8\"]\n";

    fn err(text: &str) -> String {
        parse("exporter.toml", text).unwrap_err().0
    }

    /// A module reads the keys a target has; absent ones are the `[exporter]`'s defaults.
    #[test]
    fn keys_and_defaults() {
        let c = parse(
            "x",
            &format!(
                "{EX}[module.community]\ngame = \"valheim\"\ntimeout = \"2s\"\nplayers = true\n\
                 rules = [\"a\"]\nlabels = {{ tier = \"free\" }}\nencoding = \"windows-1251\"\n\
                 max_reply_bytes = 4096\nmax_split_packets = 4\n\n[module.plain]\nprotocol = \"samp\"\n"
            ),
        )
        .unwrap();
        let m = &c.modules["community"];
        assert_eq!(m.protocol, Protocol::A2s);
        assert_eq!(m.game.map(|g| g.id), Some("valheim"));
        assert_eq!(m.timeout, Duration::from_secs(2));
        assert_eq!(m.players, Some(PlayerSeries::default()));
        assert_eq!(&*m.rules, ["a"]);
        assert_eq!(m.labels["tier"], "free");
        assert_eq!(m.encoding, encoding_rs::WINDOWS_1251);
        assert_eq!(
            (m.limits.max_reply_bytes, m.limits.max_split_packets),
            (4096, 4)
        );
        assert_eq!(
            c.modules["plain"],
            Module::defaults(&c.exporter, Protocol::Samp, None)
        );
        assert_eq!(c.modules["plain"].timeout, Duration::from_secs(3));
        assert!(c.targets.is_empty());
    }

    /// `module=X`: the configured section first, then a protocol id, then a game id or alias.
    #[test]
    fn resolution_order() {
        let c = parse(
            "x",
            &format!("{EX}[module.a2s]\nprotocol = \"a2s\"\nplayers = true\n"),
        )
        .unwrap();
        assert!(c.probe_module("a2s").unwrap().players.is_some());
        let samp = c.probe_module("samp").unwrap();
        assert_eq!((samp.protocol, samp.game), (Protocol::Samp, None));
        let cs2 = c.probe_module("cs2").unwrap();
        assert_eq!(
            (cs2.protocol, cs2.game.map(|g| g.id)),
            (Protocol::A2s, Some("counterstrike2"))
        );
        assert_eq!(c.probe_module("quake9"), None);
    }

    /// The target a module polls: the game's query port for a port-less address, an
    /// explicit port kept, the request's `target` as its name, the module's settings.
    #[test]
    fn targets_from_modules() {
        let c = parse("x", EX).unwrap();
        let valheim = c.probe_module("valheim").unwrap();
        let t = valheim.target(&c.exporter, "vh", Address::parse("10.0.0.5").unwrap());
        assert_eq!(t.address.to_string(), "10.0.0.5:2457");
        assert_eq!((t.name.as_str(), t.game), ("vh", Some("valheim")));
        let t = valheim.target(&c.exporter, "vh", Address::parse("10.0.0.5:2456").unwrap());
        assert_eq!(t.address.port, Some(2456));
        // A game on its protocol's default port leaves the address port-less.
        let cs2 = c.probe_module("cs2").unwrap();
        let t = cs2.target(&c.exporter, "c", Address::parse("10.0.0.5").unwrap());
        assert_eq!(t.address.port, None);
        assert_eq!(t.timeout, Duration::from_secs(3));
    }

    /// Every error names the file, the line and `module.NAME.key`.
    #[test]
    fn errors_are_located() {
        for (body, want) in [
            (
                "[module.x]\ntimeout = \"0s\"\nprotocol = \"a2s\"\n",
                "exporter.toml:5: module.x.timeout: must be greater than zero",
            ),
            (
                "[module.x]\nprotocol = \"a2s\"\nplayers = { max_series = 0 }\n",
                "exporter.toml:6: module.x.players.max_series: 0 is out of range 1..=1000",
            ),
            (
                "[module.x]\nprotocol = \"quake9\"\n",
                "exporter.toml:5: module.x.protocol: unknown protocol \"quake9\" (one of: {protocols})",
            ),
            (
                "[module.x]\ngame = \"rust\"\nprotocol = \"samp\"\n",
                "exporter.toml:6: module.x.protocol: \"samp\" does not match game \"rust\" (Rust is polled with a2s); drop one of the two",
            ),
            (
                "[module.x]\ngame = \"nope\"\n",
                "exporter.toml:5: module.x.game: unknown game \"nope\" (`gameserver-exporter games` lists them)",
            ),
            (
                "[module.x]\ntimeout = \"1s\"\n",
                "exporter.toml:4: module.x: missing field `protocol` (or a `game` that implies it)",
            ),
            (
                "[module.x]\nprotocol = \"a2s\"\nlabels = { job = \"j\" }\n",
                "exporter.toml:6: module.x.labels.job: label name \"job\" is reserved",
            ),
            (
                "[module.x]\nprotocol = \"a2s\"\nmax_reply_bytes = 1\n",
                "exporter.toml:6: module.x.max_reply_bytes: 1 is out of range 1024..=67108864",
            ),
            (
                "[module.x]\nprotocol = \"a2s\"\nrules = [\"a\", \"a\"]\n",
                "exporter.toml:6: module.x.rules[1]: duplicate rule \"a\"",
            ),
            (
                "[module.\"a b\"]\nprotocol = \"a2s\"\n",
                "exporter.toml:4: module.a b: invalid module name \"a b\" (want 1 to 64 of A-Z a-z 0-9 _ -: it is sent as ?module=)",
            ),
        ] {
            // The list of protocols is the vocabulary's, whatever it holds.
            let want = want.replace("{protocols}", &crate::target::Protocol::names());
            assert_eq!(err(&format!("{EX}{body}")), want, "{body}");
        }
        // The list of ids is the vocabulary's, whatever protocols there are.
        assert_eq!(
            err(&format!("{EX}[module.x]\nprotocol = \"quake9\"\n")),
            format!(
                "exporter.toml:5: module.x.protocol: unknown protocol \"quake9\" (one of: {})",
                Protocol::names()
            )
        );
        assert!(Protocol::names().starts_with("a2s, minecraft, minecraft-query, "));
    }

    /// The commented `[module.example]` in exporter.example.toml is valid once uncommented.
    #[test]
    fn example_module_is_valid() {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/exporter.example.toml");
        let text = std::fs::read_to_string(path).unwrap();
        let section: Vec<&str> = text
            .lines()
            .skip_while(|l| *l != "# [module.example]")
            .take_while(|l| l.starts_with("# "))
            .map(|l| &l[2..])
            .collect();
        assert!(section.len() > 2, "{section:?}");
        let c = parse("x", &format!("{EX}{}\n", section.join("\n"))).unwrap();
        let m = &c.modules["example"];
        assert_eq!(m.game.map(|g| g.id), Some("valheim"));
        assert!(m.players.is_some());
    }

    /// serde's errors in a module are located like a target's: the line and `module.NAME.key`.
    /// The accepted keys are pinned here: a key naming a credential or a secret file must never
    /// join them (a module applies to any address a scraper sends).
    #[test]
    fn unknown_keys() {
        assert_eq!(
            err(&format!("{EX}[module.x]\nprotocol = \"a2s\"\npassword_file = \"/etc/shadow\"\n")),
            "exporter.toml:6: module.x.password_file: unknown field `password_file`, expected one of `game`, `protocol`, `timeout`, `encoding`, `max_reply_bytes`, `max_split_packets`, `labels`, `players`, `rules`"
        );
        assert_eq!(
            err(&format!("{EX}[module.x]\nprotocol = \"a2s\"\naddress = \"10.0.0.1\"\n")),
            "exporter.toml:6: module.x.address: unknown field `address`, expected one of `game`, `protocol`, `timeout`, `encoding`, `max_reply_bytes`, `max_split_packets`, `labels`, `players`, `rules`"
        );
        assert_eq!(
            err(&format!(
                "{EX}[module.x]\nprotocol = \"a2s\"\n[module.x.players]\nmax_series = 0\n"
            )),
            "exporter.toml:6: module.x.players.max_series: 0 is out of range 1..=1000"
        );
    }
}
