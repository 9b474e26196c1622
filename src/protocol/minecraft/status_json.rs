//! The status JSON read in one pass for what the exporter keeps, without building the
//! document: the poll's hot path when no `raw` document is asked for (`detail` off).
//!
//! Building a `serde_json::Value` tree of the whole status (a map node and a key string per
//! field, a string per value, then dropping it all) was a third of a Minecraft poll's
//! instructions (benches/RESULTS.md, issue 23, h-mctcp). Here every value is still read in
//! full by the same deserializer (strings decoded and checked, numbers parsed, the same
//! nesting limit), so a document is accepted or refused exactly as the `Value` parse
//! ([`super::slp::parse_status_json`] with `raw`) does, and gives the same fields: a
//! property test there compares the two. Only `description` is kept as a `Value` (the MOTD
//! renderer reads it). Duplicate keys: the last one wins, as in a `Value` map.
//!
//! The fields are read straight into [`ServerStatus`] (its `raw` left `Null`), which lives
//! here rather than in `slp` so that both reads build it without `slp` and this file using
//! each other.

use std::fmt;

use serde::de::{DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::Value;

/// Sample entries kept from `players.sample`; vanilla sends at most 12.
pub const MAX_SAMPLE: usize = 256;

/// What a status response says, in the shape the exporter uses. Every part is optional
/// because servers (and mods, and proxies) leave out whatever they like.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ServerStatus {
    pub version_name: Option<String>,
    pub version_protocol: Option<i64>,
    pub online: Option<u32>,
    pub max: Option<u32>,
    /// Player names (and ids) from `players.sample`, at most [`MAX_SAMPLE`].
    pub sample: Vec<(String, Option<String>)>,
    /// The raw `description` (string, chat component or array); see [`super::motd`].
    pub description: Option<Value>,
    /// Bytes of the favicon data URL, when there is one. The image itself is not kept.
    pub favicon_bytes: Option<usize>,
    /// Forge: mods listed in `modinfo.modList` (1.7-1.12) or `forgeData.mods` (1.13+).
    pub forge_mods: Option<usize>,
    /// Forge 1.13+: network channels in `forgeData.channels`.
    pub forge_channels: Option<usize>,
    /// The whole JSON object, favicon removed; `Null` when the fields alone were read.
    pub raw: Value,
}

/// The first JSON value: an object's fields (`raw` left `Null`), or `None` when it is valid
/// JSON but no object.
#[derive(Default)]
pub struct Top(pub Option<ServerStatus>);

/// Reads the first value of `de` (the caller's stream deserializer gives the rest its
/// meaning: trailing data is ignored).
impl<'de> serde::Deserialize<'de> for Top {
    fn deserialize<D: Deserializer<'de>>(de: D) -> Result<Top, D::Error> {
        de.deserialize_any(TopVisitor)
    }
}

/// Implements a visitor's methods for every JSON value but an object: the value is read in
/// full (so it is checked as a `Value` parse checks it) and gives the default.
macro_rules! not_an_object {
    () => {
        fn visit_bool<E: serde::de::Error>(self, _: bool) -> Result<Self::Value, E> {
            Ok(Default::default())
        }
        fn visit_i64<E: serde::de::Error>(self, _: i64) -> Result<Self::Value, E> {
            Ok(Default::default())
        }
        fn visit_u64<E: serde::de::Error>(self, _: u64) -> Result<Self::Value, E> {
            Ok(Default::default())
        }
        fn visit_f64<E: serde::de::Error>(self, _: f64) -> Result<Self::Value, E> {
            Ok(Default::default())
        }
        fn visit_str<E: serde::de::Error>(self, _: &str) -> Result<Self::Value, E> {
            Ok(Default::default())
        }
        fn visit_unit<E: serde::de::Error>(self) -> Result<Self::Value, E> {
            Ok(Default::default())
        }
        fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
            while seq.next_element_seed(Skip)?.is_some() {}
            Ok(Default::default())
        }
    };
}

struct TopVisitor;

