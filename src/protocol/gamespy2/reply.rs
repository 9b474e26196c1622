//! The reply datagram: header, server info pairs, player and team tables.

use super::super::gamespy1::text;
use super::{DecodeError, Sections};
use crate::protocol::Reader;

/// The most info pairs kept; more is an error (a datagram holds at most about 32 000).
pub const MAX_VARS: usize = 1024;
/// The most columns in a table.
pub const MAX_COLUMNS: usize = 32;
/// The most rows in a table (the count byte says at most 255).
pub const MAX_ROWS: usize = 256;

/// A player or team table.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Table {
    /// The row count byte, `None` when the server left it out (America's Army).
    pub declared: Option<u8>,
    /// Column names as sent: `player_`, `score_`, `team_t`...
    pub columns: Vec<String>,
    /// One value per column in each row.
    pub rows: Vec<Vec<String>>,
}

impl Table {
    /// The values of the first column of `names` present, one per row.
    pub fn column(&self, names: &[&str]) -> Option<impl Iterator<Item = &str>> {
        let i = names
            .iter()
            .find_map(|n| self.columns.iter().position(|c| c.eq_ignore_ascii_case(n)))?;
        Some(
            self.rows
                .iter()
                .map(move |r| r.get(i).map_or("", String::as_str)),
        )
    }
}

/// A decoded reply.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Reply {
    /// The request id the server echoed.
    pub id: [u8; 4],
    /// Server info, in the server's order.
    pub vars: Vec<(String, String)>,
    pub players: Option<Table>,
    pub teams: Option<Table>,
}

impl Reply {
    /// The first value of `key`, compared without case.
    pub fn get(&self, key: &str) -> Option<&str> {
        crate::protocol::keyvalue::get(&self.vars, key)
    }

    pub fn first(&self, keys: &[&str]) -> Option<&str> {
        crate::protocol::keyvalue::first(&self.vars, keys)
    }
}

/// Decodes a reply to a request for `sections` with request id `id`.
///
/// Errors: a first byte other than `00` ([`DecodeError::UnexpectedType`]); another request
/// id ([`DecodeError::Mismatch`]: someone else's reply, keep waiting); a string without its NUL
/// or a row cut short (truncation); more pairs, columns or rows than the caps
/// ([`DecodeError::TooLarge`]). Sections that were asked for but are absent at the end of the
/// datagram are `None`; bytes after the last section are ignored.
pub fn decode_reply(
    datagram: &[u8],
    id: [u8; 4],
    sections: Sections,
) -> Result<Reply, DecodeError> {
    let mut r = Reader::new(datagram);
    let kind = r.u8()?;
    if kind != 0 {
        return Err(DecodeError::UnexpectedType {
            what: "GameSpy 2 reply type",
            found: u32::from(kind),
        });
    }
    let echoed = r.array::<4>()?;
    if echoed != id {
        return Err(DecodeError::Mismatch("GameSpy 2 request id"));
    }
    let mut reply = Reply {
        id,
        ..Reply::default()
    };
    if sections.info {
        while !r.is_empty() {
            let key = r.cstr()?;
            if key.is_empty() {
                // The section ends with an empty key and an empty value.
                if r.rest().first() == Some(&0) {
                    r.skip(1)?;
                }
                break;
            }
            let value = r.cstr()?;
            if reply.vars.len() == MAX_VARS {
                return Err(too_large("info pairs", MAX_VARS + 1, MAX_VARS));
            }
            reply.vars.push((text(key), text(value)));
        }
    } else if r.rest().first() == Some(&0) {
        // Without info, replies start the tables after the info section's lone terminator.
        r.skip(1)?;
    }
    if sections.players && !r.is_empty() {
        reply.players = Some(table(&mut r)?);
    }
    if sections.teams && !r.is_empty() {
        reply.teams = Some(table(&mut r)?);
    }
    Ok(reply)
}

