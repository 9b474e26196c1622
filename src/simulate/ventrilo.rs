//! Simulated Ventrilo 3 server: answers the status request (command 1 or 2, checked and
//! unscrambled as a server must) with the reply qstat `-vent` and gamedig 5.3.3 read, in
//! parts of at most 492 bytes, with knobs for hostile replies.

use std::io;
use std::time::Duration;

use super::churn::churn;
use super::hostile::{start, Hostile};
use super::{datagrams, SimServer, World, WorldState};
use crate::protocol::ventrilo::obfuscation::crc16;
use crate::protocol::ventrilo::packet::{
    decode_packet, encode_packet, reply_parts, CMD_DETAIL, CMD_GENERAL, MAX_PART_DATA,
    REQUEST_DATA_LEN,
};
use crate::protocol::ventrilo::text::{self, escape, Info};

/// This simulator, as [`super::simulator`] lists it.
pub const SIM: super::Simulator = super::Simulator {
    protocol: crate::target::Protocol::Ventrilo,
    spawn: |w| Box::pin(spawn(w, Default::default())),
    spawn_demo: |w| Box::pin(spawn_demo(w)),
    demo_rules: &[],
    hostile,
    password: None,
};

/// Hostile behaviour, for the robustness suite.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Misbehaviour {
    #[default]
    None,
    /// Answers nothing.
    Silence,
    /// The parts last to first, each twice (UDP reorders and a resent request is answered
    /// again): still a whole reply.
    Reordered,
    /// Parts for another request id.
    WrongId,
    /// The first part's length field says 40 bytes more than its data.
    LyingLength,
    /// The total length says 10 bytes more than the parts carry.
    LyingTotal,
    /// Never-ending parts: the first of several, again and again, never the rest.
    Endless,
    /// A part numbered past the total.
    BeyondTotal,
    /// Two different parts with one number.
    Conflicting,
    /// 200 parts announced (32 at most).
    TooManyParts,
    /// A 1,000-byte part (492 at most).
    Oversized,
    /// A checksum that is not the text's.
    BadChecksum,
    /// `ERROR: Invalid password`, as a server refusing the request answers.
    ErrorReply,
}

#[derive(Debug, Clone)]
pub struct VentriloConfig {
    pub misbehaviour: Misbehaviour,
    /// Data bytes per part (a real server's 492 unless a test wants more parts).
    pub part_len: usize,
}

impl Default for VentriloConfig {
    fn default() -> Self {
        VentriloConfig {
            misbehaviour: Misbehaviour::None,
            part_len: MAX_PART_DATA,
        }
    }
}

/// The status of the world: two channels, each player a client (Ventrilo has no bots).
/// Detail (`CMD_DETAIL`) adds the channel and client records.
pub fn info(w: &WorldState, detail: bool) -> Info {
    let name = escape(&w.name);
    let f = |k: &str, v: String| (k.to_string(), v);
    let fields = vec![
        f("NAME", name.clone()),
        f("PHONETIC", name),
        f("COMMENT", "Simulated Ventrilo".into()),
        f("AUTH", u8::from(w.password).to_string()),
        f("MAXCLIENTS", w.max.to_string()),
        f("VOICECODEC", "0,GSM 6.10".into()),
        f("VOICEFORMAT", format!("3,{}", escape("44 KHz, 16 bit"))),
        f("UPTIME", "3600".into()),
        f("PLATFORM", "Linux-i386".into()),
        f("VERSION", escape(&w.version)),
        f("CHANNELCOUNT", "2".into()),
        f("CHANNELFIELDS", "CID,PID,PROT,NAME,COMM".into()),
        f("CLIENTCOUNT", w.players.len().to_string()),
        f(
            "CLIENTFIELDS",
            "UID,ADMIN,CID,PHAN,PING,SEC,NAME,COMM".into(),
        ),
    ];
    let r = |pairs: &[(&str, String)]| -> text::Record {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.clone()))
            .collect()
    };
    let (channels, clients) = if detail {
        let channels = vec![
            r(&[
                ("CID", "1".into()),
                ("PID", "0".into()),
                ("PROT", "0".into()),
                ("NAME", "Raid".into()),
                ("COMM", "".into()),
            ]),
            r(&[
                ("CID", "2".into()),
                ("PID", "0".into()),
                ("PROT", "1".into()),
                ("NAME", "AFK".into()),
                ("COMM", escape("back soon, maybe")),
            ]),
        ];
        let clients = w
            .players
            .iter()
            .enumerate()
            .map(|(i, (name, _score, secs))| {
                r(&[
                    ("UID", (i + 1).to_string()),
                    ("ADMIN", u8::from(i == 0).to_string()),
                    ("CID", (1 + i % 2).to_string()),
                    ("PHAN", "0".into()),
                    ("PING", (20 + 10 * i).to_string()),
                    ("SEC", (*secs as u64).to_string()),
                    ("NAME", escape(name)),
                    ("COMM", "".into()),
                ])
            })
            .collect();
        (channels, clients)
    } else {
        (Vec::new(), Vec::new())
    };
    Info {
        fields,
        channels,
        clients,
    }
}

