//! The player lines after a `statusResponse`'s infostring.
//!
//! # Format
//! ```text
//! score " " ping [" " team] " \"" name "\"\n"
//! ```
//! ioquake3 writes `%i %i "%s"\n`; DarkPlaces inserts a team number on team games, and
//! replaces the score with a mod-defined token when the mod sets one; Warsow puts the team
//! after the name. So we read: the tokens before the first quote (score, ping, optional
//! team, each `None` when not a number), and the name between the first and last quote.

use super::infostring::{atoi, lossy};
use crate::protocol::DecodeError;

/// Player lines kept per reply; later ones are counted, not stored. DarkPlaces allows 255
/// clients, ioquake3 64, so no real server reaches this.
pub const MAX_PLAYERS: usize = 256;

/// One player line, as sent (colour codes included).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PlayerLine {
    pub score: Option<i64>,
    /// Milliseconds; bots have 0 on ioquake3 and DarkPlaces, connecting players 999.
    pub ping: Option<i64>,
    /// DarkPlaces team games: 0 none/spectator, 1 red, 2 blue, 3 yellow, 4 pink.
    pub team: Option<i64>,
    pub name: String,
}

/// The player lines of one reply.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Players {
    /// The first [`MAX_PLAYERS`] lines.
    pub list: Vec<PlayerLine>,
    /// Every line, stored or not.
    pub total: usize,
    /// Lines, stored or not, whose ping is exactly 0: how ioquake3 and DarkPlaces mark bots.
    pub zero_ping: usize,
}

/// Parses the text after the infostring's newline: newline-terminated lines. A last line
/// without its newline means the datagram was cut ([`DecodeError::Truncated`]); empty lines
/// are skipped.
pub fn decode_players(text: &[u8], offset: usize) -> Result<Players, DecodeError> {
    let mut players = Players::default();
    let mut rest = text;
    let mut at = offset;
    while !rest.is_empty() {
        let Some(end) = rest.iter().position(|&b| b == b'\n') else {
            return Err(DecodeError::Truncated {
                offset: at,
                needed: rest.len() + 1,
                available: rest.len(),
            });
        };
        let line = &rest[..end];
        if !line.iter().all(u8::is_ascii_whitespace) {
            players.total += 1;
            // Lines past the cap are parsed too (a transient name, dropped) so the bot count
            // covers them; only the first MAX_PLAYERS are kept.
            let player = decode_line(line);
            if player.ping == Some(0) {
                players.zero_ping += 1;
            }
            if players.list.len() < MAX_PLAYERS {
                players.list.push(player);
            }
        }
        rest = &rest[end + 1..];
        at += end + 1;
    }
    Ok(players)
}

fn decode_line(line: &[u8]) -> PlayerLine {
    let first_quote = line.iter().position(|&b| b == b'"');
    let (head, name) = match first_quote {
        Some(q) => {
            let after = &line[q + 1..];
            let end = after
                .iter()
                .rposition(|&b| b == b'"')
                .unwrap_or(after.len());
            (&line[..q], lossy(&after[..end]))
        }
        // No quotes: "score ping name words".
        None => {
            let text = lossy(line);
            let mut words = text.split_ascii_whitespace();
            let head: Vec<&str> = words.by_ref().take(2).collect();
            let name = words.collect::<Vec<_>>().join(" ");
            let head = head.join(" ");
            return numbers(&head, name);
        }
    };
    numbers(&lossy(head), name)
}

fn numbers(head: &str, name: String) -> PlayerLine {
    let mut tokens = head.split_ascii_whitespace();
    let mut next = || tokens.next().and_then(atoi);
    PlayerLine {
        score: next(),
        ping: next(),
        team: next(),
        name,
    }
}

