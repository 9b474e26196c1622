//! Teeworlds and DDNet server info: see `docs/protocols/teeworlds.md` for the wire format and
//! what the real servers (DDNet 16.4, Teeworlds 0.7.5) showed.
//!
//! Three dialects answer the same question:
//! - [`six`]: the 0.6 connectionless request `gie3` and its `inf3` reply (fields as
//!   NUL-terminated decimal strings, at most 16 clients), plus DDNet's extended form: the same
//!   request behind an `xe` header carrying 16 more token bits, answered by `iext` (any
//!   capacity) and, when the list does not fit, numbered `iex+` packets.
//! - [`seven`]: 0.7, a token handshake (a padded control packet, then the request carries the
//!   server's token), with the reply's numbers as [`packed`] integers.
//!
//! The dialogue (which dialect first, the handshake, reassembly under caps) is the exchange
//! in [`exchange`] (the detecting [`machine`] inside); [`to_status`] maps an [`Info`] onto the shared [`Status`].

pub mod exchange;
pub mod machine;
pub mod packed;
pub mod seven;
pub mod six;
pub mod spec;

use serde_json::{json, Map, Value};

use crate::status::{Player, Status};

/// The most clients a reply may announce or list. DDNet's largest build has 128 slots; this
/// leaves room without letting a hostile list grow without bound.
pub const MAX_CLIENTS: u32 = 256;
/// Packets of one DDNet multi-packet reply (each holds at least one client). Real servers
/// used 2 for 46 clients.
pub const MAX_PACKETS: u32 = 64;
/// Server password flag, bit 0 of `flags` in every dialect.
pub const FLAG_PASSWORD: u32 = 1;
/// 0.7 and DDNet: scores are race times (DDNet sends -9999 for "no time yet").
pub const FLAG_TIMESCORE: u32 = 2;

/// Which dialect answered.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Flavour {
    /// Plain 0.6 `inf3`: at most 16 clients listed.
    Vanilla06,
    /// DDNet's extended `iext` (+ `iex+`).
    Ddnet,
    /// 0.7 `inf3` after the token handshake.
    Seven,
}

impl Flavour {
    pub fn as_str(self) -> &'static str {
        match self {
            Flavour::Vanilla06 => "0.6",
            Flavour::Ddnet => "ddnet",
            Flavour::Seven => "0.7",
        }
    }
}

/// What a client slot is used for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ClientKind {
    Player,
    Spectator,
    /// 0.7 only (player flag bit 2).
    Bot,
}

impl ClientKind {
    pub fn as_str(self) -> &'static str {
        match self {
            ClientKind::Player => "player",
            ClientKind::Spectator => "spectator",
            ClientKind::Bot => "bot",
        }
    }
}

/// One listed client.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Client {
    pub name: String,
    pub clan: String,
    /// ISO 3166-1 numeric code; -1 is "none".
    pub country: i32,
    pub score: i32,
    pub kind: ClientKind,
}

/// A server's info, whichever dialect carried it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Info {
    pub flavour: Flavour,
    pub version: String,
    pub name: String,
    /// 0.7 only: the server's host name (empty unless the operator set one).
    pub hostname: Option<String>,
    pub map: String,
    pub game_type: String,
    /// [`FLAG_PASSWORD`], [`FLAG_TIMESCORE`].
    pub flags: u32,
    /// 0.7 only.
    pub skill_level: Option<i32>,
    /// DDNet extended only.
    pub map_crc: Option<u32>,
    /// DDNet extended only, bytes.
    pub map_size: Option<u32>,
    /// In-game players (spectators excluded).
    pub num_players: u32,
    pub max_players: u32,
    /// Connected clients: players and spectators.
    pub num_clients: u32,
    pub max_clients: u32,
    /// The clients that were listed (capped at [`MAX_CLIENTS`]; may be fewer than
    /// `num_clients`, see [`Exchange`]).
    pub clients: Vec<Client>,
}

/// Checks the counts every dialect carries before anything is reserved for them.
fn check_counts(num_players: u32, num_clients: u32, max_clients: u32) -> Result<(), DecodeError> {
    for (what, value) in [("client count", num_clients), ("max clients", max_clients)] {
        if value > MAX_CLIENTS {
            return Err(DecodeError::TooLarge {
                what,
                value: value.into(),
                limit: MAX_CLIENTS.into(),
            });
        }
    }
    if num_players > num_clients {
        return Err(DecodeError::Invalid("more players than clients"));
    }
    Ok(())
}

use super::DecodeError;

/// Normalizes an [`Info`]. `online` counts clients, spectators included (they hold a slot),
/// against `max_clients`. Players are listed when `players` is set; clans, countries, kinds
/// and the dialect's own fields go to extras only with `detail`, as for every protocol.
pub fn to_status(info: Info, players: bool, detail: bool) -> Status {
    let bots = (info.flavour == Flavour::Seven).then(|| {
        info.clients
            .iter()
            .filter(|c| c.kind == ClientKind::Bot)
            .count() as u32
    });
    let extras = if detail { extras(&info) } else { Map::new() };
    let list = (players || detail).then(|| {
        info.clients
            .iter()
            .map(|c| Player {
                name: c.name.clone(),
                score: Some(c.score.into()),
                ..Player::default()
            })
            .collect()
    });
    Status {
        // A plain 0.6 list longer than its count (DDNet et al. are refused for that): the
        // list is what was seen.
        online: info.num_clients.max(info.clients.len() as u32),
        max: info.max_clients,
        bots,
        name: info.name,
        map: Some(info.map).filter(|m| !m.is_empty()),
        game: Some(info.game_type).filter(|g| !g.is_empty()),
        version: Some(info.version).filter(|v| !v.is_empty()),
        password: Some(info.flags & FLAG_PASSWORD != 0),
        players: list,
        extras,
        ..Status::default()
    }
}