impl<'de> Visitor<'de> for TopVisitor {
    type Value = Top;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a JSON value")
    }

    not_an_object!();

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Top, A::Error> {
        let mut f = ServerStatus::default();
        // `modinfo.modList` wins over `forgeData.mods` whenever it is present, array or not.
        let mut mod_list: Option<Option<usize>> = None;
        let mut forge_mods: Option<Option<usize>> = None;
        while let Some(key) = map.next_key_seed(Key)? {
            match key {
                Field::Version => {
                    let v: Version = map.next_value_seed(Object(Version::default()))?;
                    (f.version_name, f.version_protocol) = (v.name, v.protocol);
                }
                Field::Players => {
                    let p: Players = map.next_value_seed(Object(Players::default()))?;
                    (f.online, f.max, f.sample) = (p.online, p.max, p.sample);
                }
                Field::Description => f.description = Some(map.next_value::<Value>()?),
                Field::Favicon => f.favicon_bytes = map.next_value_seed(Facet::TextLen)?.len(),
                Field::Modinfo => {
                    let m: Modinfo = map.next_value_seed(Object(Modinfo::default()))?;
                    mod_list = m.mod_list;
                }
                Field::ForgeData => {
                    let d: ForgeData = map.next_value_seed(Object(ForgeData::default()))?;
                    forge_mods = d.mods;
                    f.forge_channels = d.channels;
                }
                _ => map.next_value_seed(Skip)?,
            }
        }
        f.forge_mods = match mod_list {
            Some(len) => len,
            None => forge_mods.flatten(),
        };
        Ok(Top(Some(f)))
    }
}

/// The keys the exporter reads, at any level; anything else is [`Field::Other`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Field {
    Version,
    Players,
    Description,
    Favicon,
    Modinfo,
    ForgeData,
    Name,
    Protocol,
    Online,
    Max,
    Sample,
    Id,
    ModList,
    Mods,
    Channels,
    Other,
}

/// A key, decoded (escapes included) and matched without being kept.
struct Key;

impl<'de> DeserializeSeed<'de> for Key {
    type Value = Field;
    fn deserialize<D: Deserializer<'de>>(self, de: D) -> Result<Field, D::Error> {
        de.deserialize_str(self)
    }
}

impl<'de> Visitor<'de> for Key {
    type Value = Field;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a key")
    }

    fn visit_str<E: serde::de::Error>(self, s: &str) -> Result<Field, E> {
        Ok(match s {
            "version" => Field::Version,
            "players" => Field::Players,
            "description" => Field::Description,
            "favicon" => Field::Favicon,
            "modinfo" => Field::Modinfo,
            "forgeData" => Field::ForgeData,
            "name" => Field::Name,
            "protocol" => Field::Protocol,
            "online" => Field::Online,
            "max" => Field::Max,
            "sample" => Field::Sample,
            "id" => Field::Id,
            "modList" => Field::ModList,
            "mods" => Field::Mods,
            "channels" => Field::Channels,
            _ => Field::Other,
        })
    }
}

/// Any JSON value, read in full and dropped: strings decoded and checked, numbers parsed,
/// nesting counted, as a `Value` parse would, but nothing allocated.
struct Skip;

impl<'de> DeserializeSeed<'de> for Skip {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, de: D) -> Result<(), D::Error> {
        de.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Skip {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a JSON value")
    }

    not_an_object!();

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        while map.next_key_seed(Skip)?.is_some() {
            map.next_value_seed(Skip)?;
        }
        Ok(())
    }
}

/// One reading of a scalar, as the `Value`-based parse reads it: `Text` as `as_str`, `Int`
/// as `as_i64`, `Count` as `slp::count` (a non-negative number or a numeric string, capped
/// to u32), `TextLen` a string's length, `ArrayLen` an array's. Any other value is read in
/// full and gives [`Got::Nothing`].
#[derive(Debug, Clone, Copy)]
enum Facet {
    Text,
    Int,
    Count,
    TextLen,
    ArrayLen,
}

#[derive(Debug, Default)]
enum Got {
    #[default]
    Nothing,
    Text(String),
    Int(i64),
    Count(u32),
    Len(usize),
}

