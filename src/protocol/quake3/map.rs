//! From decoded replies to the shared [`Status`]: pure, no I/O.

use std::time::Duration;

use serde_json::{json, Map, Value};

use super::color::strip_colors;
use super::infostring::Vars;
use super::reply::Reply;
use crate::status::{Player, Status};

/// What the caller asked for, as the other protocols' dialogues take it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Want {
    /// Protocol-specific extras (daemon polls leave them out: they cost allocations).
    pub detail: bool,
    pub players: bool,
    /// The server variables, as `rules`.
    pub rules: bool,
}

/// Where the bot count came from, from the most to the least exact.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BotSource {
    /// DarkPlaces' `bots` variable: the server counts clients without a connection.
    Bots,
    /// ioquake3's `getinfo`: player lines minus `g_humanplayers`; exact only without private
    /// slots, since ioquake3 counts neither humans nor bots in those.
    HumanPlayers,
    /// Player lines with ping 0: ioquake3 and DarkPlaces give bots exactly 0, but a human on
    /// a LAN can average 0 too.
    ZeroPing,
}

impl BotSource {
    fn as_str(self) -> &'static str {
        match self {
            BotSource::Bots => "bots",
            BotSource::HumanPlayers => "g_humanplayers",
            BotSource::ZeroPing => "zero_ping",
        }
    }
}

/// Maps a `getstatus` reply, and the `getinfo` reply if one was asked for and came, onto
/// [`Status`]. Every string loses its colour codes.
///
/// - name: `sv_hostname`, else `hostname` (DarkPlaces);
/// - map: `mapname`;
/// - game: `gamename`, else `fs_game`, else `game` (getinfo's mod folder), else `com_gamename`;
/// - version: `version`, else `shortversion` (Call of Duty), else `gameversion` (DarkPlaces);
/// - max: `sv_maxclients` minus `sv_privateClients`: the slots anyone can join, the number
///   ioquake3 itself puts in `getinfo`. Players in private slots still count as online;
/// - online: the player lines, all of them (only the first [`super::MAX_PLAYERS`] are listed);
/// - bots: see [`BotSource`]; `None` when no player line says;
/// - password: `g_needpass`, else `pswrd` (Call of Duty).
///
/// `latency` is the caller's round trip of `getstatus`.
pub fn to_status(status: &Reply, info: Option<&Reply>, want: Want, latency: Duration) -> Status {
    let v = &status.vars;
    let iv = info.map(|i| &i.vars);
    let get = |keys: &[&str]| {
        v.first(keys)
            .or_else(|| iv.and_then(|i| i.first(keys)))
            .map(strip_colors)
            .filter(|s| !s.is_empty())
    };
    let (online, listed) = match &status.players {
        Some(p) => (p.total, Some(p)),
        // DarkPlaces' fallback infoResponse: its `clients` is all we have.
        None => (v.int("clients").map_or(0, clamp_usize), None),
    };
    let private = v.int("sv_privateClients").map_or(0, clamp_u32);
    let max = match v.int("sv_maxclients") {
        Some(slots) => clamp_u32(slots).saturating_sub(private),
        // getinfo's sv_maxclients is already net of private slots.
        None => iv.and_then(|i| i.int("sv_maxclients")).map_or(0, clamp_u32),
    };
    let bots = bots(v, iv, online, listed.map(|p| p.zero_ping), private);

    let mut out = Status {
        online: u32::try_from(online).unwrap_or(u32::MAX),
        max,
        bots: bots.map(|(n, _)| n),
        name: get(&["sv_hostname", "hostname"]).unwrap_or_default(),
        map: get(&["mapname"]),
        game: get(&["gamename", "fs_game", "game", "com_gamename"]),
        version: get(&["version", "shortversion", "gameversion"]),
        password: v
            .first(&["g_needpass", "pswrd"])
            .or_else(|| iv.and_then(|i| i.first(&["g_needpass", "pswrd"])))
            .and_then(super::infostring::atoi)
            .map(|n| n != 0),
        latency,
        ..Status::default()
    };
    if want.players {
        out.players = listed.map(|p| {
            p.list
                .iter()
                .map(|line| Player {
                    name: strip_colors(&line.name),
                    score: line.score,
                    ping: line.ping.and_then(|p| u32::try_from(p).ok()),
                    ..Player::default()
                })
                .collect()
        });
    }
    if want.rules {
        out.rules = Some(
            v.pairs
                .iter()
                // Our own challenge echoed is no server setting.
                .filter(|(k, _)| !k.eq_ignore_ascii_case("challenge"))
                .map(|(k, val)| (strip_colors(k), strip_colors(val)))
                .collect(),
        );
    }
    if want.detail {
        out.extras = extras(status, info, private, bots.map(|(_, s)| s));
    }
    out
}

