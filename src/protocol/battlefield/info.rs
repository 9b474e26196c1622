//! The words of the three answers, read defensively: `serverInfo` differs between Bad
//! Company 2, BF3, BF4 and Hardline after its fixed head, and its team-score block is as long
//! as its own count says, so every field is read by position from what came, never assumed.

use crate::protocol::DecodeError;
use crate::status::Player;

/// Teams a `serverInfo` may list (the games have 2 to 4; a squad-rush variant 2).
pub const MAX_TEAMS: usize = 16;
/// Fields a `listPlayers` header may name (BF4 sends 10).
pub const MAX_FIELDS: usize = 32;
/// A count no real server reaches (BF4's largest is 64 plus spectators and commanders).
pub const MAX_COUNT: u32 = 1_000;

/// What `serverInfo` says.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ServerInfo {
    pub name: String,
    pub online: u32,
    pub max: u32,
    pub mode: String,
    pub map: String,
    pub rounds_played: u32,
    pub rounds_total: u32,
    pub team_scores: Vec<f64>,
    pub target_score: i64,
    pub online_state: String,
    pub ranked: Option<bool>,
    pub punkbuster: Option<bool>,
    pub password: Option<bool>,
    pub uptime: Option<u64>,
    pub round_time: Option<u64>,
    /// The game address (`IP:port`) the server reports.
    pub address: Option<String>,
    pub punkbuster_version: Option<String>,
    pub join_queue: Option<bool>,
    pub region: Option<String>,
    pub ping_site: Option<String>,
    pub country: Option<String>,
}

fn status_ok(words: &[String]) -> Result<&[String], DecodeError> {
    match words.split_first() {
        Some((first, rest)) if first == "OK" => Ok(rest),
        Some(_) => Err(DecodeError::Invalid("Frostbite answer (not OK)")),
        None => Err(DecodeError::Invalid("Frostbite answer (no words)")),
    }
}

struct Words<'a> {
    words: &'a [String],
    at: usize,
}

impl<'a> Words<'a> {
    fn next(&mut self, what: &'static str) -> Result<&'a str, DecodeError> {
        let w = self.words.get(self.at).ok_or(DecodeError::Invalid(what))?;
        self.at += 1;
        Ok(w)
    }

    fn opt(&mut self) -> Option<&'a str> {
        let w = self.words.get(self.at)?;
        self.at += 1;
        Some(w)
    }

    fn count(&mut self, what: &'static str, max: u32) -> Result<u32, DecodeError> {
        let n: u32 = self
            .next(what)?
            .trim()
            .parse()
            .map_err(|_| DecodeError::Invalid(what))?;
        if n > max {
            return Err(DecodeError::TooLarge {
                what,
                value: n.into(),
                limit: max.into(),
            });
        }
        Ok(n)
    }
}

fn flag(w: Option<&str>) -> Option<bool> {
    match w? {
        "true" => Some(true),
        "false" => Some(false),
        _ => None,
    }
}

/// Looks like the `IP:port` word (BC2 puts its game mod and a map-pack word before it).
fn is_address(w: &str) -> bool {
    w.rsplit_once(':')
        .is_some_and(|(host, port)| !host.is_empty() && port.parse::<u16>().is_ok())
}

