//! The `qg` answer (the game's settings and team sizes) and the mapping of a whole reply
//! onto [`Status`].

use std::time::Duration;

use serde_json::{json, Map};

use super::{Record, COMPUTER_PLAYER, OBSERVER_TEAM};
use crate::protocol::{DecodeError, Reader};
use crate::status::{Player, Status};

/// Teams whose sizes and maxima `qg` carries: rogue, red, green, blue, purple, observer.
pub const TEAMS: [&str; 6] = ["rogue", "red", "green", "blue", "purple", "observer"];

/// The `qg` body's length: 22 u16.
pub const GAME_LEN: usize = 44;

/// Game styles (`GameType`).
const STYLES: [&str; 4] = ["Team FFA", "Capture the Flag", "Open FFA", "Rabbit Chase"];

/// Option bits (`GameOptions`) and the names rules show them by.
const OPTIONS: [(u16, &str); 8] = [
    (0x0002, "superflags"),
    (0x0008, "jumping"),
    (0x0010, "inertia"),
    (0x0020, "ricochet"),
    (0x0040, "shaking"),
    (0x0080, "antidote"),
    (0x0100, "handicap"),
    (0x0400, "no_team_kills"),
];

/// The `qg` answer, field by field.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Game {
    pub style: u16,
    pub options: u16,
    /// Slots of the playing teams (observers not counted).
    pub max_players: u16,
    pub max_shots: u16,
    /// Per [`TEAMS`].
    pub team_sizes: [u16; 6],
    pub team_max: [u16; 6],
    pub shake_wins: u16,
    /// Tenths of a second.
    pub shake_timeout: u16,
    pub max_player_score: u16,
    pub max_team_score: u16,
    /// Seconds; 0 without a time limit.
    pub time_limit: u16,
    pub time_elapsed: u16,
}

/// Reads the `qg` body; bytes past the 44 are ignored.
pub fn decode_game(body: &[u8]) -> Result<Game, DecodeError> {
    let mut r = Reader::new(body);
    let mut g = Game {
        style: r.u16_be()?,
        options: r.u16_be()?,
        max_players: r.u16_be()?,
        max_shots: r.u16_be()?,
        ..Game::default()
    };
    for size in &mut g.team_sizes {
        *size = r.u16_be()?;
    }
    for max in &mut g.team_max {
        *max = r.u16_be()?;
    }
    g.shake_wins = r.u16_be()?;
    g.shake_timeout = r.u16_be()?;
    g.max_player_score = r.u16_be()?;
    g.max_team_score = r.u16_be()?;
    g.time_limit = r.u16_be()?;
    g.time_elapsed = r.u16_be()?;
    Ok(g)
}

/// Writes the `qg` body (server side).
pub fn encode_game(g: &Game, out: &mut Vec<u8>) {
    let head = [g.style, g.options, g.max_players, g.max_shots];
    let tail = [
        g.shake_wins,
        g.shake_timeout,
        g.max_player_score,
        g.max_team_score,
        g.time_limit,
        g.time_elapsed,
    ];
    for v in head
        .iter()
        .chain(&g.team_sizes)
        .chain(&g.team_max)
        .chain(&tail)
    {
        out.extend_from_slice(&v.to_be_bytes());
    }
}

/// The game style's name, or its number when unknown.
pub fn style_name(style: u16) -> String {
    STYLES
        .get(usize::from(style))
        .map_or_else(|| format!("style {style}"), |s| (*s).to_string())
}

/// The names of the options set, comma-separated, in bit order.
pub fn option_names(options: u16) -> String {
    let names: Vec<&str> = OPTIONS
        .iter()
        .filter(|(bit, _)| options & bit != 0)
        .map(|(_, name)| *name)
        .collect();
    names.join(",")
}

/// The rules a target may pick: the game's settings as `qg` states them.
fn rules(g: &Game) -> Vec<(String, String)> {
    let mut out = vec![
        ("style".to_string(), style_name(g.style)),
        ("options".into(), option_names(g.options)),
        ("max_shots".into(), g.max_shots.to_string()),
        ("max_player_score".into(), g.max_player_score.to_string()),
        ("max_team_score".into(), g.max_team_score.to_string()),
        ("time_limit".into(), g.time_limit.to_string()),
        ("time_elapsed".into(), g.time_elapsed.to_string()),
    ];
    for (team, max) in TEAMS.iter().zip(g.team_max) {
        out.push((format!("max_{team}"), max.to_string()));
    }
    out
}

/// Maps the `qg` answer and the `ap` records onto [`Status`]: online the players on a
/// playing team (robots included, observers not: bzfs's `max-players` leaves them out
/// too), max `max-players`, bots the robots among them, game the style, version the
/// protocol version. BZFlag's query carries no server name and no map name. The list,
/// when asked for, is the same players, score wins minus losses.
pub fn to_status(
    game: &Game,
    records: &[Record],
    version: &str,
    latency: Duration,
    want: (bool, bool, bool),
) -> Status {
    let (players, want_rules, detail) = want;
    let playing: Vec<&Record> = records.iter().filter(|p| p.team != OBSERVER_TEAM).collect();
    let count = |n: usize| u32::try_from(n).unwrap_or(u32::MAX);
    let bots = playing.iter().filter(|p| p.kind == COMPUTER_PLAYER).count();
    let mut out = Status {
        online: count(playing.len()),
        max: u32::from(game.max_players),
        bots: Some(count(bots)),
        game: Some(style_name(game.style)),
        version: Some(version.to_string()).filter(|v| !v.is_empty()),
        latency,
        ..Status::default()
    };
    if players {
        out.players = Some(
            playing
                .iter()
                .map(|p| Player {
                    name: p.callsign.clone(),
                    id: Some(p.id.to_string()),
                    score: Some(i64::from(p.wins) - i64::from(p.losses)),
                    ..Player::default()
                })
                .collect(),
        );
    }
    if want_rules {
        out.rules = Some(rules(game));
    }
    if detail {
        let mut extras = Map::new();
        let observers = records.len() - playing.len();
        extras.insert("observers".into(), json!(observers));
        extras.insert("observers_max".into(), json!(game.team_max[5]));
        extras.insert("max_shots".into(), json!(game.max_shots));
        extras.insert("options".into(), json!(option_names(game.options)));
        extras.insert("time_limit_seconds".into(), json!(game.time_limit));
        extras.insert("time_elapsed_seconds".into(), json!(game.time_elapsed));
        out.extras = extras;
    }
    out
}
