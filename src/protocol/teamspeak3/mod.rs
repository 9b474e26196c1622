//! TeamSpeak 3 ServerQuery (TCP 10011): a line protocol. See `docs/protocols/teamspeak3.md`.
//!
//! # Format
//! ```text
//! banner:   "TS3" LF CR  "Welcome to the TeamSpeak 3 ServerQuery interface, ..." LF CR
//! command:  word { " " key "=" escaped-value } LF          (we end lines with LF)
//! reply:    [ record { "|" record } LF CR ]  "error id=" N " msg=" escaped [ " " more ] LF CR
//! record:   field { " " field };  field: key [ "=" escaped-value ]
//! ```
//! Values escape `\` `/` space `|` and control characters (`\\ \/ \s \p \a \b \f \n \r \t
//! \v`). Every command is answered by exactly one `error` line; `id=0` is success. Servers
//! end lines with LF CR; we also accept CR LF and a bare LF.

pub mod exchange;
pub mod spec;

use std::time::Duration;

use serde_json::{json, Map};

use super::DecodeError;
use crate::status::{Player, Status};

/// The ServerQuery port's default.
pub const DEFAULT_QUERY_PORT: u16 = 10011;
/// The voice port selected with `use port=` unless the target names another.
pub const DEFAULT_VOICE_PORT: u16 = 9987;
/// The most commands one poll sends (`use`, `login`, `serverinfo`, `clientlist`): TeamSpeak
/// bans an address that sends 10 commands within 3 s (its defaults), so a poll stays far
/// below that.
pub const MAX_COMMANDS_PER_POLL: usize = 4;
/// The least time between two polls of one server (the registry's gap): with at most
/// [`MAX_COMMANDS_PER_POLL`] commands per poll, no 3 s window ever holds more than 8
/// (`tests::flood_ban_window`).
pub const MIN_GAP: Duration = Duration::from_secs(2);
/// Records kept from one reply (clients listed); more are counted only.
pub const MAX_RECORDS: usize = 1024;
/// Fields kept per record.
pub const MAX_FIELDS: usize = 256;
/// The first banner line.
pub const BANNER: &str = "TS3";

/// `error id=...` ids with a meaning for the exchange.
pub mod ids {
    pub const OK: u32 = 0;
    /// `invalid serverID`: no virtual server on that voice port.
    pub const INVALID_SERVER_ID: u32 = 1024;
    /// `invalid loginname or password`.
    pub const BAD_LOGIN: u32 = 520;
    /// `insufficient client permissions`.
    pub const PERMISSIONS: u32 = 2568;
    /// `client is flooding`.
    pub const FLOODING: u32 = 524;
    /// `connection failed, you are banned`.
    pub const BANNED: u32 = 3329;
    /// `you are banned (flooding)`.
    pub const FLOOD_BANNED: u32 = 3331;
}

/// Escapes a value for a command or a reply.
pub fn escape(value: &str, out: &mut String) {
    for c in value.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '/' => out.push_str("\\/"),
            ' ' => out.push_str("\\s"),
            '|' => out.push_str("\\p"),
            '\u{7}' => out.push_str("\\a"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{b}' => out.push_str("\\v"),
            c => out.push(c),
        }
    }
}

/// Undoes [`escape`]; an unknown escape keeps the character after the backslash, a trailing
/// lone backslash is dropped.
pub fn unescape(value: &str) -> String {
    let mut out = String::with_capacity(value.len());
    let mut chars = value.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('s') => out.push(' '),
            Some('p') => out.push('|'),
            Some('/') => out.push('/'),
            Some('\\') => out.push('\\'),
            Some('a') => out.push('\u{7}'),
            Some('b') => out.push('\u{8}'),
            Some('f') => out.push('\u{c}'),
            Some('n') => out.push('\n'),
            Some('r') => out.push('\r'),
            Some('t') => out.push('\t'),
            Some('v') => out.push('\u{b}'),
            Some(other) => out.push(other),
            None => {}
        }
    }
    out
}

