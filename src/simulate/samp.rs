//! Simulated SA:MP / open.mp server, with knobs for code pages, open.mp's strictness, silent
//! player lists and hostile replies.

use std::io;
use std::time::Duration;

use encoding_rs::Encoding;

use super::churn::churn;
use super::hostile::{self, start, Hostile};
use super::{datagrams, SimServer, World, WorldState};
use crate::protocol::samp::{
    self, Client, Detailed, Dialect, Header, Info, Opcode, OpenMp, HEADER_LEN,
};

/// This simulator, as [`super::simulator`] lists it.
pub const SIM: super::Simulator = super::Simulator {
    protocol: crate::target::Protocol::Samp,
    spawn: |w| Box::pin(spawn(w, Default::default())),
    spawn_demo: |w| Box::pin(spawn_demo(w)),
    demo_rules: &["weather", "weburl"],
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
    /// Every reply is cut halfway through its body.
    Truncated,
    /// The first length or count of every reply claims far more than the datagram holds.
    LengthBeyondDatagram,
    /// Every reply echoes another port in its header.
    WrongHeader,
    /// Junk datagrams (short, zeros, foreign headers) before every real reply.
    JunkFlood,
}

#[derive(Debug, Clone)]
pub struct SampConfig {
    /// Code page the server's strings are written in.
    pub encoding: &'static Encoding,
    /// Behave like open.mp: answer `o`, ignore `d`, and answer only requests of the exact
    /// length (11 bytes, 15 for `p`). Classic SA:MP ignores `o` instead.
    pub open_mp: bool,
    /// What `o` returns in open.mp mode.
    pub open_mp_info: OpenMp,
    /// The third string of `i`.
    pub language: String,
    /// Ignore `c` and `d` whatever the player count.
    pub silent_players: bool,
    pub misbehaviour: Misbehaviour,
    /// The query's dialect (VC:MP: other magic words, a version in `i`, no `r`/`d`/`o`/`p`,
    /// names alone in `c`); the third string of `i` is then the world's map.
    pub dialect: Dialect,
}

impl Default for SampConfig {
    fn default() -> Self {
        SampConfig {
            encoding: encoding_rs::WINDOWS_1252,
            open_mp: false,
            open_mp_info: OpenMp::default(),
            language: "English".into(),
            silent_players: false,
            misbehaviour: Misbehaviour::None,
            dialect: Dialect::SAMP,
        }
    }
}

/// Serves SA:MP query on 127.0.0.1, on a port of the system's choosing.
pub async fn spawn(world: World, config: SampConfig) -> io::Result<SimServer> {
    datagrams::spawn_world(world, move |req, w| answer(req, w, &config)).await
}

/// An open.mp-flavoured server whose players come and go, for `demo`.
pub async fn spawn_demo(world: World) -> io::Result<SimServer> {
    world.update(|w| {
        *w = WorldState {
            name: "Demo SA:MP Server".into(),
            map: "San Andreas".into(),
            game: "Freeroam".into(),
            version: "omp 1.4.0".into(),
            max: 50,
            players: vec![
                ("Carl_Johnson".into(), 120, 0.0),
                ("Big_Smoke".into(), 64, 0.0),
                ("Sweet".into(), 12, 0.0),
            ],
            rules: Vec::new(),
            ..WorldState::default()
        }
    });
    let config = SampConfig {
        open_mp: true,
        open_mp_info: OpenMp {
            discord: "discord.gg/demo".into(),
            ..OpenMp::default()
        },
        ..SampConfig::default()
    };
    let mut server = spawn(world.clone(), config).await?;
    server
        .tasks
        .push(churn(world, Duration::from_secs(5), 0, |t| {
            format!("Guest_{t}")
        }));
    Ok(server)
}

/// The datagrams the server sends in answer to one request, junk included.
fn answer(datagram: &[u8], w: &WorldState, config: &SampConfig) -> Vec<Vec<u8>> {
    let dialect = &config.dialect;
    let Ok(req) = samp::decode_request_in(dialect, datagram) else {
        return Vec::new();
    };
    let exact = match req.opcode {
        Opcode::Ping => HEADER_LEN + 4,
        _ => HEADER_LEN,
    };
    let ignored = config.misbehaviour == Misbehaviour::Silence
        || (config.open_mp && (req.len != exact || req.opcode == Opcode::Detailed))
        || (!config.open_mp && req.opcode == Opcode::OpenMp)
        || (matches!(req.opcode, Opcode::Clients | Opcode::Detailed)
            && (config.silent_players || w.players.len() > 100))
        || (!dialect.extended && !matches!(req.opcode, Opcode::Info | Opcode::Clients));
    if ignored {
        return Vec::new();
    }
    let header = match config.misbehaviour {
        Misbehaviour::WrongHeader => Header {
            port: req.header.port.wrapping_add(1),
            ..req.header
        },
        _ => req.header,
    };
    let enc = config.encoding;
    let mut out = Vec::new();
    match req.opcode {
        Opcode::Info => {
            let version = &w.version;
            samp::encode_info_in(dialect, &header, &info(w, config), version, enc, &mut out)
        }
        Opcode::Rules => samp::encode_rules(&header, &rules(w), enc, &mut out),
        Opcode::Clients => samp::encode_clients_in(dialect, &header, &clients(w), enc, &mut out),
        Opcode::Detailed => samp::encode_detailed(&header, &detailed(w), enc, &mut out),
        Opcode::OpenMp => samp::encode_open_mp(&header, &config.open_mp_info, enc, &mut out),
        Opcode::Ping => samp::encode_ping_reply(&header, req.payload.unwrap_or_default(), &mut out),
    }
    let mut replies = Vec::new();
    match config.misbehaviour {
        Misbehaviour::Truncated => out.truncate(HEADER_LEN + (out.len() - HEADER_LEN) / 2),
        Misbehaviour::LengthBeyondDatagram => overstate_first_length(dialect, req.opcode, &mut out),
        Misbehaviour::JunkFlood => replies.extend(junk(&req.header)),
        _ => {}
    }
    replies.push(out);
    replies
}