fn table(r: &mut Reader<'_>) -> Result<Table, DecodeError> {
    let declared = if count_omitted(r.rest()) {
        None
    } else {
        Some(r.u8()?)
    };
    let mut columns = Vec::new();
    loop {
        let c = r.cstr()?;
        if c.is_empty() {
            break;
        }
        if columns.len() == MAX_COLUMNS {
            return Err(too_large("table columns", MAX_COLUMNS + 1, MAX_COLUMNS));
        }
        columns.push(text(c));
    }
    let mut rows = Vec::new();
    if columns.is_empty() {
        // No columns, no rows: only the rows' end marker may follow.
        if r.rest().first() == Some(&0) {
            r.skip(1)?;
        }
        return Ok(Table {
            declared,
            columns,
            rows,
        });
    }
    while let Some(&first) = r.rest().first() {
        if first == 0 {
            // An empty first value: the table's end.
            r.skip(1)?;
            break;
        }
        if rows.len() == MAX_ROWS {
            return Err(too_large("table rows", MAX_ROWS + 1, MAX_ROWS));
        }
        let mut row = Vec::with_capacity(columns.len());
        for _ in 0..columns.len() {
            row.push(text(r.cstr()?));
        }
        rows.push(row);
    }
    Ok(Table {
        declared,
        columns,
        rows,
    })
}

/// The first columns real servers send; a count byte followed by one of them is a count.
const FIRST_COLUMNS: [&[u8]; 3] = [b"player_", b"playername_", b"team_t"];

/// Whether the table at `rest` starts without its count byte (America's Army): the first byte
/// begins a column name (`player_`, `team_t`: ASCII letters, digits and `_`, ending in `_` or
/// `_t`) and the bytes after it are not a known first column. A server with 112 players (`p`)
/// and a first column `player_` is read right; one with a count that is a letter and an unknown
/// first column is misread as having none, a case no real server is known to produce.
fn count_omitted(rest: &[u8]) -> bool {
    let name = |b: &[u8]| -> Option<usize> { b.iter().position(|&c| c == 0) };
    if let Some(after) = rest.get(1..) {
        if FIRST_COLUMNS
            .iter()
            .any(|c| after.starts_with(c) && after.get(c.len()) == Some(&0))
        {
            return false;
        }
    }
    let Some(end) = name(rest) else {
        return false;
    };
    let word = &rest[..end];
    word.first().is_some_and(u8::is_ascii_alphabetic)
        && word.iter().all(|&c| c.is_ascii_alphanumeric() || c == b'_')
        && (word.ends_with(b"_") || word.ends_with(b"_t"))
}

/// Writes a reply to a request for `sections` as qstat reads it: info pairs and their empty
/// key and value, the player table closed by an empty value, the team table last. A table's
/// `declared: None` leaves its count byte out (America's Army). NULs inside strings would end
/// them early, so they are dropped.
pub fn encode_reply(reply: &Reply, sections: Sections, out: &mut Vec<u8>) {
    let s = |out: &mut Vec<u8>, v: &str| {
        out.extend(v.bytes().filter(|&b| b != 0));
        out.push(0);
    };
    out.push(0);
    out.extend_from_slice(&reply.id);
    if sections.info {
        for (k, v) in &reply.vars {
            s(out, k);
            s(out, v);
        }
        out.extend_from_slice(&[0, 0]);
    } else {
        out.push(0);
    }
    let table = |out: &mut Vec<u8>, t: &Table, last: bool| {
        if let Some(n) = t.declared {
            out.push(n);
        }
        for c in &t.columns {
            s(out, c);
        }
        out.push(0);
        for row in &t.rows {
            for v in row {
                s(out, v);
            }
        }
        if !last {
            out.push(0);
        }
    };
    let empty = Table {
        declared: Some(0),
        ..Table::default()
    };
    if sections.players {
        table(
            out,
            reply.players.as_ref().unwrap_or(&empty),
            !sections.teams,
        );
    }
    if sections.teams {
        table(out, reply.teams.as_ref().unwrap_or(&empty), true);
    }
}

