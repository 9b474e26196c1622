//! `statusResponse` and `infoResponse`.

use super::infostring::{decode_vars, encode_vars, Vars};
use super::players::{decode_players, encode_line, PlayerLine, Players};
use super::OOB;
use crate::protocol::DecodeError;

/// Which reply a datagram is.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub enum Kind {
    #[default]
    Status,
    Info,
}

impl Kind {
    pub fn word(self) -> &'static str {
        match self {
            Kind::Status => "statusResponse",
            Kind::Info => "infoResponse",
        }
    }
}

/// A decoded reply. Strings are as sent: [`super::to_status`] strips the colour codes.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Reply {
    pub kind: Kind,
    pub vars: Vars,
    /// `None` for an `infoResponse`, which has no player lines.
    pub players: Option<Players>,
}

impl Reply {
    /// The `challenge` the server echoed, if it echoes one.
    pub fn challenge(&self) -> Option<&str> {
        self.vars.get("challenge")
    }
}

/// Decodes either reply.
///
/// A datagram without the out-of-band marker, or with another command word (`print`,
/// `challengeResponse`, ...), is [`DecodeError::Mismatch`]: not an answer to a query, so the
/// caller may keep waiting. Trailing NUL bytes (some engines send one) are ignored.
///
/// In a `statusResponse` the infostring must end in a newline and so must every player
/// line; anything else is a cut datagram ([`DecodeError::Truncated`]). More player lines than
/// `sv_maxclients` says the server has, or more DarkPlaces `bots` than player lines, is a lie
/// no engine tells: [`DecodeError::TooLarge`] and [`DecodeError::Invalid`].
pub fn decode_reply(datagram: &[u8]) -> Result<Reply, DecodeError> {
    let text = datagram
        .strip_prefix(&OOB)
        .ok_or(DecodeError::Mismatch("Quake 3 out-of-band marker"))?;
    let end = text.iter().rposition(|&b| b != 0).map_or(0, |i| i + 1);
    let text = &text[..end];
    let Some(nl) = text.iter().position(|&b| b == b'\n') else {
        // A command word cut before its newline (or a body cut before the first one) is
        // still ours.
        let ours = |k: Kind| {
            let w = k.word().as_bytes();
            w.starts_with(text) || text.starts_with(w)
        };
        if !text.is_empty() && (ours(Kind::Status) || ours(Kind::Info)) {
            return Err(truncated(OOB.len(), text.len()));
        }
        return Err(DecodeError::Mismatch("Quake 3 reply command"));
    };
    let word = String::from_utf8_lossy(&text[..nl]);
    let kind = [Kind::Status, Kind::Info]
        .into_iter()
        .find(|k| word.trim_end().eq_ignore_ascii_case(k.word()))
        .ok_or(DecodeError::Mismatch("Quake 3 reply command"))?;
    let body = &text[nl + 1..];
    let body_at = OOB.len() + nl + 1;
    match kind {
        Kind::Info => {
            // No newline ends an infoResponse; tolerate one anyway.
            let line = body.strip_suffix(b"\n").unwrap_or(body);
            Ok(Reply {
                kind: Kind::Info,
                vars: decode_vars(line)?,
                players: None,
            })
        }
        Kind::Status => {
            let Some(nl) = body.iter().position(|&b| b == b'\n') else {
                return Err(truncated(body_at, body.len()));
            };
            let vars = decode_vars(&body[..nl])?;
            let players = decode_players(&body[nl + 1..], body_at + nl + 1)?;
            check_counts(&vars, &players)?;
            Ok(Reply {
                kind: Kind::Status,
                vars,
                players: Some(players),
            })
        }
    }
}

fn truncated(offset: usize, available: usize) -> DecodeError {
    DecodeError::Truncated {
        offset,
        needed: available + 1,
        available,
    }
}