/// Writes one player line the way ioquake3 does, or with DarkPlaces' team number.
pub fn encode_line(score: i64, ping: i64, team: Option<i64>, name: &str, out: &mut Vec<u8>) {
    let team = team.map(|t| format!(" {t}")).unwrap_or_default();
    out.extend_from_slice(format!("{score} {ping}{team} \"{name}\"\n").as_bytes());
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn line(score: i64, ping: i64, team: Option<i64>, name: &str) -> PlayerLine {
        PlayerLine {
            score: Some(score),
            ping: Some(ping),
            team,
            name: name.into(),
        }
    }

    /// ioquake3 lines as the real OpenArena server sent them, and a DarkPlaces team line.
    #[test]
    fn real_lines() {
        let p = decode_players(
            b"0 0 \"Murielle\"\n12 48 \"^1Sarge\"\n-3 999 2 \"a b\"\n",
            0,
        )
        .unwrap();
        assert_eq!(p.total, 3);
        assert_eq!(
            p.list,
            vec![
                line(0, 0, None, "Murielle"),
                line(12, 48, None, "^1Sarge"),
                line(-3, 999, Some(2), "a b"),
            ]
        );
        assert_eq!(p.zero_ping, 1);
    }

    /// Odd lines still decode: quotes inside the name, no quotes, a mod token for the
    /// score, the team after the name, blank lines.
    #[test]
    fn odd_lines() {
        let p = decode_players(
            b"5 20 \"say \"hi\"\"\n7 30 Bare Name\nfrags:3 40 \"x\"\n\n1 2 \"w\" 1\n",
            0,
        )
        .unwrap();
        assert_eq!(p.total, 4);
        assert_eq!(p.list[0].name, "say \"hi\"");
        assert_eq!(p.list[1], line(7, 30, None, "Bare Name"));
        assert_eq!(
            p.list[2],
            PlayerLine {
                score: None,
                ping: Some(40),
                team: None,
                name: "x".into()
            }
        );
        assert_eq!(p.list[3], line(1, 2, None, "w"));
    }

    /// A list cut inside a line is truncation, reported at the cut line's offset.
    #[test]
    fn cut_line_is_truncation() {
        assert_eq!(
            decode_players(b"0 0 \"a\"\n0 0 \"b", 100),
            Err(DecodeError::Truncated {
                offset: 108,
                needed: 7,
                available: 6
            })
        );
        assert_eq!(decode_players(b"", 0), Ok(Players::default()));
    }

    /// Past [`MAX_PLAYERS`] lines are counted, not stored.
    #[test]
    fn ten_thousand_lines() {
        let mut text = Vec::new();
        for i in 0..10_000 {
            encode_line(i, 0, None, "b", &mut text);
        }
        let p = decode_players(&text, 0).unwrap();
        assert_eq!((p.total, p.list.len()), (10_000, MAX_PLAYERS));
        assert_eq!(p.zero_ping, 10_000);
        assert_eq!(p.list[MAX_PLAYERS - 1].score, Some(MAX_PLAYERS as i64 - 1));
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(512))]

        /// Arbitrary bytes: no panic; stored lines never exceed the cap or the line count.
        #[test]
        fn noise(bytes in proptest::collection::vec(any::<u8>(), 0..256)) {
            if let Ok(p) = decode_players(&bytes, 0) {
                prop_assert!(p.list.len() <= MAX_PLAYERS.min(p.total));
                prop_assert!(p.total <= bytes.iter().filter(|&&b| b == b'\n').count());
                prop_assert!(p.zero_ping <= p.total);
            }
        }

        /// decode(encode(x)) == x for names without quotes or newlines.
        #[test]
        fn round_trip(v in proptest::collection::vec((any::<i32>(), 0i64..1000, proptest::option::of(0i64..5), "[ -!#-~]{0,20}"), 0..20)) {
            let mut out = Vec::new();
            for (s, p, t, n) in &v {
                encode_line((*s).into(), *p, *t, n, &mut out);
            }
            let got = decode_players(&out, 0).unwrap();
            prop_assert_eq!(got.total, v.len());
            for (g, (s, p, t, n)) in got.list.iter().zip(&v) {
                prop_assert_eq!(g, &line((*s).into(), *p, *t, n));
            }
        }
    }
}
