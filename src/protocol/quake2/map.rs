//! Quake 2's reply: its player lines and the mapping onto [`Status`]. Pure, no I/O.

use std::time::Duration;

use serde_json::{json, Map};

use super::frame::{decode_frame, split_line, Frame};
use super::HEADER;
use crate::protocol::quake3::{strip_colors, Vars, Want};
use crate::protocol::DecodeError;
use crate::status::{self, Status};

/// One Quake 2 player line, as sent.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Player {
    pub frags: Option<i64>,
    /// Milliseconds; Quake 2 bots (and the Alien Arena ones) have 0.
    pub ping: Option<i64>,
    pub name: String,
}

/// A decoded Quake 2 `print` status.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Reply {
    pub vars: Vars,
    /// The first [`super::MAX_LINES`] players.
    pub players: Vec<Player>,
    /// Every player line, listed or not.
    pub total: usize,
}

/// A number word, `None` when it is not one (a mod's token in place of the frags).
pub(crate) fn number(word: Option<&&[u8]>) -> Option<i64> {
    std::str::from_utf8(word?).ok()?.trim().parse().ok()
}

/// Decodes a Quake 2 reply (see [`decode_frame`] for what is refused). More player lines
/// than `maxclients` is a lie no engine tells: [`DecodeError::TooLarge`].
pub fn decode_reply(datagram: &[u8]) -> Result<Reply, DecodeError> {
    let Frame { vars, lines, total } = decode_frame(datagram, HEADER)?;
    check_slots(&vars, "maxclients", total)?;
    let players = lines
        .iter()
        .map(|line| {
            let w = split_line(line);
            Player {
                frags: number(w.first()),
                ping: number(w.get(1)),
                name: String::from_utf8_lossy(w.get(2).copied().unwrap_or_default()).into_owned(),
            }
        })
        .collect();
    Ok(Reply {
        vars,
        players,
        total,
    })
}

/// Refuses more player lines than the server's own slot count says it has.
pub(crate) fn check_slots(vars: &Vars, key: &'static str, lines: usize) -> Result<(), DecodeError> {
    if let Some(slots) = vars.int(key) {
        let slots = u64::try_from(slots.max(0)).unwrap_or(0);
        if lines as u64 > slots {
            return Err(DecodeError::TooLarge {
                what: "player lines (above the server's maxclients)",
                value: lines as u64,
                limit: slots,
            });
        }
    }
    Ok(())
}

/// Writes one player line the way Quake 2 prints it.
pub fn encode_player_line(frags: i64, ping: i64, name: &str, out: &mut Vec<u8>) {
    out.extend_from_slice(format!("{frags} {ping} \"{name}\"\n").as_bytes());
}

/// Maps a reply onto [`Status`]:
/// - name `hostname` (colour codes of the Quake 3 kind stripped: Alien Arena uses them);
/// - map `mapname`; game `gamename`, else `gamedir`; version `version`;
/// - max `maxclients`; online every player line; bots the lines with ping 0 (how Quake 2
///   bots show, and how gamedig counts them);
/// - password `needpass` bit 1 (bit 2 is a spectator password).
pub fn to_status(reply: &Reply, want: Want, latency: Duration) -> Status {
    let v = &reply.vars;
    let get = |keys: &[&str]| v.first(keys).map(strip_colors).filter(|s| !s.is_empty());
    let bots = reply.players.iter().filter(|p| p.ping == Some(0)).count();
    let mut out = Status {
        online: u32::try_from(reply.total).unwrap_or(u32::MAX),
        max: v
            .int("maxclients")
            .map_or(0, |n| u32::try_from(n.max(0)).unwrap_or(u32::MAX)),
        bots: Some(u32::try_from(bots).unwrap_or(u32::MAX)),
        name: get(&["hostname", "sv_hostname"]).unwrap_or_default(),
        map: get(&["mapname", "map"]),
        game: get(&["gamename", "gamedir"]),
        version: get(&["version"]),
        password: v.int("needpass").map(|n| n & 1 != 0),
        latency,
        ..Status::default()
    };
    if want.players {
        out.players = Some(
            reply
                .players
                .iter()
                .map(|p| status::Player {
                    name: strip_colors(&p.name),
                    score: p.frags,
                    ping: p.ping.and_then(|n| u32::try_from(n).ok()),
                    ..status::Player::default()
                })
                .collect(),
        );
    }
    if want.rules {
        out.rules = Some(rules(v));
    }
    if want.detail && reply.total > reply.players.len() {
        let mut x = Map::new();
        x.insert(
            "players_not_listed".into(),
            json!(reply.total - reply.players.len()),
        );
        out.extras = x;
    }
    out
}

