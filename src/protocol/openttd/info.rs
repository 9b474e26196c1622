//! `NetworkGameInfo` as OpenTTD serialises it (game info versions 1 to 7), and its mapping
//! onto [`Status`]. Pure, no I/O.
//!
//! Each version adds fields in front of the previous version's (`src/network/core/
//! game_info.h` in OpenTTD's tree documents the table); version 6 dropped the language and
//! the map name, version 3 widened the dates from days since 1920 to days since year 0.

use std::time::Duration;

use serde_json::{json, Map};

use crate::protocol::{DecodeError, Reader};
use crate::status::Status;

/// The newest layout this decoder knows (OpenTTD 14 sends it; 13.0 sends 6). A newer one
/// would put fields of unknown size in front: refused, not guessed.
pub const NEWEST_VERSION: u8 = 7;

/// Days from 1 January of year 0 to 1 January 1920, the base of version 1 and 2 dates.
const DAYS_TO_1920: u32 = 701_265;
#[cfg(test)]
pub(super) const DAYS_TO_1920_FOR_TESTS: u32 = DAYS_TO_1920;

/// One NewGRF the server runs.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Grf {
    /// GRF id and MD5, or (serialisation type 2) only an index into a Game Coordinator table.
    pub id: u32,
    pub md5: Option<[u8; 16]>,
    pub name: Option<String>,
}

/// A decoded `NetworkGameInfo`; fields a version does not carry are `None`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct GameInfo {
    pub version: u8,
    pub ticks_playing: Option<u64>,
    /// Game script version (-1: none) and name.
    pub gamescript: Option<(i32, String)>,
    pub grfs: Vec<Grf>,
    /// Days since 1 January of year 0.
    pub game_date: Option<u32>,
    pub start_date: Option<u32>,
    pub companies_max: Option<u8>,
    pub companies_on: Option<u8>,
    pub spectators_max: Option<u8>,
    pub name: String,
    pub revision: String,
    pub language: Option<u8>,
    pub password: bool,
    pub clients_max: u8,
    pub clients_on: u8,
    pub spectators_on: u8,
    pub map_name: Option<String>,
    pub map_width: u16,
    pub map_height: u16,
    pub landscape: u8,
    pub dedicated: bool,
}

/// Decodes a `SERVER_GAME_INFO` body. Every count is a byte and every string ends in a NUL
/// inside the packet, so nothing here allocates more than the packet holds; a version of 0
/// or above [`NEWEST_VERSION`] is refused.
pub fn decode_game_info(body: &[u8]) -> Result<GameInfo, DecodeError> {
    let mut r = Reader::new(body);
    let version = r.u8()?;
    if version == 0 || version > NEWEST_VERSION {
        return Err(DecodeError::UnexpectedType {
            what: "game info version",
            found: u32::from(version),
        });
    }
    let mut g = GameInfo {
        version,
        ..GameInfo::default()
    };
    if version >= 7 {
        g.ticks_playing = Some(r.u64_le()?);
    }
    let serialisation = if version >= 6 { r.u8()? } else { 0 };
    if serialisation > 2 {
        return Err(DecodeError::Invalid("NewGRF serialisation type"));
    }
    if version >= 5 {
        let v = r.i32_le()?;
        g.gamescript = Some((v, r.cstring()?));
    }
    if version >= 4 {
        let count = r.u8()?;
        for _ in 0..count {
            let grf = if serialisation == 2 {
                Grf {
                    id: r.u32_le()?,
                    ..Grf::default()
                }
            } else {
                let id = r.u32_le()?;
                let md5 = r.array::<16>()?;
                let name = if serialisation == 1 {
                    Some(r.cstring()?)
                } else {
                    None
                };
                Grf {
                    id,
                    md5: Some(md5),
                    name,
                }
            };
            g.grfs.push(grf);
        }
    }
    if version >= 3 {
        g.game_date = Some(r.u32_le()?);
        g.start_date = Some(r.u32_le()?);
    }
    if version >= 2 {
        g.companies_max = Some(r.u8()?);
        g.companies_on = Some(r.u8()?);
        g.spectators_max = Some(r.u8()?);
    }
    g.name = r.cstring()?;
    g.revision = r.cstring()?;
    if version <= 5 {
        g.language = Some(r.u8()?);
    }
    g.password = r.u8()? != 0;
    g.clients_max = r.u8()?;
    g.clients_on = r.u8()?;
    g.spectators_on = r.u8()?;
    if version <= 2 {
        g.game_date = Some(u32::from(r.u16_le()?) + DAYS_TO_1920);
        g.start_date = Some(u32::from(r.u16_le()?) + DAYS_TO_1920);
    }
    if version <= 5 {
        g.map_name = Some(r.cstring()?);
    }
    g.map_width = r.u16_le()?;
    g.map_height = r.u16_le()?;
    g.landscape = r.u8()?;
    g.dedicated = r.u8()? != 0;
    Ok(g)
}