impl Got {
    fn text(self) -> Option<String> {
        match self {
            Got::Text(s) => Some(s),
            _ => None,
        }
    }
    fn int(self) -> Option<i64> {
        match self {
            Got::Int(n) => Some(n),
            _ => None,
        }
    }
    fn count(self) -> Option<u32> {
        match self {
            Got::Count(n) => Some(n),
            _ => None,
        }
    }
    fn len(self) -> Option<usize> {
        match self {
            Got::Len(n) => Some(n),
            _ => None,
        }
    }
}

fn capped(n: u64) -> Got {
    Got::Count(u32::try_from(n).unwrap_or(u32::MAX))
}

impl<'de> DeserializeSeed<'de> for Facet {
    type Value = Got;
    fn deserialize<D: Deserializer<'de>>(self, de: D) -> Result<Got, D::Error> {
        de.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Facet {
    type Value = Got;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_bool<E: serde::de::Error>(self, _: bool) -> Result<Got, E> {
        Ok(Got::Nothing)
    }

    fn visit_i64<E: serde::de::Error>(self, n: i64) -> Result<Got, E> {
        Ok(match self {
            Facet::Int => Got::Int(n),
            Facet::Count => u64::try_from(n).map_or(Got::Nothing, capped),
            _ => Got::Nothing,
        })
    }

    fn visit_u64<E: serde::de::Error>(self, n: u64) -> Result<Got, E> {
        Ok(match self {
            Facet::Int => i64::try_from(n).map_or(Got::Nothing, Got::Int),
            Facet::Count => capped(n),
            _ => Got::Nothing,
        })
    }

    fn visit_f64<E: serde::de::Error>(self, n: f64) -> Result<Got, E> {
        Ok(match self {
            Facet::Count if n >= 0.0 => capped(n as u64),
            _ => Got::Nothing,
        })
    }

    fn visit_str<E: serde::de::Error>(self, s: &str) -> Result<Got, E> {
        Ok(match self {
            Facet::Text => Got::Text(s.to_owned()),
            Facet::TextLen => Got::Len(s.len()),
            Facet::Count => s.trim().parse::<u64>().map_or(Got::Nothing, capped),
            _ => Got::Nothing,
        })
    }

    fn visit_unit<E: serde::de::Error>(self) -> Result<Got, E> {
        Ok(Got::Nothing)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Got, A::Error> {
        let mut n = 0usize;
        while seq.next_element_seed(Skip)?.is_some() {
            n += 1;
        }
        Ok(match self {
            Facet::ArrayLen => Got::Len(n),
            _ => Got::Nothing,
        })
    }

    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Got, A::Error> {
        Skip.visit_map(map).map(|()| Got::Nothing)
    }
}

/// An object the exporter reads some keys of; any other value gives the default.
trait ObjectFields: Default {
    /// Reads the value of `key` from `map` into `self` (the last occurrence wins).
    fn field<'de, A: MapAccess<'de>>(&mut self, key: Field, map: &mut A) -> Result<(), A::Error>;
}

struct Object<T>(T);

impl<'de, T: ObjectFields> DeserializeSeed<'de> for Object<T> {
    type Value = T;
    fn deserialize<D: Deserializer<'de>>(self, de: D) -> Result<T, D::Error> {
        de.deserialize_any(self)
    }
}

impl<'de, T: ObjectFields> Visitor<'de> for Object<T> {
    type Value = T;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a JSON value")
    }

    not_an_object!();

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<T, A::Error> {
        let mut t = self.0;
        while let Some(key) = map.next_key_seed(Key)? {
            t.field(key, &mut map)?;
        }
        Ok(t)
    }
}

#[derive(Default)]
struct Version {
    name: Option<String>,
    protocol: Option<i64>,
}

impl ObjectFields for Version {
    fn field<'de, A: MapAccess<'de>>(&mut self, key: Field, map: &mut A) -> Result<(), A::Error> {
        match key {
            Field::Name => self.name = map.next_value_seed(Facet::Text)?.text(),
            Field::Protocol => self.protocol = map.next_value_seed(Facet::Int)?.int(),
            _ => map.next_value_seed(Skip)?,
        }
        Ok(())
    }
}

