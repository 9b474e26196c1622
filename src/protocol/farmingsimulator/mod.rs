//! Farming Simulator's dedicated-server stats feed (`docs/protocols/farmingsimulator.md`).
//!
//! # Format
//! ```text
//! GET /feed/dedicated-server-stats.xml?code=<the server's stats code>   (HTTP)
//! 200 text/xml
//! <?xml version="1.0" encoding="utf-8" standalone="no" ?>
//! <Server game="Farming Simulator 22" version="1.14.0.0" name="My farm" mapName="Elmcreek"
//!         dayTime="43200000" mapOverviewFilename="data/maps/..." mapSize="2048">
//!   <Slots capacity="16" numUsed="2">
//!     <Player isUsed="true" isAdmin="false" uptime="12" x="1.5" y="90.0" z="-3.25">Alice</Player>
//!     <Player isUsed="true" isAdmin="true" uptime="3">Bob</Player>
//!     <Player isUsed="false"/>   (one per free slot)
//!   </Slots>
//!   <Vehicles>...</Vehicles>
//!   <Mods><Mod name="FS22_x" author="..." version="1.0.0.0" hash="...">Title</Mod></Mods>
//!   <Farmlands>...</Farmlands> <Fields>...</Fields>
//! </Server>
//! ```
//! The game writes it through its XML library: names are entity-escaped in attributes and
//! text alike, `uptime` is minutes, `numUsed` leaves out the dedicated server's own user, and
//! the coordinates are there only for a player walking (not in a vehicle).
//!
//! Read with quick-xml's pull parser (no tree, no DTD, no entity expansion beyond XML's five
//! and character references); only `Server`, `Slots`, `Player` and `Mod` are looked at, the
//! vehicle, field and farmland lists (the bulk of a big farm's feed) are skipped as they
//! stream past. The body's size is capped by the link (`max_reply_bytes`).

pub mod exchange;
pub mod spec;

use std::borrow::Cow;
use std::time::Duration;

use quick_xml::events::{BytesStart, Event};
use quick_xml::{Reader, XmlVersion};

use crate::protocol::DecodeError;
use crate::status::{Player, Status};

/// The feed's path.
pub const FEED_PATH: &str = "/feed/dedicated-server-stats.xml";

/// What we read of the feed.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Feed {
    pub game: Option<String>,
    pub version: Option<String>,
    pub name: String,
    pub map: Option<String>,
    /// Metres along one side of the map.
    pub map_size: Option<u32>,
    /// Milliseconds since the in-game midnight.
    pub day_time: Option<u64>,
    /// `Slots capacity`.
    pub capacity: u32,
    /// `Slots numUsed`.
    pub used: u32,
    /// The used slots' players, in the feed's order.
    pub players: Vec<FsPlayer>,
    /// How many `Mod` entries the feed lists.
    pub mods: u32,
}

/// One used slot.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct FsPlayer {
    pub name: String,
    pub admin: bool,
    /// Minutes connected.
    pub uptime_minutes: Option<u32>,
}

/// Where the reader is in the document: only these levels matter.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Place {
    /// Before the root.
    Outside,
    /// Directly inside `<Server>` (`depth` counts elements below it).
    Server,
    Slots,
    /// Inside a used `<Player>`: its text is the name.
    Player,
    Mods,
    /// In an element we skip, `depth` levels below the last place that mattered.
    Skipped(Parent, u32),
    /// After `</Server>`.
    Done,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Parent {
    Outside,
    Server,
    Slots,
    Player,
    Mods,
}

impl Parent {
    fn place(self) -> Place {
        match self {
            Parent::Outside => Place::Outside,
            Parent::Server => Place::Server,
            Parent::Slots => Place::Slots,
            Parent::Player => Place::Player,
            Parent::Mods => Place::Mods,
        }
    }
}

