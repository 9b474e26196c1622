//! The reply body: key/values, then the player and team sections as columns.
//!
//! ```text
//! { key 00 value 00 } 00                          key/values up to an empty key
//! 01 { field 00 offset { value 00 } 00 } 00       players: "player_", "score_", "ping_"...
//! 02 { field 00 offset { value 00 } 00 } 00       teams: "team_t", "score_t"...
//! ```
//! A column lists one value per row starting at row `offset`, up to an empty value. A part
//! may end inside a section; the next part repeats the field name with the offset where it
//! continues. Field names ending in `_t` are team columns wherever they appear. An empty
//! value cannot be sent (it ends the column), so the encoder writes a space instead.

use super::parts::{encode_part, Part, HEADER_LEN};
use super::{DecodeError, Flavor, Reader};

/// Key/value pairs we keep; more is [`DecodeError::TooLarge`].
pub const MAX_PAIRS: usize = 512;
/// Rows per table (player or team); more is [`DecodeError::TooLarge`].
pub const MAX_ROWS: usize = 512;
/// Columns per table; more is [`DecodeError::TooLarge`].
pub const MAX_FIELDS: usize = 64;

const SECTION_INFO: u8 = 0;
const SECTION_PLAYERS: u8 = 1;
const SECTION_TEAMS: u8 = 2;

/// Rows of named columns; a cell a server did not send is `None`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Table {
    /// Field names as sent (`player_`, `score_t`...), in order of first appearance.
    pub fields: Vec<String>,
    /// One entry per row, each as long as `fields`.
    pub rows: Vec<Vec<Option<String>>>,
}

impl Table {
    /// The table as [`Columns`] of its own strings.
    fn columns(&self) -> Columns<'_> {
        let cols = self
            .fields
            .iter()
            .enumerate()
            .map(|(c, f)| {
                let cells = self
                    .rows
                    .iter()
                    .map(|row| row.get(c).and_then(Option::as_deref).map(str::as_bytes))
                    .collect();
                (f.as_bytes(), cells)
            })
            .collect();
        Columns {
            cols,
            rows: self.rows.len(),
            cells: true,
        }
    }

    /// The value of `field` in `row`.
    pub fn get(&self, row: usize, field: &str) -> Option<&str> {
        let col = self.fields.iter().position(|f| f == field)?;
        self.rows.get(row)?.get(col)?.as_deref()
    }
}

/// A whole reply.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Reply {
    /// Key/values in the server's order.
    pub info: Vec<(String, String)>,
    pub players: Table,
    pub teams: Table,
}

impl Reply {
    /// The reply as a [`View`] of its own strings.
    pub fn view(&self) -> View<'_> {
        View {
            info: self
                .info
                .iter()
                .map(|(k, v)| (k.as_bytes(), v.as_bytes()))
                .collect(),
            players: self.players.columns(),
            teams: self.teams.columns(),
        }
    }

    /// The first value under `key`.
    pub fn get(&self, key: &str) -> Option<&str> {
        self.info
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
    }
}

/// A key and its value, as sent.
pub type Pair<'a> = (&'a [u8], &'a [u8]);
/// A column's name and its cells by row, as sent.
type Column<'a> = (&'a [u8], Vec<Option<&'a [u8]>>);

/// A reply as slices of the parts' bodies, nothing decoded or copied: what the exchanges
/// read a status from (decoding only the few strings a status keeps), and what
/// [`decode_body_in`] turns into an owned [`Reply`]. Caps are checked while walking, so a
/// view that exists is within them.
#[derive(Debug, Default)]
pub struct View<'a> {
    /// Key/values in the server's order, as sent.
    pub info: Vec<Pair<'a>>,
    pub players: Columns<'a>,
    pub teams: Columns<'a>,
}

impl<'a> View<'a> {
    fn new(cells: bool) -> View<'a> {
        let table = || Columns {
            cells,
            ..Columns::default()
        };
        View {
            // Room for a typical server's keys: no regrowing on the way.
            info: Vec::with_capacity(32),
            players: table(),
            teams: table(),
        }
    }

    /// The first value under `key` (an ASCII key: its bytes are its text in every flavor).
    pub fn get(&self, key: &str) -> Option<&'a [u8]> {
        self.info
            .iter()
            .find(|(k, _)| *k == key.as_bytes())
            .map(|(_, v)| *v)
    }

    /// The owned reply, every string decoded in `flavor`'s text.
    pub fn to_reply(&self, flavor: &Flavor) -> Reply {
        let text = flavor.text;
        Reply {
            info: self
                .info
                .iter()
                .map(|(k, v)| (text.decode(k), text.decode(v)))
                .collect(),
            players: self.players.to_table(flavor),
            teams: self.teams.to_table(flavor),
        }
    }
}