/// The next line in `buf`: its text without the terminator, and the bytes it took. `None`
/// while no terminator has come. LF CR (the servers'), CR LF and a bare LF all end a line.
pub fn next_line(buf: &[u8]) -> Option<(&[u8], usize)> {
    let lf = buf.iter().position(|&b| b == b'\n')?;
    let mut text = &buf[..lf];
    if let Some(t) = text.strip_suffix(b"\r") {
        text = t;
    }
    // A CR left from the previous line's LF CR, split across reads.
    if let Some(t) = text.strip_prefix(b"\r") {
        text = t;
    }
    // The CR of a server's LF CR is taken with its line when it has come; one arriving in a
    // later read is stripped from the front of the next line.
    let used = if buf.get(lf + 1) == Some(&b'\r') {
        lf + 2
    } else {
        lf + 1
    };
    Some((text, used))
}

/// One record: fields in the server's order, values unescaped.
pub type Record = Vec<(String, String)>;

/// The value of `key` in a record.
pub fn field<'a>(record: &'a Record, key: &str) -> Option<&'a str> {
    record
        .iter()
        .find(|(k, _)| k == key)
        .map(|(_, v)| v.as_str())
}

/// A data line: records split by `|`, fields by spaces. At most [`MAX_RECORDS`] records and
/// [`MAX_FIELDS`] fields each; the rest are counted in the second value.
pub fn decode_records(line: &[u8]) -> (Vec<Record>, usize) {
    let text = String::from_utf8_lossy(line);
    let mut records = Vec::new();
    let mut dropped = 0;
    for raw in text.split('|') {
        if records.len() >= MAX_RECORDS {
            dropped += 1;
            continue;
        }
        let record: Record = raw
            .split(' ')
            .filter(|f| !f.is_empty())
            .take(MAX_FIELDS)
            .map(|f| match f.split_once('=') {
                Some((k, v)) => (k.to_string(), unescape(v)),
                None => (f.to_string(), String::new()),
            })
            .collect();
        records.push(record);
    }
    (records, dropped)
}

/// An `error` line: the command's status.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ErrorLine {
    pub id: u32,
    pub msg: String,
    /// `extra_msg`, when the server adds one (a ban's retry time).
    pub extra: Option<String>,
}

impl ErrorLine {
    pub fn ok(&self) -> bool {
        self.id == ids::OK
    }
}

/// Reads an `error id=N msg=...` line; `None` when the line is data.
pub fn decode_error_line(line: &[u8]) -> Option<Result<ErrorLine, DecodeError>> {
    let text = String::from_utf8_lossy(line);
    let rest = text.strip_prefix("error ")?;
    let (records, _) = decode_records(rest.as_bytes());
    let record = records.into_iter().next().unwrap_or_default();
    let Some(id) = field(&record, "id").and_then(|v| v.parse::<u32>().ok()) else {
        return Some(Err(DecodeError::Invalid(
            "TeamSpeak error line without a numeric id",
        )));
    };
    Some(Ok(ErrorLine {
        id,
        msg: field(&record, "msg").unwrap_or_default().to_string(),
        extra: field(&record, "extra_msg").map(str::to_string),
    }))
}

/// Writes a command line: the word and its parameters, values escaped, LF-terminated.
pub fn encode_command(word: &str, params: &[(&str, &str)], out: &mut Vec<u8>) {
    let mut line = String::from(word);
    for (k, v) in params {
        line.push(' ');
        line.push_str(k);
        line.push('=');
        escape(v, &mut line);
    }
    line.push('\n');
    out.extend_from_slice(line.as_bytes());
}

/// Writes an `error` line as the server does (server side).
pub fn encode_error_line(id: u32, msg: &str, out: &mut Vec<u8>) {
    let mut line = format!("error id={id} msg=");
    escape(msg, &mut line);
    line.push_str("\n\r");
    out.extend_from_slice(line.as_bytes());
}