/// The request's id and whether it asked for detail, if it is a status request a server
/// takes: whole, unscrambled, zero field 0, command 1 or 2, 16 bytes of data checked.
fn request(req: &[u8]) -> Option<(u16, bool)> {
    let (h, data) = decode_packet(req).ok()?;
    let whole = h.zero == 0
        && usize::from(h.len) == REQUEST_DATA_LEN
        && data.len() == REQUEST_DATA_LEN
        && h.crc == crc16(&data);
    match h.cmd {
        CMD_GENERAL if whole => Some((h.id, false)),
        CMD_DETAIL if whole => Some((h.id, true)),
        _ => None,
    }
}

fn answer(req: &[u8], w: &WorldState, config: &VentriloConfig, seed: u8) -> Vec<Vec<u8>> {
    use Misbehaviour as M;
    let m = config.misbehaviour;
    let Some((id, detail)) = request(req) else {
        return Vec::new();
    };
    if m == M::Silence {
        return Vec::new();
    }
    let text = match m {
        M::ErrorReply => b"ERROR: Invalid password\n".to_vec(),
        M::Oversized => vec![b'x'; 1000],
        _ => text::encode(&info(w, detail)),
    };
    let part_len = match m {
        // Several parts whatever the world, so there is a rest never sent or a second part.
        M::Endless | M::Conflicting | M::BeyondTotal => 64,
        M::Oversized => 1000,
        _ => config.part_len,
    };
    let id = if m == M::WrongId { id ^ 0x5A5A } else { id };
    let mut parts: Vec<(crate::protocol::ventrilo::packet::Header, Vec<u8>)> =
        reply_parts(&text, id, part_len, seed)
            .into_iter()
            .map(|(h, d)| (h, d.to_vec()))
            .collect();
    match m {
        M::Oversized => {
            // `reply_parts` caps a part at 492: put the whole kilobyte in one.
            let (mut h, _) = parts[0].clone();
            h.len = 1000;
            h.total_len = 1000;
            h.total_parts = 1;
            parts = vec![(h, text.clone())];
        }
        M::LyingLength => parts[0].0.len += 40,
        M::LyingTotal => parts.iter_mut().for_each(|(h, _)| h.total_len += 10),
        M::TooManyParts => parts.iter_mut().for_each(|(h, _)| h.total_parts = 200),
        M::BadChecksum => parts.iter_mut().for_each(|(h, _)| h.crc ^= 0x0101),
        M::BeyondTotal => {
            let last = parts.len() - 1;
            parts[last].0.part = parts[last].0.total_parts;
        }
        M::Endless => {
            let first = parts[0].clone();
            parts = vec![first; 8];
        }
        M::Conflicting => {
            let mut other = parts[0].clone();
            other.1[0] ^= 0x20;
            parts.insert(1, other);
        }
        M::Reordered => {
            parts.reverse();
            parts = parts.into_iter().flat_map(|p| [p.clone(), p]).collect();
        }
        _ => {}
    }
    parts
        .iter()
        .map(|(h, d)| {
            let mut out = Vec::new();
            encode_packet(h, d, &mut out);
            out
        })
        .collect()
}

