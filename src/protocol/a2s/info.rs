//! A2S_INFO replies: Source `I` and GoldSrc `m`.
//!
//! # Format (the Source layout, lost from the published description, as servers send it)
//! ```text
//! I  protocol u8, name, map, folder, game (strings), app id u16,
//!    players, max players, bots, server type, environment, visibility, VAC (u8),
//!    [The Ship, app id 2400: mode, witnesses, duration (u8)], version (string),
//!    [EDF u8: 0x80 game port u16, 0x10 SteamID u64, 0x40 SourceTV port u16 + name,
//!             0x20 keywords, 0x01 game id u64 -- in this order]
//! m  address, name, map, folder, game (strings), players, max players, protocol,
//!    server type, environment, visibility, mod (u8),
//!    [if mod == 1: link, download link (strings), NUL, version i32, size i32, type u8, dll u8],
//!    VAC, bots (u8)
//! ```
//! Type and OS letters may be upper or lower case (GoldSrc sends upper case).
//!
//! # Replies that end early
//! Real replies stop before their last fields: HLTV proxies and old GoldSrc servers end `m`
//! before the bots byte or before the whole mod block, and some Source servers end `I` right
//! after the version (no EDF) or even before it. So every field after the fixed core (after
//! VAC for `I`, after visibility for `m`) may be missing: a reply that ends on a field boundary
//! there decodes, and the missing fields stay unknown (`None`, or an empty version). A reply
//! that ends inside a field (half a port, a string without its NUL) is still an error: that is
//! damage, not a shorter layout. Once one field is missing, every later one is too.

use super::{kind, open, put_cstr, DecodeError, Reader, SINGLE_HEADER};

/// The Ship's app id: its info reply carries three extra bytes before the version.
pub const THE_SHIP_APP_ID: u16 = 2400;

const EDF_GAME_PORT: u8 = 0x80;
const EDF_STEAM_ID: u8 = 0x10;
const EDF_SOURCETV: u8 = 0x40;
const EDF_KEYWORDS: u8 = 0x20;
const EDF_GAME_ID: u8 = 0x01;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Engine {
    Source,
    GoldSrc,
}

