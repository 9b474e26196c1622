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

/// The GoldSrc mod block (present when the mod byte is 1).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct GoldSrcMod {
    pub link: String,
    pub download: String,
    pub version: i32,
    /// Size in bytes.
    pub size: i32,
    /// 0: single and multiplayer, 1: multiplayer only.
    pub kind: u8,
    /// 0: uses the Half-Life DLL, 1: its own.
    pub dll: u8,
}

/// An A2S_INFO reply from either engine. Fields one engine does not send keep a neutral
/// value (`app_id` 0 and `version` "" for GoldSrc; `address` and `goldsrc_mod` None for
/// Source).
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
    pub bots: u8,
    pub server_type: ServerType,
    pub environment: Environment,
    /// A password is required.
    pub visibility: bool,
    pub vac: bool,
    pub version: String,
    /// Present exactly when `app_id` is 2400 (Source).
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
            bots: 0,
            server_type: ServerType::Dedicated,
            environment: Environment::Linux,
            visibility: false,
            vac: false,
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
    let the_ship = if app_id == THE_SHIP_APP_ID {
        Some(TheShip {
            mode: r.u8()?,
            witnesses: r.u8()?,
            duration: r.u8()?,
        })
    } else {
        None
    };
    let version = r.cstring()?;
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
        bots,
        server_type,
        environment,
        visibility,
        vac,
        version,
        the_ship,
        ..Info::default()
    };
    // The EDF byte is optional: older servers end after the version.
    if r.is_empty() {
        return Ok(info);
    }
    let edf = r.u8()?;
    if edf & EDF_GAME_PORT != 0 {
        info.game_port = Some(r.u16_le()?);
    }
    if edf & EDF_STEAM_ID != 0 {
        info.steam_id = Some(r.u64_le()?);
    }
    if edf & EDF_SOURCETV != 0 {
        let port = r.u16_le()?;
        let name = r.cstring()?;
        info.sourcetv = Some(SourceTv { port, name });
    }
    if edf & EDF_KEYWORDS != 0 {
        info.keywords = Some(r.cstring()?);
    }
    if edf & EDF_GAME_ID != 0 {
        info.game_id = Some(r.u64_le()?);
    }
    Ok(info)
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
    let goldsrc_mod = match r.u8()? {
        0 => None,
        1 => {
            let link = r.cstring()?;
            let download = r.cstring()?;
            // NOTES: a NUL byte sits before the mod version.
            r.skip(1)?;
            Some(GoldSrcMod {
                link,
                download,
                version: r.i32_le()?,
                size: r.i32_le()?,
                kind: r.u8()?,
                dll: r.u8()?,
            })
        }
        _ => return Err(DecodeError::Invalid("GoldSrc mod flag")),
    };
    let vac = r.u8()? != 0;
    let bots = r.u8()?;
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
        info.bots,
        info.server_type.to_byte(),
        info.environment.to_byte(),
        info.visibility.into(),
        info.vac.into(),
    ]);
    if info.app_id == THE_SHIP_APP_ID {
        let ship = info.the_ship.unwrap_or_default();
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
        None => out.push(0),
        Some(m) => {
            out.push(1);
            put_cstr(out, &m.link);
            put_cstr(out, &m.download);
            out.push(0);
            out.extend_from_slice(&m.version.to_le_bytes());
            out.extend_from_slice(&m.size.to_le_bytes());
            out.extend_from_slice(&[m.kind, m.dll]);
        }
    }
    out.extend_from_slice(&[info.vac.into(), info.bots]);
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
            bots: 2,
            server_type: ServerType::Dedicated,
            environment: Environment::Linux,
            visibility: true,
            vac: true,
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
            bots: 3,
            server_type: ServerType::Dedicated,
            environment: Environment::Windows,
            visibility: false,
            vac: true,
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
            link: "http://mod.example".into(),
            download: "http://dl.example".into(),
            version: 1,
            size: 184_000_000,
            kind: 1,
            dll: 1,
        });
        assert_eq!(decode_info(&b), Ok(want));
    }

    /// A mod flag other than 0 or 1 is invalid; a reply cut before its bots byte is truncated.
    #[test]
    fn goldsrc_errors() {
        let mut b = goldsrc_base();
        b.extend_from_slice(&[7, 1, 3]);
        assert_eq!(
            decode_info(&b),
            Err(DecodeError::Invalid("GoldSrc mod flag"))
        );
        let mut b = goldsrc_base();
        b.push(0);
        assert!(matches!(
            decode_info(&b),
            Err(DecodeError::Truncated { .. })
        ));
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
                bots: nums[3],
                server_type: st,
                environment: env,
                visibility: flags[0],
                vac: flags[1],
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
                bots: nums[3],
                visibility: flags[0],
                vac: flags[1],
                goldsrc_mod: md.map(|(link, download, version, size, kind, dll)| GoldSrcMod { link, download, version, size, kind, dll }),
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
