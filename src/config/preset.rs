//! A target's `game`, `protocol` and `address` turned into what is polled: the protocol (named,
//! or the game preset's), and the address with the preset's query port when it names none.
//! An explicit port is always kept: it is the port the operator wants polled.

use std::ops::Range;

use toml::Spanned;

use super::location::{target_key, Ctx};
use super::model::ConfigError;
use super::schema::RawTarget;
use crate::games::Game;
use crate::target::{Address, Protocol};

/// What a target polls.
pub(super) struct Resolved {
    pub protocol: Protocol,
    pub address: Address,
    pub game: Option<&'static Game>,
}

/// Target `i` of its file; `span` is its table's, for a target that names neither protocol
/// nor game.
pub(super) fn resolve(
    ctx: &Ctx,
    i: usize,
    span: Range<usize>,
    t: &RawTarget,
) -> Result<Resolved, ConfigError> {
    let named = target_key(i, Some(t.name.get_ref()));
    let key = &|k: &str| format!("{named}.{k}");
    let (protocol, game) = protocol_and_game(
        ctx,
        key,
        &|| named.clone(),
        span,
        t.game.as_deref(),
        t.protocol.as_ref(),
    )?;
    let mut address = Address::parse(t.address.get_ref()).map_err(|e| {
        ctx.err(
            t.address.span(),
            &key("address"),
            format!("invalid address {:?}: {e}", t.address.get_ref()),
        )
    })?;
    if let (Some(g), None) = (game, address.port) {
        address.port = g.port_for(protocol);
    }
    Ok(Resolved {
        protocol,
        address,
        game,
    })
}

/// The protocol polled and the game preset, from a table's `game` and `protocol` keys (a
/// `[[target]]` or a `[module.NAME]`); `table` and `span` name the table when it has neither.
pub(super) fn protocol_and_game(
    ctx: &Ctx,
    key: &dyn Fn(&str) -> String,
    table: &dyn Fn() -> String,
    span: Range<usize>,
    game_key: Option<&Spanned<String>>,
    protocol_key: Option<&Spanned<String>>,
) -> Result<(Protocol, Option<&'static Game>), ConfigError> {
    let game = game_key.map(|g| game(ctx, key, g)).transpose()?;
    let named = protocol_key.map(|p| protocol(ctx, key, p)).transpose()?;
    let protocol = match (game, named) {
        (None, None) => {
            return Err(ctx.err(
                span,
                &table(),
                "missing field `protocol` (or a `game` that implies it)",
            ))
        }
        (None, Some(p)) => p,
        (Some(g), None) => g.protocol,
        (Some(g), Some(p)) if g.speaks(p) => p,
        (Some(g), Some(p)) => {
            let speaks: Vec<&str> = g.protocols().map(Protocol::as_str).collect();
            return Err(ctx.err(
                protocol_key.map_or(span, |s| s.span()),
                &key("protocol"),
                format!(
                    "{:?} does not match game {:?} ({} is polled with {}); drop one of the two",
                    p.as_str(),
                    g.id,
                    g.name,
                    speaks.join(" or ")
                ),
            ));
        }
    };
    Ok((protocol, game))
}

fn game(
    ctx: &Ctx,
    key: &dyn Fn(&str) -> String,
    v: &Spanned<String>,
) -> Result<&'static Game, ConfigError> {
    Game::find(v.get_ref()).ok_or_else(|| {
        ctx.err(
            v.span(),
            &key("game"),
            format!(
                "unknown game {:?} (`gameserver-exporter games` lists them)",
                v.get_ref()
            ),
        )
    })
}

fn protocol(
    ctx: &Ctx,
    key: &dyn Fn(&str) -> String,
    v: &Spanned<String>,
) -> Result<Protocol, ConfigError> {
    Protocol::from_name(v.get_ref()).ok_or_else(|| {
        ctx.err(
            v.span(),
            &key("protocol"),
            format!(
                "unknown protocol {:?} (one of: {})",
                v.get_ref(),
                Protocol::names()
            ),
        )
    })
}

#[cfg(test)]
mod tests {
    use crate::config::{parse, Target};
    use crate::target::{Address, Protocol};