/// The server variables as rules, colour codes stripped.
pub(crate) fn rules(v: &Vars) -> Vec<(String, String)> {
    v.pairs
        .iter()
        .map(|(k, val)| (strip_colors(k), strip_colors(val)))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What a Quake 2 3.20 server prints (`SVC_Status`: `Cvar_Serverinfo()`, then
    /// `%i %i "%s"\n` per client), with a bot and an R1Q2-style address word.
    const Q2: &[u8] = b"\xff\xff\xff\xffprint\n\\cheats\\0\\deathmatch\\1\\dmflags\\16\\fraglimit\\0\\timelimit\\0\\maxclients\\8\\hostname\\^1Red Q2\\gamename\\baseq2\\mapname\\q2dm1\\version\\3.20 x86 Dec 21 2002 RELEASE\\needpass\\2\n12 48 \"alice\"\n-1 0 \"bot\" \"127.0.0.1:27901\"\n";

    #[test]
    fn quake2_status_field_by_field() {
        let r = decode_reply(Q2).unwrap();
        assert_eq!(r.total, 2);
        assert_eq!(
            r.players,
            vec![
                Player {
                    frags: Some(12),
                    ping: Some(48),
                    name: "alice".into()
                },
                Player {
                    frags: Some(-1),
                    ping: Some(0),
                    name: "bot".into()
                }
            ]
        );
        let want = Want {
            detail: true,
            players: true,
            rules: true,
        };
        let s = to_status(&r, want, Duration::from_millis(3));
        assert_eq!((s.online, s.max, s.bots), (2, 8, Some(1)));
        assert_eq!(s.name, "Red Q2");
        assert_eq!(s.map.as_deref(), Some("q2dm1"));
        assert_eq!(s.game.as_deref(), Some("baseq2"));
        assert_eq!(s.version.as_deref(), Some("3.20 x86 Dec 21 2002 RELEASE"));
        // needpass 2: only spectators need a password.
        assert_eq!(s.password, Some(false));
        let players = s.players.unwrap();
        assert_eq!(players[0].name, "alice");
        assert_eq!(players[1].score, Some(-1));
        assert_eq!(s.rules.unwrap().len(), 11);
        assert!(s.extras.is_empty());
    }

    #[test]
    fn lying_slots_are_refused() {
        let d = b"\xff\xff\xff\xffprint\n\\maxclients\\1\n1 1 \"a\"\n2 2 \"b\"\n";
        assert_eq!(
            decode_reply(d),
            Err(DecodeError::TooLarge {
                what: "player lines (above the server's maxclients)",
                value: 2,
                limit: 1
            })
        );
    }

    #[test]
    fn round_trip_through_the_encoder() {
        let vars = vec![("hostname".to_string(), "x".to_string())];
        let mut lines = Vec::new();
        encode_player_line(3, 20, "bob", &mut lines);
        let mut d = Vec::new();
        super::super::encode_frame(HEADER, &vars, &lines, &mut d);
        let r = decode_reply(&d).unwrap();
        assert_eq!(r.vars.get("hostname"), Some("x"));
        assert_eq!(r.players[0].name, "bob");
        assert_eq!((r.players[0].frags, r.players[0].ping), (Some(3), Some(20)));
    }
}