/// Serves the status on 127.0.0.1, on a port of the system's choosing.
pub async fn spawn(world: World, config: VentriloConfig) -> io::Result<SimServer> {
    let mut seed = 0u8;
    datagrams::spawn(move |req: &[u8], _from, _own| {
        // Fresh keys per reply, as a server draws them.
        seed = seed.wrapping_add(37);
        answer(req, &world.snapshot(), &config, seed)
    })
    .await
}

/// A server whose clients come and go, for `demo`.
pub async fn spawn_demo(world: World) -> io::Result<SimServer> {
    world.update(|w| {
        *w = WorldState {
            name: "Demo Ventrilo".into(),
            map: String::new(),
            game: "Ventrilo".into(),
            version: "3.0.3".into(),
            max: 8,
            bots: 0,
            players: vec![("alice".into(), 0, 900.0), ("bob".into(), 0, 120.0)],
            rules: Vec::new(),
            password: false,
        }
    });
    let mut server = spawn(world.clone(), VentriloConfig::default()).await?;
    server
        .tasks
        .push(churn(world, Duration::from_secs(11), 0, |t| {
            format!("raider{t}")
        }));
    Ok(server)
}

/// The hostile fleet's Ventrilo servers: 2 clients online of 24 (Ventrilo has no bots; the
/// world's are not listed).
pub fn hostile() -> Vec<Hostile> {
    let with = |m: Misbehaviour| {
        start(move |w| {
            spawn(
                w,
                VentriloConfig {
                    misbehaviour: m,
                    ..VentriloConfig::default()
                },
            )
        })
    };
    use Misbehaviour as M;
    // Escaped on the wire (`%0A`, `%00`...), name and phonetic name take about 6 KB of the
    // reply's 15,744 bytes: a dozen parts or so.
    let nasty = super::hostile::nasty_name(2_000, true);
    vec![
        Hostile::up("ok", 2, 24, None, with(M::None)),
        Hostile::up("str-nasty", 2, 24, None, with(M::None)).serving_name(nasty),
        Hostile::up("reordered", 2, 24, None, with(M::Reordered)),
        Hostile::down("silence", "timeout", with(M::Silence)),
        Hostile::down("wrong-id", "mismatch", with(M::WrongId)),
        Hostile::down("lying-length", "malformed", with(M::LyingLength)),
        Hostile::down("lying-total", "malformed", with(M::LyingTotal)),
        Hostile::down("endless", "incomplete", with(M::Endless)),
        Hostile::down("beyond-total", "malformed", with(M::BeyondTotal)),
        Hostile::down("conflicting", "malformed", with(M::Conflicting)),
        Hostile::down("too-many-parts", "too_large", with(M::TooManyParts)),
        Hostile::down("oversized", "too_large", with(M::Oversized)),
        Hostile::down("bad-checksum", "malformed", with(M::BadChecksum)),
        Hostile::down("error-reply", "malformed", with(M::ErrorReply)),
    ]
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use serde_json::json;

    use super::*;
    use crate::protocol::ventrilo::{parse, to_status};

    /// The reply to a detailed request reads back as the world it was made from, names with
    /// the characters a line or record cannot carry raw included.
    #[test]
    fn text_round_trip() {
        let w = WorldState {
            name: "Guild, \"Raid\" % night".into(),
            version: "3.0.3".into(),
            max: 16,
            players: vec![("alice".into(), 0, 60.0), ("bob=b".into(), 0, 5.0)],
            ..WorldState::default()
        };
        let text = text::encode(&info(&w, true));
        let s = to_status(&parse(&text).unwrap(), Duration::ZERO, true, false, true).unwrap();
        assert_eq!(s.name, w.name);
        assert_eq!((s.online, s.max), (2, 16));
        let names: Vec<_> = s.players.unwrap().into_iter().map(|p| p.name).collect();
        assert_eq!(names, ["alice", "bob=b"]);
        assert_eq!(s.extras["channels"], json!(2));
    }

    /// The hostile fleet's nasty name fits a reply (32 parts) in about a dozen parts.
    #[test]
    fn nasty_name_fits() {
        let w = crate::simulate::hostile::world("x").snapshot();
        let w = WorldState {
            name: crate::simulate::hostile::nasty_name(2_000, true),
            ..w
        };
        let parts = text::encode(&info(&w, true)).len().div_ceil(MAX_PART_DATA);
        assert!((10..=16).contains(&parts), "{parts} parts");
    }
}
