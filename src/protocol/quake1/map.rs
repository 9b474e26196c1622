//! QuakeWorld's player lines and the mapping onto [`Status`]. Pure, no I/O.

use std::time::Duration;

use serde_json::{json, Map};

use super::{plain, HEADER};
use crate::protocol::quake2::{decode_frame, split_line, Frame};
use crate::protocol::quake3::{strip_colors, Vars, Want};
use crate::protocol::DecodeError;
use crate::status::{self, Status};

/// The frags mvdsv prints for a spectator when asked for spectators as players
/// (`status 23`'s flags); plain `status` leaves spectators out.
const SPECTATOR_FRAGS: i64 = -9999;

/// One QuakeWorld player line, in Quake's characters mapped to ASCII.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Player {
    pub userid: Option<i64>,
    pub frags: Option<i64>,
    /// Minutes connected.
    pub minutes: Option<i64>,
    pub ping: Option<i64>,
    pub name: String,
    pub skin: String,
    /// Shirt and pants colours (0-13).
    pub top: Option<i64>,
    pub bottom: Option<i64>,
}

impl Player {
    /// mvdsv's spectators: `-9999` frags, or a name marked `\s\` (FTE's form).
    pub fn is_spectator(&self) -> bool {
        self.frags == Some(SPECTATOR_FRAGS) || self.name.starts_with("\\s\\")
    }
}

/// A decoded QuakeWorld status.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Reply {
    pub vars: Vars,
    /// The first [`crate::protocol::quake2::MAX_LINES`] players.
    pub players: Vec<Player>,
    /// Every player line, listed or not.
    pub total: usize,
}

fn number(word: Option<&&[u8]>) -> Option<i64> {
    std::str::from_utf8(word?).ok()?.trim().parse().ok()
}

fn text(word: Option<&&[u8]>) -> String {
    String::from_utf8_lossy(word.copied().unwrap_or_default()).into_owned()
}

/// Decodes a QuakeWorld reply (see [`decode_frame`] for what is refused). The whole
/// datagram is first mapped to ASCII ([`plain`]: it keeps `FF`'s low bits, so the marker is
/// checked on the raw bytes). More player lines than `maxclients` + `maxspectators` is a lie:
/// [`DecodeError::TooLarge`].
pub fn decode_reply(datagram: &[u8]) -> Result<Reply, DecodeError> {
    let marker = crate::protocol::quake2::OOB.len();
    if datagram.get(..marker) != Some(&crate::protocol::quake2::OOB[..]) {
        return Err(DecodeError::Mismatch("out-of-band marker"));
    }
    // Mapping keeps every byte but controls; offsets in errors count the mapped text.
    let mut mapped = crate::protocol::quake2::OOB.to_vec();
    mapped.extend_from_slice(&plain(&datagram[marker..]));
    let Frame { vars, lines, total } = decode_frame(&mapped, HEADER)?;
    let slots = vars
        .int("maxclients")
        .unwrap_or(0)
        .max(0)
        .saturating_add(vars.int("maxspectators").unwrap_or(0).max(0));
    if (vars.get("maxclients").is_some()) && total as u64 > u64::try_from(slots).unwrap_or(0) {
        return Err(DecodeError::TooLarge {
            what: "player lines (above maxclients + maxspectators)",
            value: total as u64,
            limit: u64::try_from(slots).unwrap_or(0),
        });
    }
    let players = lines
        .iter()
        .map(|line| {
            let w = split_line(line);
            Player {
                userid: number(w.first()),
                frags: number(w.get(1)),
                minutes: number(w.get(2)),
                ping: number(w.get(3)),
                name: text(w.get(4)),
                skin: text(w.get(5)),
                top: number(w.get(6)),
                bottom: number(w.get(7)),
            }
        })
        .collect();
    Ok(Reply {
        vars,
        players,
        total,
    })
}