#[derive(Default)]
struct Players {
    online: Option<u32>,
    max: Option<u32>,
    sample: Vec<(String, Option<String>)>,
}

impl ObjectFields for Players {
    fn field<'de, A: MapAccess<'de>>(&mut self, key: Field, map: &mut A) -> Result<(), A::Error> {
        match key {
            Field::Online => self.online = map.next_value_seed(Facet::Count)?.count(),
            Field::Max => self.max = map.next_value_seed(Facet::Count)?.count(),
            Field::Sample => self.sample = map.next_value_seed(Sample)?,
            _ => map.next_value_seed(Skip)?,
        }
        Ok(())
    }
}

/// `players.sample`: the entries whose `name` is a string, at most [`MAX_SAMPLE`]; not an
/// array: none.
struct Sample;

impl<'de> DeserializeSeed<'de> for Sample {
    type Value = Vec<(String, Option<String>)>;
    fn deserialize<D: Deserializer<'de>>(self, de: D) -> Result<Self::Value, D::Error> {
        de.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Sample {
    type Value = Vec<(String, Option<String>)>;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_bool<E: serde::de::Error>(self, _: bool) -> Result<Self::Value, E> {
        Ok(Vec::new())
    }
    fn visit_i64<E: serde::de::Error>(self, _: i64) -> Result<Self::Value, E> {
        Ok(Vec::new())
    }
    fn visit_u64<E: serde::de::Error>(self, _: u64) -> Result<Self::Value, E> {
        Ok(Vec::new())
    }
    fn visit_f64<E: serde::de::Error>(self, _: f64) -> Result<Self::Value, E> {
        Ok(Vec::new())
    }
    fn visit_str<E: serde::de::Error>(self, _: &str) -> Result<Self::Value, E> {
        Ok(Vec::new())
    }
    fn visit_unit<E: serde::de::Error>(self) -> Result<Self::Value, E> {
        Ok(Vec::new())
    }
    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Self::Value, A::Error> {
        Skip.visit_map(map).map(|()| Vec::new())
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        let mut list = Vec::new();
        while let Some(entry) = seq.next_element_seed(Object(Entry::default()))? {
            if let (Some(name), true) = (entry.name, list.len() < MAX_SAMPLE) {
                list.push((name, entry.id));
            }
        }
        Ok(list)
    }
}

/// One `players.sample` entry.
#[derive(Default)]
struct Entry {
    name: Option<String>,
    id: Option<String>,
}

impl ObjectFields for Entry {
    fn field<'de, A: MapAccess<'de>>(&mut self, key: Field, map: &mut A) -> Result<(), A::Error> {
        match key {
            Field::Name => self.name = map.next_value_seed(Facet::Text)?.text(),
            Field::Id => self.id = map.next_value_seed(Facet::Text)?.text(),
            _ => map.next_value_seed(Skip)?,
        }
        Ok(())
    }
}

/// Forge 1.7-1.12: `modinfo.modList`; `Some` whenever the key is there (its array's length
/// if it is one).
#[derive(Default)]
struct Modinfo {
    mod_list: Option<Option<usize>>,
}

impl ObjectFields for Modinfo {
    fn field<'de, A: MapAccess<'de>>(&mut self, key: Field, map: &mut A) -> Result<(), A::Error> {
        match key {
            Field::ModList => self.mod_list = Some(map.next_value_seed(Facet::ArrayLen)?.len()),
            _ => map.next_value_seed(Skip)?,
        }
        Ok(())
    }
}

/// Forge 1.13+: `forgeData.mods` and `forgeData.channels`.
#[derive(Default)]
struct ForgeData {
    mods: Option<Option<usize>>,
    channels: Option<usize>,
}

impl ObjectFields for ForgeData {
    fn field<'de, A: MapAccess<'de>>(&mut self, key: Field, map: &mut A) -> Result<(), A::Error> {
        match key {
            Field::Mods => self.mods = Some(map.next_value_seed(Facet::ArrayLen)?.len()),
            Field::Channels => self.channels = map.next_value_seed(Facet::ArrayLen)?.len(),
            _ => map.next_value_seed(Skip)?,
        }
        Ok(())
    }
}