impl Engine {
    pub fn as_str(self) -> &'static str {
        match self {
            Engine::Source => "source",
            Engine::GoldSrc => "goldsrc",
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ServerType {
    Dedicated,
    /// A listen server (`l`).
    NonDedicated,
    /// SourceTV / HLTV relay (`p`).
    Proxy,
    /// Any other letter, lower-cased.
    Other(u8),
}

impl ServerType {
    fn from_byte(b: u8) -> Self {
        match b.to_ascii_lowercase() {
            b'd' => ServerType::Dedicated,
            b'l' => ServerType::NonDedicated,
            b'p' => ServerType::Proxy,
            other => ServerType::Other(other),
        }
    }

    fn to_byte(self) -> u8 {
        match self {
            ServerType::Dedicated => b'd',
            ServerType::NonDedicated => b'l',
            ServerType::Proxy => b'p',
            ServerType::Other(b) => b,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            ServerType::Dedicated => "dedicated",
            ServerType::NonDedicated => "non_dedicated",
            ServerType::Proxy => "proxy",
            ServerType::Other(_) => "other",
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Environment {
    Linux,
    Windows,
    /// `m` or `o`.
    Mac,
    /// Any other letter, lower-cased.
    Other(u8),
}

impl Environment {
    fn from_byte(b: u8) -> Self {
        match b.to_ascii_lowercase() {
            b'l' => Environment::Linux,
            b'w' => Environment::Windows,
            b'm' | b'o' => Environment::Mac,
            other => Environment::Other(other),
        }
    }

    fn to_byte(self) -> u8 {
        match self {
            Environment::Linux => b'l',
            Environment::Windows => b'w',
            Environment::Mac => b'm',
            Environment::Other(b) => b,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Environment::Linux => "linux",
            Environment::Windows => "windows",
            Environment::Mac => "mac",
            Environment::Other(_) => "other",
        }
    }
}

/// The Ship's extra fields.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct TheShip {
    pub mode: u8,
    pub witnesses: u8,
    /// Seconds before a player is arrested while witnessed.
    pub duration: u8,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SourceTv {
    pub port: u16,
    pub name: String,
}

/// The GoldSrc mod block (present when the mod byte is 1). Each field is `None` when the reply
/// ended before it (and then every later field is `None` too).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct GoldSrcMod {
    pub link: Option<String>,
    pub download: Option<String>,
    pub version: Option<i32>,
    /// Size in bytes.
    pub size: Option<i32>,
    /// 0: single and multiplayer, 1: multiplayer only.
    pub kind: Option<u8>,
    /// 0: uses the Half-Life DLL, 1: its own.
    pub dll: Option<u8>,
}

/// An A2S_INFO reply from either engine. Fields one engine does not send keep a neutral
/// value (`app_id` 0 and `version` "" for GoldSrc; `address` and `goldsrc_mod` None for
/// Source). Trailing fields the reply ended before are `None` (see the module doc).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Info {
    pub engine: Engine,
    pub protocol: u8,
    /// GoldSrc only: the server's own idea of its address.
    pub address: Option<String>,
    pub name: String,
    pub map: String,
    pub folder: String,
    /// The game description.
    pub game: String,
    pub app_id: u16,
    /// Bots included; one byte, so it saturates at 255.
    pub players: u8,
    pub max_players: u8,
    /// `None` when a GoldSrc reply ended before its bots byte (HLTV, old servers).
    pub bots: Option<u8>,
    pub server_type: ServerType,
    pub environment: Environment,
    /// A password is required.
    pub visibility: bool,
    /// `None` when a GoldSrc reply ended before its VAC byte.
    pub vac: Option<bool>,
    /// Empty for GoldSrc, and for a Source reply that ended before its version.
    pub version: String,
    /// Present when `app_id` is 2400 (Source) and the reply did not end before it.
    pub the_ship: Option<TheShip>,
    pub goldsrc_mod: Option<GoldSrcMod>,
    pub game_port: Option<u16>,
    pub steam_id: Option<u64>,
    pub sourcetv: Option<SourceTv>,
    pub keywords: Option<String>,
    /// Low 24 bits are the app id.
    pub game_id: Option<u64>,
}

impl Default for Info {
    fn default() -> Self {
        Info {
            engine: Engine::Source,
            protocol: 17,
            address: None,
            name: String::new(),
            map: String::new(),
            folder: String::new(),
            game: String::new(),
            app_id: 0,
            players: 0,
            max_players: 0,
            bots: Some(0),
            server_type: ServerType::Dedicated,
            environment: Environment::Linux,
            visibility: false,
            vac: Some(false),
            version: String::new(),
            the_ship: None,
            goldsrc_mod: None,
            game_port: None,
            steam_id: None,
            sourcetv: None,
            keywords: None,
            game_id: None,
        }
    }
}

/// Decodes `I` (Source) or `m` (GoldSrc). Bytes after the last known field are ignored.
pub fn decode_info(msg: &[u8]) -> Result<Info, DecodeError> {
    let mut r = Reader::new(msg);
    match open(&mut r)? {
        kind::INFO_SOURCE => decode_source(&mut r),
        kind::INFO_GOLDSRC => decode_goldsrc(&mut r),
        other => Err(DecodeError::UnexpectedType {
            what: "info reply type",
            found: other.into(),
        }),
    }
}

fn decode_source(r: &mut Reader<'_>) -> Result<Info, DecodeError> {
    let protocol = r.u8()?;
    let name = r.cstring()?;
    let map = r.cstring()?;
    let folder = r.cstring()?;
    let game = r.cstring()?;
    let app_id = r.u16_le()?;
    let players = r.u8()?;
    let max_players = r.u8()?;
    let bots = r.u8()?;
    let server_type = ServerType::from_byte(r.u8()?);
    let environment = Environment::from_byte(r.u8()?);
    let visibility = r.u8()? != 0;
    let vac = r.u8()? != 0;
    let mut info = Info {
        engine: Engine::Source,
        protocol,
        name,
        map,
        folder,
        game,
        app_id,
        players,
        max_players,
        bots: Some(bots),
        server_type,
        environment,
        visibility,
        vac: Some(vac),
        ..Info::default()
    };
    // Everything from here on may be missing (module doc: replies that end early).
    if app_id == THE_SHIP_APP_ID {
        info.the_ship = optional(r, |r| {
            Ok(TheShip {
                mode: r.u8()?,
                witnesses: r.u8()?,
                duration: r.u8()?,
            })
        })?;
        if info.the_ship.is_none() {
            return Ok(info);
        }
    }
    info.version = optional(r, Reader::cstring)?.unwrap_or_default();
    let Some(edf) = optional(r, Reader::u8)? else {
        return Ok(info);
    };
    if edf & EDF_GAME_PORT != 0 {
        info.game_port = optional(r, Reader::u16_le)?;
    }
    if edf & EDF_STEAM_ID != 0 {
        info.steam_id = optional(r, Reader::u64_le)?;
    }
    if edf & EDF_SOURCETV != 0 {
        info.sourcetv = optional(r, |r| {
            let port = r.u16_le()?;
            let name = r.cstring()?;
            Ok(SourceTv { port, name })
        })?;
    }
    if edf & EDF_KEYWORDS != 0 {
        info.keywords = optional(r, Reader::cstring)?;
    }
    if edf & EDF_GAME_ID != 0 {
        info.game_id = optional(r, Reader::u64_le)?;
    }
    Ok(info)
}

/// A trailing field that may be missing: `None` when the reply already ended, the field when
/// it is all there, an error when the reply ends inside it.
fn optional<'a, T>(
    r: &mut Reader<'a>,
    field: impl FnOnce(&mut Reader<'a>) -> Result<T, DecodeError>,
) -> Result<Option<T>, DecodeError> {
    if r.is_empty() {
        Ok(None)
    } else {
        field(r).map(Some)
    }
}

fn decode_goldsrc(r: &mut Reader<'_>) -> Result<Info, DecodeError> {
    let address = Some(r.cstring()?);
    let name = r.cstring()?;
    let map = r.cstring()?;
    let folder = r.cstring()?;
    let game = r.cstring()?;
    let players = r.u8()?;
    let max_players = r.u8()?;
    let protocol = r.u8()?;
    let server_type = ServerType::from_byte(r.u8()?);
    let environment = Environment::from_byte(r.u8()?);
    let visibility = r.u8()? != 0;
    // Everything from here on may be missing (module doc: replies that end early).
    let goldsrc_mod = match optional(r, Reader::u8)? {
        None | Some(0) => None,
        Some(1) => {
            let link = optional(r, Reader::cstring)?;
            let download = optional(r, Reader::cstring)?;
            // NOTES: a NUL byte sits before the mod version.
            let version = match optional(r, Reader::u8)? {
                Some(_) => optional(r, Reader::i32_le)?,
                None => None,
            };
            Some(GoldSrcMod {
                link,
                download,
                version,
                size: optional(r, Reader::i32_le)?,
                kind: optional(r, Reader::u8)?,
                dll: optional(r, Reader::u8)?,
            })
        }
        Some(_) => return Err(DecodeError::Invalid("GoldSrc mod flag")),
    };
    let vac = optional(r, Reader::u8)?.map(|b| b != 0);
    let bots = optional(r, Reader::u8)?;
    Ok(Info {
        engine: Engine::GoldSrc,
        protocol,
        address,
        name,
        map,
        folder,
        game,
        players,
        max_players,
        bots,
        server_type,
        environment,
        visibility,
        vac,
        goldsrc_mod,
        ..Info::default()
    })
}

/// Encodes an info reply in `info.engine`'s layout. Fields that layout lacks are not written.
pub fn encode_info(info: &Info, out: &mut Vec<u8>) {
    out.extend_from_slice(&SINGLE_HEADER);
    match info.engine {
        Engine::Source => encode_source(info, out),
        Engine::GoldSrc => encode_goldsrc(info, out),
    }
}

/// Writes the Source layout. A reply ends where the first missing trailing field is (a
/// missing VAC or bots byte is written as 0: the Source core has both): so a decoded reply
/// that ended early encodes to the same bytes again.
fn encode_source(info: &Info, out: &mut Vec<u8>) {
    out.push(kind::INFO_SOURCE);
    out.push(info.protocol);
    for s in [&info.name, &info.map, &info.folder, &info.game] {
        put_cstr(out, s);
    }
    out.extend_from_slice(&info.app_id.to_le_bytes());
    out.extend_from_slice(&[
        info.players,
        info.max_players,
        info.bots.unwrap_or(0),
        info.server_type.to_byte(),
        info.environment.to_byte(),
        info.visibility.into(),
        info.vac.unwrap_or(false).into(),
    ]);
    if info.app_id == THE_SHIP_APP_ID {
        let Some(ship) = info.the_ship else {
            return;
        };
        out.extend_from_slice(&[ship.mode, ship.witnesses, ship.duration]);
    }
    put_cstr(out, &info.version);
    let mut edf = 0;
    for (present, bit) in [
        (info.game_port.is_some(), EDF_GAME_PORT),
        (info.steam_id.is_some(), EDF_STEAM_ID),
        (info.sourcetv.is_some(), EDF_SOURCETV),
        (info.keywords.is_some(), EDF_KEYWORDS),
        (info.game_id.is_some(), EDF_GAME_ID),
    ] {
        if present {
            edf |= bit;
        }
    }
    if edf == 0 {
        return;
    }
    out.push(edf);
    if let Some(p) = info.game_port {
        out.extend_from_slice(&p.to_le_bytes());
    }
    if let Some(id) = info.steam_id {
        out.extend_from_slice(&id.to_le_bytes());
    }
    if let Some(tv) = &info.sourcetv {
        out.extend_from_slice(&tv.port.to_le_bytes());
        put_cstr(out, &tv.name);
    }
    if let Some(k) = &info.keywords {
        put_cstr(out, k);
    }
    if let Some(g) = info.game_id {
        out.extend_from_slice(&g.to_le_bytes());
    }
}

/// Writes the GoldSrc layout, ending the reply at the first missing trailing field (as HLTV
/// and old servers do): `vac: None` ends it before the VAC byte, `bots: None` before the bots
/// byte, a mod field `None` inside the mod block.
fn encode_goldsrc(info: &Info, out: &mut Vec<u8>) {
    out.push(kind::INFO_GOLDSRC);
    put_cstr(out, info.address.as_deref().unwrap_or(""));
    for s in [&info.name, &info.map, &info.folder, &info.game] {
        put_cstr(out, s);
    }
    out.extend_from_slice(&[
        info.players,
        info.max_players,
        info.protocol,
        info.server_type.to_byte().to_ascii_uppercase(),
        info.environment.to_byte().to_ascii_uppercase(),
        info.visibility.into(),
    ]);
    match &info.goldsrc_mod {
        // Nothing after visibility at all: the reply that ends before the mod block.
        None if info.vac.is_none() => return,
        None => out.push(0),
        Some(m) => {
            out.push(1);
            if encode_mod(m, out).is_none() {
                return;
            }
        }
    }
    let Some(vac) = info.vac else { return };
    out.push(vac.into());
    if let Some(bots) = info.bots {
        out.push(bots);
    }
}

/// The mod block's fields up to the first missing one; `None` when one was missing.
fn encode_mod(m: &GoldSrcMod, out: &mut Vec<u8>) -> Option<()> {
    put_cstr(out, m.link.as_deref()?);
    put_cstr(out, m.download.as_deref()?);
    let version = m.version?;
    out.push(0);
    out.extend_from_slice(&version.to_le_bytes());
    out.extend_from_slice(&m.size?.to_le_bytes());
    out.push(m.kind?);
    out.push(m.dll?);
    Some(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// A Source reply laid out field by field, up to and including the version.
    fn source_base(app_id: u16) -> Vec<u8> {
        let mut b = vec![0xFF, 0xFF, 0xFF, 0xFF, b'I', 17];
        b.extend_from_slice(b"My Server\0de_dust2\0cstrike\0Counter-Strike: Source\0");
        b.extend_from_slice(&app_id.to_le_bytes());
        b.extend_from_slice(&[5, 32, 2, b'd', b'l', 1, 1]);
        b
    }

    fn expected_base(app_id: u16) -> Info {
        Info {
            engine: Engine::Source,
            protocol: 17,
            name: "My Server".into(),
            map: "de_dust2".into(),
            folder: "cstrike".into(),
            game: "Counter-Strike: Source".into(),
            app_id,
            players: 5,
            max_players: 32,
            bots: Some(2),
            server_type: ServerType::Dedicated,
            environment: Environment::Linux,
            visibility: true,
            vac: Some(true),
            version: "1.0.0.22".into(),
            ..Info::default()
        }
    }

    /// A Source reply that ends after the version (no EDF byte) decodes with every EDF
    /// field None.
    #[test]
    fn source_without_edf() {
        let mut b = source_base(240);
        b.extend_from_slice(b"1.0.0.22\0");
        assert_eq!(decode_info(&b), Ok(expected_base(240)));
    }

    /// Each EDF flag alone reads exactly its field.
    #[test]
    fn source_each_edf_flag() {
        type Case = (u8, &'static [u8], fn(&mut Info));
        let cases: [Case; 5] = [
            (0x80, &[0x87, 0x69], |i| i.game_port = Some(27015)),
            (0x10, &[1, 0, 0, 0, 0, 0, 0x10, 0x01], |i| {
                i.steam_id = Some(0x0110_0000_0000_0001)
            }),
            (0x40, b"\x88\x69SourceTV\0", |i| {
                i.sourcetv = Some(SourceTv {
                    port: 27016,
                    name: "SourceTV".into(),
                })
            }),
            (0x20, b"alltalk,cp12,mp100\0", |i| {
                i.keywords = Some("alltalk,cp12,mp100".into())
            }),
            (0x01, &[0xF0, 0x00, 0x00, 0, 0, 0, 0, 0], |i| {
                i.game_id = Some(240)
            }),
        ];
        for (flag, field, set) in cases {
            let mut b = source_base(240);
            b.extend_from_slice(b"1.0.0.22\0");
            b.push(flag);
            b.extend_from_slice(field);
            let mut want = expected_base(240);
            set(&mut want);
            assert_eq!(decode_info(&b), Ok(want), "flag {flag:#04x}");
        }
    }

    /// All EDF flags together are read in the documented order, and unknown bits are
    /// ignored; a field cut short is an error.
    #[test]
    fn source_all_edf_flags() {
        let mut b = source_base(240);
        b.extend_from_slice(b"1.0.0.22\0");
        b.push(0xF1 | 0x02);
        b.extend_from_slice(&[0x87, 0x69]);
        b.extend_from_slice(&[1, 0, 0, 0, 0, 0, 0x10, 0x01]);
        b.extend_from_slice(b"\x88\x69TV\0");
        b.extend_from_slice(b"kw\0");
        b.extend_from_slice(&[0xF0, 0, 0, 0, 0, 0, 0, 0]);
        let mut want = expected_base(240);
        want.game_port = Some(27015);
        want.steam_id = Some(0x0110_0000_0000_0001);
        want.sourcetv = Some(SourceTv {
            port: 27016,
            name: "TV".into(),
        });
        want.keywords = Some("kw".into());
        want.game_id = Some(240);
        assert_eq!(decode_info(&b), Ok(want));
        assert!(matches!(
            decode_info(&b[..b.len() - 1]),
            Err(DecodeError::Truncated { .. })
        ));
    }

    /// The Ship (app id 2400) carries mode, witnesses and duration before the version.
    #[test]
    fn the_ship() {
        let mut b = source_base(2400);
        b.extend_from_slice(&[1, 3, 60]);
        b.extend_from_slice(b"1.0.0.22\0");
        let mut want = expected_base(2400);
        want.the_ship = Some(TheShip {
            mode: 1,
            witnesses: 3,
            duration: 60,
        });
        assert_eq!(decode_info(&b), Ok(want));
    }

    fn goldsrc_base() -> Vec<u8> {
        let mut b = vec![0xFF, 0xFF, 0xFF, 0xFF, b'm'];
        b.extend_from_slice(b"77.111.194.110:27015\0FASTPATH\0de_dust\0cstrike\0Counter-Strike\0");
        b.extend_from_slice(&[11, 20, 47, b'd', b'W', 0]);
        b
    }

    fn goldsrc_expected() -> Info {
        Info {
            engine: Engine::GoldSrc,
            protocol: 47,
            address: Some("77.111.194.110:27015".into()),
            name: "FASTPATH".into(),
            map: "de_dust".into(),
            folder: "cstrike".into(),
            game: "Counter-Strike".into(),
            players: 11,
            max_players: 20,
            bots: Some(3),
            server_type: ServerType::Dedicated,
            environment: Environment::Windows,
            visibility: false,
            vac: Some(true),
            ..Info::default()
        }
    }

    /// GoldSrc `m` without a mod block; lower-case `d` and upper-case `W` both decode.
    #[test]
    fn goldsrc_without_mod() {
        let mut b = goldsrc_base();
        b.extend_from_slice(&[0, 1, 3]);
        assert_eq!(decode_info(&b), Ok(goldsrc_expected()));
    }

    /// GoldSrc `m` with a mod block, including the NUL byte before the mod version.
    #[test]
    fn goldsrc_with_mod() {
        let mut b = goldsrc_base();
        b.push(1);
        b.extend_from_slice(b"http://mod.example\0http://dl.example\0\0");
        b.extend_from_slice(&1i32.to_le_bytes());
        b.extend_from_slice(&184_000_000i32.to_le_bytes());
        b.extend_from_slice(&[1, 1]);
        b.extend_from_slice(&[1, 3]);
        let mut want = goldsrc_expected();
        want.goldsrc_mod = Some(GoldSrcMod {
            link: Some("http://mod.example".into()),
            download: Some("http://dl.example".into()),
            version: Some(1),
            size: Some(184_000_000),
            kind: Some(1),
            dll: Some(1),
        });
        assert_eq!(decode_info(&b), Ok(want));
    }

    /// A mod flag other than 0 or 1 is invalid.
    #[test]
    fn goldsrc_errors() {
        let mut b = goldsrc_base();
        b.extend_from_slice(&[7, 1, 3]);
        assert_eq!(
            decode_info(&b),
            Err(DecodeError::Invalid("GoldSrc mod flag"))
        );
    }

    /// A GoldSrc reply without a mod block, cut after each optional field: the fields present
    /// decode, the missing ones stay unknown, and the short reply encodes back to its bytes.
    #[test]
    fn goldsrc_cut_after_each_optional_field() {
        let mut full = goldsrc_base(); // ends with visibility: the fixed core
        let core = full.len();
        full[core - 3] = b'D'; // server type as GoldSrc writes it, so re-encoding matches
        full.extend_from_slice(&[
            0, // mod flag: no mod block
            1, // VAC
            3, // bots
        ]);
        let cases: [(usize, Option<bool>, Option<u8>); 4] = [
            (core, None, None),              // before the mod flag (HLTV)
            (core + 1, None, None),          // after the mod flag, before VAC
            (core + 2, Some(true), None),    // before the bots byte (old servers)
            (core + 3, Some(true), Some(3)), // complete
        ];
        for (len, vac, bots) in cases {
            let mut want = goldsrc_expected();
            want.vac = vac;
            want.bots = bots;
            let got = decode_info(&full[..len]);
            assert_eq!(got, Ok(want.clone()), "cut at {len}");
            // Nothing is invented: re-encoding gives the bytes that arrived (the lone mod
            // flag 0 before a missing VAC carries nothing, so it is not written back).
            let mut again = Vec::new();
            encode_info(&want, &mut again);
            let expect_len = if len == core + 1 { core } else { len };
            assert_eq!(again, full[..expect_len], "cut at {len}");
        }
    }

    /// A GoldSrc reply with a mod block, cut at every field boundary of the block and after:
    /// each field present decodes, every later one is None; cuts inside a field are errors.
    #[test]
    fn goldsrc_mod_cut_after_each_field() {
        let mut full = goldsrc_base();
        let core = full.len();
        full[core - 3] = b'D'; // server type as GoldSrc writes it, so re-encoding matches
        full.push(1); // mod flag
        let mut bounds = vec![full.len()];
        full.extend_from_slice(b"http://mod.example\0"); // link
        bounds.push(full.len());
        full.extend_from_slice(b"http://dl.example\0"); // download link
        bounds.push(full.len());
        full.push(0); // the NUL before the version
        full.extend_from_slice(&2i32.to_le_bytes()); // version
        bounds.push(full.len());
        full.extend_from_slice(&184_000_000i32.to_le_bytes()); // size
        bounds.push(full.len());
        full.push(1); // kind: multiplayer only
        bounds.push(full.len());
        full.push(0); // dll: the Half-Life one
        bounds.push(full.len());
        full.push(1); // VAC
        bounds.push(full.len());
        full.push(4); // bots
        bounds.push(full.len());
        let complete = GoldSrcMod {
            link: Some("http://mod.example".into()),
            download: Some("http://dl.example".into()),
            version: Some(2),
            size: Some(184_000_000),
            kind: Some(1),
            dll: Some(0),
        };
        for (i, &len) in bounds.iter().enumerate() {
            let info = decode_info(&full[..len]).unwrap_or_else(|e| panic!("cut at {len}: {e}"));
            let m = info.goldsrc_mod.clone().expect("mod flag was 1");
            let present = [
                m.link.is_some(),
                m.download.is_some(),
                m.version.is_some(),
                m.size.is_some(),
                m.kind.is_some(),
                m.dll.is_some(),
                info.vac.is_some(),
                info.bots.is_some(),
            ];
            // Exactly the first `i` optional fields arrived.
            assert_eq!(present.iter().filter(|p| **p).count(), i, "cut at {len}");
            assert!(present[..i].iter().all(|p| *p), "cut at {len}");
            if i >= 6 {
                assert_eq!(m, complete);
            }
            let mut again = Vec::new();
            encode_info(&info, &mut again);
            assert_eq!(again, full[..len], "cut at {len}");
        }
        assert_eq!(decode_info(&full).unwrap().bots, Some(4));
        // Between the boundaries the reply ends inside a field: damage, an error.
        for len in bounds[0]..full.len() {
            if !bounds.contains(&len) && len != bounds[2] + 1 {
                assert!(decode_info(&full[..len]).is_err(), "cut at {len}");
            }
        }
    }

    /// A Source reply cut after each optional field: before the version, after it (no EDF),
    /// after the EDF byte, and after each EDF field; cuts inside a field are errors.
    #[test]
    fn source_cut_after_each_optional_field() {
        let mut full = source_base(240); // ends with VAC: the fixed core
        let mut bounds = vec![full.len()];
        full.extend_from_slice(b"1.0.0.22\0"); // version
        bounds.push(full.len());
        full.push(0x80 | 0x10 | 0x40 | 0x20 | 0x01); // EDF
        bounds.push(full.len());
        full.extend_from_slice(&[0x87, 0x69]); // game port 27015
        bounds.push(full.len());
        full.extend_from_slice(&[1, 0, 0, 0, 0, 0, 0x10, 0x01]); // SteamID
        bounds.push(full.len());
        full.extend_from_slice(b"\x88\x69TV\0"); // SourceTV port 27016 and name
        bounds.push(full.len());
        full.extend_from_slice(b"kw\0"); // keywords
        bounds.push(full.len());
        full.extend_from_slice(&[0xF0, 0, 0, 0, 0, 0, 0, 0]); // game id 240
        bounds.push(full.len());
        for (i, &len) in bounds.iter().enumerate() {
            let info = decode_info(&full[..len]).unwrap_or_else(|e| panic!("cut at {len}: {e}"));
            let mut want = expected_base(240);
            if i < 1 {
                want.version = String::new();
            }
            if i >= 3 {
                want.game_port = Some(27015);
            }
            if i >= 4 {
                want.steam_id = Some(0x0110_0000_0000_0001);
            }
            if i >= 5 {
                want.sourcetv = Some(SourceTv {
                    port: 27016,
                    name: "TV".into(),
                });
            }
            if i >= 6 {
                want.keywords = Some("kw".into());
            }
            if i >= 7 {
                want.game_id = Some(240);
            }
            assert_eq!(info, want, "cut at {len}");
            assert_eq!(info.bots, Some(2), "the Source core always has bots");
        }
        for len in bounds[0]..full.len() {
            if !bounds.contains(&len) {
                assert!(decode_info(&full[..len]).is_err(), "cut at {len}");
            }
        }
    }

    /// The Ship's reply may end before its three extra bytes; one or two of them is damage.
    #[test]
    fn the_ship_cut() {
        let b = source_base(2400);
        let mut want = expected_base(2400);
        want.version = String::new();
        assert_eq!(decode_info(&b), Ok(want));
        let mut b1 = b.clone();
        b1.push(1);
        assert!(matches!(
            decode_info(&b1),
            Err(DecodeError::Truncated { .. })
        ));
    }

    /// The fixed core is not optional: a reply cut inside it is an error.
    #[test]
    fn core_cut_is_an_error() {
        let b = source_base(240);
        for len in 0..b.len() {
            assert!(decode_info(&b[..len]).is_err(), "source cut at {len}");
        }
        let b = goldsrc_base();
        for len in 0..b.len() {
            assert!(decode_info(&b[..len]).is_err(), "goldsrc cut at {len}");
        }
    }

    fn text() -> impl Strategy<Value = String> {
        "[^\0]{0,24}"
    }

    prop_compose! {
        fn source_info()(
            strings in proptest::collection::vec(text(), 5),
            app_id in prop_oneof![Just(THE_SHIP_APP_ID), any::<u16>()],
            nums in any::<[u8; 6]>(),
            ship in any::<[u8; 3]>(),
            flags in any::<[bool; 2]>(),
            st in prop_oneof![Just(ServerType::Dedicated), Just(ServerType::NonDedicated), Just(ServerType::Proxy)],
            env in prop_oneof![Just(Environment::Linux), Just(Environment::Windows), Just(Environment::Mac)],
            game_port in proptest::option::of(any::<u16>()),
            steam_id in proptest::option::of(any::<u64>()),
            tv in proptest::option::of((any::<u16>(), text())),
            keywords in proptest::option::of(text()),
            game_id in proptest::option::of(any::<u64>()),
        ) -> Info {
            Info {
                engine: Engine::Source,
                protocol: nums[0],
                address: None,
                name: strings[0].clone(),
                map: strings[1].clone(),
                folder: strings[2].clone(),
                game: strings[3].clone(),
                app_id,
                players: nums[1],
                max_players: nums[2],
                bots: Some(nums[3]),
                server_type: st,
                environment: env,
                visibility: flags[0],
                vac: Some(flags[1]),
                version: strings[4].clone(),
                the_ship: (app_id == THE_SHIP_APP_ID).then_some(TheShip { mode: ship[0], witnesses: ship[1], duration: ship[2] }),
                goldsrc_mod: None,
                game_port,
                steam_id,
                sourcetv: tv.map(|(port, name)| SourceTv { port, name }),
                keywords,
                game_id,
            }
        }
    }

    prop_compose! {
        fn goldsrc_info()(
            strings in proptest::collection::vec(text(), 5),
            nums in any::<[u8; 4]>(),
            flags in any::<[bool; 2]>(),
            md in proptest::option::of((text(), text(), any::<i32>(), any::<i32>(), any::<u8>(), any::<u8>())),
        ) -> Info {
            Info {
                engine: Engine::GoldSrc,
                protocol: nums[0],
                address: Some(strings[4].clone()),
                name: strings[0].clone(),
                map: strings[1].clone(),
                folder: strings[2].clone(),
                game: strings[3].clone(),
                players: nums[1],
                max_players: nums[2],
                bots: Some(nums[3]),
                visibility: flags[0],
                vac: Some(flags[1]),
                goldsrc_mod: md.map(|(link, download, version, size, kind, dll)| GoldSrcMod {
                    link: Some(link),
                    download: Some(download),
                    version: Some(version),
                    size: Some(size),
                    kind: Some(kind),
                    dll: Some(dll),
                }),
                ..Info::default()
            }
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(500))]
        /// Source info round-trips through encode and decode, with any EDF combination.
        #[test]
        fn source_round_trip(info in source_info()) {
            let mut b = Vec::new();
            encode_info(&info, &mut b);
            prop_assert_eq!(decode_info(&b), Ok(info));
        }

        /// GoldSrc info round-trips, with and without the mod block.
        #[test]
        fn goldsrc_round_trip(info in goldsrc_info()) {
            let mut b = Vec::new();
            encode_info(&info, &mut b);
            prop_assert_eq!(decode_info(&b), Ok(info));
        }

        /// Any GoldSrc reply cut anywhere after its fixed core decodes exactly the fields that
        /// arrived, or fails (a cut inside a field); a decoded cut re-encodes to the same bytes.
        #[test]
        fn goldsrc_any_cut(info in goldsrc_info(), cut in any::<prop::sample::Index>()) {
            let mut b = Vec::new();
            encode_info(&info, &mut b);
            let len = cut.index(b.len() + 1);
            if let Ok(short) = decode_info(&b[..len]) {
                let mut again = Vec::new();
                encode_info(&short, &mut again);
                // A lone mod flag 0 carries nothing and is not written back.
                prop_assert!(again == b[..len] || (again.len() + 1 == len && b[len - 1] == 0));
                prop_assert_eq!(short.bots.is_some(), len == b.len());
            }
        }

        /// Every truncation and single-byte mutation of a valid reply decodes or errors,
        /// never panics.
        #[test]
        fn mutated_never_panics(info in source_info(), cut in any::<prop::sample::Index>(), pos in any::<prop::sample::Index>(), byte in any::<u8>()) {
            let mut b = Vec::new();
            encode_info(&info, &mut b);
            let _ = decode_info(&b[..cut.index(b.len() + 1)]);
            let i = pos.index(b.len());
            b[i] = byte;
            let _ = decode_info(&b);
        }
    }
}