/// Reads the feed. Anything that is not well-formed XML with a `<Server>` root holding a
/// `<Slots>` element is [`DecodeError::Invalid`].
pub fn decode_feed(body: &[u8]) -> Result<Feed, DecodeError> {
    let text = std::str::from_utf8(body).map_err(|_| DecodeError::Invalid("feed not UTF-8"))?;
    let mut reader = Reader::from_str(text);
    let mut feed = Feed::default();
    let mut place = Place::Outside;
    let mut seen_server = false;
    let mut seen_slots = false;
    let mut name = String::new();
    loop {
        let event = reader
            .read_event()
            .map_err(|_| DecodeError::Invalid("feed XML"))?;
        let (start, empty) = match &event {
            Event::Start(e) => (Some(e), false),
            Event::Empty(e) => (Some(e), true),
            _ => (None, false),
        };
        if let Some(e) = start {
            let tag = e.local_name();
            let tag: &str = tag.as_ref();
            let next = match place {
                Place::Outside if tag == "Server" && !seen_server => {
                    seen_server = true;
                    read_server(e, &mut feed)?;
                    Place::Server
                }
                Place::Server if tag == "Slots" && !seen_slots => {
                    seen_slots = true;
                    feed.capacity = count(attr(e, "capacity")?, "Slots capacity")?;
                    feed.used = count(attr(e, "numUsed")?, "Slots numUsed")?;
                    Place::Slots
                }
                Place::Server if tag == "Mods" => Place::Mods,
                Place::Slots if tag == "Player" => {
                    if attr(e, "isUsed")?.as_deref() == Some("true") {
                        feed.players.push(FsPlayer {
                            name: String::new(),
                            admin: attr(e, "isAdmin")?.as_deref() == Some("true"),
                            uptime_minutes: attr(e, "uptime")?.and_then(|u| u.parse().ok()),
                        });
                        name.clear();
                        Place::Player
                    } else {
                        Place::Skipped(Parent::Slots, 0)
                    }
                }
                Place::Mods if tag == "Mod" => {
                    feed.mods = feed.mods.saturating_add(1);
                    Place::Skipped(Parent::Mods, 0)
                }
                Place::Outside => Place::Skipped(Parent::Outside, 0),
                Place::Server => Place::Skipped(Parent::Server, 0),
                Place::Slots => Place::Skipped(Parent::Slots, 0),
                Place::Mods => Place::Skipped(Parent::Mods, 0),
                // A player's name is text: an element inside it is skipped.
                Place::Player => Place::Skipped(Parent::Player, 0),
                Place::Skipped(p, d) => Place::Skipped(p, d + 1),
                Place::Done => return Err(DecodeError::Invalid("feed element after Server")),
            };
            place = match (empty, next) {
                // `<Player isUsed="true" .../>`: a used slot without a name.
                (true, Place::Player) => Place::Slots,
                (true, Place::Server) => Place::Done,
                (true, Place::Slots | Place::Mods) => Place::Server,
                (true, Place::Skipped(p, 0)) => p.place(),
                (true, Place::Skipped(p, d)) => Place::Skipped(p, d - 1),
                (_, next) => next,
            };
            continue;
        }
        match event {
            Event::End(_) => {
                place = match place {
                    Place::Server => Place::Done,
                    Place::Slots | Place::Mods => Place::Server,
                    Place::Player => {
                        if let Some(p) = feed.players.last_mut() {
                            p.name = std::mem::take(&mut name);
                        }
                        Place::Slots
                    }
                    Place::Skipped(p, 0) => p.place(),
                    Place::Skipped(p, d) => Place::Skipped(p, d - 1),
                    // quick-xml checks that every end tag closes an open element.
                    Place::Outside | Place::Done => Place::Done,
                };
            }
            Event::Text(t) if place == Place::Player => name.push_str(&t.xml10_content()),
            Event::CData(t) if place == Place::Player => {
                name.push_str(&t.xml10_content());
            }
            Event::GeneralRef(r) if place == Place::Player => match r.resolve_char_ref() {
                Ok(Some(c)) => name.push(c),
                _ => match quick_xml::escape::resolve_predefined_entity(&r) {
                    Some(s) => name.push_str(s),
                    // An HTML entity the game's escaping may write: kept as written.
                    None => {
                        name.push('&');
                        name.push_str(&r);
                        name.push(';');
                    }
                },
            },
            Event::Eof => break,
            _ => {}
        }
    }
    if !seen_server || place != Place::Done {
        return Err(DecodeError::Invalid("feed without a closed Server element"));
    }
    if !seen_slots {
        return Err(DecodeError::Invalid("feed without Slots"));
    }
    for p in &mut feed.players {
        p.name = p.name.trim().to_string();
    }
    Ok(feed)
}

/// The `<Server>` element's attributes.
fn read_server(e: &BytesStart<'_>, feed: &mut Feed) -> Result<(), DecodeError> {
    feed.game = attr(e, "game")?;
    feed.version = attr(e, "version")?;
    feed.name = attr(e, "name")?.unwrap_or_default();
    feed.map = attr(e, "mapName")?;
    feed.map_size = attr(e, "mapSize")?.and_then(|v| v.parse().ok());
    feed.day_time = attr(e, "dayTime")?.and_then(|v| v.parse().ok());
    Ok(())
}