/// One table as slices: its columns in order of first appearance, each its cells by row.
#[derive(Debug, Default)]
pub struct Columns<'a> {
    cols: Vec<Column<'a>>,
    rows: usize,
    /// Cells are kept; off, only the names and the row count are (a poll that wants no
    /// players: caps are checked all the same).
    cells: bool,
}

impl<'a> Columns<'a> {
    /// Rows: one past the last row any column reached.
    pub fn rows(&self) -> usize {
        self.rows
    }

    /// The cell of `field` in `row`.
    pub fn get(&self, row: usize, field: &str) -> Option<&'a [u8]> {
        let (_, cells) = self.cols.iter().find(|(f, _)| *f == field.as_bytes())?;
        cells.get(row).copied().flatten()
    }

    /// The column named `field`, added if new.
    fn column(&mut self, field: &'a [u8]) -> Result<usize, DecodeError> {
        if let Some(c) = self.cols.iter().position(|(f, _)| *f == field) {
            return Ok(c);
        }
        if self.cols.len() >= MAX_FIELDS {
            return Err(DecodeError::TooLarge {
                what: "GameSpy3 fields",
                value: self.cols.len() as u64 + 1,
                limit: MAX_FIELDS as u64,
            });
        }
        self.cols.push((field, Vec::new()));
        Ok(self.cols.len() - 1)
    }

    fn set(
        &mut self,
        row: usize,
        col: usize,
        value: &'a [u8],
        max_rows: usize,
    ) -> Result<(), DecodeError> {
        if row >= max_rows {
            return Err(DecodeError::TooLarge {
                what: "GameSpy3 rows",
                value: row as u64 + 1,
                limit: max_rows as u64,
            });
        }
        self.rows = self.rows.max(row + 1);
        if !self.cells {
            return Ok(());
        }
        if let Some((_, cells)) = self.cols.get_mut(col) {
            if cells.len() <= row {
                cells.resize(row + 1, None);
            }
            cells[row] = Some(value);
        }
        Ok(())
    }

    /// The owned table: names and cells decoded, every row as wide as the fields.
    fn to_table(&self, flavor: &Flavor) -> Table {
        let text = flavor.text;
        let mut table = Table::default();
        let mut at = Vec::with_capacity(self.cols.len());
        for (field, _) in &self.cols {
            let name = text.decode(field);
            // Two names whose bytes differ may read the same (lossy text): one column.
            let col = match table.fields.iter().position(|f| *f == name) {
                Some(c) => c,
                None => {
                    table.fields.push(name);
                    table.fields.len() - 1
                }
            };
            at.push(col);
        }
        table.rows = vec![vec![None; table.fields.len()]; self.rows];
        for ((_, cells), &col) in self.cols.iter().zip(&at) {
            for (row, cell) in cells.iter().enumerate() {
                if let Some(v) = cell {
                    table.rows[row][col] = Some(text.decode(v));
                }
            }
        }
        table
    }
}

/// One key/value pair, or `None` at the empty key that ends them; kept under the flavor's
/// cap.
fn pair<'a>(
    r: &mut Reader<'a>,
    flavor: &Flavor,
    info: &[Pair<'a>],
) -> Result<Option<Pair<'a>>, DecodeError> {
    let key = r.cstr()?;
    if key.is_empty() {
        return Ok(None);
    }
    let value = r.cstr()?;
    if info.len() >= flavor.max_pairs {
        return Err(DecodeError::TooLarge {
            what: "GameSpy3 key/values",
            value: info.len() as u64 + 1,
            limit: flavor.max_pairs as u64,
        });
    }
    Ok(Some((key, value)))
}

