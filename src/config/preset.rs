//! A target's `game`, `protocol` and `address` turned into what is polled: the protocol (named,
//! or the game preset's), and the address with the preset's query port when it names none.
//! An explicit port is always kept: it is the port the operator wants polled.

use std::ops::Range;

use toml::Spanned;

use super::{ConfigError, Ctx, RawTarget};
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
    let key = &|k: &str| format!("target[{i}].{k}");
    let game = t.game.as_ref().map(|g| game(ctx, key, g)).transpose()?;
    let named = t
        .protocol
        .as_ref()
        .map(|p| protocol(ctx, key, p))
        .transpose()?;
    let protocol = match (game, named) {
        (None, None) => {
            return Err(ctx.err(
                span,
                &format!("target[{i}]"),
                "missing field `protocol` (or a `game` that implies it)",
            ))
        }
        (None, Some(p)) => p,
        (Some(g), None) => g.protocol,
        (Some(g), Some(p)) if g.speaks(p) => p,
        (Some(g), Some(p)) => {
            let speaks: Vec<&str> = g.protocols().map(Protocol::as_str).collect();
            return Err(ctx.err(
                t.protocol.as_ref().map_or(span, |s| s.span()),
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
                "unknown protocol {:?} (one of: a2s, minecraft, minecraft-query, samp)",
                v.get_ref()
            ),
        )
    })
}