/// Bots and where the count came from.
fn bots(
    v: &Vars,
    iv: Option<&Vars>,
    online: usize,
    zero_ping: Option<usize>,
    private: u32,
) -> Option<(u32, BotSource)> {
    let as_u32 = |n: usize| u32::try_from(n).unwrap_or(u32::MAX);
    if let Some(b) = v.int("bots") {
        // decode_reply refuses more bots than player lines; an infoResponse has no lines.
        return Some((as_u32(clamp_usize(b).min(online)), BotSource::Bots));
    }
    let zero_ping = zero_ping?;
    let total = online;
    if let Some(humans) = iv.and_then(|i| i.int("g_humanplayers")) {
        if private == 0 {
            let humans = usize::try_from(humans.max(0)).unwrap_or(usize::MAX);
            return Some((
                as_u32(total.saturating_sub(humans)),
                BotSource::HumanPlayers,
            ));
        }
    }
    Some((as_u32(zero_ping), BotSource::ZeroPing))
}

fn extras(
    status: &Reply,
    info: Option<&Reply>,
    private: u32,
    bots: Option<BotSource>,
) -> Map<String, Value> {
    let v = &status.vars;
    let mut x = Map::new();
    let mut put = |k: &str, val: Value| {
        x.insert(k.into(), val);
    };
    if let Some(n) = v
        .int("g_gametype")
        .or_else(|| info.and_then(|i| i.vars.int("gametype")))
    {
        put("gametype", json!(n));
    }
    if let Some(p) = v
        .first(&["protocol", "com_protocol"])
        .or_else(|| info.and_then(|i| i.vars.get("protocol")))
    {
        put("protocol", json!(strip_colors(p)));
    }
    if private > 0 {
        put("private_slots", json!(private));
    }
    if let Some(s) = bots {
        put("bots_from", json!(s.as_str()));
    }
    if let Some(p) = &status.players {
        if p.total > p.list.len() {
            put("players_not_listed", json!(p.total - p.list.len()));
        }
    } else {
        put(
            "players_note",
            json!("the server sent an infoResponse: no player list"),
        );
    }
    if v.dropped > 0 {
        put("variables_not_listed", json!(v.dropped));
    }
    if let Some(i) = info {
        for key in ["clients", "g_humanplayers"] {
            if let Some(n) = i.vars.int(key) {
                put(&format!("info_{key}"), json!(n));
            }
        }
    }
    x
}

fn clamp_u32(n: i64) -> u32 {
    u32::try_from(n.max(0)).unwrap_or(u32::MAX)
}

fn clamp_usize(n: i64) -> usize {
    usize::try_from(n.max(0)).unwrap_or(usize::MAX)
}

#[cfg(test)]
mod tests {
    use super::super::reply::{decode_info, decode_reply, decode_status, encode_status_reply};
    use super::super::PlayerLine;
    use super::*;

    const OA_STATUS: &[u8] = include_bytes!("testdata/oa_getstatus.bin");
    const OA_INFO: &[u8] = include_bytes!("testdata/oa_getinfo.bin");
    const ALL: Want = Want {
        detail: true,
        players: true,
        rules: true,
    };