/// One column's values into `table` from row `offset` on, up to an empty value; when
/// `open`, the end of the body also ends it (a part may stop mid-column, the next part
/// continues it).
fn column<'a>(
    r: &mut Reader<'a>,
    flavor: &Flavor,
    table: &mut Columns<'a>,
    field: &'a [u8],
    offset: usize,
    open: bool,
) -> Result<(), DecodeError> {
    let col = table.column(field)?;
    let mut row = offset;
    while !(open && r.is_empty()) {
        let value = r.cstr()?;
        if value.is_empty() {
            break;
        }
        table.set(row, col, value, flavor.max_rows)?;
        row += 1;
    }
    Ok(())
}

/// Decodes the bodies of a reply's parts, given in index order with the section each
/// starts in (what [`super::Parts::bodies`] yields).
///
/// A key/value pair never spans two parts (a part ending between a key and its value is
/// [`DecodeError::Unterminated`]); a column may, as the format intends. Bytes after the team
/// section are ignored. Text that is not UTF-8 decodes lossily.
pub fn decode_body<'a>(
    bodies: impl IntoIterator<Item = (u8, &'a [u8])>,
) -> Result<Reply, DecodeError> {
    decode_body_in(&Flavor::GAMESPY3, bodies)
}

/// [`decode_body`] in `flavor`. A single-part flavor (Minecraft) reads the first body
/// alone, strictly: the key/values up to the empty key, `01 player_ 00 00` (else
/// [`DecodeError::Invalid`]), the names up to the empty one; a body that stops before any of
/// these ends is an error, and what follows the names is ignored.
pub fn decode_body_in<'a>(
    flavor: &Flavor,
    bodies: impl IntoIterator<Item = (u8, &'a [u8])>,
) -> Result<Reply, DecodeError> {
    view_body_in(flavor, bodies).map(|v| v.to_reply(flavor))
}

/// [`decode_body_in`] as a [`View`]: the same walk, the same errors, no string decoded.
pub fn view_body_in<'a>(
    flavor: &Flavor,
    bodies: impl IntoIterator<Item = (u8, &'a [u8])>,
) -> Result<View<'a>, DecodeError> {
    view_body_keeping(flavor, bodies, true)
}

/// [`view_body_in`], keeping the player and team cells only when `cells` (else their
/// names and row counts alone): the same walk and errors.
pub fn view_body_keeping<'a>(
    flavor: &Flavor,
    bodies: impl IntoIterator<Item = (u8, &'a [u8])>,
    cells: bool,
) -> Result<View<'a>, DecodeError> {
    let mut reply = View::new(cells);
    if flavor.single_part {
        let body = bodies.into_iter().next().map_or(&[][..], |(_, b)| b);
        view_single(flavor, body, &mut reply)?;
        return Ok(reply);
    }
    let mut section = SECTION_INFO;
    let mut done = false;
    for (index, (start, body)) in bodies.into_iter().enumerate() {
        if done {
            break;
        }
        // A later part that says it starts past where we are (the section end fell at the
        // end of the previous part) is believed; one that says "earlier" is not.
        if index > 0 && start > section && start <= SECTION_TEAMS {
            section = start;
        }
        let mut r = Reader::new(body);
        while !r.is_empty() && !done {
            if section == SECTION_INFO {
                match pair(&mut r, flavor, &reply.info)? {
                    Some(kv) => reply.info.push(kv),
                    None => {
                        section = SECTION_PLAYERS;
                        // The players' section number follows; a server that leaves it out
                        // goes straight to a field name.
                        if r.rest().first() == Some(&SECTION_PLAYERS) {
                            r.skip(1)?;
                        }
                    }
                }
                continue;
            }
            match r.rest().first() {
                Some(&s @ (SECTION_PLAYERS | SECTION_TEAMS)) => {
                    section = s;
                    r.skip(1)?;
                    continue;
                }
                Some(0) => {
                    // An empty field name ends the section.
                    r.skip(1)?;
                    if section == SECTION_TEAMS {
                        done = true;
                    } else {
                        section = SECTION_TEAMS;
                    }
                    continue;
                }
                _ => {}
            }
            let field = r.cstr()?;
            let offset = usize::from(r.u8()?);
            // A name ending in `_t` ends so in every flavor's text: bytes decide.
            let table = if field.ends_with(b"_t") || section == SECTION_TEAMS {
                &mut reply.teams
            } else {
                &mut reply.players
            };
            column(&mut r, flavor, table, field, offset, true)?;
        }
    }
    Ok(reply)
}