/// Writes `g` in its `version`'s layout (the simulator's side; NewGRFs with id, MD5 and
/// name, serialisation type 1, as a server answers a direct request).
pub fn encode_game_info(g: &GameInfo, out: &mut Vec<u8>) {
    let v = g.version;
    let s = |out: &mut Vec<u8>, t: &str| {
        out.extend_from_slice(t.as_bytes());
        out.push(0);
    };
    out.push(v);
    if v >= 7 {
        out.extend_from_slice(&g.ticks_playing.unwrap_or(0).to_le_bytes());
    }
    if v >= 6 {
        out.push(1);
    }
    if v >= 5 {
        let (gv, gn) = g.gamescript.clone().unwrap_or((-1, String::new()));
        out.extend_from_slice(&gv.to_le_bytes());
        s(out, &gn);
    }
    if v >= 4 {
        out.push(g.grfs.len().min(255) as u8);
        for grf in g.grfs.iter().take(255) {
            out.extend_from_slice(&grf.id.to_le_bytes());
            out.extend_from_slice(&grf.md5.unwrap_or_default());
            if v >= 6 {
                s(out, grf.name.as_deref().unwrap_or(""));
            }
        }
    }
    if v >= 3 {
        out.extend_from_slice(&g.game_date.unwrap_or(0).to_le_bytes());
        out.extend_from_slice(&g.start_date.unwrap_or(0).to_le_bytes());
    }
    if v >= 2 {
        out.extend_from_slice(&[
            g.companies_max.unwrap_or(0),
            g.companies_on.unwrap_or(0),
            g.spectators_max.unwrap_or(0),
        ]);
    }
    s(out, &g.name);
    s(out, &g.revision);
    if v <= 5 {
        out.push(g.language.unwrap_or(0));
    }
    out.extend_from_slice(&[
        u8::from(g.password),
        g.clients_max,
        g.clients_on,
        g.spectators_on,
    ]);
    if v <= 2 {
        let old = |d: Option<u32>| d.unwrap_or(DAYS_TO_1920).saturating_sub(DAYS_TO_1920) as u16;
        out.extend_from_slice(&old(g.game_date).to_le_bytes());
        out.extend_from_slice(&old(g.start_date).to_le_bytes());
    }
    if v <= 5 {
        s(out, g.map_name.as_deref().unwrap_or(""));
    }
    out.extend_from_slice(&g.map_width.to_le_bytes());
    out.extend_from_slice(&g.map_height.to_le_bytes());
    out.push(g.landscape);
    out.push(u8::from(g.dedicated));
}

/// OpenTTD's dates (days since 1 January of year 0, proleptic Gregorian, year 0 a leap
/// year) as `YYYY-MM-DD`.
pub fn date(days: u32) -> String {
    // Civil-from-days on 400-year eras; the era starts 1 March of year 0 (day 60).
    let z = i64::from(days) - 60;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!("{y:04}-{m:02}-{d:02}")
}

/// The landscape byte's name (`temperate`, `arctic`, `tropic`, `toyland`).
pub fn landscape(n: u8) -> String {
    match n {
        0 => "temperate".into(),
        1 => "arctic".into(),
        2 => "tropic".into(),
        3 => "toyland".into(),
        n => n.to_string(),
    }
}

/// Maps a game info onto [`Status`]:
/// - name, version (`server_revision`), password; game `OpenTTD`;
/// - online `clients_on` (spectators included: they are clients), max `clients_max`;
/// - map: the map name where the version carries one (1-5), else `<w>x<h> <landscape>`;
/// - rules: companies, spectators, dates, map size and landscape, game script, NewGRFs.
///
/// No player list: since 12.0 the query carries no client names.
pub fn to_status(g: &GameInfo, rules: bool, detail: bool, latency: Duration) -> Status {
    let size = format!(
        "{}x{} {}",
        g.map_width,
        g.map_height,
        landscape(g.landscape)
    );
    let map = match g.map_name.as_deref() {
        Some(m) if !m.is_empty() => m.to_string(),
        _ => size,
    };
    let mut out = Status {
        online: u32::from(g.clients_on),
        max: u32::from(g.clients_max),
        name: g.name.clone(),
        map: Some(map),
        game: Some("OpenTTD".into()),
        version: Some(g.revision.clone()).filter(|v| !v.is_empty()),
        password: Some(g.password),
        latency,
        ..Status::default()
    };
    if rules {
        out.rules = Some(rule_list(g));
    }
    if detail {
        let mut x = Map::new();
        x.insert("game_info_version".into(), json!(g.version));
        if let (Some(on), Some(max)) = (g.companies_on, g.companies_max) {
            x.insert("companies".into(), json!(on));
            x.insert("max_companies".into(), json!(max));
        }
        x.insert("spectators".into(), json!(g.spectators_on));
        if let Some(d) = g.game_date {
            x.insert("date".into(), json!(date(d)));
        }
        x.insert("newgrfs".into(), json!(g.grfs.len()));
        out.extras = x;
    }
    out
}

fn rule_list(g: &GameInfo) -> Vec<(String, String)> {
    let mut r: Vec<(String, String)> = Vec::new();
    let mut put = |k: &str, v: String| r.push((k.to_string(), v));
    if let Some(n) = g.companies_on {
        put("companies_on", n.to_string());
    }
    if let Some(n) = g.companies_max {
        put("companies_max", n.to_string());
    }
    if let Some(n) = g.spectators_max {
        put("spectators_max", n.to_string());
    }
    put("spectators_on", g.spectators_on.to_string());
    if let Some(d) = g.game_date {
        put("game_date", date(d));
    }
    if let Some(d) = g.start_date {
        put("start_date", date(d));
    }
    if let Some(t) = g.ticks_playing {
        put("ticks_playing", t.to_string());
    }
    put("map_width", g.map_width.to_string());
    put("map_height", g.map_height.to_string());
    put("landscape", landscape(g.landscape));
    put("dedicated", g.dedicated.to_string());
    if let Some((v, name)) = &g.gamescript {
        if *v >= 0 || !name.is_empty() {
            put("gamescript", name.clone());
            put("gamescript_version", v.to_string());
        }
    }
    put("newgrfs", g.grfs.len().to_string());
    r
}
