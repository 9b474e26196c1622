//! The reply's text: `KEY: value` lines, `CHANNEL:` and `CLIENT:` lines holding
//! `FIELD=value` lists separated by commas.
//!
//! ```text
//! NAME: Raid Night
//! PHONETIC: Raid Night
//! COMMENT: Tuesdays
//! AUTH: 0
//! MAXCLIENTS: 8
//! VOICECODEC: 0,GSM 6.10
//! VOICEFORMAT: 3,44 KHz%2C 16 bit
//! UPTIME: 1234
//! PLATFORM: Linux-i386
//! VERSION: 3.0.3
//! CHANNELCOUNT: 1
//! CHANNELFIELDS: CID,PID,PROT,NAME,COMM
//! CHANNEL: CID=1,PID=0,PROT=0,NAME=Raid,COMM=
//! CLIENTCOUNT: 1
//! CLIENTFIELDS: UID,ADMIN,CID,PHAN,PING,SEC,NAME,COMM
//! CLIENT: UID=3,ADMIN=0,CID=1,PHAN=0,PING=42,SEC=600,NAME=alice,COMM=
//! ```
//! Text values escape bytes as `%XX` (two hex digits), as Flagship's own `ventrilostatus.php`
//! decodes them; qstat and gamedig show the escapes as sent. A server that refuses the
//! request answers `ERROR: <why>`.

use crate::protocol::DecodeError;

/// `FIELD=value` pairs, as sent (escapes kept).
pub type Record = Vec<(String, String)>;

/// The reply's lines, in the server's order.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Info {
    /// Every `KEY: value` line but the channels and clients, values as sent.
    pub fields: Vec<(String, String)>,
    pub channels: Vec<Record>,
    pub clients: Vec<Record>,
}

impl Info {
    /// The value of `key`, as sent.
    pub fn field(&self, key: &str) -> Option<&str> {
        self.fields
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
    }

    /// The value of `key` as a number: absent is `None`, not a number `Invalid(what)`.
    pub fn number(&self, key: &str, what: &'static str) -> Result<Option<u64>, DecodeError> {
        self.field(key)
            .map(|v| {
                v.trim()
                    .parse::<u64>()
                    .map_err(|_| DecodeError::Invalid(what))
            })
            .transpose()
    }
}

/// The value of `field` in a channel or client record, as sent.
pub fn record_field<'a>(record: &'a Record, field: &str) -> Option<&'a str> {
    record
        .iter()
        .find(|(k, _)| k == field)
        .map(|(_, v)| v.as_str())
}

/// Reads the text. Bytes that are not UTF-8 become U+FFFD (as gamedig reads them); NULs at
/// line ends (a C string's terminator) and CRs are dropped. `ERROR:` is the server's refusal
/// (`Invalid`); a text without `NAME:` is no status (`Invalid`).
pub fn parse(text: &[u8]) -> Result<Info, DecodeError> {
    let text = String::from_utf8_lossy(text);
    let mut info = Info::default();
    for line in text.split('\n') {
        let line = line.trim_end_matches(['\r', '\0']);
        if line.is_empty() {
            continue;
        }
        let (key, value) = line.split_once(": ").unwrap_or((line, ""));
        match key {
            "ERROR" => {
                return Err(DecodeError::Invalid(
                    "Ventrilo status (the server answered ERROR)",
                ))
            }
            "CHANNEL" => info.channels.push(record(value)),
            "CLIENT" => info.clients.push(record(value)),
            _ => info.fields.push((key.to_string(), value.to_string())),
        }
    }
    if info.field("NAME").is_none() {
        return Err(DecodeError::Invalid("Ventrilo status (no NAME line)"));
    }
    Ok(info)
}

fn record(value: &str) -> Record {
    value
        .split(',')
        .filter(|f| !f.is_empty())
        .map(|f| {
            let (k, v) = f.split_once('=').unwrap_or((f, ""));
            (k.to_string(), v.to_string())
        })
        .collect()
}

/// Decodes `%XX` escapes; a `%` not followed by two hex digits stays as it is. Decoded bytes
/// that are not UTF-8 become U+FFFD.
pub fn unescape(s: &str) -> String {
    if !s.contains('%') {
        return s.to_string();
    }
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        let hex = |at: usize| b.get(at).and_then(|c| (*c as char).to_digit(16));
        if b[i] == b'%' {
            if let (Some(hi), Some(lo)) = (hex(i + 1), hex(i + 2)) {
                out.push((hi * 16 + lo) as u8);
                i += 3;
                continue;
            }
        }
        out.push(b[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// Escapes what would break a line or a record (`%`, `,`, `=`, control bytes) and every
/// byte past ASCII as `%XX` (server side).
pub fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for &b in s.as_bytes() {
        if b == b'%' || b == b',' || b == b'=' || !(0x20..0x7f).contains(&b) {
            out.push_str(&format!("%{b:02X}"));
        } else {
            out.push(char::from(b));
        }
    }
    out
}

/// Writes the text (server side): the fields, then each channel and client record after
/// the field it follows in a real reply (`CHANNELFIELDS`, `CLIENTFIELDS`), values as given.
pub fn encode(info: &Info) -> Vec<u8> {
    let mut out = String::new();
    let rec = |r: &Record| {
        r.iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect::<Vec<_>>()
            .join(",")
    };
    for (k, v) in &info.fields {
        out.push_str(&format!("{k}: {v}\n"));
        let records = match k.as_str() {
            "CHANNELFIELDS" => &info.channels,
            "CLIENTFIELDS" => &info.clients,
            _ => continue,
        };
        let word = if k == "CHANNELFIELDS" {
            "CHANNEL"
        } else {
            "CLIENT"
        };
        for r in records {
            out.push_str(&format!("{word}: {}\n", rec(r)));
        }
    }
    out.into_bytes()
}