/// Writes records as one data line (server side).
pub fn encode_records(records: &[Record], out: &mut Vec<u8>) {
    let mut line = String::new();
    for (i, r) in records.iter().enumerate() {
        if i > 0 {
            line.push('|');
        }
        for (j, (k, v)) in r.iter().enumerate() {
            if j > 0 {
                line.push(' ');
            }
            line.push_str(k);
            line.push('=');
            escape(v, &mut line);
        }
    }
    line.push_str("\n\r");
    out.extend_from_slice(line.as_bytes());
}

fn number(record: &Record, key: &str) -> Option<u64> {
    field(record, key).and_then(|v| v.trim().parse::<u64>().ok())
}

fn count(n: u64) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

/// Maps `serverinfo` (and the `clientlist`, when asked for) onto [`Status`].
///
/// online is `virtualserver_clientsonline` minus `virtualserver_queryclientsonline` (query
/// connections, ours included, are no people); max `virtualserver_maxclients`; name
/// `virtualserver_name`; version `virtualserver_version`; password
/// `virtualserver_flag_password`. Players are the `clientlist` records of `client_type=0`
/// (voice clients). With `detail`, the platform, uptime, channels and reserved slots are
/// extras.
pub fn to_status(
    info: &Record,
    clients: Option<&[Record]>,
    latency: Duration,
    detail: bool,
) -> Status {
    let online = number(info, "virtualserver_clientsonline").unwrap_or(0);
    let query = number(info, "virtualserver_queryclientsonline").unwrap_or(0);
    let text = |k: &str| field(info, k).map(str::to_string).filter(|s| !s.is_empty());
    let mut out = Status {
        online: count(online.saturating_sub(query)),
        max: count(number(info, "virtualserver_maxclients").unwrap_or(0)),
        name: text("virtualserver_name").unwrap_or_default(),
        version: text("virtualserver_version"),
        password: number(info, "virtualserver_flag_password").map(|n| n != 0),
        latency,
        ..Status::default()
    };
    if let Some(clients) = clients {
        out.players = Some(
            clients
                .iter()
                .filter(|c| field(c, "client_type") == Some("0"))
                .map(|c| Player {
                    name: field(c, "client_nickname").unwrap_or_default().to_string(),
                    id: field(c, "client_database_id").map(str::to_string),
                    ..Player::default()
                })
                .collect(),
        );
    }
    if detail {
        let mut extras = Map::new();
        for (key, name) in [
            ("virtualserver_platform", "platform"),
            ("virtualserver_uptime", "uptime_seconds"),
            ("virtualserver_channelsonline", "channels"),
            ("virtualserver_reserved_slots", "reserved_slots"),
            ("virtualserver_port", "voice_port"),
        ] {
            if let Some(v) = field(info, key) {
                let value = v.parse::<u64>().map_or_else(|_| json!(v), |n| json!(n));
                extras.insert(name.into(), value);
            }
        }
        extras.insert("query_clients".into(), json!(query));
        out.extras = extras;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// The docs' arithmetic: polls [`MIN_GAP`] apart put at most 2 polls, 8 commands, in any
    /// 3 s window, below TeamSpeak's default ban at 10.
    #[test]
    fn flood_ban_window() {
        let window = Duration::from_secs(3);
        // Polls at 0, gap, 2 gap...: a closed window of 3 s holds floor(3 s / gap) + 1.
        let polls = (window.as_millis() / MIN_GAP.as_millis()) as usize + 1;
        assert_eq!(polls * MAX_COMMANDS_PER_POLL, 8);
        assert!(polls * MAX_COMMANDS_PER_POLL < 10);
    }

    /// Every escape both ways, as the ServerQuery manual lists them.
    #[test]
    fn escapes() {
        let mut s = String::new();
        escape("a b|c/d\\e\tf\ng", &mut s);
        assert_eq!(s, "a\\sb\\pc\\/d\\\\e\\tf\\ng");
        assert_eq!(unescape(&s), "a b|c/d\\e\tf\ng");
        assert_eq!(unescape("x\\"), "x");
        assert_eq!(unescape("\\q"), "q");
        assert_eq!(unescape("\\a\\b\\f\\r\\v"), "\u{7}\u{8}\u{c}\r\u{b}");
    }

    /// Lines end in LF CR (servers), CR LF or LF.
    #[test]
    fn lines() {
        assert_eq!(next_line(b"TS3\n\rWelcome"), Some((&b"TS3"[..], 5)));
        assert_eq!(next_line(b"a\r\nb"), Some((&b"a"[..], 3)));
        assert_eq!(next_line(b"a\nb"), Some((&b"a"[..], 2)));
        assert_eq!(next_line(b"partial"), None);
        assert_eq!(next_line(b"\rerror id=0\n"), Some((&b"error id=0"[..], 12)));
    }

    /// The error line and its fields.
    #[test]
    fn error_lines() {
        assert_eq!(
            decode_error_line(b"error id=0 msg=ok"),
            Some(Ok(ErrorLine {
                id: 0,
                msg: "ok".into(),
                extra: None
            }))
        );
        let ban = decode_error_line(
            b"error id=3329 msg=connection\\sfailed,\\syou\\sare\\sbanned extra_msg=you\\smay\\sretry\\sin\\s600\\sseconds",
        )
        .unwrap()
        .unwrap();
        assert_eq!(ban.id, ids::BANNED);
        assert_eq!(ban.msg, "connection failed, you are banned");
        assert_eq!(ban.extra.as_deref(), Some("you may retry in 600 seconds"));
        assert!(decode_error_line(b"virtualserver_name=x").is_none());
        assert!(matches!(decode_error_line(b"error id=x"), Some(Err(_))));
    }

    /// `serverinfo` and `clientlist` to a status: query clients are not people.
    #[test]
    fn status_mapping() {
        let (info, _) = decode_records(
            b"virtualserver_name=Team\\sRoom virtualserver_clientsonline=5 virtualserver_queryclientsonline=2 \
              virtualserver_maxclients=32 virtualserver_version=3.13.7\\s[Build:\\s1655727713] \
              virtualserver_flag_password=0 virtualserver_platform=Linux",
        );
        let (clients, _) = decode_records(
            b"clid=1 cid=1 client_database_id=1 client_nickname=serveradmin client_type=1|\
              clid=5 cid=1 client_database_id=3 client_nickname=Alice\\sA client_type=0|\
              clid=6 cid=2 client_database_id=4 client_nickname=bob client_type=0",
        );
        let s = to_status(&info[0], Some(&clients), Duration::ZERO, true);
        assert_eq!((s.online, s.max), (3, 32));
        assert_eq!(s.name, "Team Room");
        assert_eq!(s.version.as_deref(), Some("3.13.7 [Build: 1655727713]"));
        assert_eq!(s.password, Some(false));
        let names: Vec<_> = s.players.unwrap().into_iter().map(|p| p.name).collect();
        assert_eq!(names, ["Alice A", "bob"]);
        assert_eq!(s.extras["platform"], json!("Linux"));
        assert_eq!(s.extras["query_clients"], json!(2));
    }

    /// Commands escape their values.
    #[test]
    fn commands() {
        let mut out = Vec::new();
        encode_command(
            "login",
            &[
                ("client_login_name", "serveradmin"),
                ("client_login_password", "a b"),
            ],
            &mut out,
        );
        assert_eq!(
            out,
            b"login client_login_name=serveradmin client_login_password=a\\sb\n"
        );
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(256))]

        #[test]
        fn escape_round_trip(s in "\\PC{0,40}|[ |/\\\\\t\n\r]{0,20}") {
            let mut e = String::new();
            escape(&s, &mut e);
            prop_assert!(!e.contains(' ') && !e.contains('|'));
            prop_assert_eq!(unescape(&e), s);
        }

        #[test]
        fn noise(bytes in proptest::collection::vec(any::<u8>(), 0..200)) {
            let _ = decode_records(&bytes);
            let _ = decode_error_line(&bytes);
            let _ = next_line(&bytes);
        }
    }
}