    /// The captured OpenArena replies map to the settings the server was started with:
    /// 12 slots minus 2 private = 10, 3 bots (ping 0; getinfo cannot tell, private slots).
    #[test]
    fn captured_openarena() {
        let status = decode_status(OA_STATUS, Some("abc123")).unwrap();
        let info = decode_info(OA_INFO, Some("xyz789")).unwrap();
        let s = to_status(&status, Some(&info), ALL, Duration::from_millis(3));
        assert_eq!(s.name, "Red Test Server");
        assert_eq!((s.online, s.max, s.bots), (3, 10, Some(3)));
        assert_eq!(s.map.as_deref(), Some("aggressor"));
        assert_eq!(s.game.as_deref(), Some("baseoa"));
        assert_eq!(
            s.version.as_deref(),
            Some("ioq3 1.36+u20221123.70d07d9+dfsg-1/Debian linux-x86_64 Jan  8 2023")
        );
        assert_eq!(s.password, Some(false));
        assert_eq!(s.latency, Duration::from_millis(3));
        let players = s.players.unwrap();
        assert_eq!(players.len(), 3);
        assert_eq!(
            players[0],
            Player {
                name: "Murielle".into(),
                score: Some(0),
                ping: Some(0),
                ..Player::default()
            }
        );
        let rules = s.rules.unwrap();
        assert_eq!(rules.len(), 43, "all 44 variables but our challenge");
        assert_eq!(rules[0], ("com_protocol".into(), "71".into()));
        assert_eq!(rules[1], ("sv_hostname".into(), "Red Test Server".into()));
        assert_eq!(s.extras.get("private_slots"), Some(&json!(2)));
        assert_eq!(s.extras.get("bots_from"), Some(&json!("zero_ping")));
        assert_eq!(s.extras.get("gametype"), Some(&json!(0)));
        assert_eq!(s.extras.get("protocol"), Some(&json!("71")));
        assert_eq!(s.extras.get("info_clients"), Some(&json!(1)));
        assert_eq!(s.extras.get("info_g_humanplayers"), Some(&json!(0)));
        // A daemon poll: no list, no rules, no extras; the counts are the same.
        let s = to_status(&status, None, Want::default(), Duration::ZERO);
        assert_eq!((s.online, s.max, s.bots), (3, 10, Some(3)));
        assert_eq!((s.players, s.rules), (None, None));
        assert!(s.extras.is_empty());
    }

    /// The captured Nexuiz (DarkPlaces) replies map to the settings the server was started
    /// with: 6 slots, 3 bots by its own count.
    #[test]
    fn captured_darkplaces() {
        let status =
            decode_status(include_bytes!("testdata/dp_getstatus.bin"), Some("abc123")).unwrap();
        let info = decode_info(include_bytes!("testdata/dp_getinfo.bin"), None).unwrap();
        let s = to_status(&status, Some(&info), ALL, Duration::ZERO);
        assert_eq!(s.name, "DP Test Green");
        assert_eq!((s.online, s.max, s.bots), (3, 6, Some(3)));
        assert_eq!(s.map.as_deref(), Some("aggressor"));
        assert_eq!(s.game.as_deref(), Some("Nexuiz"));
        assert_eq!(s.version.as_deref(), Some("20000"));
        assert_eq!(s.password, None);
        assert_eq!(s.extras.get("bots_from"), Some(&json!("bots")));
        assert_eq!(s.extras.get("protocol"), Some(&json!("3")));
        let names: Vec<_> = s.players.unwrap().into_iter().map(|p| p.name).collect();
        assert_eq!(
            names,
            ["[BOT]Hellfire", "[BOT]Resurrection", "[BOT]Mystery"]
        );
    }

    fn reply(vars: &[(&str, &str)], players: &[(i64, &str)]) -> Reply {
        let vars: Vec<(String, String)> = vars
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        let players: Vec<PlayerLine> = players
            .iter()
            .map(|(ping, name)| PlayerLine {
                score: Some(1),
                ping: Some(*ping),
                team: None,
                name: name.to_string(),
            })
            .collect();
        let mut d = Vec::new();
        encode_status_reply(&vars, &players, &mut d);
        decode_reply(&d).unwrap()
    }