/// The players' section (`01`), then the `player_` column from row 0: all a single part's
/// player section holds.
const PLAYER_MARKER: &[u8] = b"\x01player_\x00\x00";

fn view_single<'a>(
    flavor: &Flavor,
    body: &'a [u8],
    reply: &mut View<'a>,
) -> Result<(), DecodeError> {
    let mut r = Reader::new(body);
    while let Some(kv) = pair(&mut r, flavor, &reply.info)? {
        reply.info.push(kv);
    }
    if r.bytes(PLAYER_MARKER.len())? != PLAYER_MARKER {
        return Err(DecodeError::Invalid(flavor.words.player_marker));
    }
    column(&mut r, flavor, &mut reply.players, b"player_", 0, false)?;
    Ok(())
}

/// Splits bodies into parts of at most `limit` bytes, header included; what cannot be split
/// (one key/value pair, one column value, a section's end and start markers) may overrun it
/// by its own length.
struct Writer {
    limit: usize,
    parts: Vec<(u8, Vec<u8>)>,
    cur: Vec<u8>,
    section: u8,
}

impl Writer {
    fn fits(&self, n: usize) -> bool {
        HEADER_LEN + self.cur.len() + n <= self.limit
    }

    /// Ends the current part, noting the section the next one starts in.
    fn cut(&mut self) {
        let body = std::mem::take(&mut self.cur);
        self.parts.push((self.section, body));
    }
}

fn cell(value: Option<&String>) -> Vec<u8> {
    let mut out: Vec<u8> = match value.map(String::as_bytes) {
        Some(v) if !v.is_empty() => v.iter().copied().filter(|&b| b != 0).collect(),
        _ => Vec::new(),
    };
    if out.is_empty() {
        out.push(b' ');
    }
    out.push(0);
    out
}

fn cstr(s: &str) -> Vec<u8> {
    let mut out: Vec<u8> = s.bytes().filter(|&b| b != 0).collect();
    out.push(0);
    out
}

fn write_table(w: &mut Writer, table: &Table, section: u8) {
    w.cur.push(section);
    w.section = section;
    for (col, field) in table.fields.iter().enumerate() {
        let name = cstr(field);
        let mut row = 0usize;
        // Always at least the field name and its offset, even for an empty table.
        if !w.fits(name.len() + 2) && !w.cur.is_empty() {
            w.cut();
        }
        w.cur.extend_from_slice(&name);
        w.cur.push(0);
        while row < table.rows.len() {
            let value = cell(table.rows[row].get(col).and_then(Option::as_ref));
            if !w.fits(value.len() + 1) {
                // Close this part's run of the column and continue it in the next part.
                let Ok(offset) = u8::try_from(row) else {
                    break;
                };
                w.cur.push(0);
                w.cut();
                w.cur.extend_from_slice(&name);
                w.cur.push(offset);
            }
            w.cur.extend_from_slice(&value);
            row += 1;
        }
        w.cur.push(0);
    }
    w.cur.push(0);
}

/// Writes a reply as datagrams of at most `max_datagram` bytes where it can be split (see
/// [`Writer`]), each a part with its header; appends them to `out`.
pub fn encode_reply(session: i32, reply: &Reply, max_datagram: usize, out: &mut Vec<Vec<u8>>) {
    let mut w = Writer {
        limit: max_datagram,
        parts: Vec::new(),
        cur: Vec::new(),
        section: SECTION_INFO,
    };
    for (k, v) in reply.info.iter().filter(|(k, _)| !k.is_empty()) {
        let mut pair = cstr(k);
        pair.extend_from_slice(&cstr(v));
        if !w.fits(pair.len()) && !w.cur.is_empty() {
            w.cut();
        }
        w.cur.extend_from_slice(&pair);
    }
    w.cur.push(0);
    write_table(&mut w, &reply.players, SECTION_PLAYERS);
    write_table(&mut w, &reply.teams, SECTION_TEAMS);
    w.cut();
    let count = w.parts.len();
    let mut start = SECTION_INFO;
    for (i, (end_section, body)) in w.parts.iter().enumerate() {
        let mut datagram = Vec::with_capacity(HEADER_LEN + body.len());
        let part = Part {
            index: u8::try_from(i).unwrap_or(u8::MAX),
            last: i + 1 == count,
            section: start,
            body,
        };
        encode_part(session, &part, &mut datagram);
        out.push(datagram);
        start = *end_section;
    }
}