fn extras(info: &Info) -> Map<String, Value> {
    let mut e = Map::new();
    e.insert("flavour".into(), json!(info.flavour.as_str()));
    e.insert("players".into(), json!(info.num_players));
    e.insert("max_players".into(), json!(info.max_players));
    e.insert(
        "spectators".into(),
        json!(info.num_clients.saturating_sub(info.num_players)),
    );
    e.insert("timescore".into(), json!(info.flags & FLAG_TIMESCORE != 0));
    if let Some(h) = info.hostname.as_ref().filter(|h| !h.is_empty()) {
        e.insert("hostname".into(), json!(h));
    }
    if let Some(s) = info.skill_level {
        e.insert("skill_level".into(), json!(s));
    }
    if let Some(c) = info.map_crc {
        e.insert("map_crc".into(), json!(format!("{c:08x}")));
    }
    if let Some(s) = info.map_size {
        e.insert("map_size".into(), json!(s));
    }
    let clients: Vec<Value> = info
        .clients
        .iter()
        .map(|c| {
            json!({
                "name": c.name,
                "clan": c.clan,
                "country": c.country,
                "score": c.score,
                "kind": c.kind.as_str(),
            })
        })
        .collect();
    e.insert("clients".into(), Value::Array(clients));
    e
}

#[cfg(test)]
mod tests {
    use super::*;

    fn info() -> Info {
        Info {
            flavour: Flavour::Seven,
            version: "0.7.5".into(),
            name: "Tee".into(),
            hostname: Some(String::new()),
            map: "ctf2".into(),
            game_type: "CTF".into(),
            flags: FLAG_PASSWORD,
            skill_level: Some(1),
            map_crc: None,
            map_size: None,
            num_players: 1,
            max_players: 8,
            num_clients: 3,
            max_clients: 12,
            clients: vec![
                Client {
                    name: "a".into(),
                    clan: "c".into(),
                    country: 276,
                    score: 5,
                    kind: ClientKind::Player,
                },
                Client {
                    name: "b".into(),
                    clan: String::new(),
                    country: -1,
                    score: 0,
                    kind: ClientKind::Spectator,
                },
                Client {
                    name: "bot".into(),
                    clan: String::new(),
                    country: -1,
                    score: 2,
                    kind: ClientKind::Bot,
                },
            ],
        }
    }

    /// Clients (spectators and bots included) are online against max clients; 0.7 counts
    /// bots; daemon polls (no players, no detail) carry neither list nor extras.
    #[test]
    fn status_mapping() {
        let s = to_status(info(), false, false);
        assert_eq!((s.online, s.max, s.bots), (3, 12, Some(1)));
        assert_eq!(s.name, "Tee");
        assert_eq!(s.map.as_deref(), Some("ctf2"));
        assert_eq!(s.game.as_deref(), Some("CTF"));
        assert_eq!(s.version.as_deref(), Some("0.7.5"));
        assert_eq!(s.password, Some(true));
        assert_eq!(s.players, None);
        assert!(s.extras.is_empty());

        let s = to_status(info(), true, true);
        let players = s.players.unwrap();
        assert_eq!(players.len(), 3);
        assert_eq!((players[0].name.as_str(), players[0].score), ("a", Some(5)));
        assert_eq!(s.extras["flavour"], json!("0.7"));
        assert_eq!(s.extras["spectators"], json!(2));
        assert_eq!(s.extras["max_players"], json!(8));
        assert_eq!(s.extras["skill_level"], json!(1));
        assert!(
            !s.extras.contains_key("hostname"),
            "empty host name left out"
        );
        assert_eq!(
            s.extras["clients"][0],
            json!({"name": "a", "clan": "c", "country": 276, "score": 5, "kind": "player"})
        );
        assert_eq!(s.extras["clients"][2]["kind"], json!("bot"));
    }

    /// 0.6 and DDNet cannot tell bots apart: `bots` stays unknown rather than 0.
    #[test]
    fn bots_unknown_before_seven() {
        let mut i = info();
        i.flavour = Flavour::Ddnet;
        assert_eq!(to_status(i, false, false).bots, None);
    }

    /// Counts above the cap are too large; more players than clients is invalid.
    #[test]
    fn count_checks() {
        assert!(check_counts(3, 5, 64).is_ok());
        assert!(matches!(
            check_counts(0, 10_000, 64),
            Err(DecodeError::TooLarge { .. })
        ));
        assert!(matches!(
            check_counts(0, 1, 10_000),
            Err(DecodeError::TooLarge { .. })
        ));
        assert_eq!(
            check_counts(6, 5, 64),
            Err(DecodeError::Invalid("more players than clients"))
        );
    }
}