/// Writes one player line the way mvdsv prints it (server side).
pub fn encode_player_line(p: &Player, out: &mut Vec<u8>) {
    let n = |v: Option<i64>| v.unwrap_or(0);
    out.extend_from_slice(
        format!(
            "{} {} {} {} \"{}\" \"{}\" {} {}\n",
            n(p.userid),
            n(p.frags),
            n(p.minutes),
            n(p.ping),
            p.name,
            p.skin,
            n(p.top),
            n(p.bottom)
        )
        .as_bytes(),
    );
}

/// Maps a reply onto [`Status`]:
/// - name `hostname`; map `map`; game `*gamedir` (the mod: `qw`, `ktx`, `fortress`...);
///   version `*version` (`MVDSV 0.35`);
/// - max `maxclients` (spectators have their own `maxspectators`, in extras);
/// - online the player lines that are not spectators; bots the lines with ping 0 (gamedig's
///   rule; KTX's frogbots show so);
/// - password `needpass` bit 1 (bit 2 is the spectator password).
pub fn to_status(reply: &Reply, want: Want, latency: Duration) -> Status {
    let v = &reply.vars;
    let get = |keys: &[&str]| v.first(keys).map(strip_colors).filter(|s| !s.is_empty());
    let listed_spectators = reply.players.iter().filter(|p| p.is_spectator()).count();
    let online = reply.total.saturating_sub(listed_spectators);
    let bots = reply
        .players
        .iter()
        .filter(|p| !p.is_spectator() && p.ping == Some(0))
        .count();
    let as_u32 = |n: i64| u32::try_from(n.max(0)).unwrap_or(u32::MAX);
    let mut out = Status {
        online: u32::try_from(online).unwrap_or(u32::MAX),
        max: v.int("maxclients").map_or(0, as_u32),
        bots: Some(u32::try_from(bots).unwrap_or(u32::MAX)),
        name: get(&["hostname"]).unwrap_or_default(),
        map: get(&["map", "mapname"]),
        game: get(&["*gamedir", "gamedir"]),
        version: get(&["*version", "version"]),
        password: v.int("needpass").map(|n| n & 1 != 0),
        latency,
        ..Status::default()
    };
    if want.players {
        out.players = Some(
            reply
                .players
                .iter()
                .filter(|p| !p.is_spectator())
                .map(|p| status::Player {
                    name: p.name.clone(),
                    id: p.userid.map(|u| u.to_string()),
                    score: p.frags,
                    duration: p.minutes.map(|m| (m.max(0) as f32) * 60.0),
                    ping: p.ping.and_then(|n| u32::try_from(n).ok()),
                })
                .collect(),
        );
    }
    if want.rules {
        out.rules = Some(
            v.pairs
                .iter()
                .map(|(k, val)| (strip_colors(k), strip_colors(val)))
                .collect(),
        );
    }
    if want.detail {
        let mut x = Map::new();
        if let Some(n) = v.int("maxspectators") {
            x.insert("max_spectators".into(), json!(n));
        }
        if listed_spectators > 0 {
            x.insert("spectators".into(), json!(listed_spectators));
        }
        if let Some(s) = v.get("status") {
            // KTX's match state: Standby, Countdown, "N min left".
            x.insert("match_status".into(), json!(s));
        }
        if reply.total > reply.players.len() {
            x.insert(
                "players_not_listed".into(),
                json!(reply.total - reply.players.len()),
            );
        }
        out.extras = x;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The reply of the real mvdsv 0.35 with KTX 1.42 (Debian `mvdsv`, `ktx`) on 127.0.0.1
    /// to `status`, on the generated map of `.ci/interop/qw_minimal_bsp.py`, no one
    /// connected: byte for byte.
    pub(crate) const MVDSV: &[u8] = b"\xff\xff\xff\xffn\\*gamedir\\ktx\\maxfps\\77\\maxspectators\\8\\hostname\\unnamed\\deathmatch\\3\\pm_ktjump\\1\\*version\\MVDSV 0.35\\*z_ext\\511\\maxclients\\8\\*qvm\\so\\*progs\\so\\ktxver\\1.42\\timelimit\\30\\map\\start\\status\\Standby\n\x00";

    fn all() -> Want {
        Want {
            detail: true,
            players: true,
            rules: true,
        }
    }

    #[test]
    fn real_mvdsv_field_by_field() {
        let r = decode_reply(MVDSV).unwrap();
        assert_eq!(r.total, 0);
        assert_eq!(r.vars.pairs.len(), 15);
        let s = to_status(&r, all(), Duration::from_millis(1));
        assert_eq!((s.online, s.max, s.bots), (0, 8, Some(0)));
        assert_eq!(s.name, "unnamed");
        assert_eq!(s.map.as_deref(), Some("start"));
        assert_eq!(s.game.as_deref(), Some("ktx"));
        assert_eq!(s.version.as_deref(), Some("MVDSV 0.35"));
        assert_eq!(s.password, None);
        assert_eq!(s.extras["max_spectators"], 8);
        assert_eq!(s.extras["match_status"], "Standby");
    }

    #[test]
    fn player_lines_and_quake_characters() {
        let mut d = MVDSV[..MVDSV.len() - 1].to_vec();
        // A gold-bracketed red name, a bot at ping 0, a spectator.
        d.extend_from_slice(b"12 5 3 48 \"\x10\xe1\x11lice\" \"base\" 4 11\n");
        d.extend_from_slice(b"13 -2 0 0 \"frogbot\" \"\" 0 0\n");
        d.extend_from_slice(b"14 -9999 1 30 \"watcher\" \"\" 0 0\n");
        let r = decode_reply(&d).unwrap();
        assert_eq!(
            r.players[0],
            Player {
                userid: Some(12),
                frags: Some(5),
                minutes: Some(3),
                ping: Some(48),
                name: "[a]lice".into(),
                skin: "base".into(),
                top: Some(4),
                bottom: Some(11),
            }
        );
        let s = to_status(&r, all(), Duration::ZERO);
        assert_eq!((s.online, s.bots), (2, Some(1)));
        let players = s.players.unwrap();
        assert_eq!(players.len(), 2);
        assert_eq!(players[0].id.as_deref(), Some("12"));
        assert_eq!(players[0].duration, Some(180.0));
        assert_eq!(s.extras["spectators"], 1);
    }

    #[test]
    fn refusals() {
        assert!(matches!(
            decode_reply(b"n\\a\\b\n"),
            Err(DecodeError::Mismatch(_))
        ));
        // mvdsv's rejection print shares the header.
        assert!(matches!(
            decode_reply(b"\xff\xff\xff\xffnBad challenge.\n"),
            Err(DecodeError::Mismatch(_))
        ));
        assert!(matches!(
            decode_reply(b"\xff\xff\xff\xffn\\maxclients\\1\\maxspectators\\0\n1 0 0 1 \"a\" \"\" 0 0\n2 0 0 1 \"b\" \"\" 0 0\n"),
            Err(DecodeError::TooLarge { value: 2, limit: 1, .. })
        ));
        assert!(matches!(
            decode_reply(b"\xff\xff\xff\xffn\\hostname\\x"),
            Err(DecodeError::Truncated { .. })
        ));
    }

    #[test]
    fn round_trip_through_the_encoder() {
        let p = Player {
            userid: Some(1),
            frags: Some(2),
            minutes: Some(3),
            ping: Some(4),
            name: "bob".into(),
            skin: "base".into(),
            top: Some(5),
            bottom: Some(6),
        };
        let mut lines = Vec::new();
        encode_player_line(&p, &mut lines);
        let mut d = Vec::new();
        crate::protocol::quake2::encode_frame(
            HEADER,
            &[("maxclients".into(), "4".into())],
            &lines,
            &mut d,
        );
        assert_eq!(decode_reply(&d).unwrap().players, vec![p]);
    }
}