/// The words of a `serverInfo` answer, `OK` first.
pub fn decode_server_info(words: &[String]) -> Result<ServerInfo, DecodeError> {
    let mut w = Words {
        words: status_ok(words)?,
        at: 0,
    };
    let mut info = ServerInfo {
        name: w.next("Frostbite server name")?.to_string(),
        online: w.count("Frostbite player count", MAX_COUNT)?,
        max: w.count("Frostbite max player count", MAX_COUNT)?,
        mode: w.next("Frostbite game mode")?.to_string(),
        map: w.next("Frostbite map")?.to_string(),
        rounds_played: w.count("Frostbite rounds played", u32::MAX)?,
        rounds_total: w.count("Frostbite rounds total", u32::MAX)?,
        ..ServerInfo::default()
    };
    let teams = w.count("Frostbite team count", MAX_TEAMS as u32)?;
    for _ in 0..teams {
        let score: f64 = w
            .next("Frostbite team score")?
            .trim()
            .parse()
            .map_err(|_| DecodeError::Invalid("Frostbite team score"))?;
        info.team_scores.push(score);
    }
    info.target_score = w
        .next("Frostbite target score")?
        .trim()
        .parse()
        .map_err(|_| DecodeError::Invalid("Frostbite target score"))?;
    info.online_state = w.next("Frostbite online state")?.to_string();
    // From here on the games differ; each field is optional.
    info.ranked = flag(w.opt());
    info.punkbuster = flag(w.opt());
    info.password = flag(w.opt());
    info.uptime = w.opt().and_then(|s| s.trim().parse().ok());
    info.round_time = w.opt().and_then(|s| s.trim().parse().ok());
    // BC2 has a game mod and a map pack before the address: look two words ahead at most.
    let rest = &w.words[w.at.min(w.words.len())..];
    let skip = rest.iter().take(3).position(|s| is_address(s));
    if let Some(skip) = skip {
        w.at += skip;
        info.address = w.opt().map(str::to_string);
        info.punkbuster_version = w.opt().map(str::to_string);
        info.join_queue = flag(w.opt());
        info.region = w.opt().map(str::to_string);
        info.ping_site = w.opt().map(str::to_string);
        info.country = w.opt().map(str::to_string);
    }
    Ok(info)
}

/// The game a `version` answer names (`OK BF4 <build>`), in words people use.
pub fn decode_game(words: &[String]) -> Result<(String, Option<String>), DecodeError> {
    let rest = status_ok(words)?;
    let code = rest
        .first()
        .ok_or(DecodeError::Invalid("Frostbite version (no game)"))?;
    let name = match code.as_str() {
        "BC2" => "Battlefield: Bad Company 2",
        "BF3" => "Battlefield 3",
        "BF4" => "Battlefield 4",
        "BFHL" | "BFH" => "Battlefield Hardline",
        "MOH" => "Medal of Honor",
        "MOHW" => "Medal of Honor: Warfighter",
        other => other,
    };
    Ok((name.to_string(), rest.get(1).cloned()))
}

/// The players of a `listPlayers all` answer: a field count, the field names, a player
/// count, then that many records of that many words. Names, scores and pings are read from
/// the fields named `name`, `score` and `ping` wherever the header puts them.
pub fn decode_players(words: &[String]) -> Result<Vec<Player>, DecodeError> {
    let mut w = Words {
        words: status_ok(words)?,
        at: 0,
    };
    let fields = w.count("Frostbite player field count", MAX_FIELDS as u32)? as usize;
    let mut names = Vec::with_capacity(fields);
    for _ in 0..fields {
        names.push(w.next("Frostbite player field name")?);
    }
    let count = w.count("Frostbite player list count", MAX_COUNT)? as usize;
    let left = w.words.len().saturating_sub(w.at);
    let needed = count.saturating_mul(fields);
    if needed > left {
        return Err(DecodeError::Overrun {
            what: "Frostbite player records",
            value: needed as u64,
            fits: left as u64,
        });
    }
    let column = |name: &str| names.iter().position(|n| *n == name);
    let (name_at, score_at, ping_at) = (column("name"), column("score"), column("ping"));
    let mut players = Vec::with_capacity(count);
    for _ in 0..count {
        let record = &w.words[w.at..w.at + fields];
        w.at += fields;
        let get = |i: Option<usize>| i.and_then(|i| record.get(i)).map(String::as_str);
        players.push(Player {
            name: get(name_at).unwrap_or("").to_string(),
            score: get(score_at).and_then(|s| s.trim().parse().ok()),
            // BF4 reports 65535 for a player whose ping is not known yet.
            ping: get(ping_at)
                .and_then(|s| s.trim().parse::<u32>().ok())
                .filter(|p| *p < 65535),
            ..Player::default()
        });
    }
    Ok(players)
}
