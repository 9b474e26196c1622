//! A2S_PLAYER replies (`D`).
//!
//! # Format
//! ```text
//! D  count u8, then per player: index u8, name (string), score i32, duration f32 (seconds)
//! ```
//! The Ship appends deaths and money per player after the list; those bytes are ignored.

use super::{expect, kind, put_cstr, DecodeError, Reader, SINGLE_HEADER};

/// Smallest encoded player: index, empty name's NUL, score, duration.
const MIN_PLAYER_BYTES: usize = 1 + 1 + 4 + 4;

#[derive(Debug, Clone, PartialEq)]
pub struct Player {
    pub index: u8,
    pub name: String,
    pub score: i32,
    /// Seconds connected.
    pub duration: f32,
}

pub fn decode_players(msg: &[u8]) -> Result<Vec<Player>, DecodeError> {
    let mut r = Reader::new(msg);
    expect(&mut r, kind::PLAYERS, "players reply type")?;
    let count = usize::from(r.u8()?);
    // The count is one byte, but still never reserve more than could have arrived.
    let mut players = Vec::with_capacity(count.min(r.remaining() / MIN_PLAYER_BYTES));
    for _ in 0..count {
        players.push(Player {
            index: r.u8()?,
            name: r.cstring()?,
            score: r.i32_le()?,
            duration: r.f32_le()?,
        });
    }
    Ok(players)
}

/// Encodes at most 255 players (the count is one byte); the rest are left out.
pub fn encode_players(players: &[Player], out: &mut Vec<u8>) {
    out.extend_from_slice(&SINGLE_HEADER);
    out.push(kind::PLAYERS);
    let players = &players[..players.len().min(255)];
    out.push(players.len() as u8);
    for p in players {
        out.push(p.index);
        put_cstr(out, &p.name);
        out.extend_from_slice(&p.score.to_le_bytes());
        out.extend_from_slice(&p.duration.to_le_bytes());
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// A hand-built two-player reply decodes to exact values.
    #[test]
    fn two_players() {
        let mut b = vec![0xFF, 0xFF, 0xFF, 0xFF, b'D', 2];
        b.push(0);
        b.extend_from_slice(b"Alice\0");
        b.extend_from_slice(&12i32.to_le_bytes());
        b.extend_from_slice(&61.5f32.to_le_bytes());
        b.push(1);
        b.extend_from_slice(b"\0");
        b.extend_from_slice(&(-3i32).to_le_bytes());
        b.extend_from_slice(&0.25f32.to_le_bytes());
        assert_eq!(
            decode_players(&b),
            Ok(vec![
                Player {
                    index: 0,
                    name: "Alice".into(),
                    score: 12,
                    duration: 61.5
                },
                Player {
                    index: 1,
                    name: String::new(),
                    score: -3,
                    duration: 0.25
                },
            ])
        );
        assert!(matches!(
            decode_players(&b[..b.len() - 1]),
            Err(DecodeError::Truncated { .. })
        ));
    }

    /// A count of 255 with nothing behind it is an error, and allocates nothing big.
    #[test]
    fn count_beyond_datagram() {
        let b = [0xFF, 0xFF, 0xFF, 0xFF, b'D', 255];
        assert!(matches!(
            decode_players(&b),
            Err(DecodeError::Truncated { .. })
        ));
    }

    proptest! {
        /// Player lists round-trip (finite durations: NaN never equals itself).
        #[test]
        fn round_trip(ps in proptest::collection::vec((any::<u8>(), "[^\0]{0,16}", any::<i32>(), -1e6f32..1e6f32), 0..40)) {
            let players: Vec<Player> = ps.into_iter().map(|(index, name, score, duration)| Player { index, name, score, duration }).collect();
            let mut b = Vec::new();
            encode_players(&players, &mut b);
            prop_assert_eq!(decode_players(&b), Ok(players));
        }
    }
}
