//! Unreal Engine 2 query: UT2003, UT2004, Killing Floor, Red Orchestra, Unreal II XMP and
//! the other UE2 games (`docs/protocols/unreal2.md`).
//!
//! # Format
//! ```text
//! request: 79 00 00 00 | type u8        (0 info, 1 rules, 2 players)
//! reply:   version u32 LE | type u8 | body   (see [`reply`]; UT2004 answers with 0x80)
//! ```
//! Strings are length-prefixed, 8-bit or UCS-2, with `1B R G B` colour codes ([`text`]).
//! The query port is the game port + 1 by default (7778 for UT2004's 7777).
//!
//! # Driving a poll
//! [`Unreal2`] is the poll on the shared exchange trait (the registry builds it); it
//! normalizes the [`Outcome`] with [`to_status`]. Rules and players have no count or end
//! marker, so a poll that wants them ends a quiet gap after the last datagram
//! ([`exchange`]).

pub mod exchange;
pub mod reply;
pub mod spec;
#[cfg(test)]
mod tests;
pub mod text;

use std::time::Duration;

use serde_json::{json, Map};

pub use exchange::{Outcome, Unreal2, QUIET_GAP};
pub use reply::{
    decode_reply, encode_info, encode_players, encode_rules, Body, Info, Kind, Player, Reply, Tail,
    VERSIONS,
};

use super::{DecodeError, Reader};
use crate::status::{self, Status};

/// The request header: gamedig, OpenGSQ and the server browsers send 0x79. qstat sends 0x78;
/// servers answer both with their own version.
pub const REQUEST_HEADER: [u8; 4] = [0x79, 0, 0, 0];

/// UT2004's reply version, what the simulator answers with by default.
pub const UT2004: u32 = 0x80;

/// Writes a request for one kind of reply.
pub fn encode_request(kind: Kind, out: &mut Vec<u8>) {
    out.extend_from_slice(&REQUEST_HEADER);
    out.push(kind as u8);
}

/// What a request asks for (server side). Any header is accepted, as servers do; type 3
/// ("everything", qstat's second request) is info, rules and players.
pub fn decode_request(datagram: &[u8]) -> Result<Vec<Kind>, DecodeError> {
    let mut r = Reader::new(datagram);
    r.skip(4)?;
    match r.u8()? {
        3 => Ok(vec![Kind::Info, Kind::Rules, Kind::Players]),
        b => Kind::from_byte(b)
            .map(|k| vec![k])
            .ok_or(DecodeError::Invalid("Unreal 2 request type")),
    }
}

/// Normalizes a poll. Counts are the info reply's (a negative one becomes 0); the player
/// list is what arrived. `game` is the game type class; the password comes from flag bit 0
/// when the server sent the UT2004 tail. Extras only with `detail`.
pub fn to_status(outcome: &Outcome, latency: Duration, detail: bool) -> Status {
    let info = &outcome.info;
    let count = |n: i32| u32::try_from(n).unwrap_or(0);
    let mut extras = Map::new();
    if detail {
        extras.insert("query_version".into(), json!(outcome.version));
        extras.insert("server_id".into(), json!(info.server_id));
        extras.insert("game_port".into(), json!(info.game_port));
        if let Some(tail) = &info.tail {
            extras.insert("flags".into(), json!(tail.flags));
            extras.insert("skill".into(), json!(tail.skill));
        }
        if let Some((wave, waves)) = info.waves {
            extras.insert("wave".into(), json!(wave));
            extras.insert("waves".into(), json!(waves));
        }
    }
    let players = outcome.players.as_ref().map(|list| {
        list.iter()
            .map(|p| status::Player {
                name: p.name.clone(),
                id: Some(p.id.to_string()),
                score: Some(i64::from(p.score)),
                ping: u32::try_from(p.ping).ok(),
                ..status::Player::default()
            })
            .collect()
    });
    Status {
        online: count(info.players),
        max: count(info.max_players),
        name: info.name.clone(),
        map: Some(info.map.clone()).filter(|m| !m.is_empty()),
        game: Some(info.game_type.clone()).filter(|g| !g.is_empty()),
        password: info.tail.as_ref().map(|t| t.flags & 1 != 0),
        latency,
        players,
        rules: outcome.rules.clone(),
        extras,
        ..Status::default()
    }
}