fn info(w: &WorldState, config: &SampConfig) -> Info {
    let third = if config.dialect.third_is_map {
        w.map.clone()
    } else {
        config.language.clone()
    };
    Info {
        password: w.password,
        players: u16::try_from(w.players.len()).unwrap_or(u16::MAX),
        max: u16::try_from(w.max).unwrap_or(u16::MAX),
        hostname: w.name.clone(),
        gamemode: w.game.clone(),
        language: third,
    }
}

/// The rules a stock server publishes, sorted by name as SA:MP sends them, then the world's.
fn rules(w: &WorldState) -> Vec<(String, String)> {
    let mut rules: Vec<(String, String)> = [
        ("lagcomp", "On"),
        ("mapname", w.map.as_str()),
        ("version", w.version.as_str()),
        ("weather", "10"),
        ("weburl", "www.open.mp"),
        ("worldtime", "12:00"),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_string(), v.to_string()))
    .collect();
    rules.extend(w.rules.iter().cloned());
    rules
}

fn clients(w: &WorldState) -> Vec<Client> {
    w.players
        .iter()
        .map(|(name, score, _)| Client {
            name: name.clone(),
            score: *score,
        })
        .collect()
}

fn detailed(w: &WorldState) -> Vec<Detailed> {
    w.players
        .iter()
        .enumerate()
        .map(|(i, (name, score, _))| Detailed {
            id: i as u8,
            name: name.clone(),
            score: *score,
            ping: 20 + i as u32 * 5,
        })
        .collect()
}

/// Rewrites the first length or count after the header to claim more than arrived.
fn overstate_first_length(dialect: &Dialect, opcode: Opcode, out: &mut [u8]) {
    let (at, big): (usize, &[u8]) = match opcode {
        // [version] + password (1) + players (2) + max (2), then the hostname length.
        Opcode::Info => (
            HEADER_LEN + dialect.info_version + 5,
            &1_000_000u32.to_le_bytes(),
        ),
        Opcode::OpenMp => (HEADER_LEN, &1_000_000u32.to_le_bytes()),
        Opcode::Rules | Opcode::Clients | Opcode::Detailed => (HEADER_LEN, &u16::MAX.to_le_bytes()),
        Opcode::Ping => return,
    };
    if let Some(field) = out.get_mut(at..at + big.len()) {
        field.copy_from_slice(big);
    }
}

/// Datagrams no client should take for an answer.
fn junk(header: &Header) -> Vec<Vec<u8>> {
    let mut foreign = Vec::new();
    let other = Header {
        port: header.port.wrapping_add(7),
        ..*header
    };
    samp::encode_info(
        &other,
        &Info::default(),
        encoding_rs::WINDOWS_1252,
        &mut foreign,
    );
    vec![
        Vec::new(),
        vec![0; 3],
        vec![0; 64],
        b"SAMP".to_vec(),
        b"SAMP\xff\xff\xff\xff\x00\x00\x00\x00\x00".to_vec(),
        foreign,
        (0..=255u8).collect(),
    ]
}

/// The hostile fleet's SA:MP servers (see [`super::hostile`]).
pub fn hostile() -> Vec<Hostile> {
    let with = |cfg: fn() -> SampConfig| start(move |w| spawn(w, cfg()));
    let bad = |name, reason, m: Misbehaviour| {
        let cfg = move || SampConfig {
            misbehaviour: m,
            ..Default::default()
        };
        Hostile::down(name, reason, start(move |w| spawn(w, cfg())))
    };
    // SA:MP strings are Windows-1252 on the wire: keep to characters it has (plus NUL, CR,
    // tab, which it passes through).
    let nasty: String = hostile::nasty_name(hostile::UDP_NAME_BYTES, true)
        .chars()
        .filter(|c| !matches!(c, '\u{200F}' | '\u{202E}'))
        .collect();
    vec![
        Hostile::up("ok", 2, 24, None, with(Default::default)),
        // Junk datagrams before every real reply.
        Hostile::up(
            "junk-flood",
            2,
            24,
            None,
            with(|| SampConfig {
                misbehaviour: Misbehaviour::JunkFlood,
                ..Default::default()
            }),
        ),
        Hostile::up("str-long", 2, 24, None, with(Default::default)).serving_name(nasty),
        bad("silence", "timeout", Misbehaviour::Silence),
        bad("truncated", "malformed", Misbehaviour::Truncated),
        bad("length", "malformed", Misbehaviour::LengthBeyondDatagram),
        bad("wrong-header", "mismatch", Misbehaviour::WrongHeader),
    ]
}
