//! `big_server` (descriptor 51): the server's browser entry, and its mapping onto
//! [`Status`]. Pure, no I/O.
//!
//! Field order (`nServerInfoBase::NetWriteThis`, then `nServerInfo::NetWriteThis` in the
//! engine): port, host, name, users, protocol versions (min, max), release, max users, user
//! names (one per line), options, URL; 0.2.8.3 and later add the users' global ids (one per
//! line) and the server's gameplay settings, which we do not read.

use std::time::Duration;

use serde_json::{json, Map};

use super::{read_int, read_string, strip_colours, write_int, write_string};
use crate::protocol::{DecodeError, Reader};
use crate::status::{self, Status};

/// More users than the engine's `MAXCLIENTS` (32) times a margin is not a count a server
/// sends: refused rather than published.
pub const MAX_USERS: i32 = 4096;

/// A decoded `big_server` message; `global_ids` is empty where the server sends none.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct BigInfo {
    pub port: i32,
    pub host: String,
    pub name: String,
    pub users: i32,
    pub version_min: i32,
    pub version_max: i32,
    pub release: String,
    pub max_users: i32,
    pub user_names: Vec<String>,
    pub options: String,
    pub url: String,
    pub global_ids: Vec<String>,
}

fn lines(s: &str) -> Vec<String> {
    s.split('\n')
        .filter(|l| !l.is_empty())
        .map(str::to_string)
        .collect()
}

/// Decodes a `big_server` message's data. Counts outside 0..=[`MAX_USERS`] and strings
/// longer than the data are refused; the fields after the global ids are ignored.
pub fn decode_big_info(data: &[u8]) -> Result<BigInfo, DecodeError> {
    let mut r = Reader::new(data);
    let mut i = BigInfo {
        port: read_int(&mut r)?,
        host: read_string(&mut r)?,
        name: read_string(&mut r)?,
        users: read_int(&mut r)?,
        version_min: read_int(&mut r)?,
        version_max: read_int(&mut r)?,
        release: read_string(&mut r)?,
        max_users: read_int(&mut r)?,
        ..BigInfo::default()
    };
    for (what, n) in [("users", i.users), ("max users", i.max_users)] {
        if !(0..=MAX_USERS).contains(&n) {
            return Err(DecodeError::TooLarge {
                what,
                value: u64::from(n as u32),
                limit: MAX_USERS as u64,
            });
        }
    }
    i.user_names = lines(&read_string(&mut r)?);
    if i.user_names.len() > MAX_USERS as usize {
        return Err(DecodeError::TooLarge {
            what: "user names",
            value: i.user_names.len() as u64,
            limit: MAX_USERS as u64,
        });
    }
    i.options = read_string(&mut r)?;
    i.url = read_string(&mut r)?;
    if !r.is_empty() {
        i.global_ids = lines(&read_string(&mut r)?);
    }
    Ok(i)
}

/// Writes a `big_server` message's data as a 0.2.9 server does (no settings tail).
pub fn encode_big_info(i: &BigInfo, out: &mut Vec<u8>) {
    write_int(i.port, out);
    write_string(&i.host, out);
    write_string(&i.name, out);
    write_int(i.users, out);
    write_int(i.version_min, out);
    write_int(i.version_max, out);
    write_string(&i.release, out);
    write_int(i.max_users, out);
    let mut names = String::new();
    for n in &i.user_names {
        names.push_str(n);
        names.push('\n');
    }
    write_string(&names, out);
    write_string(&i.options, out);
    write_string(&i.url, out);
    let mut ids = String::new();
    for n in &i.global_ids {
        ids.push_str(n);
        ids.push('\n');
    }
    write_string(&ids, out);
}

/// Maps the info onto [`Status`]: name (colour codes removed), `users` online (the name
/// list where it is longer), `max_users`, the release as version, game `Armagetron
/// Advanced`; players by name (with their global id where the server sends one); rules:
/// options, URL, protocol versions, the port the server says it listens on.
pub fn to_status(i: &BigInfo, want_players: bool, want_rules: bool, latency: Duration) -> Status {
    let listed = i.user_names.len();
    let mut out = Status {
        online: (i.users.max(0) as u32).max(listed as u32),
        max: i.max_users.max(0) as u32,
        name: strip_colours(&i.name),
        game: Some("Armagetron Advanced".into()),
        version: Some(i.release.clone()).filter(|v| !v.is_empty()),
        latency,
        ..Status::default()
    };
    if want_players {
        out.players = Some(
            i.user_names
                .iter()
                .enumerate()
                .map(|(n, name)| status::Player {
                    name: strip_colours(name),
                    id: i.global_ids.get(n).filter(|g| !g.is_empty()).cloned(),
                    ..status::Player::default()
                })
                .collect(),
        );
    }
    if want_rules {
        let mut r = vec![
            ("port".to_string(), i.port.to_string()),
            ("protocol_min".into(), i.version_min.to_string()),
            ("protocol_max".into(), i.version_max.to_string()),
        ];
        if !i.options.is_empty() {
            r.push(("options".into(), strip_colours(&i.options)));
        }
        if !i.url.is_empty() {
            r.push(("url".into(), i.url.clone()));
        }
        if !i.host.is_empty() {
            r.push(("host".into(), i.host.clone()));
        }
        out.rules = Some(r);
    }
    let mut x = Map::new();
    x.insert("protocol_max".into(), json!(i.version_max));
    out.extras = x;
    out
}