    fn one(body: &str) -> Target {
        let c = parse(
            "exporter.toml",
            &format!("[[target]]\nname = \"a\"\n{body}"),
        )
        .unwrap();
        std::sync::Arc::unwrap_or_clone(c.targets.into_iter().next().unwrap())
    }

    fn err(body: &str) -> String {
        parse(
            "exporter.toml",
            &format!("[[target]]\nname = \"a\"\n{body}"),
        )
        .unwrap_err()
        .0
    }

    /// Valheim without a port polls game port + 1; with one, exactly that port.
    #[test]
    fn valheim_default_and_explicit_port() {
        let t = one("game = \"valheim\"\naddress = \"vh.example.org\"\n");
        assert_eq!(t.protocol, Protocol::A2s);
        assert_eq!(t.address, Address::parse("vh.example.org:2457").unwrap());
        assert_eq!(t.game, Some("valheim"));
        let t = one("game = \"valheim\"\naddress = \"vh.example.org:2456\"\n");
        assert_eq!(t.address.port, Some(2456));
    }

    /// A game on its protocol's default port leaves the address port-less, so the target is
    /// the same job as with `protocol` (Minecraft keeps its SRV lookup).
    #[test]
    fn default_port_games_change_nothing() {
        let by_game = one("game = \"css\"\naddress = \"cs.example.org\"\n");
        let by_protocol = one("protocol = \"a2s\"\naddress = \"cs.example.org\"\n");
        assert_eq!(
            Target {
                game: None,
                ..by_game
            },
            by_protocol
        );
        let mc = one("game = \"minecraft\"\naddress = \"mc.example.org\"\n");
        assert_eq!((mc.protocol, mc.address.port), (Protocol::Minecraft, None));
    }

    /// `protocol` may pick another protocol the game speaks; aliases resolve to the id.
    #[test]
    fn agreeing_protocol_and_aliases() {
        let t = one("game = \"minecraft\"\nprotocol = \"minecraft-query\"\naddress = \"mc\"\n");
        assert_eq!(t.protocol, Protocol::MinecraftQuery);
        let t = one("game = \"rust\"\nprotocol = \"a2s\"\naddress = \"r\"\n");
        assert_eq!((t.protocol, t.address.port), (Protocol::A2s, Some(28015)));
        assert_eq!(
            one("game = \"cs2\"\naddress = \"c\"\n").game,
            Some("counterstrike2")
        );
        let t = one("game = \"samp\"\naddress = \"s\"\n");
        assert_eq!((t.protocol, t.game), (Protocol::Samp, Some("gtasam")));
    }

    /// A protocol the game does not speak is refused, naming what it speaks.
    #[test]
    fn disagreeing_protocol_refused() {
        assert_eq!(
            err("game = \"rust\"\nprotocol = \"samp\"\naddress = \"r\"\n"),
            "exporter.toml:4: target \"a\".protocol: \"samp\" does not match game \"rust\" (Rust is polled with a2s); drop one of the two"
        );
        assert_eq!(
            err("protocol = \"a2s\"\ngame = \"minecraft\"\naddress = \"m\"\n"),
            "exporter.toml:3: target \"a\".protocol: \"a2s\" does not match game \"minecraft\" (Minecraft: Java Edition is polled with minecraft or minecraft-query); drop one of the two"
        );
    }

    /// An unknown game, or neither game nor protocol, is refused.
    #[test]
    fn unknown_or_missing() {
        assert_eq!(
            err("game = \"quake9\"\naddress = \"q\"\n"),
            "exporter.toml:3: target \"a\".game: unknown game \"quake9\" (`gameserver-exporter games` lists them)"
        );
        assert_eq!(
            err("address = \"q\"\n"),
            "exporter.toml:1: target \"a\": missing field `protocol` (or a `game` that implies it)"
        );
        // An unknown protocol keeps its message when a game is named too.
        assert_eq!(
            err("game = \"rust\"\nprotocol = \"quake9\"\naddress = \"q\"\n"),
            format!(
                "exporter.toml:4: target \"a\".protocol: unknown protocol \"quake9\" (one of: {})",
                Protocol::names()
            )
        );
    }
}