/// Attribute `key`'s value, unescaped (an entity XML does not define is kept as written).
fn attr(e: &BytesStart<'_>, key: &str) -> Result<Option<String>, DecodeError> {
    for a in e.attributes() {
        let a = a.map_err(|_| DecodeError::Invalid("feed attribute"))?;
        if a.key.as_ref() == key {
            let value = a
                .normalized_value(XmlVersion::Implicit1_0)
                .unwrap_or(Cow::Borrowed(&*a.value));
            return Ok(Some(value.into_owned()));
        }
    }
    Ok(None)
}

/// A count attribute: absent is 0, anything but a non-negative integer is invalid.
fn count(v: Option<String>, field: &'static str) -> Result<u32, DecodeError> {
    match v {
        None => Ok(0),
        Some(v) => v.trim().parse().map_err(|_| DecodeError::Invalid(field)),
    }
}

/// The feed as the game writes it (the simulator's side, and the round trip's).
pub fn encode_feed(feed: &Feed, out: &mut String) {
    use quick_xml::escape::escape;
    use std::fmt::Write;
    let opt = |v: &Option<String>| escape(v.as_deref().unwrap_or_default()).into_owned();
    out.push_str("<?xml version=\"1.0\" encoding=\"utf-8\" standalone=\"no\" ?>\n");
    let _ = writeln!(
        out,
        "<Server game=\"{}\" version=\"{}\" name=\"{}\" mapName=\"{}\" dayTime=\"{}\" \
         mapOverviewFilename=\"data/maps/mapUS/overview.png\" mapSize=\"{}\">",
        opt(&feed.game),
        opt(&feed.version),
        escape(&feed.name),
        opt(&feed.map),
        feed.day_time.unwrap_or(0),
        feed.map_size.unwrap_or(2048),
    );
    let _ = writeln!(
        out,
        "    <Slots capacity=\"{}\" numUsed=\"{}\">",
        feed.capacity, feed.used
    );
    for p in &feed.players {
        let _ = write!(
            out,
            "        <Player isUsed=\"true\" isAdmin=\"{}\"",
            p.admin
        );
        if let Some(u) = p.uptime_minutes {
            let _ = write!(out, " uptime=\"{u}\"");
        }
        let _ = writeln!(out, ">{}</Player>", escape(&p.name));
    }
    let free = (feed.capacity as usize).saturating_sub(feed.players.len());
    for _ in 0..free.min(256) {
        out.push_str("        <Player isUsed=\"false\"/>\n");
    }
    out.push_str("    </Slots>\n    <Vehicles/>\n    <Mods>\n");
    for i in 0..feed.mods {
        let _ = writeln!(
            out,
            "        <Mod name=\"FS_mod{i}\" author=\"Sim\" version=\"1.0.0.0\" hash=\"0\">Mod {i}</Mod>"
        );
    }
    out.push_str("    </Mods>\n    <Farmlands/>\n    <Fields/>\n</Server>\n");
}

/// The normalized status.
pub fn to_status(feed: Feed, latency: Duration, players: bool, detail: bool) -> Status {
    let listed = u32::try_from(feed.players.len()).unwrap_or(u32::MAX);
    let mut out = Status {
        // Counts: where the list is longer than the count, publish the list's.
        online: feed.used.max(listed),
        max: feed.capacity,
        name: feed.name,
        map: feed.map,
        game: feed.game,
        version: feed.version,
        latency,
        ..Status::default()
    };
    let admins = feed.players.iter().filter(|p| p.admin).count();
    out.extras.insert("admins".into(), admins.into());
    out.extras.insert("mods".into(), feed.mods.into());
    if detail {
        if let Some(v) = feed.map_size {
            out.extras.insert("map_size".into(), v.into());
        }
        if let Some(v) = feed.day_time {
            out.extras.insert("day_time_ms".into(), v.into());
        }
    }
    if players {
        out.players = Some(
            feed.players
                .into_iter()
                .map(|p| Player {
                    name: p.name,
                    duration: p.uptime_minutes.map(|m| m as f32 * 60.0),
                    ..Player::default()
                })
                .collect(),
        );
    }
    out
}

#[cfg(test)]
mod tests;