fn check_counts(vars: &Vars, players: &Players) -> Result<(), DecodeError> {
    let lines = players.total as u64;
    if let Some(slots) = vars.int("sv_maxclients") {
        let slots = slots.max(0) as u64;
        if lines > slots {
            return Err(DecodeError::TooLarge {
                what: "player lines (above sv_maxclients)",
                value: lines,
                limit: slots,
            });
        }
    }
    if vars.int("bots").is_some_and(|b| b < 0 || b as u64 > lines) {
        return Err(DecodeError::Invalid("bots: more than the player lines"));
    }
    Ok(())
}

/// Decodes a reply to `getstatus`.
///
/// DarkPlaces answers `getstatus` with an `infoResponse` when the player list would not fit
/// in its buffer: that comes back with `players: None`. When `challenge` is given and the
/// server echoed another one, the reply belongs to another request: [`DecodeError::Mismatch`].
pub fn decode_status(datagram: &[u8], challenge: Option<&str>) -> Result<Reply, DecodeError> {
    let reply = decode_reply(datagram)?;
    check_challenge(&reply, challenge)?;
    Ok(reply)
}

/// Decodes a reply to `getinfo`: an `infoResponse` only.
pub fn decode_info(datagram: &[u8], challenge: Option<&str>) -> Result<Reply, DecodeError> {
    let reply = decode_reply(datagram)?;
    if reply.kind != Kind::Info {
        return Err(DecodeError::Mismatch("Quake 3 reply command"));
    }
    check_challenge(&reply, challenge)?;
    Ok(reply)
}

fn check_challenge(reply: &Reply, challenge: Option<&str>) -> Result<(), DecodeError> {
    match (challenge, reply.challenge()) {
        (Some(ours), Some(theirs)) if ours != theirs => {
            Err(DecodeError::Mismatch("Quake 3 challenge"))
        }
        _ => Ok(()),
    }
}

/// Writes a `statusResponse` (server side).
pub fn encode_status_reply(vars: &[(String, String)], players: &[PlayerLine], out: &mut Vec<u8>) {
    out.extend_from_slice(&OOB);
    out.extend_from_slice(b"statusResponse\n");
    encode_vars(vars, out);
    out.push(b'\n');
    for p in players {
        encode_line(
            p.score.unwrap_or(0),
            p.ping.unwrap_or(0),
            p.team,
            &p.name,
            out,
        );
    }
}