fn too_large(what: &'static str, value: usize, limit: usize) -> DecodeError {
    DecodeError::TooLarge {
        what,
        value: value as u64,
        limit: limit as u64,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    const ID: [u8; 4] = [0x04, 0x05, 0x06, 0x07];

    fn strings(v: &[&str]) -> Vec<String> {
        v.iter().map(|s| s.to_string()).collect()
    }

    /// A Battlefield Vietnam-style reply to `FF FF FF`, field by field as qstat's reader
    /// walks it: header, info pairs closed by an empty key and value, the player table (count,
    /// columns, an empty column, rows, an empty first value), the team table to the end.
    const BFV: &[u8] = b"\x00\x04\x05\x06\x07\
hostname\0Saigon 24/7\0\
gamever\0v1.21\0\
mapname\0Hue\0\
numplayers\x002\0\
maxplayers\x0032\0\
\0\0\
\x02player_\0score_\0ping_\0team_\0\0\
alice\x0012\x0040\x001\0\
bob\0-3\x0080\x002\0\
\0\
\x02team_t\0score_t\0\0\
NVA\x005\0\
USA\x007\0";

    #[test]
    fn battlefield_vietnam_layout() {
        let r = decode_reply(BFV, ID, Sections::ALL).unwrap();
        assert_eq!(r.get("hostname"), Some("Saigon 24/7"));
        assert_eq!(r.vars.len(), 5);
        assert_eq!(r.get("numplayers"), Some("2"));
        let p = r.players.as_ref().unwrap();
        assert_eq!(p.declared, Some(2));
        assert_eq!(p.columns, strings(&["player_", "score_", "ping_", "team_"]));
        assert_eq!(
            p.rows,
            vec![
                strings(&["alice", "12", "40", "1"]),
                strings(&["bob", "-3", "80", "2"])
            ]
        );
        let t = r.teams.as_ref().unwrap();
        assert_eq!((t.declared, t.columns.len()), (Some(2), 2));
        assert_eq!(t.rows[1], strings(&["USA", "7"]));
        let mut out = Vec::new();
        encode_reply(&r, Sections::ALL, &mut out);
        assert_eq!(out, BFV);
    }

    /// America's Army leaves the count byte out: the table starts with `player_`.
    #[test]
    fn americas_army_missing_count() {
        let d = b"\x00\x04\x05\x06\x07hostname\0AA\0\0\0player_\0score_\0\0x\x001\0\0team_t\0\0Assault\0";
        let r = decode_reply(d, ID, Sections::ALL).unwrap();
        let p = r.players.unwrap();
        assert_eq!(
            (p.declared, p.rows.clone()),
            (None, vec![strings(&["x", "1"])])
        );
        let t = r.teams.unwrap();
        assert_eq!((t.declared, t.rows.len()), (None, 1));
    }

    /// A count that is an ASCII letter before a known first column is still a count.
    #[test]
    fn letter_count_before_player_column() {
        let mut d = b"\x00\x04\x05\x06\x07\0\0".to_vec();
        d.push(b'p');
        d.extend_from_slice(b"player_\0\0x\0");
        let r = decode_reply(&d, ID, Sections::ALL).unwrap();
        let p = r.players.unwrap();
        assert_eq!(
            (p.declared, p.columns.len(), p.rows.len()),
            (Some(b'p'), 1, 1)
        );
    }

    /// An empty server: zero rows, both tables; a reply to players only starts with one zero.
    #[test]
    fn empty_tables_and_partial_requests() {
        let d = b"\x00\x04\x05\x06\x07numplayers\x000\0\0\0\x00player_\0\0\0\x00team_t\0\0";
        let r = decode_reply(d, ID, Sections::ALL).unwrap();
        assert_eq!(r.players.map(|p| p.rows.len()), Some(0));
        assert_eq!(r.teams.map(|p| p.rows.len()), Some(0));
        let players_only = Sections {
            info: false,
            players: true,
            teams: false,
        };
        let d = b"\x00\x04\x05\x06\x07\0\x01player_\0\0solo\0";
        let r = decode_reply(d, ID, players_only).unwrap();
        assert!(r.vars.is_empty());
        assert_eq!(r.players.unwrap().rows, vec![strings(&["solo"])]);
        // Sections asked for but absent at the end are None.
        let r = decode_reply(b"\x00\x04\x05\x06\x07a\0b\0\0\0", ID, Sections::ALL).unwrap();
        assert_eq!((r.players, r.teams), (None, None));
    }

    /// Wrong type, wrong id, cut strings and rows, and the caps.
    #[test]
    fn errors() {
        assert!(matches!(
            decode_reply(b"\x01\x04\x05\x06\x07", ID, Sections::ALL),
            Err(DecodeError::UnexpectedType { .. })
        ));
        assert_eq!(
            decode_reply(b"\x00\x04\x05\x06\x08\0\0", ID, Sections::ALL),
            Err(DecodeError::Mismatch("GameSpy 2 request id"))
        );
        assert!(matches!(
            decode_reply(b"\x00\x04\x05", ID, Sections::ALL),
            Err(DecodeError::Truncated { .. })
        ));
        assert!(matches!(
            decode_reply(b"\x00\x04\x05\x06\x07key\0val", ID, Sections::ALL),
            Err(DecodeError::Unterminated { .. })
        ));
        // Cut inside bob's row.
        let bob = BFV.windows(3).position(|w| w == b"bob").unwrap();
        assert!(matches!(
            decode_reply(&BFV[..bob + 5], ID, Sections::ALL),
            Err(DecodeError::Unterminated { .. })
        ));
        let mut many = b"\x00\x04\x05\x06\x07".to_vec();
        for _ in 0..=MAX_VARS {
            many.extend_from_slice(b"k\0v\0");
        }
        assert!(matches!(
            decode_reply(&many, ID, Sections::ALL),
            Err(DecodeError::TooLarge {
                what: "info pairs",
                ..
            })
        ));
        let mut rows = b"\x00\x04\x05\x06\x07\0\0\xffplayer_\0\0".to_vec();
        for _ in 0..=MAX_ROWS {
            rows.extend_from_slice(b"p\0");
        }
        assert!(matches!(
            decode_reply(&rows, ID, Sections::ALL),
            Err(DecodeError::TooLarge {
                what: "table rows",
                ..
            })
        ));
        let mut cols = b"\x00\x04\x05\x06\x07\0\0\x01".to_vec();
        for _ in 0..=MAX_COLUMNS {
            cols.extend_from_slice(b"c_\0");
        }
        assert!(matches!(
            decode_reply(&cols, ID, Sections::ALL),
            Err(DecodeError::TooLarge {
                what: "table columns",
                ..
            })
        ));
    }

    fn value() -> impl Strategy<Value = String> {
        "[ -~é]{0,10}"
    }

    fn table(first: &'static str) -> impl Strategy<Value = Table> {
        (
            any::<Option<u8>>(),
            proptest::collection::vec("[a-z]{1,6}_", 0..4),
            proptest::collection::vec(("[ -~]{1,8}", proptest::collection::vec(value(), 4)), 0..6),
        )
            .prop_map(move |(declared, more, rows)| {
                let mut columns = vec![first.to_string()];
                columns.extend(more);
                let n = columns.len();
                Table {
                    declared,
                    rows: rows
                        .into_iter()
                        .map(|(head, rest)| std::iter::once(head).chain(rest).take(n).collect())
                        .collect(),
                    columns,
                }
            })
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(512))]

        /// Arbitrary bytes after a valid header never panic, and what decodes fits the caps.
        #[test]
        fn decoder_survives_noise(bytes in proptest::collection::vec(any::<u8>(), 0..512)) {
            let mut d = vec![0, 4, 5, 6, 7];
            d.extend_from_slice(&bytes);
            if let Ok(r) = decode_reply(&d, ID, Sections::ALL) {
                prop_assert!(r.vars.len() <= MAX_VARS);
                for t in r.players.iter().chain(r.teams.iter()) {
                    prop_assert!(t.rows.len() <= MAX_ROWS && t.columns.len() <= MAX_COLUMNS);
                    prop_assert!(t.rows.iter().all(|row| row.len() == t.columns.len()));
                }
            }
        }

        /// Mutating any byte of the layout dump never panics.
        #[test]
        fn decoder_survives_mutations(pos in any::<prop::sample::Index>(), byte in any::<u8>()) {
            let mut d = BFV.to_vec();
            d[pos.index(BFV.len())] = byte;
            let _ = decode_reply(&d, ID, Sections::ALL);
        }

        /// Replies round-trip through the encoder, count bytes present or not.
        #[test]
        fn round_trip(
            vars in proptest::collection::vec(("[a-z]{1,8}", value()), 0..12),
            players in table("player_"),
            teams in table("team_t"),
        ) {
            let reply = Reply { id: ID, vars, players: Some(players), teams: Some(teams) };
            let mut out = Vec::new();
            encode_reply(&reply, Sections::ALL, &mut out);
            prop_assert_eq!(decode_reply(&out, ID, Sections::ALL), Ok(reply));
        }
    }
}