    /// DarkPlaces: `hostname`, `bots`, `gameversion`, no private slots.
    #[test]
    fn darkplaces_shape() {
        let r = reply(
            &[
                ("gamename", "Nexuiz"),
                ("modname", "data"),
                ("gameversion", "20000"),
                ("sv_maxclients", "8"),
                ("clients", "3"),
                ("bots", "1"),
                ("mapname", "^2bloodprison"),
                ("hostname", "^x4F4DP ^7server"),
            ],
            &[(40, "^1me"), (0, "[BOT]^3Skeeter"), (0, "lan")],
        );
        let s = to_status(&r, None, ALL, Duration::ZERO);
        assert_eq!(s.name, "DP server");
        assert_eq!((s.online, s.max, s.bots), (3, 8, Some(1)));
        assert_eq!(s.map.as_deref(), Some("bloodprison"));
        assert_eq!(s.game.as_deref(), Some("Nexuiz"));
        assert_eq!(s.version.as_deref(), Some("20000"));
        assert_eq!(s.password, None);
        assert_eq!(s.players.unwrap()[1].name, "[BOT]Skeeter");
        assert_eq!(s.extras.get("bots_from"), Some(&json!("bots")));
    }

    /// With getinfo and no private slots, `g_humanplayers` decides, even against pings.
    #[test]
    fn humanplayers_without_private_slots() {
        let r = reply(&[("sv_maxclients", "16")], &[(0, "a"), (0, "b"), (30, "c")]);
        let mut d = Vec::new();
        super::super::encode_info_reply(
            &[
                ("g_humanplayers".into(), "2".into()),
                ("clients".into(), "3".into()),
            ],
            &mut d,
        );
        let info = decode_info(&d, None).unwrap();
        let s = to_status(&r, Some(&info), ALL, Duration::ZERO);
        assert_eq!((s.online, s.max, s.bots), (3, 16, Some(1)));
        assert_eq!(s.extras.get("bots_from"), Some(&json!("g_humanplayers")));
        // Without getinfo, the pings say 2.
        let s = to_status(&r, None, Want::default(), Duration::ZERO);
        assert_eq!(s.bots, Some(2));
    }

    /// Missing or silly numbers never panic or wrap: no slots, more private than total.
    #[test]
    fn silly_numbers() {
        let r = reply(&[("sv_privateClients", "99"), ("sv_maxclients", "4")], &[]);
        let s = to_status(&r, None, ALL, Duration::ZERO);
        assert_eq!((s.online, s.max, s.bots), (0, 0, Some(0)));
        let r = reply(&[("sv_maxclients", "99999999999")], &[]);
        assert_eq!(to_status(&r, None, ALL, Duration::ZERO).max, u32::MAX);
        let r = reply(&[], &[]);
        let s = to_status(&r, None, ALL, Duration::ZERO);
        assert_eq!((s.name.as_str(), s.max, s.map), ("", 0, None));
        // An all-colour name is empty, not "^7".
        let r = reply(&[("sv_hostname", "^7^1")], &[]);
        assert_eq!(to_status(&r, None, ALL, Duration::ZERO).name, "");
    }

    /// DarkPlaces' infoResponse in answer to getstatus: counts from `clients`, no list.
    #[test]
    fn inforesponse_fallback() {
        let d = b"\xff\xff\xff\xffinfoResponse\n\\sv_maxclients\\32\\clients\\30\\bots\\0\\hostname\\big";
        let r = decode_status(d, None).unwrap();
        let s = to_status(&r, None, ALL, Duration::ZERO);
        assert_eq!((s.online, s.max, s.bots), (30, 32, Some(0)));
        assert_eq!(s.players, None);
        assert!(s.extras.contains_key("players_note"));
    }
}