/// Writes an `infoResponse` (server side).
pub fn encode_info_reply(vars: &[(String, String)], out: &mut Vec<u8>) {
    out.extend_from_slice(&OOB);
    out.extend_from_slice(b"infoResponse\n");
    encode_vars(vars, out);
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The `statusResponse` the real OpenArena 0.8.8 server (ioquake3 1.36+u20221123, Debian
    /// `openarena-server`) sent on 127.0.0.1 to `getstatus abc123`, started with
    /// `sv_hostname "^1Red^7 Test ^x00fServer"`, `sv_maxclients 12`, `sv_privateClients 2`,
    /// `bot_minplayers 3`: three bots had joined.
    pub(crate) const OA_STATUS: &[u8] = include_bytes!("testdata/oa_getstatus.bin");
    /// Its `infoResponse` to `getinfo xyz789` a second later. `clients` is 1 and
    /// `g_humanplayers` 0: ioquake3 counts neither in the 2 private slots, where 2 bots sit.
    pub(crate) const OA_INFO: &[u8] = include_bytes!("testdata/oa_getinfo.bin");

    /// The `statusResponse` of the real Nexuiz 2.5.2 server (DarkPlaces 0~20180908~beta1,
    /// Debian `nexuiz-server`) on 127.0.0.1 to `getstatus abc123`, started with
    /// `hostname "^1DP^7 Test ^x0F0Green"`, `maxplayers 6`, `minplayers 3`, `bot_join_empty 1`.
    pub(crate) const DP_STATUS: &[u8] = include_bytes!("testdata/dp_getstatus.bin");
    /// Its `infoResponse` to `getinfo xyz789`: the same variables, ending in a newline.
    pub(crate) const DP_INFO: &[u8] = include_bytes!("testdata/dp_getinfo.bin");

    fn s(v: &[(&str, &str)]) -> Vec<(String, String)> {
        v.iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    /// The captured status reply, field by field.
    #[test]
    fn captured_openarena_status() {
        // Layout: FF FF FF FF | "statusResponse\n" | infostring "\n" | player lines.
        assert_eq!(&OA_STATUS[..4], &OOB);
        assert!(OA_STATUS[4..].starts_with(b"statusResponse\n\\challenge\\abc123\\"));
        let r = decode_status(OA_STATUS, Some("abc123")).unwrap();
        assert_eq!(r.kind, Kind::Status);
        let v = &r.vars;
        // The challenge comes first (ioquake3 inserts it), then the server's variables.
        assert_eq!(
            v.pairs[..6],
            s(&[
                ("challenge", "abc123"),
                ("com_protocol", "71"),
                ("sv_hostname", "^1Red^7 Test ^x00fServer"),
                ("sv_maxclients", "12"),
                ("sv_privateClients", "2"),
                ("bot_minplayers", "3"),
            ])[..]
        );
        assert_eq!(
            v.get("version"),
            Some("ioq3 1.36+u20221123.70d07d9+dfsg-1/Debian linux-x86_64 Jan  8 2023")
        );
        assert_eq!(v.get("com_gamename"), Some("Quake3Arena"));
        assert_eq!(v.get("gamename"), Some("baseoa"));
        assert_eq!(v.get("mapname"), Some("aggressor"));
        assert_eq!(v.get("g_needpass"), Some("0"));
        assert_eq!(v.get("g_timestamp"), Some("2026-11-23 14:52:34"));
        assert_eq!((v.pairs.len(), v.dropped), (44, 0));
        // Three bots: score 0, ping 0.
        let players = r.players.unwrap();
        let names: Vec<_> = players.list.iter().map(|p| p.name.as_str()).collect();
        assert_eq!(names, ["Murielle", "Merman", "Neko"]);
        assert!(players
            .list
            .iter()
            .all(|p| p.score == Some(0) && p.ping == Some(0) && p.team.is_none()));
        assert_eq!(players.total, 3);
        // Another challenge: not ours.
        assert_eq!(
            decode_status(OA_STATUS, Some("other")),
            Err(DecodeError::Mismatch("Quake 3 challenge"))
        );
    }

    /// The captured info reply, field by field: no trailing newline, `sv_maxclients`
    /// already net of the private slots.
    #[test]
    fn captured_openarena_info() {
        assert!(OA_INFO.starts_with(b"\xff\xff\xff\xffinfoResponse\n\\voip\\opus\\"));
        assert!(OA_INFO.ends_with(b"\\challenge\\xyz789"));
        let r = decode_info(OA_INFO, Some("xyz789")).unwrap();
        assert_eq!(r.players, None);
        assert_eq!(
            r.vars.pairs,
            s(&[
                ("voip", "opus"),
                ("g_needpass", "0"),
                ("pure", "1"),
                ("gametype", "0"),
                ("sv_maxclients", "10"),
                ("g_humanplayers", "0"),
                ("clients", "1"),
                ("mapname", "aggressor"),
                ("hostname", "^1Red^7 Test ^x00fServer"),
                ("protocol", "71"),
                ("gamename", "Quake3Arena"),
                ("challenge", "xyz789"),
            ])
        );
        // A status reply is not an answer to getinfo.
        assert_eq!(
            decode_info(OA_STATUS, None),
            Err(DecodeError::Mismatch("Quake 3 reply command"))
        );
    }

    /// The captured DarkPlaces replies, field by field. Unlike ioquake3, an empty line
    /// follows the infostring, and the three bots carry ping 0 and `bots\3`.
    #[test]
    fn captured_darkplaces() {
        let mut want = Vec::new();
        want.extend_from_slice(&OOB);
        want.extend_from_slice(b"statusResponse\n");
        want.extend_from_slice(b"\\gamename\\Nexuiz\\modname\\data\\gameversion\\20000");
        want.extend_from_slice(b"\\sv_maxclients\\6\\clients\\3\\bots\\3\\mapname\\aggressor");
        want.extend_from_slice(b"\\hostname\\^1DP^7 Test ^x0F0Green\\protocol\\3");
        want.extend_from_slice(b"\\qcstatus\\dm:2.5.2::score!!\\challenge\\abc123\n");
        want.extend_from_slice(b"\n"); // the empty line
        want.extend_from_slice(b"1 0 \"[BOT]Hellfire\"\n");
        want.extend_from_slice(b"0 0 \"[BOT]Resurrection\"\n");
        want.extend_from_slice(b"0 0 \"[BOT]Mystery\"\n");
        assert_eq!(DP_STATUS, &want[..]);
        let r = decode_status(DP_STATUS, Some("abc123")).unwrap();
        assert_eq!(r.vars.get("bots"), Some("3"));
        assert_eq!(r.vars.get("qcstatus"), Some("dm:2.5.2::score!!"));
        assert_eq!(r.vars.pairs.len(), 11);
        let p = r.players.unwrap();
        assert_eq!(p.total, 3);
        assert_eq!(p.zero_ping, 3);
        assert_eq!(p.list[0].score, Some(1));
        assert_eq!(p.list[1].name, "[BOT]Resurrection");

        assert!(DP_INFO.ends_with(b"\\challenge\\xyz789\n"));
        let i = decode_info(DP_INFO, Some("xyz789")).unwrap();
        assert_eq!(i.vars.pairs.len(), 11);
        assert_eq!(i.vars.get("hostname"), Some("^1DP^7 Test ^x0F0Green"));
        for n in 0..DP_STATUS.len() {
            let _ = decode_reply(&DP_STATUS[..n]);
        }
    }

    /// Every cut of the captured status reply is an error, never a panic: a cut before the
    /// command's newline is truncation (or, inside the marker, not ours at all), and so is
    /// every later cut except right after a complete line.
    #[test]
    fn cut_after_every_byte() {
        for n in 0..OA_STATUS.len() {
            let cut = &OA_STATUS[..n];
            match decode_reply(cut) {
                Ok(r) => {
                    // Only cuts at a line end decode, with fewer players.
                    assert_eq!(OA_STATUS[n - 1], b'\n', "cut at {n}");
                    assert!(r.players.unwrap().total < 3);
                }
                Err(DecodeError::Mismatch(_)) => assert!(n < 5, "cut at {n}"),
                Err(DecodeError::Truncated { .. }) => {}
                Err(e) => panic!("cut at {n}: {e}"),
            }
        }
        // An info reply cut in a key is caught as a key without a value, or passes as a
        // shorter infostring: either way no panic (no newline to miss).
        for n in 0..OA_INFO.len() {
            let _ = decode_reply(&OA_INFO[..n]);
        }
    }

    /// Replies that are not to a query, and engines' variations on the frame.
    #[test]
    fn frames() {
        assert_eq!(
            decode_reply(b"\xff\xff\xff\xffprint\nhello\n"),
            Err(DecodeError::Mismatch("Quake 3 reply command"))
        );
        assert_eq!(
            decode_reply(b"statusResponse\n\n"),
            Err(DecodeError::Mismatch("Quake 3 out-of-band marker"))
        );
        // A trailing NUL and a CR before the newline are tolerated.
        let r = decode_reply(b"\xff\xff\xff\xffstatusResponse\r\n\\a\\1\n0 5 \"x\"\n\0").unwrap();
        assert_eq!(r.players.unwrap().total, 1);
        // No players at all: the infostring's newline ends the datagram.
        let r = decode_reply(b"\xff\xff\xff\xffstatusResponse\n\\sv_maxclients\\8\n").unwrap();
        assert_eq!(r.players.unwrap().total, 0);
        // Cut before the infostring's newline.
        assert!(matches!(
            decode_reply(b"\xff\xff\xff\xffstatusResponse\n\\a\\1"),
            Err(DecodeError::Truncated { offset: 19, .. })
        ));
    }

    /// Lying counts: more lines than slots, more bots than lines.
    #[test]
    fn lying_counts() {
        let mut d = Vec::new();
        let players = vec![
            PlayerLine {
                name: "a".into(),
                ..PlayerLine::default()
            };
            3
        ];
        encode_status_reply(&s(&[("sv_maxclients", "2")]), &players, &mut d);
        assert_eq!(
            decode_reply(&d),
            Err(DecodeError::TooLarge {
                what: "player lines (above sv_maxclients)",
                value: 3,
                limit: 2
            })
        );
        d.clear();
        encode_status_reply(&s(&[("sv_maxclients", "-1")]), &players[..1], &mut d);
        assert!(matches!(
            decode_reply(&d),
            Err(DecodeError::TooLarge { .. })
        ));
        d.clear();
        encode_status_reply(&s(&[("bots", "4")]), &players, &mut d);
        assert_eq!(
            decode_reply(&d),
            Err(DecodeError::Invalid("bots: more than the player lines"))
        );
        d.clear();
        encode_status_reply(
            &s(&[("bots", "3"), ("sv_maxclients", "x")]),
            &players,
            &mut d,
        );
        assert!(decode_reply(&d).is_ok());
    }

    /// decode(encode(x)) for both replies.
    #[test]
    fn round_trip() {
        let vars = s(&[("sv_hostname", "^2Green"), ("sv_maxclients", "8")]);
        let players = vec![
            PlayerLine {
                score: Some(5),
                ping: Some(33),
                team: Some(1),
                name: "^1A".into(),
            },
            PlayerLine {
                score: Some(-1),
                ping: Some(0),
                team: None,
                name: "bot".into(),
            },
        ];
        let mut d = Vec::new();
        encode_status_reply(&vars, &players, &mut d);
        let r = decode_status(&d, Some("c")).unwrap();
        assert_eq!(r.vars.pairs, vars);
        assert_eq!(r.players.unwrap().list, players);
        d.clear();
        encode_info_reply(&vars, &mut d);
        let r = decode_info(&d, Some("c")).unwrap();
        assert_eq!((r.kind, r.vars.pairs, r.players), (Kind::Info, vars, None));
    }

    mod props {
        use super::*;
        use proptest::prelude::*;

        proptest! {
            #![proptest_config(ProptestConfig::with_cases(1024))]

            /// Arbitrary bytes behind the marker and either command word: no panic, and
            /// whatever decodes is no bigger than what arrived.
            #[test]
            fn noise(body in proptest::collection::vec(any::<u8>(), 0..300), word in 0usize..3) {
                let mut d = OOB.to_vec();
                d.extend_from_slice([&b"statusResponse\n"[..], b"infoResponse\n", b""][word]);
                d.extend_from_slice(&body);
                if let Ok(r) = decode_reply(&d) {
                    let pairs = r.vars.pairs.len() + r.vars.dropped;
                    let lines = r.players.as_ref().map_or(0, |p| p.total);
                    prop_assert!(pairs * 2 + lines <= d.len());
                    prop_assert!(r.players.is_some() == (r.kind == Kind::Status));
                }
            }

            /// The captured reply with one byte changed: no panic.
            #[test]
            fn mutated_capture(at in 0usize..OA_STATUS.len(), byte in any::<u8>()) {
                let mut d = OA_STATUS.to_vec();
                d[at] = byte;
                let _ = decode_reply(&d);
            }
        }
    }
}
